//! Planning: every page of the site, its URL, its template and its context.
//!
//! Each page gets a small context of its own holding only what it shows, with every
//! link already resolved (relative to the page, so the site works under any path and
//! from disk). A page's output is a pure function of its template and its context;
//! a later stage can therefore skip pages whose context did not change.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use crate::coauthor_graph::{coauthor_svg, GraphNode};
use crate::config::{AuthorDetails, SiteConfig};
use crate::content::{is_orcid, is_safe_url, is_web_url, Bio, ExtraPage};
use crate::diagnostics::{Diagnostic, Location};
use crate::graph::{Author, AuthorId, Paper, PaperId, SiteGraph};
use crate::hash;
use crate::normalize::name_key;
use crate::reuse::Reuse;
use crate::slug::subject_segment;
use crate::taxonomy::{category_group, category_name};
use crate::tex::render_tex;

mod exports;
mod feeds;
mod fingerprint;
mod metadata;
mod search;

pub use feeds::{FeedCategory, FeedContext, FeedEntry, FeedPerson, SitemapContext, FEED_ENTRIES};
pub use fingerprint::TemplateHashes;
pub use metadata::{FeedLink, MetaTag, PageMeta};
pub use search::is_search_index_path;

/// URL segments that extra pages may not use.
pub const RESERVED_SEGMENTS: &[&str] = &[
    "authors", "papers", "subjects", "years", "data", "search", "static", "404",
];

/// How many of the newest papers the home page lists.
pub const HOME_NEWEST_PAPERS: usize = 10;
/// How many authors (most papers first) the home page lists.
pub const HOME_AUTHORS: usize = 24;
/// How many papers a page lists at most; longer lists (an author's, a subject's, a
/// year's) continue on `page/2/`, `page/3/`, ...
pub const PAGE_SIZE: usize = 400;
/// How many other papers per author a paper page lists.
pub const MORE_PAPERS_PER_AUTHOR: usize = 3;

/// Everything the site consists of, before rendering.
///
/// Outputs are listed with their kind only; [`SitePlan::output`] builds one output's
/// context (or bytes) on demand, so a renderer holds only the outputs in flight and a
/// later stage can rebuild just the outputs it needs.
pub struct SitePlan<'a> {
    planner: Planner<'a>,
    /// Every output file, in a fixed order. The search index's files come last, once
    /// [`SitePlan::add_search_outputs`] has been called.
    pub outputs: Vec<PlannedOutput>,
    /// Warnings found while planning (bios for unknown authors, bad URLs, ...).
    pub diagnostics: Vec<Diagnostic>,
    /// Per-entity hashes for fingerprints, made on first use.
    entities: std::sync::OnceLock<fingerprint::Entities>,
    /// Whether the search index's files are in `outputs`.
    search_added: bool,
}

impl SitePlan<'_> {
    /// Builds the search index (from any thread; once). The index takes a while and
    /// needs only the plan, so it can be built while the other outputs are rendered.
    pub fn prepare_search_index(&self) {
        self.planner.search_index();
    }

    /// Adds the search index's files to [`SitePlan::outputs`] (building the index if
    /// [`SitePlan::prepare_search_index`] has not); returns the indexes of the outputs
    /// added.
    pub fn add_search_outputs(&mut self) -> std::ops::Range<usize> {
        let start = self.outputs.len();
        if std::mem::replace(&mut self.search_added, true) {
            return start..start;
        }
        for path in self.planner.search_files() {
            let kind = OutputKind::SearchIndex(path);
            let (path, template) = self.planner.describe(&kind);
            self.outputs.push(PlannedOutput {
                path,
                template,
                kind,
            });
        }
        start..self.outputs.len()
    }

    /// What one of this plan's outputs holds: a template context, or finished bytes.
    pub fn output(&self, output: &PlannedOutput) -> Output {
        self.planner.build(&output.kind)
    }
}

/// A piece of a template context that many outputs show (a paper's feed entry, say),
/// converted to the template engine's value once and shared: cloning it is cheap, and
/// the renderer takes it as it is instead of converting it again for every output.
/// Templates see the same fields as if the piece itself were in the context.
#[derive(Debug, Clone)]
pub struct Shared(tera::Value);

impl Shared {
    /// Converts `value` once.
    pub fn new<T: Serialize>(value: &T) -> Shared {
        Shared(tera::Value::from_serializable(value))
    }
}

impl Serialize for Shared {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

/// One output file to produce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedOutput {
    /// Output path relative to the output folder, e.g. `authors/zoe-li/index.html`.
    pub path: String,
    /// Template that renders it (`author.html`, `atom.xml`, ...), if any.
    pub template: Option<&'static str>,
    /// What it holds.
    pub kind: OutputKind,
}

/// What an output file holds.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum OutputKind {
    /// An HTML page.
    Page(PageKind),
    /// An Atom feed.
    Feed(FeedKind),
    /// `/sitemap.xml`.
    Sitemap,
    /// `/robots.txt`.
    Robots,
    /// `/data/authors.json`.
    AuthorsData,
    /// `/data/papers.json`.
    PapersData,
    /// One paper's citation, beside its page (`cite.bib`, ...).
    PaperCitation(PaperId, CitationFormat),
    /// All of an author's papers, beside their page (`publications.bib`, ...).
    AuthorCitations(AuthorId, CitationFormat),
    /// A file of the search index, by its path (`search/meta.json`, ...).
    SearchIndex(String),
}

/// Which Atom feed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FeedKind {
    /// The whole site, `/atom.xml`.
    Site,
    /// One author, `/authors/<slug>/atom.xml`.
    Author(AuthorId),
    /// One subject, `/subjects/<code>/atom.xml`.
    Subject(String),
}

/// A citation export format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CitationFormat {
    /// BibTeX (`.bib`).
    Bibtex,
    /// RIS (`.ris`).
    Ris,
    /// CSL-JSON (`.json`).
    CslJson,
}

impl CitationFormat {
    /// Every format, in output order.
    pub const ALL: [CitationFormat; 3] = [
        CitationFormat::Bibtex,
        CitationFormat::Ris,
        CitationFormat::CslJson,
    ];

    /// The format's name, for links.
    pub fn label(self) -> &'static str {
        match self {
            CitationFormat::Bibtex => "BibTeX",
            CitationFormat::Ris => "RIS",
            CitationFormat::CslJson => "CSL-JSON",
        }
    }

    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            CitationFormat::Bibtex => "bib",
            CitationFormat::Ris => "ris",
            CitationFormat::CslJson => "json",
        }
    }
}

/// The contents of one output, as [`SitePlan::output`] builds it.
#[derive(Debug, Clone)]
pub enum Output {
    /// Context for an HTML page template.
    Page(Box<PageContext>),
    /// Context for the Atom feed template.
    Feed(FeedContext),
    /// Context for the sitemap template.
    Sitemap(SitemapContext),
    /// Finished bytes.
    Bytes(Vec<u8>),
}

/// Which page: the kind of page and what it is about.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PageKind {
    /// The home page.
    Home,
    /// The A-Z authors index.
    Authors,
    /// One author's page (page number from 0).
    Author(AuthorId, usize),
    /// One paper's page.
    Paper(PaperId),
    /// The subjects index.
    Subjects,
    /// One subject's page, by code (page number from 0).
    Subject(String, usize),
    /// The years index.
    Years,
    /// One year's page (page number from 0).
    Year(u16, usize),
    /// An extra page, by index in the plan's (sorted) extra pages.
    Extra(usize),
    /// The 404 page.
    NotFound,
    /// The search page.
    Search,
}

/// What every page's template receives.
#[derive(Debug, Clone, Serialize)]
pub struct PageContext {
    /// Site-wide values.
    pub site: SiteInfo,
    /// The page's own framing: title, links to the stylesheet, home and navigation.
    pub page: PageFrame,
    /// The page kind's data.
    #[serde(flatten)]
    pub data: PageData,
}

/// Site-wide values, the same for every page.
#[derive(Debug, Clone, Serialize)]
pub struct SiteInfo {
    /// Site title.
    pub title: String,
    /// Site description.
    pub description: String,
    /// Page language.
    pub language: String,
}

