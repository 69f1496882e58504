//! Planning: every output of the site, its path and its template, and the read-only
//! [`SiteIndex`] the outputs are made from.
//!
//! Planning is data: it decides *what* there is (pages, feeds, exports, data files),
//! where each goes, and gathers what they show into plain tables. Making an output's
//! context from the index is the render stage's work.

use rayon::prelude::*;

use crate::config::{ExportsMode, Precompress, SiteConfig};
use crate::content::{Bio, ExtraPage};
use crate::diagnostics::Diagnostic;
use crate::graph::{AuthorId, PaperId, SiteGraph};
use crate::reuse::Reuse;

pub mod citation_keys;
pub mod index;
pub mod lists;
pub mod parts;
pub mod paths;
pub mod profiles;
pub mod redirects;
pub mod texts;

pub use index::{nearby_papers, SiteIndex};
pub use paths::{page_count, paged_path, PAGE_SIZE};

/// How many authors the authors index lists on one page; a site with more has a page
/// per letter of the family names, linked from the index.
pub const AUTHORS_ON_ONE_PAGE: usize = 2000;
/// How many authors a letter's page lists at most; more continue on `page/2/`, ...
pub const AUTHORS_PER_PAGE: usize = 1000;

/// URL segments that extra pages may not use.
pub const RESERVED_SEGMENTS: &[&str] = &[
    "authors", "papers", "subjects", "years", "data", "search", "static", "404",
];

/// Everything the site consists of, before rendering: the index and every output.
pub struct SitePlan<'a> {
    /// What the outputs are made from.
    pub index: SiteIndex<'a>,
    /// Every output file, in a fixed order (the search index's files, known once the
    /// index is built, are added last: see [`search_outputs`]).
    pub outputs: Vec<PlannedOutput>,
    /// Warnings found while planning (bios for unknown authors, bad URLs, ...).
    pub diagnostics: Vec<Diagnostic>,
}

/// The outputs of the search index's files, by the paths they are served at, written
/// as `precompress` says.
pub fn search_outputs(paths: Vec<String>, precompress: Precompress) -> Vec<PlannedOutput> {
    paths
        .into_iter()
        .map(|path| PlannedOutput {
            path: precompress.file_path(path.clone()),
            template: None,
            kind: OutputKind::SearchIndex(path),
        })
        .collect()
}

