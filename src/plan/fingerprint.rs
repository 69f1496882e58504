//! Fingerprints: for each output, a hash of everything its bytes are made from,
//! computed from the graph without building the output.
//!
//! An output whose fingerprint did not change since the last build has the same bytes,
//! so an incremental build renders only outputs whose fingerprint changed. Each kind of
//! output hashes the *entities* it reads: paper and author "cards" (their own fields),
//! an author's, a subject's or a year's list of papers, and a site-wide part
//! (configuration, navigation, version). Hashes use slugs, never ids, which shift when
//! entities are added. The property test `tests/incremental.rs` checks that incremental
//! output always equals a clean build.

use std::hash::Hash;

use rayon::prelude::*;

use super::{
    nearby_papers, FeedKind, OutputKind, PageKind, Planner, SitePlan, FEED_ENTRIES,
    HOME_NEWEST_PAPERS, MORE_PAPERS_PER_AUTHOR,
};
use crate::graph::{AuthorId, PaperId};

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

/// A hasher with a stable output (xxh3, 64 bits). It gathers the bytes and hashes them
/// once: most fingerprints are a few dozen bytes, for which a streaming hasher's
/// buffering costs more than the hashing.
struct Fingerprint(Vec<u8>);

impl Fingerprint {
    fn new(tag: &str) -> Fingerprint {
        let mut hasher = Fingerprint(Vec::with_capacity(128));
        hasher.str(tag);
        hasher
    }

    fn str(&mut self, s: &str) -> &mut Self {
        self.0.extend_from_slice(&(s.len() as u64).to_le_bytes());
        self.0.extend_from_slice(s.as_bytes());
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
        xxhash_rust::xxh3::xxh3_64(&self.0)
    }
}

/// Per-entity hashes of one plan.
pub(super) struct Entities {
    site: u64,
    author_cards: Vec<u64>,
    /// Each paper's card combined with its authors' cards: what a list item shows.
    paper_items: Vec<u64>,
    /// Every author card (with its number of papers) and every paper card.
    whole_site: u64,
}

/// Changed whenever the same input and templates come out differently (links in lists
/// made another way, say), so that outputs of an earlier build are not taken as current.
const OUTPUT_REVISION: u64 = 2;