/// Per-page framing.
#[derive(Debug, Clone, Serialize)]
pub struct PageFrame {
    /// Title for `<title>` and the main heading.
    pub title: String,
    /// Meta description.
    pub description: String,
    /// Link to the stylesheet.
    pub css_href: String,
    /// Link to the favicon.
    pub favicon_href: String,
    /// Link to the progressive-enhancement script.
    pub script_href: String,
    /// Where the header's search box goes without JavaScript: the authors index.
    pub search_action: String,
    /// The search page, which the box goes to with JavaScript.
    pub search_href: String,
    /// Link to the home page.
    pub home_href: String,
    /// Navigation entries.
    pub nav: Vec<NavLink>,
    /// Search-engine and reference-manager metadata.
    pub meta: PageMeta,
}

/// One navigation entry.
#[derive(Debug, Clone, Serialize)]
pub struct NavLink {
    /// Label.
    pub title: String,
    /// Link.
    pub href: String,
    /// `aria-current` value: `page` on the entry's own page, `true` inside its section.
    pub current: Option<&'static str>,
}

/// A link to an author.
#[derive(Debug, Clone, Serialize)]
pub struct AuthorLink {
    /// Display name.
    pub name: String,
    /// Link to the author's page.
    pub href: String,
}

/// An author in a list, with a count.
#[derive(Debug, Clone, Serialize)]
pub struct AuthorCount {
    /// Display name.
    pub name: String,
    /// Link to the author's page.
    pub href: String,
    /// Number of papers (or shared papers, for co-authors).
    pub count: usize,
}

/// A paper in a list.
#[derive(Debug, Clone, Serialize)]
pub struct PaperItem {
    /// Title as safe HTML.
    pub title_html: String,
    /// Link to the paper's page.
    pub href: String,
    /// Year.
    pub year: u16,
    /// The paper's authors on this site.
    pub authors: Vec<AuthorLink>,
    /// Primary subject code, if any.
    pub subject: Option<String>,
}

/// A paper in a short list: title, link and year only.
#[derive(Debug, Clone, Serialize)]
pub struct PaperRef {
    /// Title as safe HTML.
    pub title_html: String,
    /// Link to the paper's page.
    pub href: String,
    /// Year.
    pub year: u16,
}

/// A link to a citation file.
#[derive(Debug, Clone, Serialize)]
pub struct ExportLink {
    /// Format name, e.g. `BibTeX`.
    pub format: &'static str,
    /// Link to the file.
    pub href: String,
}

/// A subject in a list.
#[derive(Debug, Clone, Serialize)]
pub struct SubjectLink {
    /// arXiv code.
    pub code: String,
    /// Full name (the code when not in the taxonomy).
    pub name: String,
    /// Link to the subject's page.
    pub href: String,
    /// Number of papers.
    pub count: usize,
}

/// Links between the pages of a long list.
#[derive(Debug, Clone, Serialize)]
pub struct Pagination {
    /// This page's number, from 1.
    pub current: usize,
    /// Number of pages.
    pub total: usize,
    /// The previous page, if any.
    pub previous: Option<String>,
    /// The next page, if any.
    pub next: Option<String>,
    /// Every page.
    pub pages: Vec<PageLink>,
}

/// One page of a long list.
#[derive(Debug, Clone, Serialize)]
pub struct PageLink {
    /// Page number, from 1.
    pub number: usize,
    /// Link to it.
    pub href: String,
    /// Whether it is the current page.
    pub current: bool,
}

/// A year in the year index of a long list, linking to where its papers start.
#[derive(Debug, Clone, Serialize)]
pub struct YearAnchor {
    /// The year.
    pub year: u16,
    /// Link to its heading (on whichever page it is).
    pub href: String,
}

/// Number of pages a list of `len` papers takes (at least one).
pub fn page_count(len: usize) -> usize {
    len.div_ceil(PAGE_SIZE).max(1)
}

/// Site path of page `page` (from 0) of a list whose first page is `base`.
pub fn paged_path(base: &str, page: usize) -> String {
    if page == 0 {
        base.to_string()
    } else {
        format!("{base}page/{}/", page + 1)
    }
}

/// Papers of one year.
#[derive(Debug, Clone, Serialize)]
pub struct YearGroup {
    /// The year.
    pub year: u16,
    /// Its papers (each a [`PaperItem`]).
    pub papers: Vec<Shared>,
}

/// Authors under one initial letter.
#[derive(Debug, Clone, Serialize)]
pub struct LetterGroup {
    /// The letter (`A`-`Z`, or `#` for others).
    pub letter: String,
    /// Authors, by family name.
    pub authors: Vec<AuthorCount>,
}

/// Subjects of one arXiv group (Computer Science, Physics, ...).
#[derive(Debug, Clone, Serialize)]
pub struct SubjectGroup {
    /// Group name.
    pub name: String,
    /// Its subjects.
    pub subjects: Vec<SubjectLink>,
}

/// A year in the years index.
#[derive(Debug, Clone, Serialize)]
pub struct YearLink {
    /// The year.
    pub year: u16,
    /// Link to the year's page.
    pub href: String,
    /// Number of papers.
    pub count: usize,
}

/// An author's other papers, on a paper page.
#[derive(Debug, Clone, Serialize)]
pub struct MoreBy {
    /// The author.
    pub author: Shared,
    /// Their papers closest to this one in time, newest first.
    pub papers: Vec<Shared>,
    /// Whether they have more papers than these.
    pub more: bool,
}

/// Up to `n` papers of an author's `list` (newest first) nearest to paper `id` in it,
/// alternating newer and older, returned in list order. A paper's neighbours change
/// only when papers next to it in the list do, so adding a paper to a prolific author
/// changes few of their paper pages.
pub fn nearby_papers(list: &[PaperId], id: PaperId, n: usize) -> Vec<PaperId> {
    let Some(position) = list.iter().position(|&p| p == id) else {
        return list.iter().copied().take(n).collect();
    };
    let mut picked = Vec::with_capacity(n);
    let mut step = 1;
    while picked.len() < n && (step <= position || position + step < list.len()) {
        if step <= position {
            picked.push(position - step);
        }
        if picked.len() < n && position + step < list.len() {
            picked.push(position + step);
        }
        step += 1;
    }
    picked.sort_unstable();
    picked.into_iter().map(|i| list[i]).collect()
}

