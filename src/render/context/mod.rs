//! Making each output's context (or bytes) from the site index, one file per kind of
//! output, each builder declaring what it reads ([`reads`]) before it reads it.
//!
//! Each page gets a small context of its own holding only what it shows, with every
//! link already resolved (relative to the page, so the site works under any path and
//! from disk). A page's output is a pure function of its template and its context.

use std::sync::OnceLock;

use serde::Serialize;

use super::bounded::BoundedCache;
use crate::config::Precompress;
use crate::graph::{AuthorId, PaperId};
use crate::plan::paths::{paged_path, subject_name, subject_path, Linker};
use crate::plan::{page_count, OutputKind, PageKind, SiteIndex, PAGE_SIZE};
use crate::reuse::Reuse;
use crate::search::{DocumentHashes, KeptTerms, SearchIndex, SearchMemo};

mod authors;
mod exports;

use exports::DataKind;
mod feeds;
mod home;
mod metadata;
mod paper;
pub mod reads;
mod redirects;
mod site_pages;
mod subjects;
mod years;

pub use feeds::{FeedCategory, FeedContext, FeedEntry, FeedPerson, SitemapContext};
pub use metadata::{FeedLink, MetaTag, PageMeta};
pub use reads::{Entities, ListPage, Reads, TemplateHashes, TemplateSet, View};

/// How many of the newest papers the home page lists.
pub const HOME_NEWEST_PAPERS: usize = 10;
/// How many authors (most papers first) the home page lists.
pub const HOME_AUTHORS: usize = 24;
/// How many other papers per author a paper page lists.
pub const MORE_PAPERS_PER_AUTHOR: usize = 3;

/// At most this many authors of a paper get a "More by" section on its page (the
/// first in the paper's order who have other papers), so that the page of a paper by
/// hundreds of authors stays readable and small.
pub const MORE_BY_AUTHORS: usize = 10;

/// An author page lists at most this many co-authors (those with the most papers
/// shared), then how many more: members of large collaborations have thousands.
pub const COAUTHORS_LISTED: usize = 100;

/// A paper in a list names at most this many of its authors, then how many more.
pub const LIST_ITEM_AUTHORS: usize = 10;

/// Work the render stage can reuse from the previous build in the same process (see
/// [`crate::reuse`]): citations and the items of the data files; and whether outputs'
/// digests are made, so that the next build finds their fingerprints by them.
#[derive(Default)]
pub struct RenderMemo {
    citations: Reuse<exports::BriefCitation>,
    data_items: Reuse<Vec<u8>>,
    /// Whether [`OutputMaker::fingerprint_after`] makes each output's digest
    /// ([`Entities::digest`]): a long-running process keeps them with the fingerprints.
    digests: bool,
}

impl RenderMemo {
    /// Starts keeping results for the next build (see [`Reuse::enable`]).
    pub fn enable(&mut self) {
        self.citations.enable();
        self.data_items.enable();
        self.digests = true;
    }

    /// Ends a build: see [`Reuse::finish_build`].
    pub fn finish_build(&mut self) {
        self.citations.finish_build();
        self.data_items.finish_build();
    }
}

/// An output's fingerprint, with its digest when it has one ([`Entities::digest`]) and
/// digests are made ([`RenderMemo`]): a build that knows the last build's digest and
/// fingerprint of an output finds the fingerprint again by the digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fingerprinted {
    /// The output's fingerprint: the same fingerprint means the same bytes.
    pub fingerprint: u64,
    /// A hash of what the output reads, coarser than the fingerprint and found
    /// without walking authors' lists: the same digest means the same fingerprint.
    pub digest: Option<u64>,
}

/// Pieces many outputs of one build show, made on first use and shared while a bounded
/// cache holds them: each paper's citation without abstract, which its page (four
/// times) and the publication lists of all its authors (three formats each) show, and
/// its feed entry, which the feeds of all its authors and subjects list. Each is a pure
/// function of the paper's entities, so sharing it changes nothing. Kept for every
/// paper, citations took a tenth of a large build's memory. (List items, short
/// references and author links are converted for each page: the HTML of list items is
/// kept by `render_cached`.)
struct Fragments {
    brief_citations: BoundedCache<std::sync::Arc<exports::BriefCitation>>,
    feed_entries: BoundedCache<Shared>,
}

