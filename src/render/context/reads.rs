//! What each output reads, declared once by its builder, and the fingerprint that comes
//! from the declaration.
//!
//! A builder first declares its [`Reads`] (which authors, papers, lists and counts it
//! shows), then makes its context through a [`View`] of the index that hands out only
//! what was declared. The output's fingerprint is a hash of the declared entities, so an
//! output whose fingerprint did not change since the last build has the same bytes and
//! is not rendered again. In debug builds (and so in every test) the view checks each
//! read against the declaration and panics on one that was not declared: a builder
//! cannot show something its fingerprint does not cover without the tests failing.
//!
//! Entities are hashed once per build ([`Entities`]): paper items (a paper's own fields
//! with its authors' cards), author cards, and the lists of papers. Hashes use slugs,
//! never ids, which shift when entities are added.

use rayon::prelude::*;

use crate::graph::{Author, AuthorId, Paper, PaperId};
use crate::plan::paths::page_of;
use crate::plan::profiles::Profile;
use crate::plan::texts::PaperText;
use crate::plan::{nearby_papers, SiteIndex};
use crate::search::Document;

/// Changed whenever the same input and templates come out differently (links in lists
/// made another way, the co-author graph drawn in other markup, say), so that outputs of
/// an earlier build are not taken as current: every output's fingerprint reads it. A
/// test (`tests/seed_site.rs`) holds it with a hash of the seed site's output and fails
/// when that output changes under the same revision and theme.
pub const OUTPUT_REVISION: u64 = 6;

/// Hashes of the templates, so that a template change re-renders what uses it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct TemplateHashes {
    /// Every HTML template (pages include and extend each other).
    pub html: u64,
    /// Every XML template but the sitemap: `atom.xml` and its fragments.
    pub atom: u64,
    /// `sitemap.xml`.
    pub sitemap: u64,
}

/// Which templates an output is rendered with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TemplateSet {
    /// None: the output is bytes made directly.
    None,
    /// The HTML templates.
    Html,
    /// The feed templates.
    Atom,
    /// The sitemap template.
    Sitemap,
}

/// What one output reads from the index, besides the site-wide part (configuration,
/// extra pages, navigation), which every output reads.
#[derive(Debug, Clone, Default)]
pub struct Reads<'a> {
    /// Everything: for outputs that summarize the whole site.
    pub whole_site: bool,
    /// Author cards (name, slug, profile).
    pub authors: Vec<AuthorId>,
    /// Paper items: each paper's own fields with its authors' cards.
    pub papers: Vec<PaperId>,
    /// Authors' lists of papers (as items) and co-authors (cards and counts).
    pub author_lists: Vec<AuthorId>,
    /// Subjects' lists of papers, as items.
    pub subject_lists: Vec<&'a str>,
    /// Pages of subjects' lists of papers: `(code, page)` reads the items on that page of
    /// the subject's list, the list's length and where each year starts in it.
    pub subject_pages: Vec<(&'a str, usize)>,
    /// Pages of years' lists of papers: `(year, page)` reads the items on that page of
    /// the year's list and the list's length (a new paper changes the pages from its
    /// place on, not the ones before it).
    pub year_pages: Vec<(u16, usize)>,
    /// The newest papers of the site, as items: this many.
    pub newest: usize,
    /// Every subject with its number of papers.
    pub all_subject_counts: bool,
    /// Every year with its number of papers.
    pub all_year_counts: bool,
    /// Every letter of the authors index with its number of authors.
    pub author_letters: bool,
    /// Every letter of the authors index, without its number of authors: a new author
    /// changes one letter's number, not which letters there are.
    pub letter_names: bool,
    /// Letter `i` of the authors index with its number of authors (and so of pages).
    pub letter: Option<usize>,
    /// The years before and after this one that have papers (not their numbers of
    /// papers, which a new paper changes).
    pub adjacent_years: Option<u16>,
    /// The papers near a paper in an author's list ([`nearby_papers`], as items), and
    /// whether the list has more: `(author, paper, how many)`.
    pub nearby: Vec<(AuthorId, PaperId, usize)>,
    /// The sitemap's pages: the paths of those in part `n` (`Some(n)`), or (`None`)
    /// how many parts there are, or every page's path when there are none. A new page
    /// changes one part, not the others.
    pub sitemap: Option<Option<usize>>,
}

impl Reads<'_> {
    /// What an output that summarizes the whole site reads: everything.
    pub fn whole_site() -> Reads<'static> {
        Reads {
            whole_site: true,
            ..Reads::default()
        }
    }
}

/// A stable hasher (xxh3, 64 bits) that gathers the bytes and hashes them once: most
/// fingerprints are a few dozen bytes, for which a streaming hasher's buffering costs
/// more than the hashing.
struct Fingerprint(Vec<u8>);

impl Fingerprint {
    fn new(tag: &str) -> Fingerprint {
        Fingerprint::with_room(tag, 128)
    }

    /// A fingerprint with room for `bytes` bytes besides its tag, for one that hashes
    /// a long list: grown from the usual size, the buffers of the lists of authors with
    /// thousands of co-authors were copied over and over.
    fn with_room(tag: &str, bytes: usize) -> Fingerprint {
        let mut hasher = Fingerprint(Vec::with_capacity(tag.len() + 8 + bytes));
        hasher.str(tag);
        hasher
    }

    fn str(&mut self, s: &str) -> &mut Self {
        self.bytes(s.as_bytes())
    }

    fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        self.0
            .extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        self.0.extend_from_slice(bytes);
        self
    }

    fn opt(&mut self, s: Option<&str>) -> &mut Self {
        match s {
            Some(s) => self.u64(1).str(s),
            None => self.u64(0),
        }
    }

    fn u64(&mut self, n: u64) -> &mut Self {
        self.0.extend_from_slice(&n.to_le_bytes());
        self
    }

    fn finish(&self) -> u64 {
        crate::hash::content_hash(&self.0)
    }
}

/// The hashes of one index's entities.
pub struct Entities {
    site: u64,
    author_cards: Vec<u64>,
    /// Each paper's card, which holds its authors' cards: what a list item shows.
    paper_items: Vec<u64>,
    /// Each author's card, list of papers and co-authors.
    author_lists: Vec<u64>,
    /// Every author card (with its number of papers) and every paper card.
    whole_site: u64,
}

impl Entities {
    /// Hashes every entity of `ix`.
    pub fn of(ix: &SiteIndex) -> Entities {
        let graph = ix.graph;
        let author_cards: Vec<u64> = (0..graph.authors.len())
            .into_par_iter()
            .map(|a| author_card(&graph.authors[a], &ix.profiles[a]))
            .collect();
        let paper_items: Vec<u64> = (0..graph.papers.len())
            .into_par_iter()
            .map(|p| paper_card(ix, p, &author_cards))
            .collect();
        let author_lists = (0..graph.authors.len())
            .into_par_iter()
            .map(|a| {
                let author = &graph.authors[a];
                let room = 8 * (2 + author.papers.len() + 2 * author.coauthors.len());
                let mut h = Fingerprint::with_room("author list", room);
                h.u64(author_cards[a]);
                items(&paper_items, &mut h, &author.papers);
                for &(other, shared) in &author.coauthors {
                    h.u64(author_cards[other]).u64(shared as u64);
                }
                h.finish()
            })
            .collect();
        let room = 8 * (2 * graph.authors.len() + 1 + graph.papers.len());
        let mut whole_site = Fingerprint::with_room("whole site", room);
        for (a, author) in graph.authors.iter().enumerate() {
            whole_site
                .u64(author_cards[a])
                .u64(author.papers.len() as u64);
        }
        whole_site.u64(u64::MAX);
        for card in &paper_items {
            whole_site.u64(*card);
        }
        Entities {
            site: site_hash(ix),
            author_cards,
            paper_items,
            author_lists,
            whole_site: whole_site.finish(),
        }
    }