/// The data of each kind of page.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PageData {
    /// The home page.
    Home {
        /// Number of authors.
        author_count: usize,
        /// Number of papers.
        paper_count: usize,
        /// Number of papers listed by several authors.
        shared_count: usize,
        /// Number of subjects.
        subject_count: usize,
        /// The authors with most papers.
        authors: Vec<AuthorCount>,
        /// Whether `authors` is all of them.
        all_authors_listed: bool,
        /// Link to the authors index.
        authors_href: String,
        /// Newest papers.
        newest: Vec<Shared>,
        /// Subjects, most papers first.
        subjects: Vec<SubjectLink>,
    },
    /// The A-Z authors index.
    Authors {
        /// Letters present, in order.
        letters: Vec<LetterGroup>,
        /// Number of authors.
        author_count: usize,
    },
    /// One author.
    Author {
        /// Display name.
        name: String,
        /// Bio rendered to HTML (safe).
        bio_html: Option<String>,
        /// Institution.
        affiliation: Option<String>,
        /// Homepage.
        homepage: Option<String>,
        /// ORCID iD.
        orcid: Option<String>,
        /// Photo URL.
        photo: Option<String>,
        /// Number of papers.
        paper_count: usize,
        /// First and last year, e.g. `2019–2026`.
        years_active: String,
        /// Subjects with counts, most papers first.
        subjects: Vec<SubjectLink>,
        /// This page's papers grouped by year, newest first.
        years: Vec<YearGroup>,
        /// Every year of the author's papers, linking to its heading.
        year_index: Vec<YearAnchor>,
        /// Links to the other pages when the list is long.
        pagination: Option<Pagination>,
        /// Co-authors with numbers of shared papers.
        coauthors: Vec<AuthorCount>,
        /// The co-author graph as inline SVG (safe), when there are co-authors.
        coauthor_graph: Option<String>,
        /// Links to the author's publication lists in citation formats.
        exports: Vec<ExportLink>,
    },
    /// One paper.
    Paper {
        /// Title as safe HTML (math as MathML).
        title_html: String,
        /// Year.
        year: u16,
        /// Link to the year's page.
        year_href: String,
        /// Source, e.g. `arXiv`.
        source: String,
        /// Subjects with full names.
        subjects: Vec<SubjectLink>,
        /// Abstract paragraphs as safe HTML (text escaped, math as MathML).
        abstract_html: Vec<String>,
        /// Authors on this site (each an [`AuthorLink`]).
        authors: Vec<Shared>,
        /// More papers by each author.
        more_by: Vec<MoreBy>,
        /// The paper's BibTeX entry, for the "Cite" block.
        bibtex: String,
        /// Links to the paper's citation files.
        exports: Vec<ExportLink>,
    },
    /// The subjects index.
    Subjects {
        /// Subjects grouped by arXiv group.
        groups: Vec<SubjectGroup>,
    },
    /// One subject.
    Subject {
        /// Code.
        code: String,
        /// Full name.
        name: String,
        /// Number of papers.
        paper_count: usize,
        /// This page's papers by year, newest first.
        years: Vec<YearGroup>,
        /// Every year of the subject's papers, linking to its heading.
        year_index: Vec<YearAnchor>,
        /// Links to the other pages when the list is long.
        pagination: Option<Pagination>,
    },
    /// The years index.
    Years {
        /// Years, newest first.
        years: Vec<YearLink>,
    },
    /// One year.
    Year {
        /// The year.
        year: u16,
        /// This page's papers, by title.
        papers: Vec<Shared>,
        /// Number of papers from the year.
        paper_count: usize,
        /// Links to the other pages when the list is long.
        pagination: Option<Pagination>,
        /// Previous (older) year with papers.
        previous: Option<YearLink>,
        /// Next (newer) year with papers.
        next: Option<YearLink>,
    },
    /// An extra page from `content/pages/`.
    Extra {
        /// Body HTML (safe).
        body_html: String,
    },
    /// The 404 page.
    NotFound {
        /// Link to the authors index.
        authors_href: String,
    },
    /// The search page.
    Search {
        /// Prefix from the search page to the site root, for the index's links.
        root: String,
        /// Link to the authors index (the way to browse without JavaScript).
        authors_href: String,
    },
}

/// Resolves site paths to links relative to one page.
#[derive(Debug, Clone)]
struct Linker {
    /// Prefix from the page to the site root: `""`, `"../"`, `"../../"`, or an absolute
    /// base path for pages served at any depth (404).
    root: String,
    /// The folder of the page (`papers/x/`), for short links to files beside it; empty
    /// for pages linked absolutely.
    here: String,
    pretty: bool,
}

impl Linker {
    fn for_path(path: &str, pretty: bool) -> Linker {
        let depth = path.matches('/').count();
        let here = path.rfind('/').map_or("", |i| &path[..=i]);
        Linker {
            root: "../".repeat(depth),
            here: here.to_string(),
            pretty,
        }
    }

    fn absolute(base_path: &str, pretty: bool) -> Linker {
        Linker {
            root: base_path.to_string(),
            here: String::new(),
            pretty,
        }
    }

    /// Link to a site path such as `authors/x/` (directories end in `/`) or `style.css`.
    fn href(&self, site_path: &str) -> String {
        let is_dir = site_path.is_empty() || site_path.ends_with('/');
        let (prefix, rest) = match site_path.strip_prefix(self.here.as_str()) {
            Some(rest) if !self.here.is_empty() => ("", rest),
            _ => (self.root.as_str(), site_path),
        };
        if rest.is_empty() && prefix.is_empty() && self.pretty {
            return "./".to_string();
        }
        let mut href = String::with_capacity(prefix.len() + rest.len() + 10);
        href.push_str(prefix);
        href.push_str(rest);
        if is_dir && !self.pretty {
            href.push_str("index.html");
        }
        href
    }
}

/// Site path of an author page.
pub fn author_path(author: &Author) -> String {
    format!("authors/{}/", author.slug)
}

/// Site path of a paper page.
pub fn paper_path(paper: &Paper) -> String {
    format!("papers/{}/", paper.slug)
}

/// Site path of a subject page.
pub fn subject_path(code: &str) -> String {
    format!("subjects/{}/", subject_segment(code))
}

/// Site path of a year page.
pub fn year_path(year: u16) -> String {
    format!("years/{year:04}/")
}

/// The output file of a site path (`authors/x/` -> `authors/x/index.html`).
pub fn output_path(site_path: &str) -> String {
    if site_path.is_empty() || site_path.ends_with('/') {
        format!("{site_path}index.html")
    } else {
        site_path.to_string()
    }
}

/// The full name of a subject code, or the code itself when unknown.
pub fn subject_name(code: &str) -> String {
    category_name(code).unwrap_or(code).to_string()
}

/// Profile details of one author after merging config and bio.
#[derive(Debug, Clone, Default)]
struct Profile {
    name: String,
    bio_html: Option<String>,
    affiliation: Option<String>,
    homepage: Option<String>,
    orcid: Option<String>,
    photo: Option<String>,
}

/// Everything the planner reads.
pub struct PlanInput<'a> {
    /// The linked authors and papers.
    pub graph: &'a SiteGraph,
    /// Site configuration.
    pub config: &'a SiteConfig,
    /// Author bios.
    pub bios: &'a [Bio],
    /// Extra pages.
    pub pages: &'a [ExtraPage],
    /// Work the previous build in this process left to reuse.
    pub memo: &'a PlanMemo,
}

/// Work a plan can reuse from the previous build in the same process (see
/// [`crate::reuse`]): TeX conversions of titles and abstracts, and search terms.
#[derive(Default)]
pub struct PlanMemo {
    texts: Reuse<PaperText>,
    search_terms: Reuse<search::DocTerms>,
    citations: Reuse<exports::BriefCitation>,
    data_items: Reuse<Vec<u8>>,
    term_numbers: std::sync::Mutex<search::TermNumbers>,
}

impl PlanMemo {
    /// Starts keeping results for the next build (see [`Reuse::enable`]).
    pub fn enable(&mut self) {
        self.texts.enable();
        self.search_terms.enable();
        self.citations.enable();
        self.data_items.enable();
    }

    /// Ends a build: see [`Reuse::finish_build`].
    pub fn finish_build(&mut self) {
        self.texts.finish_build();
        self.search_terms.finish_build();
        self.citations.finish_build();
        self.data_items.finish_build();
    }
}

/// Plans the whole site.
pub fn plan_site<'a>(input: &PlanInput<'a>) -> SitePlan<'a> {
    let planner = Planner::new(input);
    planner.plan()
}

struct Planner<'a> {
    graph: &'a SiteGraph,
    config: &'a SiteConfig,
    extra_pages: Vec<&'a ExtraPage>,
    profiles: Vec<Profile>,
    site: SiteInfo,
    pretty: bool,
    diagnostics: Vec<Diagnostic>,
    /// Subject code -> papers, newest first.
    subjects: BTreeMap<&'a str, Vec<PaperId>>,
    /// Year -> papers.
    years: BTreeMap<u16, Vec<PaperId>>,
    /// Site path of each author page, by author id.
    author_paths: Vec<String>,
    /// Site path of each paper page, by paper id.
    paper_paths: Vec<String>,
    /// Public URL of each paper page (absolute with a base URL), by paper id.
    paper_urls: Vec<String>,
    /// Every paper, newest first (then by slug).
    newest: Vec<PaperId>,
    /// Title and abstract of each paper as HTML and as clean text, by paper id.
    paper_texts: Vec<Arc<PaperText>>,
    /// Display names of each paper's authors, by paper id.
    paper_author_names: Vec<Vec<String>>,
    /// Citation key of each paper, by paper id.
    citation_keys: Vec<String>,
    /// Each paper's citation without abstract, made on first use, by paper id.
    brief_citations: Vec<std::sync::OnceLock<Arc<exports::BriefCitation>>>,
    /// Each paper as a list item on pages two folders deep, made on first use, by paper id.
    list_items: Vec<std::sync::OnceLock<Shared>>,
    /// The same for each paper in a short list ("More by" on paper pages).
    paper_refs: Vec<std::sync::OnceLock<Shared>>,
    /// The same for a link to each author, by author id.
    author_links: Vec<std::sync::OnceLock<Shared>>,
    /// Each paper's entry in the Atom feeds, made on first use, by paper id.
    feed_entries: Vec<std::sync::OnceLock<Shared>>,
    /// The search index, made on first use.
    search: std::sync::OnceLock<search::SearchIndex>,
    /// Work to reuse from the previous build.
    memo: &'a PlanMemo,
}