impl Fragments {
    /// The most bytes of citations held at once: those of tens of thousands of papers.
    const MAX_CITATION_BYTES: usize = 32 << 20;
    /// The most bytes of feed entries held at once (as [`feeds::FeedEntry::bytes`]
    /// counts them): those of tens of thousands of papers.
    const MAX_FEED_ENTRY_BYTES: usize = 16 << 20;

    fn new() -> Fragments {
        Fragments {
            brief_citations: BoundedCache::new(Fragments::MAX_CITATION_BYTES),
            feed_entries: BoundedCache::new(Fragments::MAX_FEED_ENTRY_BYTES),
        }
    }
}

/// Makes the outputs of one build from its index: declares what each reads, makes its
/// context or bytes, and computes its fingerprint.
pub struct OutputMaker<'a> {
    ix: &'a SiteIndex<'a>,
    fragments: Fragments,
    memo: &'a RenderMemo,
    entities: OnceLock<Entities>,
    /// The search index, once it is built (its files are made last).
    search: OnceLock<SearchIndex>,
}

impl<'a> OutputMaker<'a> {
    /// How the site's generated files are written.
    pub fn precompress(&self) -> Precompress {
        self.ix.config.precompress
    }

    /// A maker for the outputs of `ix`.
    pub fn new(ix: &'a SiteIndex<'a>, memo: &'a RenderMemo) -> OutputMaker<'a> {
        OutputMaker {
            ix,
            fragments: Fragments::new(),
            memo,
            entities: OnceLock::new(),
            search: OnceLock::new(),
        }
    }

    /// Ends the maker, handing back what it made for the outputs (shared fragments,
    /// hashes, the search index) so that the caller can free it when it suits: freeing
    /// its many small pieces takes tens of milliseconds on a large site.
    pub fn finish(self) -> MadeParts {
        MadeParts {
            _fragments: self.fragments,
            _entities: self.entities,
            _search: self.search,
        }
    }

    /// Builds the search index (once), whose files are then made from it; a one-off
    /// build's reuses and keeps its documents' terms on disk (`kept`).
    pub fn prepare_search(&self, memo: &SearchMemo, kept: &mut KeptTerms) -> &SearchIndex {
        self.search.get_or_init(|| {
            self.with_documents(|documents| SearchIndex::build(self.ix, memo, kept, documents))
        })
    }

    /// Hashes the site's entities (once), which fingerprints and the search index's
    /// documents read: before the search index is built beside the fingerprints, so
    /// that neither waits on one thread for the other to hash them.
    pub fn hash_entities(&self) -> &Entities {
        self.entities.get_or_init(|| Entities::of(self.ix))
    }

    /// Calls `f` with what the search documents read, by the entities they are read
    /// from ([`Entities::search_document`]).
    fn with_documents<T>(&self, f: impl FnOnce(&DocumentHashes) -> T) -> T {
        let entities = self.hash_entities();
        let document = |doc| entities.search_document(self.ix, doc);
        f(&DocumentHashes {
            site: entities.site(),
            document: &document,
        })
    }

    /// Frees the search index once its files are made.
    pub fn forget_search(&mut self) {
        self.search.take();
    }

    /// What the output `kind` reads.
    pub fn reads<'k>(&self, kind: &'k OutputKind) -> Reads<'k>
    where
        'a: 'k,
    {
        let ix: &'k SiteIndex<'k> = self.ix;
        match kind {
            OutputKind::Page(page) => page_reads(ix, page),
            OutputKind::Feed(feed) => feeds::reads(ix, feed),
            OutputKind::Sitemap => Reads {
                sitemap: Some(None),
                ..Reads::default()
            },
            OutputKind::SitemapPart(n) => Reads {
                sitemap: Some(Some(*n)),
                ..Reads::default()
            },
            OutputKind::AuthorsData
            | OutputKind::PapersData
            | OutputKind::SearchIndex(_)
            | OutputKind::RedirectsList => Reads::whole_site(),
            OutputKind::Robots => Reads::default(),
            OutputKind::Redirect(n) => redirects::reads(ix, *n),
            OutputKind::AuthorsShard(n) => Reads {
                author_lists: ix.author_shards[*n].clone(),
                ..Reads::default()
            },
            OutputKind::PapersShard(n) => Reads {
                papers: ix.paper_shards[*n].clone(),
                ..Reads::default()
            },
            OutputKind::PaperCitation(p, _) => Reads {
                papers: vec![*p],
                ..Reads::default()
            },
            OutputKind::AuthorCitations(a, _) => Reads {
                author_lists: vec![*a],
                ..Reads::default()
            },
        }
    }

