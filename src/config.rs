//! Site configuration: `profilegen.yaml` at the site root.
//!
//! Every key is optional. An unknown key or a value of the wrong type is an
//! error naming the key, the line and the column.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::diagnostics::{Diagnostic, Location};
use crate::identifiers::Registry;
use crate::tex::Definitions;

/// The configuration file's name, at the site root.
pub const CONFIG_FILE: &str = "profilegen.yaml";

/// The whole site configuration.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SiteConfig {
    /// Site title, shown in the header and the browser tab.
    pub title: String,
    /// One-sentence description of the site, shown on the home page.
    pub description: String,
    /// Absolute URL the site is published at, e.g. `https://example.org/group/`.
    pub base_url: Option<String>,
    /// Language of the site's pages (BCP 47), e.g. `en`.
    pub language: String,
    /// Links to directories (`authors/x/`) rather than files (`authors/x/index.html`).
    /// Defaults to true when `base_url` is set; file links also work when the site is
    /// opened straight from disk.
    pub pretty_urls: Option<bool>,
    /// Whether each author's and paper's page is a folder (`papers/<slug>/index.html`)
    /// or one file (`papers/<slug>.html`), with the files that belong to it beside it.
    pub page_layout: PageLayout,
    /// How many of the newest papers each Atom feed lists (0: every paper). The full
    /// lists are in the authors' publication exports.
    pub feed_limit: usize,
    /// What each feed entry's summary holds: the start of the abstract or all of it.
    pub feed_summary: FeedSummary,
    /// Whether citation downloads are links in the page or files beside it.
    pub exports: ExportsMode,
    /// Whether the generated text files are written gzip-compressed (`x.html.gz`), for a
    /// web server that sends them as they are.
    pub precompress: Precompress,
    /// Per-author settings, keyed by author slug (as in `/authors/<slug>/`) or by name.
    pub authors: BTreeMap<String, AuthorDetails>,
    /// Per-record-file settings, keyed by the file's path (`content/records/x.txt`, or
    /// relative to `content/records/`): whose file it is.
    pub record_files: BTreeMap<String, RecordFileSettings>,
    /// TeX macro definitions for every paper's title and abstract, as in a preamble
    /// (`\newcommand{\CK}{\mathcal{K}}`): the notation the site's authors share, which
    /// their record files use without defining it.
    pub tex_macros: String,
    /// [`SiteConfig::tex_macros`] as read.
    #[serde(skip)]
    pub tex_definitions: Definitions,
}

/// Whose record file a file is, when its name alone does not say.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RecordFileSettings {
    /// The author name to read the file as (instead of its name block): the file joins
    /// the author of that name.
    pub name: Option<String>,
    /// What tells this author from others of the same name (an affiliation, a field):
    /// the file is its own author, at `/authors/<name>-<disambiguation>/`, shown with it.
    pub disambiguation: Option<String>,
    /// Where each key was written (see [`AuthorDetails::written_at`]).
    #[serde(skip)]
    pub written_at: BTreeMap<String, Location>,
}

/// How each author's and paper's page is laid out on disk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PageLayout {
    /// A folder a page: `papers/<slug>/index.html`, published at `/papers/<slug>/`, with
    /// its feed and downloads inside (`authors/<slug>/atom.xml`).
    #[default]
    Folders,
    /// A file a page: `papers/<slug>.html`, with its feed and downloads beside it
    /// (`authors/<slug>.atom.xml`) and an author's further pages in a folder
    /// (`authors/<slug>/page/2.html`). A folder costs a whole disk block on most file
    /// systems (4 KB), so this is a folder fewer per author and paper.
    Files,
}

/// How readers get the BibTeX, RIS and CSL-JSON of a paper or an author's papers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExportsMode {
    /// Each paper's downloads, and the publication lists of an author whose lists are
    /// small (see `plan::inline_author_lists`), are `data:` links in the page: no file
    /// each, no JavaScript. Larger lists are files beside the author's page.
    #[default]
    Inline,
    /// Every download is a file beside its page (`cite.bib`, `publications.bib`, ...),
    /// at a URL that never changes.
    Files,
}

/// How the generated text files are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precompress {
    /// As they are: any static host serves them.
    #[default]
    None,
    /// Gzip-compressed, each under its name with `.gz` added (`papers/x.html.gz`), and
    /// not also as it is: a third of the bytes on disk, for a server that sends a
    /// `.gz` file as the file it compresses (nginx's `gzip_static always` with
    /// `gunzip on`, a CDN given `Content-Encoding: gzip`; `profilegen serve` does).
    /// Pages, feeds, sitemaps, data, search index and citation files are compressed;
    /// `robots.txt`, `_redirects` and the static files are not.
    Gzip,
}