/// `n` values to be made on first use.
fn unset<T>(n: usize) -> Vec<std::sync::OnceLock<T>> {
    (0..n).map(|_| std::sync::OnceLock::new()).collect()
}

/// A paper's title and abstract after TeX conversion.
#[derive(Debug, Clone, Default)]
struct PaperText {
    /// Title as safe HTML (math as MathML).
    title_html: String,
    /// Title as clean text.
    title_text: String,
    /// Abstract paragraphs as safe HTML.
    abstract_html: Vec<String>,
    /// Abstract as clean text.
    abstract_text: Option<String>,
    /// What could not be converted (shown as its source text).
    warnings: Vec<String>,
}

/// Converts a title and an abstract.
fn convert_text(title: &str, abstract_text: Option<&str>) -> PaperText {
    let mut warnings = Vec::new();
    let title = render_tex(title);
    warnings.extend(title.warnings);
    let mut abstract_html = Vec::new();
    let mut paragraphs = Vec::new();
    for paragraph in abstract_text.iter().flat_map(|a| a.split("\n\n")) {
        let rendered = render_tex(paragraph);
        abstract_html.push(rendered.html);
        paragraphs.push(rendered.text);
        warnings.extend(rendered.warnings);
    }
    warnings.sort();
    warnings.dedup();
    PaperText {
        title_html: title.html,
        title_text: title.text,
        abstract_html,
        abstract_text: (!paragraphs.is_empty()).then(|| paragraphs.join("\n\n")),
        warnings,
    }
}

/// Converts each paper's title and abstract (in parallel, reusing conversions of the
/// same texts from `memo`), reporting TeX that could not be read with the record it
/// comes from.
fn convert_texts(
    graph: &SiteGraph,
    memo: &Reuse<PaperText>,
) -> (Vec<Arc<PaperText>>, Vec<Diagnostic>) {
    use rayon::prelude::*;
    let converted: Vec<(Arc<PaperText>, Vec<Diagnostic>)> = graph
        .papers
        .par_iter()
        .map(|paper| {
            let abstract_text = paper.abstract_text.as_deref();
            let key = || hash::key("tex", &(&paper.title, abstract_text));
            let text = memo.get_or(key, || convert_text(&paper.title, abstract_text));
            let at = &paper.occurrences[0];
            let record_line = format!("{}{}", paper.source, paper.year);
            let diagnostics = text
                .warnings
                .iter()
                .map(|warning| {
                    Diagnostic::warning(
                        format!("TeX in `{}`: {warning}", paper.title),
                        Some(Location::at_line(
                            &at.path,
                            at.line,
                            1,
                            &record_line,
                            record_line.chars().count(),
                        )),
                    )
                    .with_note("the fragment is shown as its source text")
                })
                .collect();
            (text, diagnostics)
        })
        .collect();
    let mut texts = Vec::with_capacity(converted.len());
    let mut diagnostics = Vec::new();
    for (text, mut diags) in converted {
        texts.push(text);
        diagnostics.append(&mut diags);
    }
    (texts, diagnostics)
}

impl<'a> Planner<'a> {
    fn new(input: &PlanInput<'a>) -> Planner<'a> {
        let graph = input.graph;
        let config = input.config;
        let mut diagnostics = Vec::new();
        let mut profiles: Vec<Profile> = graph
            .authors
            .iter()
            .map(|a| Profile {
                name: a.name.clone(),
                ..Profile::default()
            })
            .collect();
        for bio in input.bios {
            match graph.author_id_by_slug(&bio.slug) {
                Some(id) => {
                    let profile = &mut profiles[id];
                    let body = bio.body_html.trim();
                    profile.bio_html = (!body.is_empty()).then(|| body.to_string());
                    apply(profile, &bio.front, &bio.path, &mut diagnostics);
                }
                None => diagnostics.push(
                    Diagnostic::warning(
                        format!("bio `{}` matches no author", bio.path.display()),
                        Some(Location::at_line(&bio.path, 1, 1, "", 1)),
                    )
                    .with_note("name the file after the author's slug, as in /authors/<slug>/"),
                ),
            }
        }
        let config_path = std::path::Path::new(crate::config::CONFIG_FILE);
        for (key, settings) in &config.authors {
            let id = graph
                .authors
                .iter()
                .position(|a| a.slug == *key || a.key == name_key(key));
            match id {
                Some(id) => {
                    apply(&mut profiles[id], settings, config_path, &mut diagnostics);
                }
                None => diagnostics.push(Diagnostic::warning(
                    format!(
                        "{}: `authors.{key}` matches no author",
                        crate::config::CONFIG_FILE
                    ),
                    None,
                )),
            }
        }
        let mut extra_pages: Vec<&ExtraPage> = input
            .pages
            .iter()
            .filter(|p| {
                let reserved = RESERVED_SEGMENTS.contains(&p.slug.as_str());
                if reserved {
                    diagnostics.push(
                        Diagnostic::warning(
                            format!(
                                "page `{}` would take the reserved URL /{}/; it is skipped",
                                p.path.display(),
                                p.slug
                            ),
                            Some(Location::at_line(&p.path, 1, 1, "", 1)),
                        )
                        .with_note("rename the file"),
                    );
                }
                !reserved
            })
            .collect();
        extra_pages.sort_by(|a, b| {
            a.weight
                .cmp(&b.weight)
                .then_with(|| a.title.cmp(&b.title))
                .then_with(|| a.slug.cmp(&b.slug))
        });

        let mut subjects: BTreeMap<&str, Vec<PaperId>> = BTreeMap::new();
        let mut years: BTreeMap<u16, Vec<PaperId>> = BTreeMap::new();
        for (id, paper) in graph.papers.iter().enumerate() {
            for subject in &paper.subjects {
                subjects.entry(subject.as_str()).or_default().push(id);
            }
            years.entry(paper.year).or_default().push(id);
        }
        let newest_first = |list: &mut Vec<PaperId>| {
            list.sort_by(|&a, &b| {
                let (pa, pb) = (&graph.papers[a], &graph.papers[b]);
                pb.year.cmp(&pa.year).then_with(|| pa.slug.cmp(&pb.slug))
            })
        };
        subjects.values_mut().for_each(newest_first);
        {
            use rayon::prelude::*;
            // Each year's papers by title (case-insensitive), then slug.
            let lowercase_titles: Vec<String> = graph
                .papers
                .par_iter()
                .map(|p| p.title.to_lowercase())
                .collect();
            for list in years.values_mut() {
                list.sort_by(|&a, &b| {
                    lowercase_titles[a]
                        .cmp(&lowercase_titles[b])
                        .then_with(|| graph.papers[a].slug.cmp(&graph.papers[b].slug))
                });
            }
        }
        let (paper_texts, mut tex_diagnostics) = convert_texts(graph, &input.memo.texts);
        diagnostics.append(&mut tex_diagnostics);
        let mut newest: Vec<PaperId> = (0..graph.papers.len()).collect();
        newest.sort_by(|&a, &b| {
            let (pa, pb) = (&graph.papers[a], &graph.papers[b]);
            pb.year.cmp(&pa.year).then_with(|| pa.slug.cmp(&pb.slug))
        });
        let paper_author_names: Vec<Vec<String>> = graph
            .papers
            .iter()
            .map(|p| {
                p.authors
                    .iter()
                    .map(|&a| profiles[a].name.clone())
                    .collect()
            })
            .collect();
        let citation_keys = crate::cite::citation_keys(
            &graph
                .papers
                .iter()
                .enumerate()
                .map(|(id, p)| {
                    (
                        paper_author_names[id].first().map(String::as_str),
                        p.year,
                        paper_texts[id].title_text.as_str(),
                        p.slug.as_str(),
                    )
                })
                .collect::<Vec<_>>(),
        );
        let paper_paths: Vec<String> = graph.papers.iter().map(paper_path).collect();
        let paper_urls = paper_paths
            .iter()
            .map(|path| public_url(config, path))
            .collect();
        Planner {
            graph,
            config,
            extra_pages,
            profiles,
            site: SiteInfo {
                title: config.title.clone(),
                description: config.description.clone(),
                language: config.language.clone(),
            },
            pretty: config.pretty_urls(),
            diagnostics,
            subjects,
            years,
            author_paths: graph.authors.iter().map(author_path).collect(),
            paper_paths,
            paper_urls,
            newest,
            paper_texts,
            paper_author_names,
            citation_keys,
            brief_citations: unset(graph.papers.len()),
            list_items: unset(graph.papers.len()),
            paper_refs: unset(graph.papers.len()),
            author_links: unset(graph.authors.len()),
            feed_entries: unset(graph.papers.len()),
            search: std::sync::OnceLock::new(),
            memo: input.memo,
        }
    }

    fn plan(mut self) -> SitePlan<'a> {
        let graph = self.graph;
        let mut kinds: Vec<OutputKind> = [
            PageKind::Home,
            PageKind::Authors,
            PageKind::Subjects,
            PageKind::Years,
            PageKind::NotFound,
            PageKind::Search,
        ]
        .into_iter()
        .map(OutputKind::Page)
        .collect();
        for (id, author) in graph.authors.iter().enumerate() {
            kinds.extend(
                (0..page_count(author.papers.len()))
                    .map(|page| OutputKind::Page(PageKind::Author(id, page))),
            );
        }
        kinds.extend((0..graph.papers.len()).map(|id| OutputKind::Page(PageKind::Paper(id))));
        for (code, papers) in &self.subjects {
            kinds.extend(
                (0..page_count(papers.len()))
                    .map(|page| OutputKind::Page(PageKind::Subject(code.to_string(), page))),
            );
        }
        for (&year, papers) in &self.years {
            kinds.extend(
                (0..page_count(papers.len()))
                    .map(|page| OutputKind::Page(PageKind::Year(year, page))),
            );
        }
        kinds.extend((0..self.extra_pages.len()).map(|i| OutputKind::Page(PageKind::Extra(i))));
        kinds.push(OutputKind::Feed(FeedKind::Site));
        kinds.extend((0..graph.authors.len()).map(|id| OutputKind::Feed(FeedKind::Author(id))));
        kinds.extend(
            self.subjects
                .keys()
                .map(|code| OutputKind::Feed(FeedKind::Subject(code.to_string()))),
        );
        kinds.extend([
            OutputKind::Sitemap,
            OutputKind::Robots,
            OutputKind::AuthorsData,
            OutputKind::PapersData,
        ]);
        for format in CitationFormat::ALL {
            kinds.extend((0..graph.papers.len()).map(|id| OutputKind::PaperCitation(id, format)));
            kinds
                .extend((0..graph.authors.len()).map(|id| OutputKind::AuthorCitations(id, format)));
        }
        let outputs = kinds
            .into_iter()
            .map(|kind| {
                let (path, template) = self.describe(&kind);
                PlannedOutput {
                    path,
                    template,
                    kind,
                }
            })
            .collect();
        if self.config.base_url.is_none() {
            self.diagnostics.push(
                Diagnostic::warning(
                    "base_url is not set: pages have no canonical link, and sitemap.xml and feeds use root-relative URLs",
                    None,
                )
                .with_note("set base_url in profilegen.yaml or pass --base-url to publish absolute URLs"),
            );
        }
        let diagnostics = std::mem::take(&mut self.diagnostics);
        SitePlan {
            planner: self,
            outputs,
            diagnostics,
            entities: std::sync::OnceLock::new(),
            search_added: false,
        }
    }