    /// The fingerprint of an output: a hash of what it declares it reads and of its
    /// templates. The same fingerprint means the same bytes. (Builds use
    /// [`OutputMaker::fingerprint_after`]; the tests look at one output at a time.)
    #[cfg(test)]
    pub(crate) fn fingerprint(
        &self,
        path: &str,
        kind: &OutputKind,
        templates: &TemplateHashes,
    ) -> u64 {
        self.fingerprint_after(path, kind, templates, None)
            .fingerprint
    }

    /// The fingerprint of an output, with its digest when digests are made
    /// ([`RenderMemo`]), given what the last build made for the output at the same
    /// path (`last`): an output whose digest is the last one has the last fingerprint,
    /// found without walking the authors' lists a paper's page shows papers from.
    pub fn fingerprint_after(
        &self,
        path: &str,
        kind: &OutputKind,
        templates: &TemplateHashes,
        last: Option<Fingerprinted>,
    ) -> Fingerprinted {
        // A search index file reads the whole site; a hash of what makes it changes
        // far less often. It is found by the path the file is served at (`path` has
        // `.gz` added when the site is precompressed).
        if let (Some(search), OutputKind::SearchIndex(served)) = (self.search.get(), kind) {
            let found =
                self.with_documents(|documents| search.fingerprint(self.ix, served, documents));
            if let Some(fingerprint) = found {
                let digest = None;
                return Fingerprinted {
                    fingerprint,
                    digest,
                };
            }
        }
        let entities = self.hash_entities();
        let template = match template_set(kind) {
            TemplateSet::None => 0,
            TemplateSet::Html => templates.html,
            TemplateSet::Atom => templates.atom,
            TemplateSet::Sitemap => templates.sitemap,
        };
        let reads = self.reads(kind);
        let digest = (self.memo.digests)
            .then(|| entities.digest(path, template, &reads))
            .flatten();
        let fingerprint = match (digest, last) {
            (Some(digest), Some(last)) if last.digest == Some(digest) => last.fingerprint,
            _ => entities.fingerprint(self.ix, path, template, &reads),
        };
        Fingerprinted {
            fingerprint,
            digest,
        }
    }

    /// Makes an output's context or bytes, reading only what [`OutputMaker::reads`]
    /// declares for it.
    pub fn make(&self, kind: &OutputKind) -> Output {
        let reads = self.reads(kind);
        let b = OutputBuilder {
            v: View::new(self.ix, &reads),
            fragments: &self.fragments,
            memo: self.memo,
        };
        match kind {
            OutputKind::Page(page) => Output::Page(Box::new(b.page_context(page))),
            OutputKind::Feed(feed) => Output::Feed(b.feed(feed)),
            OutputKind::Sitemap => Output::Sitemap(b.sitemap(None)),
            OutputKind::SitemapPart(n) => Output::Sitemap(b.sitemap(Some(*n))),
            OutputKind::Robots => Output::Bytes(b.robots()),
            OutputKind::AuthorsData => Output::Bytes(b.data_index(DataKind::Authors)),
            OutputKind::PapersData => Output::Bytes(b.data_index(DataKind::Papers)),
            OutputKind::AuthorsShard(n) => Output::Bytes(b.authors_json(*n)),
            OutputKind::PapersShard(n) => Output::Bytes(b.papers_json(*n)),
            OutputKind::SearchIndex(path) => Output::Bytes(
                self.search
                    .get()
                    .map_or_else(Vec::new, |s| s.file(self.ix, path)),
            ),
            OutputKind::PaperCitation(id, format) => Output::Bytes(b.paper_citation(*id, *format)),
            OutputKind::AuthorCitations(id, format) => {
                Output::Bytes(b.author_citations(*id, *format))
            }
            OutputKind::Redirect(n) => Output::Bytes(b.redirect_page(*n)),
            OutputKind::RedirectsList => Output::Bytes(b.redirects_list()),
        }
    }
}