    /// The site-wide part every output reads: the version, the configuration, the extra
    /// pages.
    pub fn site(&self) -> u64 {
        self.site
    }

    /// What a search document reads, as the search index fingerprints its files of
    /// documents and keeps its terms ([`crate::search::DocumentHashes`]): an author's
    /// document shows the author's name, link and number of papers (the card and the
    /// number); a paper's its title, link, authors' names and year, and its terms read
    /// its abstract and subjects too (its item: the paper's card, which holds them,
    /// with its authors' cards).
    pub fn search_document(&self, ix: &SiteIndex, document: Document) -> [u64; 2] {
        match document {
            Document::Author(a) => [
                self.author_cards[a],
                ix.graph.authors[a].papers.len() as u64,
            ],
            Document::Paper(p) => [self.paper_items[p], u64::MAX],
        }
    }

    /// A digest of what the output at `path`, rendered with `templates` (their hash),
    /// reads, when it shows papers near another in authors' lists and nothing but
    /// authors, papers and lists: the same digest means the same fingerprint. It is
    /// coarser than the fingerprint (an author's whole list, for the papers near one in
    /// it) but found without walking the lists, so that a long-running process finds an
    /// unchanged paper page's fingerprint by it
    /// ([`super::OutputMaker::fingerprint_after`]). `None` for other outputs, whose
    /// fingerprint costs no more than a digest would.
    pub fn digest(&self, path: &str, template: u64, reads: &Reads) -> Option<u64> {
        let Reads {
            whole_site,
            authors,
            papers,
            author_lists,
            subject_lists,
            subject_pages,
            year_pages,
            newest,
            all_subject_counts,
            all_year_counts,
            author_letters,
            letter_names,
            letter,
            adjacent_years,
            nearby,
            sitemap,
        } = reads;
        let reads_more = *whole_site
            || !subject_lists.is_empty()
            || !subject_pages.is_empty()
            || !year_pages.is_empty()
            || *newest > 0
            || *all_subject_counts
            || *all_year_counts
            || *author_letters
            || *letter_names
            || letter.is_some()
            || adjacent_years.is_some()
            || sitemap.is_some();
        if nearby.is_empty() || reads_more {
            return None;
        }
        let mut h = Fingerprint::new("digest");
        h.str(path).u64(self.site).u64(template);
        h.u64(authors.len() as u64);
        for &a in authors {
            h.u64(self.author_cards[a]);
        }
        items(&self.paper_items, &mut h, papers);
        h.u64(author_lists.len() as u64);
        for &a in author_lists {
            h.u64(self.author_lists[a]);
        }
        // The papers near `p` in `a`'s list, and whether it has more, follow from the
        // list (whose hash holds the author's card and every item in order) and `p`'s
        // item (which holds its slug, and so finds it in the list).
        h.u64(nearby.len() as u64);
        for &(a, p, n) in nearby {
            h.u64(self.author_lists[a])
                .u64(self.paper_items[p])
                .u64(n as u64);
        }
        Some(h.finish())
    }

    /// The fingerprint of the output at `path`, rendered with `templates` (their hash),
    /// that reads `reads` of `ix`.
    pub fn fingerprint(&self, ix: &SiteIndex, path: &str, template: u64, reads: &Reads) -> u64 {
        // Tagged with the output path (made of slugs), never with ids.
        let mut h = Fingerprint::new(path);
        h.u64(self.site).u64(template);
        if reads.whole_site {
            h.u64(self.whole_site);
        }
        for &a in &reads.authors {
            h.u64(self.author_cards[a]);
        }
        items(&self.paper_items, &mut h, &reads.papers);
        for &a in &reads.author_lists {
            h.u64(self.author_lists[a]);
        }
        for code in &reads.subject_lists {
            items(&self.paper_items, &mut h, ix.subject_papers(code));
        }
        for &(code, page) in &reads.subject_pages {
            let list = ix.subject_papers(code);
            h.u64(list.len() as u64);
            items(&self.paper_items, &mut h, page_of(list, page));
            for (year, start) in year_starts(ix, list) {
                h.u64(u64::from(year)).u64(start as u64);
            }
        }
        for &(year, page) in &reads.year_pages {
            let list = ix.year_papers(year);
            h.u64(list.len() as u64);
            items(&self.paper_items, &mut h, page_of(list, page));
        }
        items(&self.paper_items, &mut h, newest(ix, reads.newest));
        if reads.all_subject_counts {
            for (code, papers) in &ix.subjects {
                h.str(code).u64(papers.len() as u64);
            }
        }
        if reads.all_year_counts {
            for (year, papers) in &ix.years {
                h.u64(u64::from(*year)).u64(papers.len() as u64);
            }
        }
        if reads.author_letters {
            for letter in &ix.author_letters {
                h.str(&letter.letter).u64(letter.authors.len() as u64);
            }
        }
        if reads.letter_names {
            for letter in &ix.author_letters {
                h.str(&letter.letter);
            }
        }
        if let Some(i) = reads.letter {
            let letter = &ix.author_letters[i];
            h.str(&letter.letter).u64(letter.authors.len() as u64);
        }
        if let Some(year) = reads.adjacent_years {
            let (previous, next) = adjacent_years(ix, year);
            h.u64(previous.map_or(0, |y| u64::from(y) + 1));
            h.u64(next.map_or(0, |y| u64::from(y) + 1));
        }
        for &(a, p, n) in &reads.nearby {
            let (nearby, more) = nearby_in_list(ix, a, p, n);
            h.u64(self.author_cards[a]).u64(u64::from(more));
            items(&self.paper_items, &mut h, &nearby);
        }
        if let Some(part) = reads.sitemap {
            let (pages, parts) = sitemap_pages(ix, part);
            h.u64(parts as u64).u64(pages.len() as u64);
            for path in pages {
                h.str(path);
            }
        }
        h.finish()
    }
}

/// What an author card shows.
fn author_card(author: &Author, profile: &Profile) -> u64 {
    let mut h = Fingerprint::new("author");
    h.str(&author.slug)
        .str(&profile.name)
        .opt(profile.disambiguation.as_deref())
        .opt(profile.bio_html.as_deref())
        .opt(profile.affiliation.as_deref())
        .opt(profile.homepage.as_deref());
    for (registry, id) in &profile.identifiers {
        h.str(registry.key()).str(id);
    }
    h.opt(profile.photo.as_deref()).finish()
}

/// What a paper card shows: the paper's own fields (its texts and URL follow from them
/// and the site's configuration), its slug, its citation key and its authors' cards
/// (`author_cards`, by author), which hold their slugs.
fn paper_card(ix: &SiteIndex, id: PaperId, author_cards: &[u64]) -> u64 {
    let paper = &ix.graph.papers[id];
    let own = paper.derived(|d| &d.card, || own_card(paper));
    let mut h = Fingerprint::with_room("paper", 64 + 8 * paper.authors.len());
    h.u64(own)
        .str(&paper.slug)
        .str(&ix.citation_keys[id])
        .u64(paper.authors.len() as u64);
    for &a in &paper.authors {
        h.u64(author_cards[a]);
    }
    h.finish()
}

/// The part of a paper card that the paper's own fields make: found once for a paper
/// that a long-running process takes from its previous build (see
/// [`crate::graph::PaperDerived`]).
fn own_card(paper: &crate::graph::Paper) -> u64 {
    let mut h = Fingerprint::new("paper's own fields");
    h.str(&paper.title)
        .u64(u64::from(paper.year))
        .str(&paper.source);
    // The abstract by its hash (found when it was read), and paths by their bytes,
    // rather than copied as text.
    match &paper.abstract_text {
        Some(text) => h.u64(1).u64(text.content_hash()),
        None => h.u64(0),
    };
    h.u64(paper.subjects.len() as u64);
    for subject in &paper.subjects {
        h.str(subject);
    }
    for occurrence in &paper.occurrences {
        h.bytes(occurrence.path.as_os_str().as_encoded_bytes())
            .u64(occurrence.line as u64);
    }
    h.finish()
}