    /// The site path and template of a page.
    fn page_path(&self, kind: &PageKind) -> (String, &'static str) {
        match kind {
            PageKind::Home => (String::new(), "index.html"),
            PageKind::Authors => ("authors/".into(), "authors.html"),
            PageKind::Author(id, page) => {
                (paged_path(&self.author_paths[*id], *page), "author.html")
            }
            PageKind::Paper(id) => (self.paper_paths[*id].clone(), "paper.html"),
            PageKind::Subjects => ("subjects/".into(), "subjects.html"),
            PageKind::Subject(code, page) => {
                (paged_path(&subject_path(code), *page), "subject.html")
            }
            PageKind::Years => ("years/".into(), "years.html"),
            PageKind::Year(year, page) => (paged_path(&year_path(*year), *page), "year.html"),
            PageKind::Extra(i) => (format!("{}/", self.extra_pages[*i].slug), "page.html"),
            PageKind::NotFound => ("404.html".into(), "404.html"),
            PageKind::Search => ("search/".into(), "search.html"),
        }
    }

    /// The output path and template of an output.
    fn describe(&self, kind: &OutputKind) -> (String, Option<&'static str>) {
        match kind {
            OutputKind::Page(page) => {
                let (site_path, template) = self.page_path(page);
                (output_path(&site_path), Some(template))
            }
            OutputKind::Feed(feed) => (self.feed_path(feed), Some("atom.xml")),
            OutputKind::Sitemap => ("sitemap.xml".into(), Some("sitemap.xml")),
            OutputKind::Robots => ("robots.txt".into(), None),
            OutputKind::AuthorsData => ("data/authors.json".into(), None),
            OutputKind::PapersData => ("data/papers.json".into(), None),
            OutputKind::SearchIndex(path) => (path.clone(), None),
            OutputKind::PaperCitation(id, format) => (
                format!("{}cite.{}", self.paper_paths[*id], format.extension()),
                None,
            ),
            OutputKind::AuthorCitations(id, format) => (
                format!(
                    "{}publications.{}",
                    self.author_paths[*id],
                    format.extension()
                ),
                None,
            ),
        }
    }

    /// Builds an output's context or bytes.
    fn build(&self, kind: &OutputKind) -> Output {
        match kind {
            OutputKind::Page(page) => Output::Page(Box::new(self.build_page(page))),
            OutputKind::Feed(feed) => Output::Feed(self.feed(feed)),
            OutputKind::Sitemap => Output::Sitemap(self.sitemap()),
            OutputKind::Robots => Output::Bytes(self.robots()),
            OutputKind::AuthorsData => Output::Bytes(self.authors_json()),
            OutputKind::PapersData => Output::Bytes(self.papers_json()),
            OutputKind::SearchIndex(path) => Output::Bytes(self.search_file(path)),
            OutputKind::PaperCitation(id, format) => {
                Output::Bytes(self.paper_citation(*id, *format))
            }
            OutputKind::AuthorCitations(id, format) => {
                Output::Bytes(self.author_citations(*id, *format))
            }
        }
    }

    /// Builds a page's context.
    fn build_page(&self, kind: &PageKind) -> PageContext {
        match kind {
            PageKind::Home => self.home(),
            PageKind::Authors => self.authors_index(),
            PageKind::Author(id, page) => self.author_page(*id, *page),
            PageKind::Paper(id) => self.paper_page(*id),
            PageKind::Subjects => self.subjects_index(),
            PageKind::Subject(code, page) => self.subject_page(code, *page),
            PageKind::Years => self.years_index(),
            PageKind::Year(year, page) => self.year_page(*year, *page),
            PageKind::Extra(i) => self.extra_page(self.extra_pages[*i]),
            PageKind::NotFound => self.not_found(),
            PageKind::Search => self.search_page(),
        }
    }

    fn frame(
        &self,
        site_path: &str,
        linker: &Linker,
        title: String,
        description: String,
    ) -> PageFrame {
        let section = site_path.split('/').next().unwrap_or("");
        let mut nav = vec![
            ("Authors", "authors/"),
            ("Subjects", "subjects/"),
            ("Years", "years/"),
        ]
        .into_iter()
        .map(|(title, path)| NavLink {
            title: title.to_string(),
            href: linker.href(path),
            current: if site_path == path {
                Some("page")
            } else if !section.is_empty() && path.strip_prefix(section) == Some("/") {
                Some("true")
            } else {
                None
            },
        })
        .collect::<Vec<_>>();
        for page in &self.extra_pages {
            nav.push(NavLink {
                title: page.title.clone(),
                href: linker.href(&format!("{}/", page.slug)),
                current: (section == page.slug).then_some("page"),
            });
        }
        PageFrame {
            title,
            description,
            css_href: linker.href("style.css"),
            favicon_href: linker.href("favicon.svg"),
            script_href: linker.href("site.js"),
            search_action: linker.href("authors/"),
            search_href: linker.href("search/"),
            home_href: linker.href(""),
            nav,
            meta: self.base_meta(site_path, linker),
        }
    }