/// What an [`OutputMaker`] made for its outputs, kept only to be freed.
pub struct MadeParts {
    _fragments: Fragments,
    _entities: OnceLock<Entities>,
    _search: OnceLock<SearchIndex>,
}

/// The authors a list item or a feed entry names: the paper's first
/// [`LIST_ITEM_AUTHORS`] (its page names them all).
pub(super) fn listed_authors(paper: &crate::graph::Paper) -> &[AuthorId] {
    &paper.authors[..paper.authors.len().min(LIST_ITEM_AUTHORS)]
}

/// The start of `text`, flattened to one line and cut at a word: at most `max`
/// characters and an ellipsis (the whole text, flattened, when it is that short).
pub(super) fn snippet(text: &str, max: usize) -> String {
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

/// Links to the other pages of a list of `total` pages whose first page is `base`, from
/// page `page` (from 0); `None` for a list of one page. `alphabetical` lists run A to Z
/// rather than newest first.
fn pagination(
    base: &str,
    total: usize,
    page: usize,
    alphabetical: bool,
    linker: &Linker,
) -> Option<Pagination> {
    let href = |p: usize| linker.href(&paged_path(base, p));
    (total > 1).then(|| Pagination {
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
        alphabetical,
    })
}

/// Which templates render an output.
fn template_set(kind: &OutputKind) -> TemplateSet {
    match kind {
        OutputKind::Page(_) => TemplateSet::Html,
        OutputKind::Feed(_) => TemplateSet::Atom,
        OutputKind::Sitemap | OutputKind::SitemapPart(_) => TemplateSet::Sitemap,
        _ => TemplateSet::None,
    }
}

/// What a page reads, by kind.
fn page_reads<'k>(ix: &'k SiteIndex<'k>, page: &'k PageKind) -> Reads<'k> {
    match page {
        PageKind::Home => home::reads(),
        PageKind::Authors => authors::index_reads(ix),
        PageKind::AuthorsLetter(i, page) => authors::letter_reads(ix, *i, *page),
        PageKind::Author(id, _) => authors::page_reads(*id),
        PageKind::Paper(id) => paper::reads(ix, *id),
        PageKind::Subjects => subjects::index_reads(),
        PageKind::Subject(code, page) => subjects::page_reads(code, *page),
        PageKind::Years => years::index_reads(),
        PageKind::Year(year, page) => years::page_reads(*year, *page),
        PageKind::Extra(_) | PageKind::NotFound => Reads::default(),
        PageKind::Search => site_pages::search_reads(),
    }
}

/// What makes one output: the view of the index it declared, and the fragments shared
/// by the outputs of the build.
pub(crate) struct OutputBuilder<'a> {
    v: View<'a>,
    fragments: &'a Fragments,
    memo: &'a RenderMemo,
}