/// The site-wide part every output reads: the version, the configuration, the extra
/// pages (in the navigation of every page).
fn site_hash(ix: &SiteIndex) -> u64 {
    let mut site = Fingerprint::new("site");
    site.str(env!("CARGO_PKG_VERSION"))
        .u64(OUTPUT_REVISION)
        .str(&format!("{:?}", ix.config))
        .u64(u64::from(ix.pretty));
    for page in &ix.extra_pages {
        site.str(&page.slug)
            .str(&page.title)
            .u64(page.weight as u64)
            .opt(page.description.as_deref())
            .str(&page.body_html);
    }
    site.finish()
}

/// The site paths of the pages in part `part` of the sitemap, or (`None`) of every page
/// when the sitemap has no parts (none for the index of its parts); and how many parts
/// it has.
fn sitemap_pages<'i>(ix: &'i SiteIndex, part: Option<usize>) -> (Vec<&'i str>, usize) {
    let parts = ix.sitemap_parts.len();
    let pages = match part {
        Some(n) => (ix.sitemap_parts.get(n).into_iter().flatten())
            .map(|&i| ix.sitemap_paths[i as usize].as_str())
            .collect(),
        None if parts == 0 => ix.sitemap_paths.iter().map(String::as_str).collect(),
        None => Vec::new(),
    };
    (pages, parts)
}

/// Hash of a list of papers as list items.
fn items(paper_items: &[u64], h: &mut Fingerprint, papers: &[PaperId]) {
    h.u64(papers.len() as u64);
    for &p in papers {
        h.u64(paper_items[p]);
    }
}

/// The first `n` of the site's newest papers.
fn newest<'i>(ix: &'i SiteIndex, n: usize) -> &'i [PaperId] {
    &ix.newest[..ix.newest.len().min(n)]
}

/// The years before and after `year` that have papers.
fn adjacent_years(ix: &SiteIndex, year: u16) -> (Option<u16>, Option<u16>) {
    let previous = ix.years.range(..year).next_back().map(|(&y, _)| y);
    let next = ix.years.range(year + 1..).next().map(|(&y, _)| y);
    (previous, next)
}

/// Up to `n` papers near `paper` in `author`'s list, and whether the list has more.
fn nearby_in_list(
    ix: &SiteIndex,
    author: AuthorId,
    paper: PaperId,
    n: usize,
) -> (Vec<PaperId>, bool) {
    let list = &ix.graph.authors[author].papers;
    let nearby = nearby_papers(list, paper, n);
    let more = list.len() > nearby.len() + 1;
    (nearby, more)
}

/// One paper, as a builder may read it.
#[derive(Clone, Copy)]
pub struct PaperCard<'a> {
    /// The paper as linked.
    pub paper: &'a Paper,
    /// Its title and abstract, converted.
    pub text: &'a PaperText,
    /// Its site path.
    pub path: &'a str,
    /// Its citation key.
    pub citation_key: &'a str,
    /// The paper's id and the index it is in, for what is made when asked for.
    id: PaperId,
    ix: &'a SiteIndex<'a>,
}

impl<'a> PaperCard<'a> {
    /// Its public URL (absolute with a base URL): made when asked for rather than kept
    /// for every paper.
    pub fn url(&self) -> String {
        self.ix.public_url(self.path)
    }

    /// Its authors' display names, in order.
    pub fn author_names(&self) -> Vec<&'a str> {
        self.ix.paper_author_names(self.id)
    }
}

/// One author, as a builder may read them.
#[derive(Clone, Copy)]
pub struct AuthorCard<'a> {
    /// The author's slug.
    pub slug: &'a str,
    /// Profile: display name, bio, links.
    pub profile: &'a Profile,
    /// Site path of the author's page.
    pub path: &'a str,
}

/// The index as one output may read it: what its [`Reads`] declare (checked in debug
/// builds), and the site-wide part.
#[derive(Clone, Copy)]
pub struct View<'a> {
    ix: &'a SiteIndex<'a>,
    reads: &'a Reads<'a>,
}

