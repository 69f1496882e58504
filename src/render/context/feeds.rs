//! Discovery outputs: Atom feeds, the sitemap and robots.txt.
//!
//! Nothing here reads the clock: a feed's `updated` is the newest year among its
//! papers, so unchanged input gives unchanged bytes.

use serde::Serialize;

use super::{listed_authors, snippet, OutputBuilder, Reads, Shared};
use crate::config::{FeedSummary, FEED_SNIPPET_CHARS};
use crate::graph::PaperId;
use crate::plan::paths::{stable_id, subject_name};
use crate::plan::{sitemap_part_path, FeedKind, PageKind, SiteIndex};

/// Context of the `atom.xml` template.
#[derive(Debug, Clone, Serialize)]
pub struct FeedContext {
    /// Feed id: its absolute URL, or a `urn:` when the site has no base URL.
    pub id: String,
    /// Feed title.
    pub title: String,
    /// Feed subtitle.
    pub subtitle: String,
    /// Newest entry's date (RFC 3339).
    pub updated: String,
    /// The feed's own URL.
    pub self_url: String,
    /// The HTML page the feed belongs to.
    pub alternate_url: String,
    /// Language of the entries.
    pub language: String,
    /// Feed-level author (the site).
    pub author: String,
    /// One entry per paper, newest first (each a [`FeedEntry`], made once and shared
    /// by every feed that lists the paper).
    pub entries: Vec<Shared>,
}

/// One paper in a feed.
#[derive(Debug, Clone, Serialize)]
pub struct FeedEntry {
    /// Entry id (the paper's URL, or a `urn:`).
    pub id: String,
    /// Title as clean text.
    pub title: String,
    /// The paper's page.
    pub url: String,
    /// Publication date (the year's first day, RFC 3339).
    pub updated: String,
    /// The paper's first authors on the site, as many as the site's lists name (a large
    /// collaboration's page lists them all).
    pub authors: Vec<FeedPerson>,
    /// The abstract as clean text: its start or all of it, as `feed_summary` says.
    pub summary: Option<String>,
    /// Subjects: code and full name.
    pub categories: Vec<FeedCategory>,
}

impl FeedEntry {
    /// About the bytes the entry holds (its text, and a little for each field), as a
    /// bounded cache counts it.
    fn bytes(&self) -> usize {
        let people: usize = self
            .authors
            .iter()
            .map(|a| a.name.len() + a.uri.len() + 64)
            .sum();
        let categories: usize = (self.categories.iter())
            .map(|c| c.term.len() + c.label.len() + 64)
            .sum();
        let text = self.id.len() + self.title.len() + self.url.len() + self.updated.len();
        text + self.summary.as_ref().map_or(0, String::len) + people + categories + 256
    }
}

/// An author in a feed.
#[derive(Debug, Clone, Serialize)]
pub struct FeedPerson {
    /// Display name.
    pub name: String,
    /// Their page.
    pub uri: String,
}

/// A subject in a feed.
#[derive(Debug, Clone, Serialize)]
pub struct FeedCategory {
    /// arXiv code.
    pub term: String,
    /// Full name.
    pub label: String,
}

/// Context of the `sitemap.xml` template: a list of pages, or (on a site of more
/// than [`crate::plan::SITEMAP_URLS`] pages) a list of the sitemaps that list them.
#[derive(Debug, Clone, Serialize)]
pub struct SitemapContext {
    /// The URLs of the HTML pages this sitemap lists.
    pub urls: Vec<String>,
    /// The URLs of the sitemaps this sitemap index lists (empty for a list of pages).
    pub sitemaps: Vec<String>,
}

/// The RFC 3339 timestamp used for a year: its first day at midnight UTC.
pub fn year_timestamp(year: u16) -> String {
    format!("{year:04}-01-01T00:00:00Z")
}

/// A feed lists the newest papers of the site, an author or a subject.
pub(super) fn reads<'k>(ix: &SiteIndex, kind: &'k FeedKind) -> Reads<'k> {
    match kind {
        FeedKind::Site => Reads {
            newest: ix.config.feed_entries(),
            ..Reads::default()
        },
        FeedKind::Author(id) => Reads {
            author_lists: vec![*id],
            ..Reads::default()
        },
        FeedKind::Subject(code) => Reads {
            subject_lists: vec![code],
            ..Reads::default()
        },
    }
}