/// One output file to produce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedOutput {
    /// Output path relative to the output folder, e.g. `authors/zoe-li/index.html`
    /// (with `.gz` added when the site is precompressed: see
    /// [`Precompress::file_path`]).
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
    /// `/sitemap.xml`: every HTML page, or on a large site the list of the parts.
    Sitemap,
    /// `/sitemaps/<n>.xml`: part `n` of the pages, on a site of more than
    /// [`SITEMAP_URLS`] pages.
    SitemapPart(usize),
    /// `/robots.txt`.
    Robots,
    /// `/data/authors.json`: the list of the authors' data shards.
    AuthorsData,
    /// `/data/papers.json`: the list of the papers' data shards.
    PapersData,
    /// `/data/authors/<n>.json`: shard `n` of the authors' data.
    AuthorsShard(usize),
    /// `/data/papers/<n>.json`: shard `n` of the papers' data.
    PapersShard(usize),
    /// One paper's citation, beside its page (`cite.bib`, ...).
    PaperCitation(PaperId, CitationFormat),
    /// All of an author's papers, beside their page (`publications.bib`, ...).
    AuthorCitations(AuthorId, CitationFormat),
    /// A file of the search index, by its path (`search/meta.json`, ...).
    SearchIndex(String),
    /// An old URL's page, leading to the new one (by index in
    /// [`SiteIndex::redirects`]).
    Redirect(usize),
    /// `/_redirects`: every redirect, in the format static hosts read.
    RedirectsList,
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

    /// The media type, for `data:` links.
    pub fn media_type(self) -> &'static str {
        match self {
            CitationFormat::Bibtex => "application/x-bibtex",
            CitationFormat::Ris => "application/x-research-info-systems",
            CitationFormat::CslJson => "application/vnd.citationstyles.csl+json",
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

/// Which page: the kind of page and what it is about.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PageKind {
    /// The home page.
    Home,
    /// The A-Z authors index.
    Authors,
    /// The authors of one letter, when the index is split (by index in
    /// [`SiteIndex::author_letters`]; page number from 0).
    AuthorsLetter(usize, usize),
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

/// Everything the planner reads.
pub struct PlanInput<'a, 'h> {
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
    /// What earlier builds into the same output folder knew of slugs.
    pub history: &'h redirects::SlugHistory,
    /// TeX conversions an earlier build kept on disk (see [`texts::conversions_to_keep`]).
    pub earlier_texts: Option<&'h crate::kept_file::KeptFile>,
}

/// Work a plan can reuse from the previous build in the same process (see
/// [`crate::reuse`]): TeX conversions of titles and abstracts, the sorted lists of
/// papers ([`lists::ListsMemo`]), abstracts' normalized keys (for the slug history), and
/// papers' citation keys before their suffixes.
#[derive(Default)]
pub struct PlanMemo {
    texts: texts::TextsMemo,
    lists: lists::ListsMemo,
    abstract_keys: Reuse<u64>,
    citation_keys: citation_keys::KeysMemo,
}

impl PlanMemo {
    /// Starts keeping results for the next build (see [`Reuse::enable`]).
    pub fn enable(&mut self) {
        self.texts.enable();
        self.lists.enable();
        self.abstract_keys.enable();
        self.citation_keys.enable();
    }

    /// Ends a build: see [`Reuse::finish_build`].
    pub fn finish_build(&mut self) {
        self.texts.finish_build();
        self.abstract_keys.finish_build();
    }
}

/// Plans the whole site.
pub fn plan_site<'a>(input: &PlanInput<'a, '_>) -> SitePlan<'a> {
    let mut diagnostics = Vec::new();
    let index = SiteIndex::new(input, &mut diagnostics);
    let outputs = list_outputs(&index)
        .into_par_iter()
        .map(|kind| {
            let (path, template) = describe(&index, &kind);
            PlannedOutput {
                path: index.config.precompress.file_path(path),
                template,
                kind,
            }
        })
        .collect();
    if index.config.base_url.is_none() {
        diagnostics.push(
            Diagnostic::warning(
                "base_url is not set: pages have no canonical link, and sitemap.xml and feeds use root-relative URLs",
                None,
            )
            .with_note("set base_url in profilegen.yaml or pass --base-url to publish absolute URLs"),
        );
    }
    SitePlan {
        index,
        outputs,
        diagnostics,
    }
}

/// Every output of the site, in a fixed order: pages (home and indexes, authors, papers,
/// subjects, years, extra pages), feeds, the sitemap, robots.txt, data files, then
/// citation exports, redirects.
fn list_outputs(index: &SiteIndex) -> Vec<OutputKind> {
    let graph = index.graph;
    let mut kinds: Vec<OutputKind> = list_pages(index)
        .into_iter()
        .map(OutputKind::Page)
        .collect();
    kinds.push(OutputKind::Feed(FeedKind::Site));
    kinds.extend((0..graph.authors.len()).map(|id| OutputKind::Feed(FeedKind::Author(id))));
    kinds.extend(
        index
            .subjects
            .keys()
            .map(|code| OutputKind::Feed(FeedKind::Subject(code.to_string()))),
    );
    kinds.extend([
        OutputKind::Sitemap,
        OutputKind::Robots,
        OutputKind::AuthorsData,
        OutputKind::PapersData,
    ]);
    kinds.extend((0..index.sitemap_parts.len()).map(OutputKind::SitemapPart));
    kinds.extend((0..index.author_shards.len()).map(OutputKind::AuthorsShard));
    kinds.extend((0..index.paper_shards.len()).map(OutputKind::PapersShard));
    let paper_files = index.config.exports == ExportsMode::Files;
    for format in CitationFormat::ALL {
        if paper_files {
            kinds.extend((0..graph.papers.len()).map(|id| OutputKind::PaperCitation(id, format)));
        }
        let list_files = (0..graph.authors.len()).filter(|&id| !index.author_lists_inline[id]);
        kinds.extend(list_files.map(|id| OutputKind::AuthorCitations(id, format)));
    }
    if !index.redirects.is_empty() {
        kinds.extend((0..index.redirects.len()).map(OutputKind::Redirect));
        kinds.push(OutputKind::RedirectsList);
    }
    kinds
}

/// Every page of the site, in a fixed order: home and indexes, the letters of a split
/// authors index, authors, papers, subjects, years, extra pages.
pub fn list_pages(index: &SiteIndex) -> Vec<PageKind> {
    let graph = index.graph;
    let mut pages = vec![
        PageKind::Home,
        PageKind::Authors,
        PageKind::Subjects,
        PageKind::Years,
        PageKind::NotFound,
        PageKind::Search,
    ];
    if index.splits_authors_index() {
        for i in 0..index.author_letters.len() {
            let count = index.letter_page_count(i);
            pages.extend((0..count).map(|page| PageKind::AuthorsLetter(i, page)));
        }
    }
    for (id, author) in graph.authors.iter().enumerate() {
        pages.extend((0..page_count(author.papers.len())).map(|page| PageKind::Author(id, page)));
    }
    pages.extend((0..graph.papers.len()).map(PageKind::Paper));
    for (code, papers) in &index.subjects {
        let count = page_count(papers.len());
        pages.extend((0..count).map(|page| PageKind::Subject(code.to_string(), page)));
    }
    for (&year, papers) in &index.years {
        pages.extend((0..page_count(papers.len())).map(|page| PageKind::Year(year, page)));
    }
    pages.extend((0..index.extra_pages.len()).map(PageKind::Extra));
    pages
}

/// The site path and template of a page.
pub fn page_path(index: &SiteIndex, kind: &PageKind) -> (String, &'static str) {
    match kind {
        PageKind::Home => (String::new(), "index.html"),
        PageKind::Authors => ("authors/".into(), "authors.html"),
        PageKind::AuthorsLetter(i, page) => (
            paths::paged_path(&paths::letter_path(&index.author_letters[*i].letter), *page),
            "authors_letter.html",
        ),
        PageKind::Author(id, page) => (
            paths::paged_path(&index.author_paths[*id], *page),
            "author.html",
        ),
        PageKind::Paper(id) => (index.paper_paths[*id].clone(), "paper.html"),
        PageKind::Subjects => ("subjects/".into(), "subjects.html"),
        PageKind::Subject(code, page) => (
            paths::paged_path(&paths::subject_path(code), *page),
            "subject.html",
        ),
        PageKind::Years => ("years/".into(), "years.html"),
        PageKind::Year(year, page) => (
            paths::paged_path(&paths::year_path(*year), *page),
            "year.html",
        ),
        PageKind::Extra(i) => (format!("{}/", index.extra_pages[*i].slug), "page.html"),
        PageKind::NotFound => ("404.html".into(), "404.html"),
        PageKind::Search => ("search/".into(), "search.html"),
    }
}

/// The output path and template of an output.
pub fn describe(index: &SiteIndex, kind: &OutputKind) -> (String, Option<&'static str>) {
    match kind {
        OutputKind::Page(page) => {
            let (site_path, template) = page_path(index, page);
            (paths::output_path(&site_path), Some(template))
        }
        OutputKind::Feed(feed) => (feed_path(index, feed), Some("atom.xml")),
        OutputKind::Sitemap => ("sitemap.xml".into(), Some("sitemap.xml")),
        OutputKind::SitemapPart(n) => (sitemap_part_path(*n), Some("sitemap.xml")),
        OutputKind::Robots => ("robots.txt".into(), None),
        OutputKind::AuthorsData => ("data/authors.json".into(), None),
        OutputKind::PapersData => ("data/papers.json".into(), None),
        OutputKind::AuthorsShard(n) => (data_shard_path("authors", *n), None),
        OutputKind::PapersShard(n) => (data_shard_path("papers", *n), None),
        OutputKind::SearchIndex(path) => (path.clone(), None),
        OutputKind::Redirect(n) => (paths::output_path(&index.redirects[*n].from), None),
        OutputKind::RedirectsList => ("_redirects".into(), None),
        OutputKind::PaperCitation(id, format) => (
            paths::Download::PaperCitation.path(&index.paper_paths[*id], format.extension()),
            None,
        ),
        OutputKind::AuthorCitations(id, format) => (
            paths::Download::AuthorPublications.path(&index.author_paths[*id], format.extension()),
            None,
        ),
    }
}

/// The most URLs one sitemap lists (the sitemap protocol's limit).
pub const SITEMAP_URLS: usize = 50_000;

/// The parts of the sitemap of a site whose pages are `paths`: none when one sitemap
/// lists them all ([`SITEMAP_URLS`] or fewer); otherwise each part's pages, as indices
/// into `paths` in their order. A page's part is a hash of its path
/// ([`parts::hash_parts`]), with 12,500 to 25,000 pages a part on average and never more
/// than the protocol's [`SITEMAP_URLS`].
pub fn sitemap_parts(paths: &[String]) -> Vec<Vec<u32>> {
    if paths.len() <= SITEMAP_URLS {
        return Vec::new();
    }
    parts::hash_parts(paths, SITEMAP_URLS / 2)
}

/// The output path of part `n` of a large site's sitemap.
pub fn sitemap_part_path(n: usize) -> String {
    format!("sitemaps/{n}.xml")
}

/// The output path of shard `n` of the data of `what` (`authors`, `papers`).
pub fn data_shard_path(what: &str, n: usize) -> String {
    format!("data/{what}/{n}.json")
}

/// The output path of a feed.
pub fn feed_path(index: &SiteIndex, kind: &FeedKind) -> String {
    match kind {
        FeedKind::Site => "atom.xml".into(),
        FeedKind::Author(id) => paths::beside(&index.author_paths[*id], "atom.xml"),
        FeedKind::Subject(code) => paths::beside(&paths::subject_path(code), "atom.xml"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sitemaps_split_past_the_protocols_limit_by_the_pages_paths() {
        let paths: Vec<String> = (0..100_001).map(|i| format!("papers/p{i}/")).collect();
        assert!(sitemap_parts(&paths[..50_000]).is_empty(), "one sitemap");
        assert_eq!(sitemap_parts(&paths[..50_001]).len(), 4);
        assert_eq!(sitemap_parts(&paths[..100_000]).len(), 4);
        let parts = sitemap_parts(&paths);
        assert_eq!(parts.len(), 8);
        assert!(parts.iter().all(|part| part.len() <= SITEMAP_URLS));
        // The same pages in another order are in the same parts.
        let reversed: Vec<String> = paths.iter().rev().cloned().collect();
        let listed = |parts: Vec<Vec<u32>>, paths: &[String]| -> Vec<Vec<String>> {
            let mut listed: Vec<Vec<String>> = (parts.into_iter())
                .map(|part| part.iter().map(|&i| paths[i as usize].clone()).collect())
                .collect();
            listed.iter_mut().for_each(|part| part.sort());
            listed
        };
        assert_eq!(
            listed(sitemap_parts(&reversed), &reversed),
            listed(parts, &paths)
        );
    }
}