impl<'a> View<'a> {
    /// A view of `ix` for an output that declared `reads`.
    pub fn new(ix: &'a SiteIndex<'a>, reads: &'a Reads<'a>) -> View<'a> {
        View { ix, reads }
    }

    /// The site's configuration.
    pub fn config(&self) -> &'a crate::config::SiteConfig {
        self.ix.config
    }

    /// Whether directories are linked as `x/`.
    pub fn pretty(&self) -> bool {
        self.ix.pretty
    }

    /// The extra pages, in navigation order.
    pub fn extra_pages(&self) -> &'a [&'a crate::content::ExtraPage] {
        &self.ix.extra_pages
    }

    /// The URL a site path is published at.
    pub fn public_url(&self, site_path: &str) -> String {
        self.ix.public_url(site_path)
    }

    /// The site path of a page (the author's or paper's, when it is about one, must be
    /// declared).
    pub fn page_path(&self, kind: &crate::plan::PageKind) -> String {
        use crate::plan::PageKind;
        match kind {
            PageKind::Author(id, _) => debug_assert!(self.allows_author(*id)),
            PageKind::Paper(id) => debug_assert!(self.allows_paper(*id)),
            _ => {}
        }
        crate::plan::page_path(self.ix, kind).0
    }

    /// The output path of a feed (an author's must be declared).
    pub fn feed_path(&self, kind: &crate::plan::FeedKind) -> String {
        if let crate::plan::FeedKind::Author(id) = kind {
            debug_assert!(self.allows_author(*id));
        }
        crate::plan::feed_path(self.ix, kind)
    }

    /// Redirect `n` of the site (its old path is the output's own).
    pub fn redirect(&self, n: usize) -> &'a crate::plan::redirects::Redirect {
        &self.ix.redirects[n]
    }

    /// The whole index, for outputs that summarize the whole site.
    pub fn whole_site(&self) -> &'a SiteIndex<'a> {
        debug_assert!(self.reads.whole_site, "the whole site was not declared");
        self.ix
    }

    /// Paper `id`.
    pub fn paper(&self, id: PaperId) -> PaperCard<'a> {
        debug_assert!(self.allows_paper(id), "paper {id} was not declared");
        let ix = self.ix;
        PaperCard {
            paper: &ix.graph.papers[id],
            text: &ix.paper_texts[id],
            path: &ix.paper_paths[id],
            citation_key: &ix.citation_keys[id],
            id,
            ix,
        }
    }

    /// Author `id`.
    pub fn author(&self, id: AuthorId) -> AuthorCard<'a> {
        debug_assert!(self.allows_author(id), "author {id} was not declared");
        let ix = self.ix;
        AuthorCard {
            slug: &ix.graph.authors[id].slug,
            profile: &ix.profiles[id],
            path: &ix.author_paths[id],
        }
    }

    /// Author `id`'s papers, newest first.
    pub fn author_papers(&self, id: AuthorId) -> &'a [PaperId] {
        debug_assert!(
            self.has_author_list(id),
            "author list {id} was not declared"
        );
        &self.ix.graph.authors[id].papers
    }

    /// The authors of shard `n` of the authors' data (each must be declared).
    pub fn author_shard(&self, n: usize) -> &'a [AuthorId] {
        &self.ix.author_shards[n]
    }

    /// The papers of shard `n` of the papers' data (each must be declared).
    pub fn paper_shard(&self, n: usize) -> &'a [PaperId] {
        &self.ix.paper_shards[n]
    }

    /// Whether author `id`'s publication lists are `data:` links in their page (else
    /// files beside it).
    pub fn author_lists_inline(&self, id: AuthorId) -> bool {
        debug_assert!(
            self.has_author_list(id),
            "author list {id} was not declared"
        );
        self.ix.author_lists_inline[id]
    }

    /// Author `id`'s co-authors with the number of papers shared, most first.
    pub fn coauthors(&self, id: AuthorId) -> &'a [(AuthorId, usize)] {
        debug_assert!(
            self.has_author_list(id),
            "author list {id} was not declared"
        );
        &self.ix.graph.authors[id].coauthors
    }

    /// The papers of subject `code`, newest first.
    pub fn subject_papers(&self, code: &str) -> &'a [PaperId] {
        debug_assert!(
            self.reads.whole_site || self.reads.subject_lists.contains(&code),
            "subject list {code} was not declared"
        );
        self.ix.subject_papers(code)
    }

    /// The papers on page `page` of subject `code`'s list (newest first), how many the
    /// list has, and where each year starts in it.
    pub fn subject_page(&self, code: &str, page: usize) -> ListPage<'a> {
        debug_assert!(
            self.reads.whole_site || self.reads.subject_pages.contains(&(code, page)),
            "page {page} of subject list {code} was not declared"
        );
        ListPage::of(self.ix, self.ix.subject_papers(code), page)
    }

    /// [`View::subject_page`] for page `page` of author `id`'s list (newest first).
    pub fn author_page(&self, id: AuthorId, page: usize) -> ListPage<'a> {
        debug_assert!(
            self.has_author_list(id),
            "author list {id} was not declared"
        );
        ListPage::of(self.ix, &self.ix.graph.authors[id].papers, page)
    }

    /// The papers on page `page` of `year`'s list (by title), and how many the list has.
    pub fn year_page(&self, year: u16, page: usize) -> (&'a [PaperId], usize) {
        debug_assert!(
            self.reads.whole_site || self.reads.year_pages.contains(&(year, page)),
            "page {page} of year list {year} was not declared"
        );
        let list = self.ix.year_papers(year);
        (page_of(list, page), list.len())
    }

    /// The `n` newest papers of the site.
    pub fn newest(&self, n: usize) -> &'a [PaperId] {
        debug_assert!(self.reads.whole_site || n <= self.reads.newest);
        newest(self.ix, n)
    }

    /// Every subject with its number of papers, by code.
    pub fn subject_counts(&self) -> impl Iterator<Item = (&'a str, usize)> {
        debug_assert!(self.reads.whole_site || self.reads.all_subject_counts);
        self.ix
            .subjects
            .iter()
            .map(|(code, list)| (*code, list.len()))
    }

    /// Every year with its number of papers, oldest first.
    pub fn year_counts(&self) -> impl DoubleEndedIterator<Item = (u16, usize)> + 'a {
        debug_assert!(self.reads.whole_site || self.reads.all_year_counts);
        self.ix.years.iter().map(|(year, list)| (*year, list.len()))
    }

    /// Whether the authors index is split into a page per letter (a matter of the number
    /// of authors, which [`View::author_letters`] gives).
    pub fn splits_authors_index(&self) -> bool {
        debug_assert!(self.reads.whole_site || self.reads.author_letters);
        self.ix.splits_authors_index()
    }

    /// Every letter of the authors index with its number of authors.
    pub fn author_letters(&self) -> impl Iterator<Item = (&'a str, usize)> {
        debug_assert!(self.reads.whole_site || self.reads.author_letters);
        let letters = &self.ix.author_letters;
        letters.iter().map(|l| (l.letter.as_str(), l.authors.len()))
    }

    /// Every letter of the authors index.
    pub fn letter_names(&self) -> impl Iterator<Item = &'a str> {
        debug_assert!(
            self.reads.whole_site || self.reads.author_letters || self.reads.letter_names
        );
        self.ix.author_letters.iter().map(|l| l.letter.as_str())
    }

    /// Letter `i` of the authors index with its number of authors.
    pub fn letter(&self, i: usize) -> (&'a str, usize) {
        debug_assert!(self.has_letter(i), "letter {i} was not declared");
        let letter = &self.ix.author_letters[i];
        (letter.letter.as_str(), letter.authors.len())
    }

    /// How many pages letter `i` of the authors index takes.
    pub fn letter_page_count(&self, i: usize) -> usize {
        debug_assert!(self.has_letter(i), "letter {i} was not declared");
        self.ix.letter_page_count(i)
    }

    fn has_letter(&self, i: usize) -> bool {
        self.reads.whole_site || self.reads.author_letters || self.reads.letter == Some(i)
    }

    /// The authors on page `page` of letter `i` of the index.
    pub fn letter_authors(&self, i: usize, page: usize) -> &'a [AuthorId] {
        let page = self.ix.letter_page(i, page);
        debug_assert!(self.reads.whole_site || page.iter().all(|&a| self.has_author_list(a)));
        page
    }

    /// The years before and after `year` that have papers.
    pub fn adjacent_years(&self, year: u16) -> (Option<u16>, Option<u16>) {
        debug_assert!(self.reads.whole_site || self.reads.adjacent_years == Some(year));
        adjacent_years(self.ix, year)
    }

    /// The site paths of the pages in part `part` of the sitemap, or (`None`) of every
    /// page when the sitemap has no parts; and how many parts it has.
    pub fn sitemap_pages(&self, part: Option<usize>) -> (Vec<&'a str>, usize) {
        debug_assert!(
            self.reads.whole_site || self.reads.sitemap == Some(part),
            "the sitemap's part {part:?} was not declared"
        );
        sitemap_pages(self.ix, part)
    }

    /// Up to `n` papers near `paper` in `author`'s list, and whether the list has more.
    pub fn nearby(&self, author: AuthorId, paper: PaperId, n: usize) -> (Vec<PaperId>, bool) {
        debug_assert!(
            self.reads.whole_site || self.reads.nearby.contains(&(author, paper, n)),
            "papers near {paper} in {author}'s list were not declared"
        );
        nearby_in_list(self.ix, author, paper, n)
    }

    fn has_author_list(&self, id: AuthorId) -> bool {
        self.reads.whole_site || self.reads.author_lists.contains(&id)
    }

    /// Whether paper `id` is among those declared, as an item or in a list.
    fn allows_paper(&self, id: PaperId) -> bool {
        let r = self.reads;
        let ix = self.ix;
        r.whole_site
            || r.papers.contains(&id)
            || r.author_lists
                .iter()
                .any(|&a| ix.graph.authors[a].papers.contains(&id))
            || r.subject_lists
                .iter()
                .any(|code| ix.subject_papers(code).contains(&id))
            || (r.year_pages.iter())
                .any(|&(y, page)| page_of(ix.year_papers(y), page).contains(&id))
            || (r.subject_pages.iter())
                .any(|&(code, page)| page_of(ix.subject_papers(code), page).contains(&id))
            || newest(ix, r.newest).contains(&id)
            || r.nearby
                .iter()
                .any(|&(a, p, n)| nearby_in_list(ix, a, p, n).0.contains(&id))
    }

    /// Whether author `id` is declared: as a card, through a list, or as an author of a
    /// declared paper.
    fn allows_author(&self, id: AuthorId) -> bool {
        let r = self.reads;
        let ix = self.ix;
        let of_paper = |p: &PaperId| ix.graph.papers[*p].authors.contains(&id);
        r.whole_site
            || r.authors.contains(&id)
            || r.author_lists.iter().any(|&a| {
                a == id
                    || ix.graph.authors[a].coauthors.iter().any(|&(c, _)| c == id)
                    || ix.graph.authors[a].papers.iter().any(of_paper)
            })
            || r.papers.iter().any(of_paper)
            || r.nearby
                .iter()
                .any(|&(a, p, n)| a == id || nearby_in_list(ix, a, p, n).0.iter().any(of_paper))
            || r.subject_lists
                .iter()
                .any(|code| ix.subject_papers(code).iter().any(of_paper))
            || (r.year_pages.iter())
                .any(|&(y, page)| page_of(ix.year_papers(y), page).iter().any(of_paper))
            || (r.subject_pages.iter())
                .any(|&(code, page)| page_of(ix.subject_papers(code), page).iter().any(of_paper))
            || newest(ix, r.newest).iter().any(of_paper)
    }
}