/// The suffix of a file [`Precompress::Gzip`] writes.
pub const GZIP_SUFFIX: &str = ".gz";

/// The extensions of the generated files [`Precompress::Gzip`] compresses.
const PRECOMPRESSED_EXTENSIONS: [&str; 5] = ["html", "xml", "json", "bib", "ris"];

impl Precompress {
    /// Whether the generated output served at `served` is written compressed.
    fn compresses(self, served: &str) -> bool {
        let extension = served.rsplit_once('.').map(|(_, ext)| ext);
        self == Precompress::Gzip
            && extension.is_some_and(|ext| PRECOMPRESSED_EXTENSIONS.contains(&ext))
    }

    /// The path of the file that holds the generated output served at `served`.
    pub fn file_path(self, served: String) -> String {
        match self.compresses(&served) {
            true => served + GZIP_SUFFIX,
            false => served,
        }
    }

    /// The path the generated output in the file at `file` is served at: `file` less
    /// the suffix [`Precompress::file_path`] adds.
    pub fn served_path(self, file: &str) -> &str {
        match file.strip_suffix(GZIP_SUFFIX) {
            Some(served) if self.compresses(served) => served,
            _ => file,
        }
    }

    /// Whether the file at `file` (a path [`Precompress::file_path`] gave) holds its
    /// output compressed.
    pub fn holds_compressed(self, file: &str) -> bool {
        self.served_path(file).len() != file.len()
    }
}

/// What a feed entry's `<summary>` holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FeedSummary {
    /// The start of the abstract, cut at a word (at most [`FEED_SNIPPET_CHARS`]
    /// characters and an ellipsis), as Hugo's feeds carry a summary: a feed stays small
    /// however long the abstracts, and the whole abstract is one link away.
    #[default]
    Snippet,
    /// The whole abstract.
    Abstract,
}

/// How many characters of the abstract a [`FeedSummary::Snippet`] keeps at most.
pub const FEED_SNIPPET_CHARS: usize = 300;

/// Default of [`SiteConfig::feed_limit`], as Zola's and Hugo's feeds are limited.
pub const DEFAULT_FEED_LIMIT: usize = 50;

impl Default for SiteConfig {
    fn default() -> Self {
        SiteConfig {
            title: "Scholarly profiles".into(),
            description: String::new(),
            base_url: None,
            language: "en".into(),
            pretty_urls: None,
            page_layout: PageLayout::default(),
            feed_limit: DEFAULT_FEED_LIMIT,
            feed_summary: FeedSummary::default(),
            exports: ExportsMode::default(),
            precompress: Precompress::default(),
            authors: BTreeMap::new(),
            record_files: BTreeMap::new(),
            tex_macros: String::new(),
            tex_definitions: Definitions::new(),
        }
    }
}

/// Details of one author's profile. The same keys serve in `profilegen.yaml` (under
/// `authors.<slug>`) and in a bio's front matter; the configuration wins.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AuthorDetails {
    /// Display name to show instead of the record files' name.
    pub name: Option<String>,
    /// Institution.
    pub affiliation: Option<String>,
    /// Homepage URL (http or https).
    pub homepage: Option<String>,
    /// ORCID iD, e.g. `0000-0002-1825-0097` (or its URL).
    pub orcid: Option<String>,
    /// dblp person id, e.g. `123/4567` (or its URL).
    pub dblp: Option<String>,
    /// OpenAlex author id, e.g. `A5023888391` (or its URL).
    pub openalex: Option<String>,
    /// Google Scholar user id, e.g. `Zdc8d1YAAAAJ` (or the profile URL).
    pub google_scholar: Option<String>,
    /// arXiv author id, e.g. `vandesompel_h_1` (or its URL).
    pub arxiv: Option<String>,
    /// Photo: a path under `static/` or an http(s) URL.
    pub photo: Option<String>,
    /// Other names (or record-file paths) of this author: those files are this author,
    /// shown under this author's name and at this author's URL.
    pub aliases: Vec<String>,
    /// Where each key was written, for diagnostics: by key (`orcid`, `aliases`, ...),
    /// and `""` for the entry itself. Filled in by [`parse_config`] and bios' parser.
    #[serde(skip)]
    pub written_at: BTreeMap<String, Location>,
}