impl Planner<'_> {
    fn entities(&self) -> Entities {
        let graph = self.graph;
        let mut site = Fingerprint::new("site");
        site.str(env!("CARGO_PKG_VERSION"))
            .u64(OUTPUT_REVISION)
            .str(&format!("{:?}", self.config))
            .u64(u64::from(self.pretty));
        for page in &self.extra_pages {
            site.str(&page.slug)
                .str(&page.title)
                .u64(page.weight as u64)
                .opt(page.description.as_deref())
                .str(&page.body_html);
        }
        let author_cards: Vec<u64> = (0..graph.authors.len())
            .into_par_iter()
            .map(|a| {
                let p = &self.profiles[a];
                Fingerprint::new("author")
                    .str(&graph.authors[a].slug)
                    .str(&p.name)
                    .opt(p.bio_html.as_deref())
                    .opt(p.affiliation.as_deref())
                    .opt(p.homepage.as_deref())
                    .opt(p.orcid.as_deref())
                    .opt(p.photo.as_deref())
                    .finish()
            })
            .collect();
        let paper_cards: Vec<u64> = (0..graph.papers.len())
            .into_par_iter()
            .map(|id| {
                let paper = &graph.papers[id];
                let mut h = Fingerprint::new("paper");
                h.str(&paper.slug)
                    .str(&paper.title)
                    .u64(u64::from(paper.year))
                    .str(&paper.source)
                    .opt(paper.abstract_text.as_deref())
                    .str(&self.citation_keys[id]);
                for subject in &paper.subjects {
                    h.str(subject);
                }
                h.u64(paper.authors.len() as u64);
                for &a in &paper.authors {
                    h.str(&graph.authors[a].slug);
                }
                h.finish()
            })
            .collect();
        let paper_items = (0..graph.papers.len())
            .into_par_iter()
            .map(|id| {
                let mut h = Fingerprint::new("item");
                h.u64(paper_cards[id]);
                for &a in &graph.papers[id].authors {
                    h.u64(author_cards[a]);
                }
                h.finish()
            })
            .collect();
        let mut whole_site = Fingerprint::new("whole site");
        for (a, author) in graph.authors.iter().enumerate() {
            whole_site
                .u64(author_cards[a])
                .u64(author.papers.len() as u64);
        }
        whole_site.u64(u64::MAX);
        for card in &paper_cards {
            whole_site.u64(*card);
        }
        Entities {
            site: site.finish(),
            author_cards,
            paper_items,
            whole_site: whole_site.finish(),
        }
    }

    /// Hash of a list of papers as list items.
    fn items(&self, e: &Entities, h: &mut Fingerprint, papers: &[PaperId]) {
        h.u64(papers.len() as u64);
        for &p in papers {
            h.u64(e.paper_items[p]);
        }
    }

    fn author_list(&self, e: &Entities, h: &mut Fingerprint, a: AuthorId) {
        let author = &self.graph.authors[a];
        h.u64(e.author_cards[a]);
        self.items(e, h, &author.papers);
        for &(other, shared) in &author.coauthors {
            h.u64(e.author_cards[other]).u64(shared as u64);
        }
    }

    /// Everything at once: for outputs that summarize the whole site.
    fn whole_site(&self, e: &Entities, h: &mut Fingerprint) {
        h.u64(e.whole_site);
    }

    fn fingerprint(
        &self,
        e: &Entities,
        templates: &TemplateHashes,
        path: &str,
        kind: &OutputKind,
    ) -> u64 {
        let graph = self.graph;
        // Tagged with the output path (made of slugs), never with ids.
        let mut h = Fingerprint::new(path);
        h.u64(e.site);
        match kind {
            OutputKind::Page(page) => {
                h.u64(templates.html);
                match page {
                    PageKind::Home | PageKind::Authors => self.whole_site(e, &mut h),
                    PageKind::Subjects => {
                        for (code, papers) in &self.subjects {
                            h.str(code).u64(papers.len() as u64);
                        }
                    }
                    PageKind::Years => {
                        for (year, papers) in &self.years {
                            h.u64(u64::from(*year)).u64(papers.len() as u64);
                        }
                    }
                    PageKind::Author(a, _) => self.author_list(e, &mut h, *a),
                    PageKind::Paper(p) => {
                        h.u64(e.paper_items[*p]);
                        for subject in &graph.papers[*p].subjects {
                            h.u64(self.subjects.get(subject.as_str()).map_or(0, Vec::len) as u64);
                        }
                        for &a in &graph.papers[*p].authors {
                            let list = &graph.authors[a].papers;
                            let nearby = nearby_papers(list, *p, MORE_PAPERS_PER_AUTHOR);
                            h.u64(e.author_cards[a])
                                .u64(u64::from(list.len() > nearby.len() + 1));
                            self.items(e, &mut h, &nearby);
                        }
                    }
                    PageKind::Subject(code, _) => {
                        let papers = self
                            .subjects
                            .get(code.as_str())
                            .map_or(&[][..], Vec::as_slice);
                        self.items(e, &mut h, papers);
                    }
                    PageKind::Year(year, _) => {
                        let papers = self.years.get(year).map_or(&[][..], Vec::as_slice);
                        self.items(e, &mut h, papers);
                        let previous = self.years.range(..*year).next_back();
                        let next = self.years.range(year + 1..).next();
                        for (y, list) in previous.into_iter().chain(next) {
                            h.u64(u64::from(*y)).u64(list.len() as u64);
                        }
                        h.u64(u64::from(previous.is_some()));
                    }
                    PageKind::Search => self.whole_site(e, &mut h),
                    PageKind::Extra(_) | PageKind::NotFound => {}
                }
                if matches!(page, PageKind::Home) {
                    self.items(
                        e,
                        &mut h,
                        &self.newest[..self.newest.len().min(HOME_NEWEST_PAPERS)],
                    );
                    for (code, papers) in &self.subjects {
                        h.str(code).u64(papers.len() as u64);
                    }
                }
            }
            OutputKind::Feed(feed) => {
                h.u64(templates.atom);
                let papers: &[PaperId] = match feed {
                    FeedKind::Site => &self.newest,
                    FeedKind::Author(a) => {
                        h.u64(e.author_cards[*a]);
                        &graph.authors[*a].papers
                    }
                    FeedKind::Subject(code) => self
                        .subjects
                        .get(code.as_str())
                        .map_or(&[][..], Vec::as_slice),
                };
                let newest_year = papers.iter().map(|&p| graph.papers[p].year).max();
                h.u64(u64::from(newest_year.unwrap_or(0)));
                self.items(e, &mut h, &papers[..papers.len().min(FEED_ENTRIES)]);
            }
            OutputKind::Sitemap => {
                h.u64(templates.sitemap);
                for (path, author) in self.author_paths.iter().zip(&graph.authors) {
                    h.str(path).u64(author.papers.len() as u64);
                }
                for path in &self.paper_paths {
                    h.str(path);
                }
                for (code, papers) in &self.subjects {
                    h.str(code).u64(papers.len() as u64);
                }
                for (year, papers) in &self.years {
                    h.u64(u64::from(*year)).u64(papers.len() as u64);
                }
            }
            OutputKind::Robots => {}
            OutputKind::AuthorsData | OutputKind::PapersData | OutputKind::SearchIndex(_) => {
                self.whole_site(e, &mut h)
            }
            OutputKind::PaperCitation(p, _) => {
                h.u64(e.paper_items[*p]);
            }
            OutputKind::AuthorCitations(a, _) => {
                h.u64(e.author_cards[*a]);
                self.items(e, &mut h, &graph.authors[*a].papers);
            }
        }
        h.finish()
    }
}

impl SitePlan<'_> {
    /// The fingerprint of every output, in the order of [`SitePlan::outputs`].
    pub fn fingerprints(&self, templates: &TemplateHashes) -> Vec<u64> {
        self.fingerprints_of(templates, 0..self.outputs.len())
    }

    /// The fingerprints of the outputs in `range`, in order.
    pub fn fingerprints_of(
        &self,
        templates: &TemplateHashes,
        range: std::ops::Range<usize>,
    ) -> Vec<u64> {
        let entities = self.entities.get_or_init(|| self.planner.entities());
        self.outputs[range]
            .par_iter()
            .map(|o| {
                self.planner
                    .fingerprint(entities, templates, &o.path, &o.kind)
            })
            .collect()
    }
}