/// One page of a paginated list of papers grouped by year (newest first).
pub struct ListPage<'a> {
    /// The papers on the page.
    pub papers: &'a [PaperId],
    /// How many papers the whole list has.
    pub count: usize,
    /// Where each year starts in the whole list: `(year, index of its first paper)`.
    pub year_starts: Vec<(u16, usize)>,
}

impl<'a> ListPage<'a> {
    /// Page `page` of `list`.
    fn of(ix: &SiteIndex, list: &'a [PaperId], page: usize) -> ListPage<'a> {
        ListPage {
            papers: page_of(list, page),
            count: list.len(),
            year_starts: year_starts(ix, list),
        }
    }
}

/// Where each year starts in `list`: `(year, index of its first paper)`, in list order.
fn year_starts(ix: &SiteIndex, list: &[PaperId]) -> Vec<(u16, usize)> {
    runs_of(list.len(), |i| ix.graph.papers[list[i]].year)
}

/// Where each run of equal values starts among `len` values (`value_at` each), with
/// its value, for values whose equal ones are side by side (a list of papers newest
/// first, by year). Each run's end is found by steps that double, then halve: a few
/// dozen looks for each year rather than a walk of the whole list, which every page
/// of a long paginated list repeats (at 500,000 papers a year's list has 113 pages).
fn runs_of<T: PartialEq + Copy>(len: usize, value_at: impl Fn(usize) -> T) -> Vec<(T, usize)> {
    let mut runs = Vec::new();
    let mut start = 0;
    while start < len {
        let value = value_at(start);
        runs.push((value, start));
        // `inside` holds `value`; `outside` (or the end) is the first known not to.
        let (mut inside, mut step) = (start, 1);
        let mut outside = loop {
            match start.checked_add(step).filter(|&probe| probe < len) {
                Some(probe) if value_at(probe) == value => inside = probe,
                Some(probe) => break probe,
                None => break len,
            }
            step *= 2;
        };
        while outside - inside > 1 {
            let middle = inside + (outside - inside) / 2;
            match value_at(middle) == value {
                true => inside = middle,
                false => outside = middle,
            }
        }
        start = outside;
    }
    runs
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::Path;

    use crate::config::parse_config;
    use crate::content::{parse_bio, parse_page};
    use crate::graph::link;
    use crate::plan::{plan_site, search_outputs, OutputKind, PlanInput, PlanMemo, SitePlan};
    use crate::records::parse_record_file;
    use crate::render::context::{Entities, Output, OutputMaker, RenderMemo, TemplateHashes};
    use crate::search::{Document, KeptTerms, SearchMemo};

    /// A record: year, title, abstract, subject.
    type TestRecord = (u16, &'static str, &'static str, &'static str);

    /// A site's sources, as texts.
    #[derive(Clone)]
    struct Sources {
        /// `(file name, author, records)`.
        files: Vec<(&'static str, &'static str, Vec<TestRecord>)>,
        config: String,
        bios: Vec<(&'static str, &'static str)>,
        pages: Vec<(&'static str, &'static str)>,
    }

    fn record_file(author: &str, records: &[(u16, &str, &str, &str)]) -> String {
        let mut text = format!(
            "arXiv subjects\n\n{author}\n\nPublications and source records attributed to \
             {author}.\n\n{} recordsLinked to original sources",
            records.len()
        );
        for (year, title, abstract_text, subject) in records {
            text.push_str(&format!(
                "\n\narXiv{year}\n\n{title}\n\n{abstract_text}\n\n{subject}\u{2197}"
            ));
        }
        text
    }

    fn base() -> Sources {
        Sources {
            files: vec![
                (
                    "ada.txt",
                    "Ada Lovelace",
                    vec![
                        (2024, "Shared Engines", "About $x^2$ engines.", "cs.DC"),
                        (2023, "Notes on Numbers", "Numbers.", "math.NT"),
                        (2021, "Early Work", "Early.", "cs.DC"),
                        (2020, "Earlier Work", "Earlier.", "cs.LG"),
                    ],
                ),
                (
                    "charles.txt",
                    "Charles Babbage",
                    vec![
                        (2024, "Shared Engines", "About $x^2$ engines.", "cs.DC"),
                        (2022, "Difference Engines", "Gears.", "cs.AR"),
                    ],
                ),
                (
                    "mary.txt",
                    "Mary Somerville",
                    vec![(2023, "Connexion of Sciences", "Physics.", "physics.hist-ph")],
                ),
            ],
            config: "title: Lab\ndescription: A lab.\n".into(),
            bios: vec![("mary-somerville", "---\naffiliation: Oxford\n---\nA bio.\n")],
            pages: vec![("about", "---\ntitle: About\n---\nAbout us.\n")],
        }
    }

    /// `sources` with one more record file: `(file name, author, records)`.
    fn with_file(
        mut sources: Sources,
        file: (&'static str, &'static str, Vec<TestRecord>),
    ) -> Sources {
        sources.files.push(file);
        sources
    }

    /// Every output's fingerprint and context (as JSON, or bytes as a string), by path.
    fn outputs(sources: &Sources) -> BTreeMap<String, (u64, serde_json::Value)> {
        outputs_with(sources, |_| {})
    }

    /// [`outputs`] of the plan as `adjust` leaves it.
    fn outputs_with(
        sources: &Sources,
        adjust: impl FnOnce(&mut SitePlan),
    ) -> BTreeMap<String, (u64, serde_json::Value)> {
        with_maker(sources, adjust, |plan, maker| {
            let templates = TemplateHashes::default();
            plan.outputs
                .iter()
                .map(|o| {
                    let shown = match maker.make(&o.kind) {
                        Output::Page(context) => serde_json::to_value(&context),
                        Output::Feed(context) => serde_json::to_value(&context),
                        Output::Sitemap(context) => serde_json::to_value(&context),
                        Output::Bytes(bytes) => Ok(String::from_utf8_lossy(&bytes).into()),
                    };
                    let fingerprint = maker.fingerprint(&o.path, &o.kind, &templates);
                    (o.path.clone(), (fingerprint, shown.unwrap()))
                })
                .collect()
        })
    }

    /// What `look` finds in the site of `sources`: its plan (as `adjust` leaves it) and
    /// the maker of its outputs.
    fn with_maker<T>(
        sources: &Sources,
        adjust: impl FnOnce(&mut SitePlan),
        look: impl FnOnce(&SitePlan, &OutputMaker) -> T,
    ) -> T {
        let files: Vec<_> = sources
            .files
            .iter()
            .map(|(name, author, records)| {
                let text = record_file(author, records);
                let (file, diagnostics) = parse_record_file(Path::new(name), text.as_bytes());
                assert!(diagnostics.is_empty(), "{diagnostics:?}");
                file.unwrap()
            })
            .collect();
        let graph = link(&files);
        let config = parse_config(Path::new("profilegen.yaml"), &sources.config).unwrap();
        let bios: Vec<_> = sources
            .bios
            .iter()
            .map(|(slug, text)| parse_bio(Path::new(slug), slug, text).unwrap())
            .collect();
        let pages: Vec<_> = sources
            .pages
            .iter()
            .map(|(slug, text)| parse_page(Path::new(slug), slug, text).unwrap())
            .collect();
        let memo = PlanMemo::default();
        let mut plan: SitePlan = plan_site(&PlanInput {
            graph: &graph,
            config: &config,
            bios: &bios,
            pages: &pages,
            memo: &memo,
            history: &Default::default(),
            earlier_texts: None,
        });
        adjust(&mut plan);
        let render_memo = RenderMemo::default();
        let maker = OutputMaker::new(&plan.index, &render_memo);
        look(&plan, &maker)
    }

    /// Each search index file is fingerprinted by the index's own hash of that file,
    /// found by the path it is served at, also in a precompressed site, whose file
    /// paths end in `.gz`: were it fingerprinted as reading the whole site, every
    /// search file would be made again at each build.
    #[test]
    fn a_search_file_is_fingerprinted_by_the_index_whatever_its_file_path() {
        for precompress in ["none", "gzip"] {
            let sources = Sources {
                config: format!("{}precompress: {precompress}\n", base().config),
                ..base()
            };
            with_maker(
                &sources,
                |_| {},
                |plan, maker| {
                    let templates = TemplateHashes::default();
                    let search =
                        maker.prepare_search(&SearchMemo::default(), &mut KeptTerms::default());
                    let own: Vec<(String, u64)> = maker.with_documents(|documents| {
                        (search.files().into_iter())
                            .map(|served| {
                                let hash = search.fingerprint(&plan.index, &served, documents);
                                (served.clone(), hash.unwrap())
                            })
                            .collect()
                    });
                    let config = &plan.index.config;
                    let outputs = search_outputs(
                        own.iter().map(|o| o.0.clone()).collect(),
                        config.precompress,
                    );
                    assert!(own.len() >= 3, "meta, terms and documents: {own:?}");
                    for (output, (served, hash)) in outputs.iter().zip(&own) {
                        let gzip = precompress == "gzip";
                        assert_eq!(output.path.ends_with(".gz"), gzip, "{}", output.path);
                        let fingerprint = maker.fingerprint(&output.path, &output.kind, &templates);
                        assert_eq!(fingerprint, *hash, "{served} in {}", output.path);
                    }
                },
            );
        }
    }

    /// A paper on the second page of a year's and a subject's list gains an author:
    /// those pages' fingerprints change and the first pages' do not (they show the
    /// lists' counts of papers and years, which are the same).
    #[test]
    fn a_changed_paper_changes_only_its_page_of_the_year_and_the_subject() {
        let titles: Vec<&'static str> = (0..401)
            .map(|i| &*Box::leak(format!("Paper {i:03}").into_boxed_str()))
            .collect();
        let records: Vec<TestRecord> = titles
            .iter()
            .map(|t| (2020, *t, "Text.", "cs.DC"))
            .collect();
        let before = Sources {
            files: vec![("ada.txt", "Ada Lovelace", records)],
            ..base()
        };
        let after = with_file(
            before.clone(),
            (
                "bo.txt",
                "Bo Chen",
                vec![(2020, "Paper 400", "Text.", "cs.DC")],
            ),
        );
        let (before, after) = (outputs(&before), outputs(&after));
        for list in ["years/2020/", "subjects/cs.DC/"] {
            let first = format!("{list}index.html");
            let second = format!("{list}page/2/index.html");
            assert!(before[&first] == after[&first], "{first} is the same");
            let (was, is) = (&before[&second], &after[&second]);
            assert!(was.1 != is.1, "{second} shows the new author");
            assert!(was.0 != is.0, "{second} has a new fingerprint");
            assert!(!before.contains_key(&format!("{list}page/3/index.html")));
        }
    }

    /// A new paper changes its subject's and year's numbers of papers, which the pages
    /// of the subject's other papers and of the years beside it do not show: they keep
    /// their fingerprints.
    #[test]
    fn a_new_paper_leaves_the_pages_of_its_subject_and_the_years_beside_it() {
        let after = with_file(
            base(),
            (
                "zz.txt",
                "Zoe Li",
                vec![(2023, "A Wholly New Paper", "New.", "cs.DC")],
            ),
        );
        let (before, after) = (outputs(&base()), outputs(&after));
        for kept in [
            "papers/shared-engines-2024/index.html",
            "papers/early-work-2021/index.html",
            "years/2024/index.html",
            "years/2022/index.html",
        ] {
            assert!(before[kept] == after[kept], "{kept} is the same");
        }
        for changed in ["years/2023/index.html", "subjects/cs.DC/index.html"] {
            assert!(before[changed].0 != after[changed].0, "{changed} changes");
        }
    }

    /// A new author changes their letter's number of authors, which the other letters'
    /// pages do not show (the authors index does).
    #[test]
    fn a_new_author_leaves_the_pages_of_the_other_letters() {
        let names: Vec<&'static str> = (0..=crate::plan::AUTHORS_ON_ONE_PAGE)
            .map(|i| {
                let family = ["Baker", "Lee", "Moss"][i % 3];
                &*Box::leak(format!("Person{i} {family}").into_boxed_str())
            })
            .collect();
        let files: Vec<_> = names
            .iter()
            .map(|&name| {
                let file = &*Box::leak(format!("{name}.txt").into_boxed_str());
                (file, name, vec![(2020, name, "Text.", "cs.DC")])
            })
            .collect();
        let before = Sources { files, ..base() };
        let after = with_file(
            before.clone(),
            (
                "zz.txt",
                "Zoe Lee",
                vec![(2021, "Zoe's Paper", "New.", "cs.DC")],
            ),
        );
        let (before, after) = (outputs(&before), outputs(&after));
        assert!(
            before.contains_key("authors/_l/index.html"),
            "the index is split"
        );
        for kept in ["authors/_b/index.html", "authors/_m/index.html"] {
            assert!(before[kept] == after[kept], "{kept} is the same");
        }
        for changed in ["authors/_l/index.html", "authors/index.html"] {
            assert!(
                before[changed].1 != after[changed].1,
                "{changed} shows the new count"
            );
            assert!(before[changed].0 != after[changed].0, "{changed} changes");
        }
    }

    /// In a sitemap split into parts (as a site of more than 50,000 pages has, here of
    /// four pages a part), a new author's and paper's pages change the parts they fall
    /// in, and the other parts keep their fingerprints.
    #[test]
    fn new_pages_change_only_their_parts_of_the_sitemap() {
        let in_parts = |plan: &mut SitePlan| {
            let paths = &plan.index.sitemap_paths;
            plan.index.sitemap_parts = crate::plan::parts::hash_parts(paths, 4);
            let parts = plan.index.sitemap_parts.len();
            plan.outputs
                .extend((0..parts).map(|n| crate::plan::PlannedOutput {
                    path: crate::plan::sitemap_part_path(n),
                    template: Some("sitemap.xml"),
                    kind: crate::plan::OutputKind::SitemapPart(n),
                }));
        };
        let after = with_file(
            base(),
            (
                "zz.txt",
                "Zoe Li",
                vec![(2023, "A Wholly New Paper", "New.", "cs.DC")],
            ),
        );
        let (before, after) = (
            outputs_with(&base(), in_parts),
            outputs_with(&after, in_parts),
        );
        let parts = |outputs: &BTreeMap<String, (u64, serde_json::Value)>| -> Vec<String> {
            (outputs.keys())
                .filter(|p| p.starts_with("sitemaps/"))
                .cloned()
                .collect()
        };
        assert_eq!(parts(&before), parts(&after), "as many parts");
        assert!(parts(&before).len() >= 4, "{:?}", parts(&before));
        let (mut kept, mut changed) = (0, 0);
        for part in parts(&before) {
            let (was, is) = (&before[&part], &after[&part]);
            let shown = |v: &serde_json::Value| v["urls"].to_string();
            let new_pages = shown(&is.1).contains("zoe-li") || shown(&is.1).contains("wholly");
            assert_eq!(
                was.1 != is.1,
                new_pages,
                "{part} changes with its pages only"
            );
            assert_eq!(
                was.0 != is.0,
                new_pages,
                "{part}'s fingerprint follows its pages"
            );
            if new_pages {
                changed += 1;
            } else {
                kept += 1;
            }
        }
        assert!(
            changed > 0 && kept > 0,
            "{changed} parts changed, {kept} kept"
        );
        assert!(
            before["sitemap.xml"] == after["sitemap.xml"],
            "the index of the parts"
        );
    }

    /// Sets the abstract of every copy of the paper two authors share.
    fn set_shared_abstract(sources: &mut Sources, text: &'static str) {
        for file in &mut sources.files {
            for record in &mut file.2 {
                if record.1 == "Shared Engines" {
                    record.2 = text;
                }
            }
        }
    }

    /// Documents by link, each with what it shows and what it reads.
    type ByLink<S, R> = BTreeMap<String, (S, R)>;

    /// Counts under `what` each document (by link) whose shown part (its bytes, or
    /// its terms) `after` a change differs from `before`, and requires what it reads
    /// (the second part) to differ too.
    fn count_changed<S, R>(
        what: &'static str,
        (before, after): (&ByLink<S, R>, &ByLink<S, R>),
        changed: &mut BTreeMap<&'static str, usize>,
    ) where
        S: PartialEq + std::fmt::Debug,
        R: PartialEq + std::fmt::Debug,
    {
        for (link, (shown, reads)) in after {
            let Some((old_shown, old_reads)) = before.get(link) else {
                continue;
            };
            if old_shown != shown {
                assert_ne!(old_reads, reads, "{what} changed {link}: {shown:?}");
                *changed.entry(what).or_insert(0) += 1;
            }
        }
    }

    /// Requires each of `kinds` of change to have changed some document in `changed`
    /// (as [`count_changed`] counts them).
    fn assert_each_changed(kinds: &[&str], changed: &BTreeMap<&'static str, usize>) {
        for what in kinds {
            assert!(
                changed.contains_key(what),
                "{what} changed no document: {changed:?}"
            );
        }
    }

    /// Changes of every kind a builder could read.
    fn changes() -> Vec<(&'static str, Sources)> {
        let mut changes = Vec::new();
        let mut change = |what: &'static str, edit: &dyn Fn(&mut Sources)| {
            let mut sources = base();
            edit(&mut sources);
            changes.push((what, sources));
        };
        change("an abstract", &|s| {
            set_shared_abstract(s, "About $y^3$ engines.")
        });
        change("a year", &|s| s.files[0].2[2].0 = 2019);
        change("a subject", &|s| s.files[0].2[1].3 = "cs.DC");
        change("a title", &|s| s.files[1].2[1].1 = "Analytical Engines");
        change("a new paper", &|s| {
            s.files[0].2.push((2025, "Newest Work", "New.", "cs.LG"))
        });
        change("a new co-author", &|s| {
            s.files[2].2.push((2021, "Early Work", "Early.", "cs.DC"))
        });
        change("a new author", &|s| {
            s.files.push((
                "zz.txt",
                "Zoe Li",
                vec![(2020, "Earlier Work", "Earlier.", "cs.LG")],
            ))
        });
        change("a display name", &|s| {
            s.config
                .push_str("authors:\n  charles-babbage:\n    name: C. Babbage\n")
        });
        change("an ORCID iD", &|s| {
            s.config
                .push_str("authors:\n  ada-lovelace:\n    orcid: 0000-0002-1825-0097\n")
        });
        change("a bio", &|s| {
            s.bios = vec![(
                "mary-somerville",
                "---\naffiliation: Cambridge\n---\nA bio.\n",
            )]
        });
        change("the site title", &|s| {
            s.config = "title: Other Lab\n".into()
        });
        change("a base URL", &|s| {
            s.config.push_str("base_url: https://lab.example/\n")
        });
        change("an extra page", &|s| {
            s.pages.push(("team", "---\ntitle: Team\n---\nWho.\n"))
        });
        changes
    }

    /// The same sources with every download written as a file.
    fn with_export_files(mut sources: Sources) -> Sources {
        sources.config.push_str("exports: files\n");
        sources
    }

    #[test]
    fn an_output_whose_context_changes_gets_another_fingerprint() {
        // Downloads as data: links in the pages (the default), then as files.
        for export_files in [false, true] {
            let mode = |s: Sources| {
                if export_files {
                    with_export_files(s)
                } else {
                    s
                }
            };
            let changes = changes().into_iter().map(|(what, s)| (what, mode(s)));
            assert_fingerprints_follow_contents(
                &mode(base()),
                changes,
                if export_files { 40 } else { 25 },
            );
        }
    }

    /// Asserts that every output of `base` whose bytes change with a change in
    /// `changes` gets another fingerprint (and that each change changes something).
    fn assert_fingerprints_follow_contents(
        base: &Sources,
        changes: impl Iterator<Item = (&'static str, Sources)>,
        at_least: usize,
    ) {
        let before = outputs(base);
        assert!(before.len() > at_least, "{} outputs", before.len());
        for (what, sources) in changes {
            let after = outputs(&sources);
            let mut changed = 0;
            for (path, (fingerprint, shown)) in &after {
                let Some((old_fingerprint, old_shown)) = before.get(path) else {
                    continue;
                };
                if old_shown != shown {
                    changed += 1;
                    assert_ne!(
                        old_fingerprint, fingerprint,
                        "after changing {what}, {path} shows something else with the same \
                         fingerprint"
                    );
                }
            }
            assert!(changed > 0, "changing {what} changed no output");
        }
    }

    /// Each output's digest (see [`Entities::digest`]) and fingerprint, by path.
    fn digests(sources: &Sources) -> BTreeMap<String, (Option<u64>, u64)> {
        with_maker(
            sources,
            |_| {},
            |plan, maker| {
                let entities = Entities::of(&plan.index);
                let templates = TemplateHashes::default();
                (plan.outputs.iter())
                    .map(|o| {
                        let digest = entities.digest(&o.path, 0, &maker.reads(&o.kind));
                        let fingerprint = maker.fingerprint(&o.path, &o.kind, &templates);
                        (o.path.clone(), (digest, fingerprint))
                    })
                    .collect()
            },
        )
    }

    /// Papers' pages have a digest, which stays the same only while their fingerprint
    /// does, through changes of every kind; other outputs have none.
    #[test]
    fn an_unchanged_digest_means_an_unchanged_fingerprint() {
        let before = digests(&base());
        for (path, (digest, _)) in &before {
            let paper_page = path.starts_with("papers/") && path.ends_with("/index.html");
            assert_eq!(digest.is_some(), paper_page, "{path}");
        }
        let (mut same, mut changed) = (0, 0);
        for (what, sources) in changes() {
            for (path, (digest, fingerprint)) in digests(&sources) {
                let Some((Some(old_digest), old_fingerprint)) = before.get(&path) else {
                    continue;
                };
                if digest == Some(*old_digest) {
                    same += 1;
                    assert_eq!(*old_fingerprint, fingerprint, "{what} changed {path}");
                } else {
                    changed += usize::from(*old_fingerprint != fingerprint);
                }
            }
        }
        assert!(
            same > 10 && changed > 10,
            "{same} the same, {changed} changed"
        );
    }

    /// Each search index file's fingerprint and bytes, by path.
    fn search_files(sources: &Sources) -> BTreeMap<String, (u64, Vec<u8>)> {
        with_maker(
            sources,
            |_| {},
            |_, maker| {
                let templates = TemplateHashes::default();
                let search =
                    maker.prepare_search(&SearchMemo::default(), &mut KeptTerms::default());
                (search.files().into_iter())
                    .map(|path| {
                        let kind = OutputKind::SearchIndex(path.clone());
                        let Output::Bytes(bytes) = maker.make(&kind) else {
                            panic!("{path} is not bytes");
                        };
                        (
                            path.clone(),
                            (maker.fingerprint(&path, &kind, &templates), bytes),
                        )
                    })
                    .collect()
            },
        )
    }

    /// Each search document (as its file of documents lists it) with what
    /// [`Entities::search_document`] says it reads, by the document's link.
    fn search_documents(sources: &Sources) -> BTreeMap<String, (serde_json::Value, [u64; 2])> {
        with_maker(
            sources,
            |_| {},
            |plan, maker| {
                let ix = &plan.index;
                let entities = Entities::of(ix);
                let linker = crate::plan::paths::Linker::for_path("", ix.pretty);
                let authors = ix.graph.authors.len();
                let authors_read = (ix.author_paths.iter().enumerate())
                    .map(|(a, path)| (path, Document::Author(a)));
                let papers_read =
                    (ix.paper_paths.iter().enumerate()).map(|(p, path)| (path, Document::Paper(p)));
                let reads: BTreeMap<String, [u64; 2]> = (authors_read.chain(papers_read))
                    .map(|(path, doc)| (linker.href(path), entities.search_document(ix, doc)))
                    .collect();
                assert_eq!(reads.len(), authors + ix.graph.papers.len());
                let search =
                    maker.prepare_search(&SearchMemo::default(), &mut KeptTerms::default());
                let files = search.files().into_iter();
                let mut documents = BTreeMap::new();
                for path in files.filter(|p| p.starts_with("search/docs-")) {
                    let Output::Bytes(bytes) = maker.make(&OutputKind::SearchIndex(path)) else {
                        panic!("a file of documents is bytes");
                    };
                    let file: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
                    for doc in file.as_object().unwrap().values() {
                        let link = doc["u"].as_str().unwrap().to_string();
                        documents.insert(link.clone(), (doc.clone(), reads[&link]));
                    }
                }
                assert_eq!(documents.len(), reads.len());
                documents
            },
        )
    }

    /// What a search document reads, by the entities it is read from, changes whenever
    /// the document does: its name or title, its authors' names, its year or its number
    /// of papers.
    #[test]
    fn a_search_document_that_changes_reads_something_else() {
        let before = search_documents(&base());
        let mut changed = BTreeMap::new();
        // A title or year changes the paper's link (its slug) too, so that the document
        // is another: a title that keeps its slug changes the same document.
        let mut changes = changes();
        let mut punctuated = base();
        punctuated.files[1].2[1].1 = "Difference Engines!";
        changes.push(("a title's punctuation", punctuated));
        for (what, sources) in changes {
            count_changed(what, (&before, &search_documents(&sources)), &mut changed);
        }
        let kinds = [
            "a display name",
            "a title's punctuation",
            "a new co-author",
            "a new paper",
        ];
        assert_each_changed(&kinds, &changed);
    }

    /// A search document's terms are kept under what it reads, by the entities it is
    /// read from: whenever its terms change (its abstract, subjects, title, authors'
    /// names, or the TeX macros its texts are converted with), so does what it reads.
    #[test]
    fn a_search_document_whose_terms_change_reads_something_else() {
        let terms_and_reads = |sources: &Sources| {
            with_maker(
                sources,
                |_| {},
                |plan, _| {
                    let ix = &plan.index;
                    let entities = Entities::of(ix);
                    let authors = (0..ix.graph.authors.len())
                        .map(|a| (ix.author_paths[a].clone(), Document::Author(a)));
                    let papers = (0..ix.graph.papers.len())
                        .map(|p| (ix.paper_paths[p].clone(), Document::Paper(p)));
                    let site = entities.site();
                    (authors.chain(papers))
                        .map(|(path, doc)| {
                            let words = crate::search::document_words(ix, doc);
                            (path, (words, (site, entities.search_document(ix, doc))))
                        })
                        .collect::<BTreeMap<_, _>>()
                },
            )
        };
        let before = terms_and_reads(&base());
        let mut changes = changes();
        let mut macro_defined = base();
        macro_defined
            .config
            .push_str("tex_macros: '\\newcommand{\\y}{\\mathrm{gears}}'\n");
        set_shared_abstract(&mut macro_defined, "About $\\y$ engines.");
        let mut macro_changed = macro_defined.clone();
        macro_changed.config = macro_changed.config.replace("gears", "wheels");
        let with_macro = terms_and_reads(&macro_defined);
        let mut reworded = base();
        set_shared_abstract(&mut reworded, "About $x^2$ gears.");
        changes.push(("an abstract's words", reworded));
        let mut changed = BTreeMap::new();
        for (what, sources) in changes {
            count_changed(what, (&before, &terms_and_reads(&sources)), &mut changed);
        }
        let after_macro = terms_and_reads(&macro_changed);
        count_changed("a TeX macro", (&with_macro, &after_macro), &mut changed);
        let kinds = [
            "an abstract's words",
            "a subject",
            "a display name",
            "a TeX macro",
        ];
        assert_each_changed(&kinds, &changed);
    }

    /// A search index file of documents is fingerprinted by the entities its documents
    /// read: every file whose bytes change with a change of any kind (links made
    /// another way too) gets another fingerprint.
    #[test]
    fn a_search_file_whose_bytes_change_gets_another_fingerprint() {
        let before = search_files(&base());
        assert!(before.keys().any(|p| p.starts_with("search/docs-")));
        let mut changes = changes();
        let mut plain_links = base();
        plain_links.config.push_str("pretty_urls: false\n");
        changes.push(("how pages are linked", plain_links));
        let mut documents_changed = 0;
        for (what, sources) in changes {
            let after = search_files(&sources);
            for (path, (fingerprint, bytes)) in &after {
                let Some((old_fingerprint, old_bytes)) = before.get(path) else {
                    continue;
                };
                if old_bytes != bytes {
                    documents_changed += usize::from(path.starts_with("search/docs-"));
                    assert_ne!(old_fingerprint, fingerprint, "{what} changed {path}");
                }
            }
        }
        assert!(
            documents_changed > 5,
            "{documents_changed} files of documents changed"
        );
    }

    #[test]
    fn the_same_sources_give_the_same_fingerprints() {
        assert_eq!(outputs(&base()), outputs(&base()));
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "was not declared")]
    fn a_read_that_was_not_declared_fails() {
        let files = [parse_record_file(
            Path::new("ada.txt"),
            record_file(
                "Ada Lovelace",
                &[(2024, "Engines", "An abstract.", "cs.DC")],
            )
            .as_bytes(),
        )
        .0
        .unwrap()];
        let graph = link(&files);
        let config = crate::config::SiteConfig::default();
        let memo = PlanMemo::default();
        let plan = plan_site(&PlanInput {
            graph: &graph,
            config: &config,
            bios: &[],
            pages: &[],
            memo: &memo,
            history: &Default::default(),
            earlier_texts: None,
        });
        let reads = super::Reads::default();
        super::View::new(&plan.index, &reads).paper(0);
    }

    /// The runs of a list whose equal values are side by side, as a walk of the whole
    /// list finds them: at its ends, one long, and runs of every length.
    #[test]
    fn runs_are_found_as_a_walk_of_the_list_finds_them() {
        let walk = |values: &[u16]| {
            let mut runs: Vec<(u16, usize)> = Vec::new();
            for (i, &v) in values.iter().enumerate() {
                if runs.last().is_none_or(|&(last, _)| last != v) {
                    runs.push((v, i));
                }
            }
            runs
        };
        let mut lists: Vec<Vec<u16>> = vec![vec![], vec![2020], vec![7; 1000]];
        lists.push((0..100).rev().collect());
        // Runs of 1, 2, ... 40 papers, years going down.
        lists.push(
            (1..=40u16)
                .flat_map(|n| vec![3000 - n; usize::from(n)])
                .collect(),
        );
        // One run of 1,000, then runs of 1 and 3 by turns, then one of 513.
        let mut mixed = vec![2026; 1000];
        mixed.extend((0..50u16).flat_map(|n| vec![2000 - n; 1 + 2 * usize::from(n % 2)]));
        mixed.extend([1900; 513]);
        lists.push(mixed);
        for values in &lists {
            let found = super::runs_of(values.len(), |i| values[i]);
            assert_eq!(found, walk(values), "{} values", values.len());
        }
    }
}