    fn page(
        &self,
        site_path: &str,
        title: String,
        description: String,
        data: impl FnOnce(&Linker) -> PageData,
    ) -> PageContext {
        let linker = Linker::for_path(site_path, self.pretty);
        self.page_with(site_path, linker, title, description, data)
    }

    fn page_with(
        &self,
        site_path: &str,
        linker: Linker,
        title: String,
        description: String,
        data: impl FnOnce(&Linker) -> PageData,
    ) -> PageContext {
        PageContext {
            site: self.site.clone(),
            page: self.frame(site_path, &linker, title, description),
            data: data(&linker),
        }
    }

    fn author_link(&self, id: AuthorId, linker: &Linker) -> AuthorLink {
        AuthorLink {
            name: self.profiles[id].name.clone(),
            href: linker.href(&self.author_paths[id]),
        }
    }

    /// What `make` makes for a page, converted for the templates. Links in it start from
    /// the site root, even a link to the page it is on, so it is the same on every page
    /// at one depth: it is made once (kept in `cache`) for the pages two folders deep
    /// (`authors/x/`, `papers/x/`, `years/2020/`, `subjects/cs.LG/`), which show every
    /// paper and author several times.
    fn shared<T: Serialize>(
        &self,
        cache: &std::sync::OnceLock<Shared>,
        linker: &Linker,
        make: impl FnOnce(&Linker) -> T,
    ) -> Shared {
        // Made only when the value is (most calls find it made already).
        let make_shared = || {
            let from_root = Linker {
                root: linker.root.clone(),
                here: String::new(),
                pretty: linker.pretty,
            };
            Shared::new(&make(&from_root))
        };
        if linker.root == "../../" {
            cache.get_or_init(make_shared).clone()
        } else {
            make_shared()
        }
    }

    /// Paper `id` in a list of papers (a [`PaperItem`]; see [`Planner::shared`]).
    fn list_item(&self, id: PaperId, linker: &Linker) -> Shared {
        self.shared(&self.list_items[id], linker, |l| self.paper_item(id, l))
    }

    /// A link to author `id` (an [`AuthorLink`]; see [`Planner::shared`]).
    fn shared_author_link(&self, id: AuthorId, linker: &Linker) -> Shared {
        self.shared(&self.author_links[id], linker, |l| self.author_link(id, l))
    }

    /// Paper `id` in a short list (a [`PaperRef`]; see [`Planner::shared`]).
    fn paper_ref(&self, id: PaperId, linker: &Linker) -> Shared {
        self.shared(&self.paper_refs[id], linker, |l| PaperRef {
            title_html: self.paper_texts[id].title_html.clone(),
            href: l.href(&self.paper_paths[id]),
            year: self.graph.papers[id].year,
        })
    }

    fn paper_item(&self, id: PaperId, linker: &Linker) -> PaperItem {
        let paper = &self.graph.papers[id];
        PaperItem {
            title_html: self.paper_texts[id].title_html.clone(),
            href: linker.href(&self.paper_paths[id]),
            year: paper.year,
            authors: paper
                .authors
                .iter()
                .map(|&a| self.author_link(a, linker))
                .collect(),
            subject: paper.subjects.first().cloned(),
        }
    }

    fn subject_link(&self, code: &str, count: usize, linker: &Linker) -> SubjectLink {
        SubjectLink {
            code: code.to_string(),
            name: subject_name(code),
            href: linker.href(&subject_path(code)),
            count,
        }
    }

