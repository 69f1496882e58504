//! Discovery outputs: Atom feeds, the sitemap and robots.txt.
//!
//! Nothing here reads the clock: a feed's `updated` is the newest year among its
//! papers, so unchanged input gives unchanged bytes.

use serde::Serialize;

use super::{subject_name, subject_path, FeedKind, PageKind, Planner, Shared};
use crate::graph::PaperId;

/// How many papers (newest first) a feed lists.
pub const FEED_ENTRIES: usize = 100;

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
    /// One entry per paper, newest first (each a [`FeedEntry`], shared by every feed
    /// that lists the paper).
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
    /// Authors on the site.
    pub authors: Vec<FeedPerson>,
    /// Abstract as clean text.
    pub summary: Option<String>,
    /// Subjects: code and full name.
    pub categories: Vec<FeedCategory>,
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

/// Context of the `sitemap.xml` template.
#[derive(Debug, Clone, Serialize)]
pub struct SitemapContext {
    /// Every HTML page's URL.
    pub urls: Vec<String>,
}

/// The RFC 3339 timestamp used for a year: its first day at midnight UTC.
pub fn year_timestamp(year: u16) -> String {
    format!("{year:04}-01-01T00:00:00Z")
}

impl Planner<'_> {
    /// The output path of a feed.
    pub(super) fn feed_path(&self, kind: &FeedKind) -> String {
        match kind {
            FeedKind::Site => "atom.xml".into(),
            FeedKind::Author(id) => format!("{}atom.xml", self.author_paths[*id]),
            FeedKind::Subject(code) => format!("{}atom.xml", subject_path(code)),
        }
    }

    /// A feed's title and link targets, for `<link rel="alternate">` on pages.
    pub(super) fn feed_title(&self, kind: &FeedKind) -> String {
        match kind {
            FeedKind::Site => format!("{}: newest papers", self.config.title),
            FeedKind::Author(id) => format!("Papers by {}", self.profiles[*id].name),
            FeedKind::Subject(code) => format!("Papers in {}", subject_name(code)),
        }
    }

    /// An identifier for a site path: its absolute URL with a base URL, a `urn:` otherwise.
    fn stable_id(&self, site_path: &str) -> String {
        match &self.config.base_url {
            Some(base) => format!("{base}{site_path}"),
            None => format!(
                "urn:profilegen:{}",
                site_path.trim_end_matches('/').replace('/', ":")
            ),
        }
    }

    pub(super) fn feed(&self, kind: &FeedKind) -> FeedContext {
        let graph = self.graph;
        let (papers, page): (Vec<PaperId>, PageKind) = match kind {
            FeedKind::Site => (self.newest.clone(), PageKind::Home),
            FeedKind::Author(id) => (graph.authors[*id].papers.clone(), PageKind::Author(*id, 0)),
            FeedKind::Subject(code) => (
                self.subjects
                    .get(code.as_str())
                    .cloned()
                    .unwrap_or_default(),
                PageKind::Subject(code.clone(), 0),
            ),
        };
        let (page_path, _) = self.page_path(&page);
        let feed_path = self.feed_path(kind);
        let updated = papers
            .iter()
            .map(|&p| graph.papers[p].year)
            .max()
            .map_or_else(|| year_timestamp(1970), year_timestamp);
        let entries = papers
            .iter()
            .take(FEED_ENTRIES)
            .map(|&p| {
                let entry = self.feed_entries[p].get_or_init(|| Shared::new(&self.feed_entry(p)));
                entry.clone()
            })
            .collect();
        FeedContext {
            id: self.stable_id(&feed_path),
            title: self.feed_title(kind),
            subtitle: self.config.description.clone(),
            updated,
            self_url: self.public_url(&feed_path),
            alternate_url: self.public_url(&page_path),
            language: self.config.language.clone(),
            author: self.config.title.clone(),
            entries,
        }
    }

    /// Paper `p`'s entry, the same in every feed.
    fn feed_entry(&self, p: PaperId) -> FeedEntry {
        let paper = &self.graph.papers[p];
        let text = &self.paper_texts[p];
        FeedEntry {
            id: self.stable_id(&self.paper_paths[p]),
            title: text.title_text.clone(),
            url: self.public_url(&self.paper_paths[p]),
            updated: year_timestamp(paper.year),
            authors: paper
                .authors
                .iter()
                .map(|&a| FeedPerson {
                    name: self.profiles[a].name.clone(),
                    uri: self.public_url(&self.author_paths[a]),
                })
                .collect(),
            summary: text.abstract_text.clone(),
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

    pub(super) fn sitemap(&self) -> SitemapContext {
        let graph = self.graph;
        let mut urls = vec![self.public_url("")];
        urls.extend(
            ["authors/", "subjects/", "years/"]
                .iter()
                .map(|p| self.public_url(p)),
        );
        let paged = |base: &str, len: usize| -> Vec<String> {
            (0..super::page_count(len))
                .map(|page| self.public_url(&super::paged_path(base, page)))
                .collect()
        };
        for (id, path) in self.author_paths.iter().enumerate() {
            urls.extend(paged(path, graph.authors[id].papers.len()));
        }
        urls.extend(self.paper_paths.iter().map(|p| self.public_url(p)));
        for (code, papers) in &self.subjects {
            urls.extend(paged(&subject_path(code), papers.len()));
        }
        for (&year, papers) in &self.years {
            urls.extend(paged(&super::year_path(year), papers.len()));
        }
        urls.extend(
            self.extra_pages
                .iter()
                .map(|p| self.public_url(&format!("{}/", p.slug))),
        );
        SitemapContext { urls }
    }

    /// `robots.txt`: everything allowed; the sitemap's address when it can be absolute
    /// (the robots protocol wants an absolute URL there).
    pub(super) fn robots(&self) -> Vec<u8> {
        let mut text = String::from("User-agent: *\nAllow: /\n");
        if self.config.base_url.is_some() {
            text.push_str(&format!("\nSitemap: {}\n", self.public_url("sitemap.xml")));
        }
        text.into_bytes()
    }
}