impl OutputBuilder<'_> {
    /// Builds a page's context.
    fn page_context(&self, kind: &PageKind) -> PageContext {
        match kind {
            PageKind::Home => self.home(),
            PageKind::Authors => self.authors_index(),
            PageKind::AuthorsLetter(i, page) => self.letter_page(*i, *page),
            PageKind::Author(id, page) => self.author_page(*id, *page),
            PageKind::Paper(id) => self.paper_page(*id),
            PageKind::Subjects => self.subjects_index(),
            PageKind::Subject(code, page) => self.subject_page(code, *page),
            PageKind::Years => self.years_index(),
            PageKind::Year(year, page) => self.year_page(*year, *page),
            PageKind::Extra(i) => self.extra_page(*i),
            PageKind::NotFound => self.not_found(),
            PageKind::Search => self.search_page(),
        }
    }

    /// The site-wide values every page shows.
    fn site_info(&self) -> SiteInfo {
        let config = self.v.config();
        SiteInfo {
            title: config.title.clone(),
            description: config.description.clone(),
            language: config.language.clone(),
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
        for page in self.v.extra_pages() {
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
        let linker = Linker::for_path(site_path, self.v.pretty());
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
            site: self.site_info(),
            page: self.frame(site_path, &linker, title, description),
            data: data(&linker),
        }
    }

    fn author_link(&self, id: AuthorId, linker: &Linker) -> AuthorLink {
        let author = self.v.author(id);
        AuthorLink {
            name: author.profile.name.clone(),
            href: linker.href(author.path),
        }
    }

    /// What `make` makes for a page, converted for the templates. Links in it start from
    /// the site root, even a link to the page it is on, so it is the same on every page
    /// at one depth (and a `render_cached` fragment made from it fits them all).
    fn shared<T: Serialize>(&self, linker: &Linker, make: impl FnOnce(&Linker) -> T) -> Shared {
        let from_root = Linker {
            root: linker.root.clone(),
            here: String::new(),
            pretty: linker.pretty,
        };
        Shared::new(&make(&from_root))
    }

    /// Paper `id` in a list of papers (a [`PaperItem`]; see [`OutputBuilder::shared`]).
    fn list_item(&self, id: PaperId, linker: &Linker) -> Shared {
        self.shared(linker, |l| self.paper_item(id, l))
    }

    /// A link to author `id` (an [`AuthorLink`]; see [`OutputBuilder::shared`]).
    fn shared_author_link(&self, id: AuthorId, linker: &Linker) -> Shared {
        self.shared(linker, |l| self.author_link(id, l))
    }

    /// Paper `id` in a short list (a [`PaperRef`]; see [`OutputBuilder::shared`]).
    fn paper_ref(&self, id: PaperId, linker: &Linker) -> Shared {
        self.shared(linker, |l| {
            let card = self.v.paper(id);
            PaperRef {
                title_html: card.text.title_html.clone(),
                href: l.href(card.path),
                year: card.paper.year,
            }
        })
    }

    fn paper_item(&self, id: PaperId, linker: &Linker) -> PaperItem {
        let card = self.v.paper(id);
        let paper = card.paper;
        let listed = listed_authors(paper);
        PaperItem {
            title_html: card.text.title_html.clone(),
            href: linker.href(card.path),
            year: paper.year,
            authors: listed
                .iter()
                .map(|&a| self.author_link(a, linker))
                .collect(),
            more_authors: paper.authors.len() - listed.len(),
            subject: paper.subjects.first().cloned(),
        }
    }

    fn subject_link(&self, code: &str, count: Option<usize>, linker: &Linker) -> SubjectLink {
        SubjectLink {
            code: code.to_string(),
            name: subject_name(code),
            href: linker.href(&subject_path(code)),
            count,
        }
    }

    /// Links to the other pages of a list grouped by year whose page `page` is shown,
    /// and a year index over the whole list.
    fn paging(
        base: &str,
        list: &ListPage,
        page: usize,
        linker: &Linker,
    ) -> (Option<Pagination>, Vec<YearAnchor>) {
        let href = |p: usize| linker.href(&paged_path(base, p));
        let pagination = pagination(base, page_count(list.count), page, false, linker);
        let year_index = (list.year_starts.iter())
            .map(|&(year, start)| {
                let on = start / PAGE_SIZE;
                let target = if on == page { String::new() } else { href(on) };
                YearAnchor {
                    year,
                    href: format!("{target}#y{year}"),
                }
            })
            .collect();
        (pagination, year_index)
    }

    fn by_year(&self, papers: &[PaperId], linker: &Linker) -> Vec<YearGroup> {
        let mut groups: Vec<YearGroup> = Vec::new();
        for &id in papers {
            let year = self.v.paper(id).paper.year;
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
}

/// A piece of a template context (a paper's list item, an author link), converted to
/// the template engine's value when it is made; the renderer takes it as it is.
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

/// The contents of one output, as [`OutputMaker::make`] makes it.
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

/// An author's identifier in a scholarly registry, as a profile shows it.
#[derive(Debug, Clone, Serialize)]
pub struct IdentifierLink {
    /// The registry, e.g. `ORCID`.
    pub label: &'static str,
    /// The id, e.g. `0000-0002-1825-0097`.
    pub id: String,
    /// The registry's page of the author.
    pub url: String,
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
    /// The paper's first authors on this site (at most [`LIST_ITEM_AUTHORS`]).
    pub authors: Vec<AuthorLink>,
    /// How many more authors on this site the paper has.
    pub more_authors: usize,
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

/// A citation download: a link to a file beside the page, or a `data:` link.
#[derive(Debug, Clone, Serialize)]
pub struct ExportLink {
    /// Format name, e.g. `BibTeX`.
    pub format: &'static str,
    /// Link to the file, or the `data:` URL of its contents.
    pub href: String,
    /// The name a browser saves the download under, e.g. `zhu2026scalable.bib`.
    pub file_name: String,
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
    /// Number of papers (of the author's, on an author's page); none on a paper's page,
    /// which a new paper of the subject would otherwise change.
    pub count: Option<usize>,
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
    /// Whether the list runs A to Z (its pages are "previous" and "next" rather than
    /// "newer" and "older").
    pub alphabetical: bool,
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

/// A link to the page of one letter of the authors index.
#[derive(Debug, Clone, Serialize)]
pub struct LetterLink {
    /// `A` to `Z`, or `#`.
    pub letter: String,
    /// Link to its page.
    pub href: String,
    /// Number of authors, on the authors index (a letter's page shows only its own:
    /// with the others' numbers, a new author would change every letter's pages).
    pub count: Option<usize>,
    /// Whether it is the page shown.
    pub current: bool,
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

/// A year in the years index, or before or after the one a year's page shows.
#[derive(Debug, Clone, Serialize)]
pub struct YearLink {
    /// The year.
    pub year: u16,
    /// Link to the year's page.
    pub href: String,
    /// Number of papers, in the years index (none before and after a year's page: a new
    /// paper of a year would change the pages of the years beside it).
    pub count: Option<usize>,
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

/// The data of each kind of page.
// One per page being rendered, and boxed with its page (`Output::Page`): the size of
// the largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
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
        /// Letters present, in order, with their authors (empty when the index is split).
        letters: Vec<LetterGroup>,
        /// Number of authors.
        author_count: usize,
        /// Links to each letter's page, when the index is split (else empty).
        letter_pages: Vec<LetterLink>,
    },
    /// The authors of one letter, when the authors index is split.
    AuthorsLetter {
        /// `A` to `Z`, or `#`.
        letter: String,
        /// Number of authors of the letter.
        author_count: usize,
        /// This page's authors.
        authors: Vec<AuthorCount>,
        /// Links to every letter's page.
        letter_pages: Vec<LetterLink>,
        /// Links to the letter's other pages when it has many authors.
        pagination: Option<Pagination>,
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
        /// What tells this author from others of the same name, if the site says.
        disambiguation: Option<String>,
        /// Profiles in scholarly registries (ORCID, dblp, ...).
        identifiers: Vec<IdentifierLink>,
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
        /// Co-authors with numbers of shared papers, most first (at most
        /// [`COAUTHORS_LISTED`]).
        coauthors: Vec<AuthorCount>,
        /// How many co-authors there are besides those listed.
        more_coauthors: usize,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_are_cut_at_words() {
        assert_eq!(snippet("a  b\nc", 10), "a b c");
        assert_eq!(snippet("alpha beta gamma delta", 12), "alpha beta…");
        let long = "word ".repeat(1000);
        let cut = snippet(&long, 200);
        assert!(cut.ends_with('…') && cut.chars().count() <= 201, "{cut}");
        assert_eq!(snippet("short   text", 200), "short text");
    }

    #[test]
    fn a_snippet_of_text_without_spaces_is_cut_at_a_character() {
        let text = "数学".repeat(200);
        let cut = snippet(&text, 300);
        assert_eq!(cut.chars().count(), 301, "300 characters and the ellipsis");
        assert!(cut.ends_with('…'));
        assert!(text.starts_with(cut.trim_end_matches('…')));
        // A space early in the text is no place to cut: too little would be left.
        let text = format!("Short {}", "x".repeat(400));
        assert_eq!(snippet(&text, 300).chars().count(), 301);
    }
}