    /// The papers of page `page` of `list`, links to the other pages, and a year index
    /// over the whole list (for lists grouped by year).
    fn paging<'l>(
        &self,
        base: &str,
        list: &'l [PaperId],
        page: usize,
        linker: &Linker,
    ) -> (&'l [PaperId], Option<Pagination>, Vec<YearAnchor>) {
        let total = page_count(list.len());
        let start = (page * PAGE_SIZE).min(list.len());
        let slice = &list[start..(start + PAGE_SIZE).min(list.len())];
        let href = |p: usize| linker.href(&paged_path(base, p));
        let pagination = (total > 1).then(|| Pagination {
            current: page + 1,
            total,
            previous: page.checked_sub(1).map(href),
            next: (page + 1 < total).then(|| href(page + 1)),
            pages: (0..total)
                .map(|p| PageLink {
                    number: p + 1,
                    href: href(p),
                    current: p == page,
                })
                .collect(),
        });
        let mut year_index: Vec<YearAnchor> = Vec::new();
        for (i, &paper) in list.iter().enumerate() {
            let year = self.graph.papers[paper].year;
            if year_index.last().is_some_and(|y| y.year == year) {
                continue;
            }
            let on = i / PAGE_SIZE;
            let target = if on == page { String::new() } else { href(on) };
            year_index.push(YearAnchor {
                year,
                href: format!("{target}#y{year}"),
            });
        }
        (slice, pagination, year_index)
    }

    fn by_year(&self, papers: &[PaperId], linker: &Linker) -> Vec<YearGroup> {
        let mut groups: Vec<YearGroup> = Vec::new();
        for &id in papers {
            let year = self.graph.papers[id].year;
            if groups.last().is_none_or(|g| g.year != year) {
                groups.push(YearGroup {
                    year,
                    papers: Vec::new(),
                });
            }
            if let Some(group) = groups.last_mut() {
                group.papers.push(self.list_item(id, linker));
            }
        }
        groups
    }

    fn home(&self) -> PageContext {
        let graph = self.graph;
        let description = if self.config.description.is_empty() {
            format!(
                "{} authors, {} papers",
                graph.authors.len(),
                graph.papers.len()
            )
        } else {
            self.config.description.clone()
        };
        let mut context = self.page("", self.config.title.clone(), description, |linker| {
            let mut by_count: Vec<AuthorId> = (0..graph.authors.len()).collect();
            by_count.sort_by(|&a, &b| {
                graph.authors[b]
                    .papers
                    .len()
                    .cmp(&graph.authors[a].papers.len())
                    .then_with(|| graph.authors[a].slug.cmp(&graph.authors[b].slug))
            });
            let authors = by_count
                .iter()
                .take(HOME_AUTHORS)
                .map(|&id| AuthorCount {
                    name: self.profiles[id].name.clone(),
                    href: linker.href(&self.author_paths[id]),
                    count: graph.authors[id].papers.len(),
                })
                .collect();
            let mut subjects: Vec<SubjectLink> = self
                .subjects
                .iter()
                .map(|(code, list)| self.subject_link(code, list.len(), linker))
                .collect();
            subjects.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.code.cmp(&b.code)));
            subjects.truncate(12);
            PageData::Home {
                author_count: graph.authors.len(),
                paper_count: graph.papers.len(),
                shared_count: graph.shared_paper_count(),
                subject_count: self.subjects.len(),
                authors,
                all_authors_listed: graph.authors.len() <= HOME_AUTHORS,
                authors_href: linker.href("authors/"),
                newest: self
                    .newest
                    .iter()
                    .take(HOME_NEWEST_PAPERS)
                    .map(|&id| self.list_item(id, linker))
                    .collect(),
                subjects,
            }
        });
        context.page.meta.jsonld = Some(self.website_jsonld());
        context
    }

    fn authors_index(&self) -> PageContext {
        let graph = self.graph;
        self.page(
            "authors/",
            "Authors".into(),
            format!("All {} authors, A to Z", graph.authors.len()),
            |linker| {
                let mut sorted: Vec<(String, AuthorId)> = (0..graph.authors.len())
                    .map(|id| (family_sort_key(&self.profiles[id].name), id))
                    .collect();
                sorted.sort();
                let mut letters: Vec<LetterGroup> = Vec::new();
                for (key, id) in sorted {
                    let letter = key
                        .chars()
                        .next()
                        .filter(char::is_ascii_alphabetic)
                        .map(|c| c.to_ascii_uppercase().to_string())
                        .unwrap_or_else(|| "#".into());
                    if letters.last().is_none_or(|g| g.letter != letter) {
                        letters.push(LetterGroup {
                            letter: letter.clone(),
                            authors: Vec::new(),
                        });
                    }
                    if let Some(group) = letters.last_mut() {
                        group.authors.push(AuthorCount {
                            name: self.profiles[id].name.clone(),
                            href: linker.href(&self.author_paths[id]),
                            count: graph.authors[id].papers.len(),
                        });
                    }
                }
                // `#` (names that transliterate to no letter) goes last.
                letters.sort_by_key(|g| g.letter == "#");
                PageData::Authors {
                    letters,
                    author_count: graph.authors.len(),
                }
            },
        )
    }

    fn author_page(&self, id: AuthorId, page: usize) -> PageContext {
        let graph = self.graph;
        let author = &graph.authors[id];
        let profile = &self.profiles[id];
        let (first, last) = author
            .papers
            .iter()
            .map(|&p| graph.papers[p].year)
            .fold((u16::MAX, 0), |(lo, hi), y| (lo.min(y), hi.max(y)));
        let years_active = match author.papers.len() {
            0 => String::new(),
            _ if first == last => first.to_string(),
            _ => format!("{first}–{last}"),
        };
        let description = format!(
            "{}: {} paper{}{}",
            profile.name,
            author.papers.len(),
            if author.papers.len() == 1 { "" } else { "s" },
            if years_active.is_empty() {
                String::new()
            } else {
                format!(", {years_active}")
            }
        );
        let base = &self.author_paths[id];
        let site_path = &paged_path(base, page);
        let title = if page == 0 {
            profile.name.clone()
        } else {
            format!("{} (page {})", profile.name, page + 1)
        };
        let mut context = self.page(site_path, title, description, |linker| {
            let (slice, pagination, year_index) = self.paging(base, &author.papers, page, linker);
            let mut subject_counts: BTreeMap<&str, usize> = BTreeMap::new();
            for &p in &author.papers {
                for s in &graph.papers[p].subjects {
                    *subject_counts.entry(s.as_str()).or_default() += 1;
                }
            }
            let mut subjects: Vec<SubjectLink> = subject_counts
                .into_iter()
                .map(|(code, n)| self.subject_link(code, n, linker))
                .collect();
            subjects.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.code.cmp(&b.code)));
            let coauthors: Vec<AuthorCount> = author
                .coauthors
                .iter()
                .map(|&(other, shared)| AuthorCount {
                    name: self.profiles[other].name.clone(),
                    href: linker.href(&self.author_paths[other]),
                    count: shared,
                })
                .collect();
            PageData::Author {
                name: profile.name.clone(),
                bio_html: profile.bio_html.clone(),
                affiliation: profile.affiliation.clone(),
                homepage: profile.homepage.clone(),
                orcid: profile.orcid.clone(),
                photo: profile.photo.as_ref().map(|photo| {
                    if is_web_url(photo) {
                        photo.clone()
                    } else {
                        linker.href(photo.trim_start_matches('/'))
                    }
                }),
                paper_count: author.papers.len(),
                years_active,
                subjects,
                years: self.by_year(slice, linker),
                year_index,
                pagination,
                coauthors: coauthors.clone(),
                coauthor_graph: {
                    let nodes: Vec<GraphNode> = coauthors
                        .iter()
                        .map(|c| GraphNode {
                            name: &c.name,
                            href: &c.href,
                            shared: c.count,
                        })
                        .collect();
                    coauthor_svg(&profile.name, &nodes, "#coauthors-heading")
                },
                exports: CitationFormat::ALL
                    .iter()
                    .map(|f| ExportLink {
                        format: f.label(),
                        href: linker.href(&format!("{site_path}publications.{}", f.extension())),
                    })
                    .collect(),
            }
        });
        let linker = Linker::for_path(site_path, self.pretty);
        let meta = &mut context.page.meta;
        meta.og_type = "profile";
        meta.feeds
            .push(self.feed_link(&FeedKind::Author(id), &linker));
        meta.jsonld = Some(self.profile_jsonld(id));
        context
    }

    fn paper_page(&self, id: PaperId) -> PageContext {
        let graph = self.graph;
        let paper = &graph.papers[id];
        let text = &self.paper_texts[id];
        let description = text
            .abstract_text
            .as_deref()
            .map(|a| truncate_chars(a, 200))
            .unwrap_or_else(|| format!("{} ({})", text.title_text, paper.year));
        let site_path = &self.paper_paths[id];
        let mut context = self.page(site_path, text.title_text.clone(), description, |linker| {
            PageData::Paper {
                title_html: text.title_html.clone(),
                year: paper.year,
                year_href: linker.href(&year_path(paper.year)),
                source: paper.source.clone(),
                subjects: paper
                    .subjects
                    .iter()
                    .map(|code| {
                        self.subject_link(
                            code,
                            self.subjects.get(code.as_str()).map_or(0, Vec::len),
                            linker,
                        )
                    })
                    .collect(),
                abstract_html: text.abstract_html.clone(),
                authors: paper
                    .authors
                    .iter()
                    .map(|&a| self.shared_author_link(a, linker))
                    .collect(),
                more_by: paper
                    .authors
                    .iter()
                    .filter_map(|&a| {
                        let list = &graph.authors[a].papers;
                        let nearby = nearby_papers(list, id, MORE_PAPERS_PER_AUTHOR);
                        (!nearby.is_empty()).then(|| MoreBy {
                            author: self.shared_author_link(a, linker),
                            papers: nearby.iter().map(|&p| self.paper_ref(p, linker)).collect(),
                            more: list.len() > nearby.len() + 1,
                        })
                    })
                    .collect(),
                bibtex: self.bibtex_for(id),
                exports: CitationFormat::ALL
                    .iter()
                    .map(|f| ExportLink {
                        format: f.label(),
                        href: linker.href(&format!("{site_path}cite.{}", f.extension())),
                    })
                    .collect(),
            }
        });
        let meta = &mut context.page.meta;
        meta.og_type = "article";
        meta.tags = self.citation_tags(id);
        meta.jsonld = Some(self.article_jsonld(id));
        context
    }

    fn subjects_index(&self) -> PageContext {
        self.page(
            "subjects/",
            "Subjects".into(),
            format!("Papers in {} arXiv subjects", self.subjects.len()),
            |linker| {
                let mut groups: BTreeMap<String, Vec<SubjectLink>> = BTreeMap::new();
                for (code, papers) in &self.subjects {
                    let group = category_group(code).unwrap_or("Other").to_string();
                    groups.entry(group).or_default().push(self.subject_link(
                        code,
                        papers.len(),
                        linker,
                    ));
                }
                let mut groups: Vec<SubjectGroup> = groups
                    .into_iter()
                    .map(|(name, subjects)| SubjectGroup { name, subjects })
                    .collect();
                groups.sort_by_key(|g| g.name == "Other");
                PageData::Subjects { groups }
            },
        )
    }

    fn subject_page(&self, code: &str, page: usize) -> PageContext {
        let papers = &self.subjects[code];
        let name = subject_name(code);
        let title = if name == code {
            code.to_string()
        } else {
            format!("{name} ({code})")
        };
        let base = subject_path(code);
        let site_path = paged_path(&base, page);
        let title = if page == 0 {
            title
        } else {
            format!("{title} (page {})", page + 1)
        };
        let mut context = self.page(
            &site_path,
            title,
            format!("{} papers in {name}", papers.len()),
            |linker| {
                let (slice, pagination, year_index) = self.paging(&base, papers, page, linker);
                PageData::Subject {
                    code: code.to_string(),
                    name: name.clone(),
                    paper_count: papers.len(),
                    years: self.by_year(slice, linker),
                    year_index,
                    pagination,
                }
            },
        );
        let linker = Linker::for_path(&site_path, self.pretty);
        let feed = self.feed_link(&FeedKind::Subject(code.to_string()), &linker);
        context.page.meta.feeds.push(feed);
        context
    }

    fn years_index(&self) -> PageContext {
        self.page(
            "years/",
            "Years".into(),
            "Papers by year".into(),
            |linker| PageData::Years {
                years: self
                    .years
                    .iter()
                    .rev()
                    .map(|(&year, papers)| YearLink {
                        year,
                        href: linker.href(&year_path(year)),
                        count: papers.len(),
                    })
                    .collect(),
            },
        )
    }

    fn year_page(&self, year: u16, page: usize) -> PageContext {
        let papers = &self.years[&year];
        let base = year_path(year);
        let title = if page == 0 {
            format!("Papers from {year}")
        } else {
            format!("Papers from {year} (page {})", page + 1)
        };
        self.page(
            &paged_path(&base, page),
            title,
            format!("{} papers from {year}", papers.len()),
            |linker| {
                let link = |(&y, list): (&u16, &Vec<PaperId>)| YearLink {
                    year: y,
                    href: linker.href(&year_path(y)),
                    count: list.len(),
                };
                let (slice, pagination, _) = self.paging(&base, papers, page, linker);
                PageData::Year {
                    year,
                    papers: slice.iter().map(|&p| self.list_item(p, linker)).collect(),
                    paper_count: papers.len(),
                    pagination,
                    previous: self.years.range(..year).next_back().map(link),
                    next: self.years.range(year + 1..).next().map(link),
                }
            },
        )
    }

    fn extra_page(&self, page: &ExtraPage) -> PageContext {
        let site_path = format!("{}/", page.slug);
        self.page(
            &site_path,
            page.title.clone(),
            page.description
                .clone()
                .unwrap_or_else(|| page.title.clone()),
            |_| PageData::Extra {
                body_html: page.body_html.clone(),
            },
        )
    }

    fn search_page(&self) -> PageContext {
        self.page(
            "search/",
            "Search".into(),
            format!(
                "Search {} authors and {} papers",
                self.graph.authors.len(),
                self.graph.papers.len()
            ),
            |linker| PageData::Search {
                root: linker.root.clone(),
                authors_href: linker.href("authors/"),
            },
        )
    }

    fn not_found(&self) -> PageContext {
        let base_path = self
            .config
            .base_url
            .as_deref()
            .and_then(|url| url.find("://").map(|i| &url[i + 3..]))
            .and_then(|rest| rest.find('/').map(|i| rest[i..].to_string()))
            .unwrap_or_else(|| "/".to_string());
        let linker = Linker::absolute(&base_path, self.pretty);
        self.page_with(
            "404.html",
            linker,
            "Page not found".into(),
            "This page does not exist.".into(),
            |linker| PageData::NotFound {
                authors_href: linker.href("authors/"),
            },
        )
    }

    /// Absolute URL (with base_url) or root-relative URL of a site path.
    fn public_url(&self, site_path: &str) -> String {
        public_url(self.config, site_path)
    }
}