impl AuthorDetails {
    /// The identifier written under `registry`'s key, if any.
    pub fn identifier(&self, registry: Registry) -> Option<&str> {
        match registry {
            Registry::Orcid => self.orcid.as_deref(),
            Registry::Dblp => self.dblp.as_deref(),
            Registry::OpenAlex => self.openalex.as_deref(),
            Registry::GoogleScholar => self.google_scholar.as_deref(),
            Registry::Arxiv => self.arxiv.as_deref(),
        }
    }

    /// Where `key` was written, else where the entry was.
    pub fn location_of(&self, key: &str) -> Option<&Location> {
        self.written_at.get(key).or_else(|| self.written_at.get(""))
    }
}

impl SiteConfig {
    /// Whether links point at directories rather than `index.html` files.
    pub fn pretty_urls(&self) -> bool {
        self.pretty_urls.unwrap_or(self.base_url.is_some())
    }

    /// How many entries a feed lists at most.
    pub fn feed_entries(&self) -> usize {
        match self.feed_limit {
            0 => usize::MAX,
            n => n,
        }
    }
}

/// Reads the configuration from `text` (the contents of `path`). Returns the
/// configuration or the diagnostic that makes it unusable.
pub fn parse_config(path: &Path, text: &str) -> Result<SiteConfig, Diagnostic> {
    if text.trim().is_empty() {
        return Ok(SiteConfig::default());
    }
    let mut config: SiteConfig =
        serde_yaml::from_str(text).map_err(|err| yaml_diagnostic(path, text, 0, &err))?;
    if let Some(base_url) = config.base_url.take() {
        let trimmed = base_url.trim();
        if !(trimmed.starts_with("https://") || trimmed.starts_with("http://"))
            || trimmed.contains(char::is_whitespace)
        {
            let offset = text.find("base_url").unwrap_or(0);
            return Err(Diagnostic::error(
                format!("base_url `{trimmed}` is not an absolute http(s) URL"),
                Some(Location::in_text(path, text, offset, 8)),
            ));
        }
        config.base_url = Some(normalize_base_url(trimmed));
    }
    config.tex_definitions = Definitions::from_preamble(&config.tex_macros)
        .map_err(|err| preamble_diagnostic(path, text, &config.tex_macros, &err))?;
    let config_path = Path::new(CONFIG_FILE);
    for (key, details) in config.authors.iter_mut() {
        details.written_at = locate_keys(config_path, text, 0, &["authors", key]);
    }
    for (key, settings) in config.record_files.iter_mut() {
        settings.written_at = locate_keys(config_path, text, 0, &["record_files", key]);
    }
    Ok(config)
}

/// The error for `tex_macros` (whose value is `preamble`) that cannot be read, at the
/// line of the configuration `text` that holds the offending definition, or else at the
/// key.
fn preamble_diagnostic(
    path: &Path,
    text: &str,
    preamble: &str,
    err: &crate::tex::PreambleError,
) -> Diagnostic {
    let rest = &preamble[err.offset..];
    let snippet = rest.lines().next().unwrap_or_default().trim_end();
    let key = locate_keys(path, text, 0, &[])
        .get("tex_macros")
        .map_or(0, |at| {
            text.split_inclusive('\n')
                .take(at.line - 1)
                .map(str::len)
                .sum()
        });
    let offset = (!snippet.is_empty())
        .then(|| text[key..].find(snippet))
        .flatten()
        .map_or(key, |at| key + at);
    let width = snippet
        .split_whitespace()
        .next()
        .map_or(10, |word| word.chars().count());
    Diagnostic::error(
        format!("tex_macros: {}", err.reason),
        Some(Location::in_text(path, text, offset, width)),
    )
}

/// Where the keys of the YAML mapping at `parents` (e.g. `["authors", "ada"]`; `[]` for
/// the top level) are written in `text`: each key's location, and `""` for the line of
/// the mapping's own key. `line_offset` is the number of lines before `text` in its
/// file. Block-style YAML is read line by line (flow style and anchors are not
/// followed); a key not found has no location.
pub fn locate_keys(
    path: &Path,
    text: &str,
    line_offset: usize,
    parents: &[&str],
) -> BTreeMap<String, Location> {
    let mut found = BTreeMap::new();
    let mut stack: Vec<(usize, String)> = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let content = line.trim_start_matches(' ');
        let indent = line.len() - content.len();
        let Some(key) = mapping_key(content) else {
            continue;
        };
        while stack.last().is_some_and(|(i, _)| *i >= indent) {
            stack.pop();
        }
        let path_here: Vec<&str> = stack.iter().map(|(_, k)| k.as_str()).collect();
        let mut locate = |name: &str| {
            let mut location = Location::in_text(path, text, start + indent, key.chars().count());
            location.line += line_offset;
            found.entry(name.to_string()).or_insert(location);
        };
        if path_here == parents {
            locate(&key);
        } else if !parents.is_empty()
            && path_here == parents[..parents.len() - 1]
            && key == parents[parents.len() - 1]
        {
            locate("");
        }
        stack.push((indent, key));
    }
    found
}