impl OutputBuilder<'_> {
    /// A feed's title and link targets, for `<link rel="alternate">` on pages.
    pub(super) fn feed_title(&self, kind: &FeedKind) -> String {
        match kind {
            FeedKind::Site => format!("{}: newest papers", self.v.config().title),
            FeedKind::Author(id) => format!("Papers by {}", self.v.author(*id).profile.name),
            FeedKind::Subject(code) => format!("Papers in {}", subject_name(code)),
        }
    }

    pub(super) fn feed(&self, kind: &FeedKind) -> FeedContext {
        let v = &self.v;
        let (papers, page): (&[PaperId], PageKind) = match kind {
            FeedKind::Site => (v.newest(v.config().feed_entries()), PageKind::Home),
            FeedKind::Author(id) => (v.author_papers(*id), PageKind::Author(*id, 0)),
            FeedKind::Subject(code) => (v.subject_papers(code), PageKind::Subject(code.clone(), 0)),
        };
        let page_path = v.page_path(&page);
        let feed_path = v.feed_path(kind);
        let updated = papers
            .iter()
            .map(|&p| v.paper(p).paper.year)
            .max()
            .map_or_else(|| year_timestamp(1970), year_timestamp);
        let entries = papers
            .iter()
            .take(v.config().feed_entries())
            .map(|&p| self.shared_feed_entry(p))
            .collect();
        FeedContext {
            id: stable_id(v.config(), &feed_path),
            title: self.feed_title(kind),
            subtitle: v.config().description.clone(),
            updated,
            self_url: v.public_url(&feed_path),
            alternate_url: v.public_url(&page_path),
            language: v.config().language.clone(),
            author: v.config().title.clone(),
            entries,
        }
    }

    /// Paper `p`'s entry, the same in every feed: made once while the build's fragments
    /// hold it.
    fn shared_feed_entry(&self, p: PaperId) -> Shared {
        self.fragments.feed_entries.get_or_make(p as u64, || {
            let entry = self.feed_entry(p);
            let bytes = entry.bytes();
            (Shared::new(&entry), bytes)
        })
    }

    /// Paper `p`'s entry.
    fn feed_entry(&self, p: PaperId) -> FeedEntry {
        let v = &self.v;
        let card = v.paper(p);
        let (paper, text) = (card.paper, card.text);
        FeedEntry {
            id: stable_id(v.config(), card.path),
            title: text.title_text.clone(),
            url: v.public_url(card.path),
            updated: year_timestamp(paper.year),
            authors: listed_authors(paper)
                .iter()
                .map(|&a| {
                    let author = v.author(a);
                    FeedPerson {
                        name: author.profile.name.clone(),
                        uri: v.public_url(author.path),
                    }
                })
                .collect(),
            summary: text.abstract_text.as_ref().map(|a| {
                let a = a.load();
                match v.config().feed_summary {
                    FeedSummary::Snippet => snippet(&a, FEED_SNIPPET_CHARS),
                    FeedSummary::Abstract => a.to_string(),
                }
            }),
            categories: paper
                .subjects
                .iter()
                .map(|code| FeedCategory {
                    term: code.clone(),
                    label: subject_name(code),
                })
                .collect(),
        }
    }

    pub(super) fn sitemap(&self, part: Option<usize>) -> SitemapContext {
        let (pages, parts) = self.v.sitemap_pages(part);
        let sitemaps = match part {
            None if parts > 0 => (0..parts)
                .map(|n| self.v.public_url(&sitemap_part_path(n)))
                .collect(),
            _ => Vec::new(),
        };
        SitemapContext {
            urls: pages.iter().map(|p| self.v.public_url(p)).collect(),
            sitemaps,
        }
    }

    /// `robots.txt`: everything allowed; the sitemap's address when it can be absolute
    /// (the robots protocol wants an absolute URL there).
    pub(super) fn robots(&self) -> Vec<u8> {
        let mut text = String::from("User-agent: *\nAllow: /\n");
        if self.v.config().base_url.is_some() {
            text.push_str(&format!(
                "\nSitemap: {}\n",
                self.v.public_url("sitemap.xml")
            ));
        }
        text.into_bytes()
    }
}