/// The URL a site path is published at: absolute with a base URL, root-relative
/// otherwise.
fn public_url(config: &SiteConfig, site_path: &str) -> String {
    match &config.base_url {
        Some(base) => format!("{base}{site_path}"),
        None => format!("/{site_path}"),
    }
}

/// Merges an author's details into their profile, checking names and URLs; what does
/// not check out is reported and ignored.
fn apply(
    profile: &mut Profile,
    details: &AuthorDetails,
    path: &std::path::Path,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut reject = |what: String| {
        diagnostics.push(Diagnostic::warning(
            format!("{}: {what}; ignored", path.display()),
            None,
        ))
    };
    if let Some(name) = details.name.as_deref().map(str::trim) {
        if name.is_empty() {
            reject("empty display name".into());
        } else {
            profile.name = name.to_string();
        }
    }
    if let Some(a) = &details.affiliation {
        profile.affiliation = Some(a.clone());
    }
    if let Some(url) = &details.homepage {
        if is_web_url(url) {
            profile.homepage = Some(url.trim().to_string());
        } else {
            reject(format!("homepage `{url}` is not an http(s) URL"));
        }
    }
    if let Some(id) = &details.orcid {
        let id = id.trim().trim_start_matches("https://orcid.org/");
        if is_orcid(id) {
            profile.orcid = Some(id.to_string());
        } else {
            reject(format!("`{id}` is not a valid ORCID iD"));
        }
    }
    if let Some(p) = &details.photo {
        if is_safe_url(p) && !p.contains("..") {
            profile.photo = Some(p.clone());
        } else {
            reject(format!("photo `{p}` is not a safe path or URL"));
        }
    }
}

/// Sort key for the A-Z index: transliterated family name (last word), then the rest.
fn family_sort_key(name: &str) -> String {
    let ascii = deunicode::deunicode(name).to_lowercase();
    let mut words: Vec<&str> = ascii.split_whitespace().collect();
    match words.pop() {
        Some(last) => format!("{last} {}", words.join(" ")),
        None => String::new(),
    }
}

fn truncate_chars(text: &str, max: usize) -> String {
    // Only the start of a long text matters: look at a little more than `max` characters.
    let head_end = text
        .char_indices()
        .nth(max * 2)
        .map_or(text.len(), |(i, _)| i);
    let flat: String = text[..head_end]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if head_end == text.len() && flat.chars().count() <= max {
        return flat;
    }
    let cut: String = flat.chars().take(max).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i > max / 2 => &cut[..i],
        _ => cut.as_str(),
    };
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_relative_to_the_page() {
        let deep = Linker::for_path("authors/x/", true);
        assert_eq!(deep.href("papers/p/"), "../../papers/p/");
        assert_eq!(deep.href(""), "../../");
        let home = Linker::for_path("", true);
        assert_eq!(home.href(""), "./");
        assert_eq!(home.href("authors/"), "authors/");
        let files = Linker::for_path("authors/x/", false);
        assert_eq!(files.href("papers/p/"), "../../papers/p/index.html");
        assert_eq!(
            files.href("authors/x/atom.xml"),
            "atom.xml",
            "files beside the page"
        );
        assert_eq!(files.href("authors/x/"), "index.html");
        assert_eq!(deep.href("authors/x/"), "./");
        assert_eq!(deep.href("authors/xy/"), "../../authors/xy/");
        assert_eq!(files.href("style.css"), "../../style.css");
        assert_eq!(Linker::for_path("", false).href(""), "index.html");
        assert_eq!(
            Linker::absolute("/lab/", true).href("authors/"),
            "/lab/authors/"
        );
    }

    #[test]
    fn nearby_papers_alternate_around_the_paper() {
        let list = [10, 11, 12, 13, 14, 15];
        assert_eq!(
            nearby_papers(&list, 10, 3),
            [11, 12, 13],
            "newest: only older ones"
        );
        assert_eq!(nearby_papers(&list, 13, 3), [11, 12, 14]);
        assert_eq!(nearby_papers(&list, 15, 3), [12, 13, 14]);
        assert_eq!(nearby_papers(&[10, 11], 11, 3), [10]);
        assert_eq!(nearby_papers(&[10], 10, 3), Vec::<usize>::new());
    }

    #[test]
    fn output_paths() {
        assert_eq!(output_path(""), "index.html");
        assert_eq!(output_path("authors/x/"), "authors/x/index.html");
        assert_eq!(output_path("404.html"), "404.html");
        assert_eq!(subject_path("cs.DC"), "subjects/cs.DC/");
        assert_eq!(year_path(2026), "years/2026/");
    }

    #[test]
    fn family_name_sorting() {
        assert_eq!(family_sort_key("Zhongbo Zhu"), "zhu zhongbo");
        assert_eq!(family_sort_key("Łukasz Nowak"), "nowak lukasz");
        assert_eq!(family_sort_key(""), "");
    }

    #[test]
    fn descriptions_are_cut_at_words() {
        assert_eq!(truncate_chars("a  b\nc", 10), "a b c");
        assert_eq!(truncate_chars("alpha beta gamma delta", 12), "alpha beta…");
        let long = "word ".repeat(1000);
        let cut = truncate_chars(&long, 200);
        assert!(cut.ends_with('…') && cut.chars().count() <= 201, "{cut}");
        assert_eq!(truncate_chars("short   text", 200), "short text");
    }
}