/// The key of a block mapping line (`key:`, `"key":`, `'key':`), unquoted.
fn mapping_key(content: &str) -> Option<String> {
    if content.starts_with('#') || content.starts_with('-') {
        return None;
    }
    let (key, rest) = match content.chars().next()? {
        quote @ ('"' | '\'') => {
            let close = content[1..].find(quote)? + 1;
            (&content[1..close], &content[close + 1..])
        }
        _ => {
            let colon = content.find(": ").or_else(|| {
                let trimmed = content.trim_end();
                trimmed.ends_with(':').then(|| trimmed.len() - 1)
            })?;
            (content[..colon].trim_end(), &content[colon..])
        }
    };
    rest.starts_with(':').then(|| key.to_string())
}

/// Ends a base URL with exactly one `/`.
pub fn normalize_base_url(url: &str) -> String {
    format!("{}/", url.trim_end_matches('/'))
}

/// Turns a YAML error into a diagnostic. `line_offset` is the number of lines before
/// `text` in the file (for front matter).
pub fn yaml_diagnostic(
    path: &Path,
    text: &str,
    line_offset: usize,
    err: &serde_yaml::Error,
) -> Diagnostic {
    let message = err.to_string();
    // The message ends with " at line L column C"; the location is shown separately.
    let message = match message.find(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message,
    };
    let location = err.location().map(|loc| {
        let mut location = Location::in_text(path, text, loc.index(), 1);
        location.line += line_offset;
        location
    });
    Diagnostic::error(message, location)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<SiteConfig, Diagnostic> {
        parse_config(Path::new("profilegen.yaml"), text)
    }

    #[test]
    fn tex_macros_are_read_and_a_bad_one_is_an_error_at_its_line() {
        let config = parse(
            "title: tex_macros\ntex_macros: |\n  \\newcommand{\\CK}{\\mathcal{K}}\n  \\def\\mO{\\mathcal{O}}\n",
        )
        .unwrap();
        assert!(!config.tex_definitions.is_empty());
        assert_eq!(
            config.tex_macros,
            "\\newcommand{\\CK}{\\mathcal{K}}\n\\def\\mO{\\mathcal{O}}\n"
        );
        let err = parse("title: T\ntex_macros: |\n  \\def\\a{x}\n  \\mathcal{K}\n").unwrap_err();
        assert_eq!(
            err.message,
            "tex_macros: only macro definitions may be given"
        );
        let at = err.location.unwrap();
        assert_eq!((at.line, at.column), (4, 3));
        let err = parse("tex_macros: '\\newcommand{\\a}'\n").unwrap_err();
        assert_eq!(err.message, "tex_macros: macro definition not understood");
        assert_eq!(err.location.unwrap().line, 1);
    }

    #[test]
    fn every_key_is_optional() {
        assert_eq!(parse("").unwrap(), SiteConfig::default());
        assert_eq!(parse("title: X\n").unwrap().language, "en");
        assert!(!SiteConfig::default().pretty_urls());
    }

    #[test]
    fn reads_all_keys() {
        let config = parse(
            "title: Lab\ndescription: Our papers\nbase_url: https://example.org/lab\nlanguage: de\nauthors:\n  zhongbo-zhu:\n    affiliation: NVIDIA\n    orcid: 0000-0002-1825-0097\n",
        )
        .unwrap();
        assert_eq!(config.title, "Lab");
        assert_eq!(config.base_url.as_deref(), Some("https://example.org/lab/"));
        assert!(config.pretty_urls());
        assert_eq!(
            config.authors["zhongbo-zhu"].affiliation.as_deref(),
            Some("NVIDIA")
        );
    }

    #[test]
    fn gzip_precompression_names_text_outputs_with_gz_and_leaves_the_rest() {
        assert_eq!(SiteConfig::default().precompress, Precompress::None);
        let config = parse("precompress: gzip\n").unwrap();
        let gzip = config.precompress;
        assert_eq!(gzip, Precompress::Gzip);
        for (served, file) in [
            ("papers/x.html", "papers/x.html.gz"),
            ("authors/x.atom.xml", "authors/x.atom.xml.gz"),
            ("search/terms/0a.json", "search/terms/0a.json.gz"),
            ("papers/x/cite.bib", "papers/x/cite.bib.gz"),
            ("papers/x/cite.ris", "papers/x/cite.ris.gz"),
            ("robots.txt", "robots.txt"),
            ("_redirects", "_redirects"),
            ("data/archive.tar.gz", "data/archive.tar.gz"),
        ] {
            assert_eq!(gzip.file_path(served.to_string()), file);
            assert_eq!(gzip.served_path(file), served);
            assert_eq!(gzip.holds_compressed(file), file != served, "{file}");
            assert!(!Precompress::None.holds_compressed(served));
            assert_eq!(Precompress::None.file_path(served.to_string()), served);
            assert_eq!(Precompress::None.served_path(served), served);
        }
        assert_eq!(gzip.served_path("notes.txt.gz"), "notes.txt.gz");
        assert!(
            !gzip.holds_compressed("notes.txt.gz"),
            "not one profilegen compresses"
        );
        let err = parse("precompress: brotli\n").unwrap_err();
        assert!(err.message.contains("brotli"), "{}", err.message);
    }

    #[test]
    fn page_layout_is_folders_or_files() {
        assert_eq!(SiteConfig::default().page_layout, PageLayout::Folders);
        let files = parse("page_layout: files\n").unwrap();
        assert_eq!(files.page_layout, PageLayout::Files);
        let err = parse("title: X\npage_layout: flat\n").unwrap_err();
        assert!(err.message.contains("flat"), "{}", err.message);
        assert_eq!(err.location.unwrap().line, 2);
    }

    #[test]
    fn unknown_key_names_the_key_and_the_line() {
        let err = parse("title: X\ntitel: Y\n").unwrap_err();
        assert!(
            err.message.contains("unknown field `titel`"),
            "{}",
            err.message
        );
        let loc = err.location.unwrap();
        assert_eq!((loc.line, loc.column), (2, 1));
        assert_eq!(loc.line_text, "titel: Y");
    }

    #[test]
    fn unknown_nested_key_and_wrong_type_are_errors() {
        let err = parse("authors:\n  x:\n    homepag: y\n").unwrap_err();
        assert!(err.message.contains("homepag"), "{}", err.message);
        assert_eq!(err.location.unwrap().line, 3);
        let err = parse("title: [1, 2]\n").unwrap_err();
        assert!(err.message.contains("title"), "{}", err.message);
        assert_eq!(err.location.unwrap().line, 1);
        let err = parse("pretty_urls: maybe\n").unwrap_err();
        assert!(err.message.contains("pretty_urls"), "{}", err.message);
    }

    #[test]
    fn keys_are_located_in_the_text() {
        let text = "title: X\nauthors:\n  # a comment\n  ada-lovelace:\n    orcid: 0000-0002-1825-0097\n    aliases: [A. Lovelace]\n  \"Mary Somerville\":\n    dblp: 1/2\nrecord_files:\n  content/records/x.txt:\n    disambiguation: MIT\n";
        let config = parse(text).unwrap();
        let ada = &config.authors["ada-lovelace"];
        assert_eq!(ada.aliases, vec!["A. Lovelace"]);
        let line = |d: &AuthorDetails, key: &str| d.location_of(key).map(|l| (l.line, l.column));
        assert_eq!(line(ada, ""), Some((4, 3)));
        assert_eq!(line(ada, "orcid"), Some((5, 5)));
        assert_eq!(line(ada, "aliases"), Some((6, 5)));
        assert_eq!(line(ada, "photo"), Some((4, 3)), "an absent key: the entry");
        let mary = &config.authors["Mary Somerville"];
        assert_eq!(line(mary, "dblp"), Some((8, 5)));
        let file = &config.record_files["content/records/x.txt"];
        assert_eq!(file.disambiguation.as_deref(), Some("MIT"));
        assert_eq!(file.written_at["disambiguation"].line, 11);
    }

    #[test]
    fn base_url_must_be_absolute() {
        let err = parse("title: X\nbase_url: javascript:alert(1)\n").unwrap_err();
        assert!(err.message.contains("base_url"));
        assert_eq!(err.location.unwrap().line, 2);
    }
}
