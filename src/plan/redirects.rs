//! Old URLs that keep working: when an author's or a paper's slug changes, its old page
//! becomes a small redirect to the new one, and `_redirects` lists it for static hosts.
//!
//! A redirect comes from
//! * the site's identity settings: a slug an author's files would have by their names
//!   alone, which no author holds any more (an alias, a split; see
//!   [`crate::identity`]);
//! * what earlier builds into the same output folder knew ([`SlugHistory`], kept in the
//!   build cache): an author whose record files are the same as those of an earlier
//!   slug (the name in the files was corrected), a paper whose record files, year and
//!   abstract are the same as those of an earlier slug (its title was corrected), and
//!   every redirect an earlier build made, while its old URL is not a page again.
//!
//! A redirect never shadows a page, and leads straight to a page (chains are followed).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::OnceLock;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::paths::{author_path, entity_slug, paper_path};
use crate::config::PageLayout;
use crate::graph::{Author, AuthorId, Paper, PaperId, SiteGraph};
use crate::hash::{self, content_hash, ByHash, HashRuns};
use crate::normalize::text_key_hash;
use crate::reuse::Reuse;

/// An old site path that leads to a page.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Redirect {
    /// The old site path, e.g. `authors/jurgen-kurths-7717b4/`.
    pub from: String,
    /// The page it leads to.
    pub to: RedirectTarget,
}

/// The page a redirect leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RedirectTarget {
    /// An author's page.
    Author(AuthorId),
    /// A paper's page.
    Paper(PaperId),
}

/// What a build leaves for the next one to tell moved pages: each author's and paper's
/// slug with a hash of what makes it the same one, and the redirects made.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlugHistory {
    /// `(slug, hash of the author's record-file paths)`.
    pub authors: Vec<(String, u64)>,
    /// `(slug, hash of the paper's record-file paths, year and abstract)`.
    pub papers: Vec<(String, u64)>,
    /// `(old site path, site path it leads to)`.
    pub redirects: Vec<(String, String)>,
    /// `(content hash, normalized key)` of each paper's abstract, by content hash: the
    /// next build's papers find their abstracts' keys here rather than make them again
    /// (making one reads and normalizes the whole abstract: 7% of a one-off build's
    /// time at 100,000 papers, where the rest of the identities cost little).
    pub abstract_keys: Vec<(u64, u64)>,
}

impl SlugHistory {
    /// The key kept for the abstract whose content hash is `hash`, if any; `runs` are
    /// those of `abstract_keys` (made once for all lookups, see [`HashRuns`]).
    fn abstract_key(&self, runs: &HashRuns, hash: u64) -> Option<u64> {
        let found = runs.find(&self.abstract_keys, hash, |&(h, _)| h);
        found.map(|i| self.abstract_keys[i].1)
    }
}

/// The identity of an author across builds: its record files.
fn author_identity(author: &Author) -> u64 {
    let mut bytes = Vec::new();
    for path in &author.files {
        bytes.extend_from_slice(path.to_string_lossy().as_bytes());
        bytes.push(0);
    }
    content_hash(&bytes)
}

/// Where a paper's identity finds its abstract's normalized key before making it: in
/// the earlier build's history, or in what a long-running process kept, both by a hash
/// of the abstract's bytes (making the key takes far longer than that hash, and a
/// rebuild has almost the same abstracts).
struct AbstractKeys<'a> {
    history: &'a SlugHistory,
    /// The runs of the history's abstract keys, made at the first lookup there (a
    /// rebuild that finds every key in `memo` makes none).
    history_runs: OnceLock<HashRuns>,
    memo: &'a Reuse<u64>,
}

impl AbstractKeys<'_> {
    /// The normalized key of `text` (see [`text_key_hash`]).
    fn of(&self, text: &crate::text_store::Text) -> u64 {
        let hash = text.content_hash();
        let key = || hash::key("abstract key", &hash);
        let runs = || {
            let hashes = self.history.abstract_keys.iter().map(|&(h, _)| h);
            self.history_runs.get_or_init(|| HashRuns::of(hashes))
        };
        let make = || match self.history.abstract_key(runs(), hash) {
            Some(known) => known,
            None => text_key_hash(&text.load()),
        };
        *self.memo.get_or(key, make)
    }
}

/// The identity of a paper across builds: its record files, year and abstract (its
/// normalized key, so that spacing and punctuation do not count). Also the abstract's
/// content hash and key, for the next build's history.
fn paper_identity(paper: &Paper, abstract_keys: &AbstractKeys) -> (u64, Option<(u64, u64)>) {
    let mut files: Vec<_> = paper.occurrences.iter().map(|o| &o.path).collect();
    // Linking lists the occurrences in file path order already; sorting only when they
    // are not saves comparing paths component by component.
    if !files.is_sorted() {
        files.sort();
    }
    files.dedup();
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&paper.year.to_le_bytes());
    let abstract_key =
        (paper.abstract_text.as_ref()).map(|text| (text.content_hash(), abstract_keys.of(text)));
    let key = abstract_key.map_or(0, |(_, key)| key);
    bytes.extend_from_slice(&key.to_le_bytes());
    for path in files {
        bytes.extend_from_slice(path.to_string_lossy().as_bytes());
        bytes.push(0);
    }
    (content_hash(&bytes), abstract_key)
}

/// The site's redirects, by old path, and the history the next build starts from.
pub fn plan_redirects(
    graph: &SiteGraph,
    author_paths: &[String],
    paper_paths: &[String],
    history: &SlugHistory,
    abstract_keys: &Reuse<u64>,
    layout: PageLayout,
) -> (Vec<Redirect>, SlugHistory) {
    // Made only when a redirect may be needed: most builds have none to consider.
    let target_of_path = std::cell::OnceCell::new();
    let targets = || {
        target_of_path.get_or_init(|| {
            let mut targets: HashMap<&str, RedirectTarget> = HashMap::new();
            for (id, path) in author_paths.iter().enumerate() {
                targets.insert(path, RedirectTarget::Author(id));
            }
            for (id, path) in paper_paths.iter().enumerate() {
                targets.insert(path, RedirectTarget::Paper(id));
            }
            targets
        })
    };
    // In parallel: a paper's identity hashes its abstract's key, read from the text store
    // in a large build.
    let author_identities: Vec<u64> = graph.authors.par_iter().map(author_identity).collect();
    let abstract_keys = AbstractKeys {
        history,
        history_runs: OnceLock::new(),
        memo: abstract_keys,
    };
    let (paper_identities, mut next_abstract_keys): (Vec<u64>, Vec<Option<(u64, u64)>>) =
        (graph.papers.par_iter())
            .map(|paper| {
                let identity = || paper_identity(paper, &abstract_keys);
                paper.derived(|d| &d.identity, identity)
            })
            .unzip();

    let mut redirects: BTreeMap<String, RedirectTarget> = BTreeMap::new();
    let mut add = |from: String, to: RedirectTarget| {
        if is_page_path(&from) && !targets().contains_key(from.as_str()) {
            redirects.entry(from).or_insert(to);
        }
    };
    for (slug, id) in &graph.former_author_slugs {
        add(author_path(slug, layout), RedirectTarget::Author(*id));
    }
    // An author or paper whose slug is the one it had is its own page: no redirect.
    // Authors and papers side by side: each is partly serial.
    let (moved_authors, moved_papers) = rayon::join(
        || {
            moved(&history.authors, &author_identities, |id| {
                &graph.authors[id].slug
            })
        },
        || {
            moved(&history.papers, &paper_identities, |id| {
                &graph.papers[id].slug
            })
        },
    );
    for (slug, id) in moved_authors {
        add(author_path(slug, layout), RedirectTarget::Author(id));
    }
    for (slug, id) in moved_papers {
        add(paper_path(slug, layout), RedirectTarget::Paper(id));
    }
    if !history.redirects.is_empty() {
        carry_redirects(&history.redirects, targets(), &mut redirects);
    }

    let path_of = |to: &RedirectTarget| match *to {
        RedirectTarget::Author(id) => author_paths[id].clone(),
        RedirectTarget::Paper(id) => paper_paths[id].clone(),
    };
    let next = SlugHistory {
        authors: (graph.authors.par_iter())
            .zip(author_identities)
            .map(|(a, identity)| (a.slug.clone(), identity))
            .collect(),
        papers: (graph.papers.par_iter())
            .zip(paper_identities)
            .map(|(p, identity)| (p.slug.clone(), identity))
            .collect(),
        redirects: redirects
            .iter()
            .map(|(from, to)| (from.clone(), path_of(to)))
            .collect(),
        abstract_keys: {
            next_abstract_keys.par_sort_unstable();
            next_abstract_keys.dedup();
            next_abstract_keys.into_iter().flatten().collect()
        },
    };
    let list = redirects
        .into_iter()
        .map(|(from, to)| Redirect { from, to })
        .collect();
    (list, next)
}

/// Whether `path` is where an author or a paper page can be (`authors/<slug>/`,
/// `papers/<slug>.html`): what a remembered path must be to become a redirect, however
/// the cache it was read from came to be.
fn is_page_path(path: &str) -> bool {
    entity_slug(path).is_some()
}

/// The earlier slugs in `history` whose identity an author or paper (of
/// `identities`, by id) has now under another slug (`slug_of` its id), with that id, in
/// the history's order: looked up on every thread (every author and paper of the
/// earlier build is looked up at each build).
fn moved<'h, 'g>(
    history: &'h [(String, u64)],
    identities: &[u64],
    slug_of: impl Fn(usize) -> &'g String + Sync,
) -> Vec<(&'h str, usize)> {
    let of_identity = first_by_identity(identities);
    (history.par_iter())
        .filter_map(|(slug, identity)| {
            let id = of_identity.get(identity).copied();
            id.filter(|&id| slug_of(id) != slug)
                .map(|id| (slug.as_str(), id))
        })
        .collect()
}

/// The first index holding each identity (identities held by several are ambiguous:
/// the first in slug order wins, as slugs are sorted).
fn first_by_identity(identities: &[u64]) -> ByHash<usize> {
    let mut first = ByHash::with_capacity_and_hasher(identities.len(), Default::default());
    for (id, &identity) in identities.iter().enumerate() {
        first.entry(identity).or_insert(id);
    }
    first
}

/// Keeps an earlier build's redirects whose old path is not a page again, each leading
/// to its page, or through a redirect made now to that one's page.
fn carry_redirects(
    earlier: &[(String, String)],
    target_of_path: &HashMap<&str, RedirectTarget>,
    redirects: &mut BTreeMap<String, RedirectTarget>,
) {
    let made_now: HashMap<String, RedirectTarget> = redirects.clone().into_iter().collect();
    let mut seen = HashSet::new();
    for (from, to) in earlier {
        if !is_page_path(from) || target_of_path.contains_key(from.as_str()) || !seen.insert(from) {
            continue;
        }
        let target = target_of_path
            .get(to.as_str())
            .copied()
            .or_else(|| made_now.get(to).copied());
        if let Some(target) = target {
            redirects.entry(from.clone()).or_insert(target);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::link;
    use crate::records::{Record, RecordFile};
    use std::path::PathBuf;

    fn file(path: &str, name: &str, title: &str) -> RecordFile {
        RecordFile {
            path: PathBuf::from(path),
            author_name: name.into(),
            declared_count: Some(1),
            records: vec![Record::new(
                "arXiv".into(),
                2024,
                title.into(),
                Some("The same abstract.".into()),
                vec!["cs.DL".into()],
                9,
            )],
        }
    }

    fn redirects_of(
        graph: &SiteGraph,
        history: &SlugHistory,
    ) -> (Vec<(String, String)>, SlugHistory) {
        let layout = PageLayout::Folders;
        let (authors, papers) = crate::plan::paths::page_paths(graph, layout);
        let (list, next) =
            plan_redirects(graph, &authors, &papers, history, &Reuse::default(), layout);
        let shown = list
            .iter()
            .map(|r| {
                let to = match r.to {
                    RedirectTarget::Author(id) => authors[id].clone(),
                    RedirectTarget::Paper(id) => papers[id].clone(),
                };
                (r.from.clone(), to)
            })
            .collect();
        (shown, next)
    }

    #[test]
    fn a_corrected_title_and_a_corrected_name_leave_redirects() {
        let before = link(&[file(
            "content/records/a.txt",
            "Jurgen Kurths",
            "Chaos Synchronisation",
        )]);
        let (none, history) = redirects_of(&before, &SlugHistory::default());
        assert!(none.is_empty());
        let after = link(&[file(
            "content/records/a.txt",
            "Jürgen Kurths",
            "Chaos Synchronization",
        )]);
        let (redirects, next) = redirects_of(&after, &history);
        // Transliterated, both names slugify alike: the author page did not move.
        assert_eq!(
            redirects,
            vec![(
                "papers/chaos-synchronisation-2024/".to_string(),
                "papers/chaos-synchronization-2024/".to_string()
            )]
        );
        // A later build keeps it, and a second correction leads the old URL to the newest.
        let again = link(&[file(
            "content/records/a.txt",
            "J. Kurths",
            "Chaos synchronization (2)",
        )]);
        let (redirects, _) = redirects_of(&again, &next);
        assert_eq!(
            redirects,
            vec![
                (
                    "authors/jurgen-kurths/".to_string(),
                    "authors/j-kurths/".to_string()
                ),
                (
                    "papers/chaos-synchronisation-2024/".to_string(),
                    "papers/chaos-synchronization-2-2024/".to_string()
                ),
                (
                    "papers/chaos-synchronization-2024/".to_string(),
                    "papers/chaos-synchronization-2-2024/".to_string()
                ),
            ]
        );
    }

    #[test]
    fn abstract_keys_are_kept_once_each_and_found_again_in_the_history() {
        let files = [
            file("content/records/a.txt", "Ada Lovelace", "Notes"),
            file("content/records/b.txt", "Ada Lovelace", "Sketch"),
        ];
        let before = link(&files);
        let (_, history) = redirects_of(&before, &SlugHistory::default());
        // Two papers with one abstract: its key is kept once, by its content hash.
        let text = before.papers[0].abstract_text.clone().unwrap();
        let (hash, key) = (text.content_hash(), text_key_hash("The same abstract."));
        assert_eq!(history.abstract_keys, [(hash, key)]);
        let runs = HashRuns::of([hash].into_iter());
        assert_eq!(history.abstract_key(&runs, hash), Some(key));
        assert_eq!(history.abstract_key(&runs, hash ^ 1), None);

        // A corrected title leaves a redirect, the paper being known by its abstract's key.
        let corrected = [
            file("content/records/a.txt", "Ada Lovelace", "Notes, revised"),
            file("content/records/b.txt", "Ada Lovelace", "Sketch"),
        ];
        let after = link(&corrected);
        let (redirects, _) = redirects_of(&after, &history);
        let moved = (
            "papers/notes-2024/".to_string(),
            "papers/notes-revised-2024/".to_string(),
        );
        assert_eq!(redirects, [moved]);
        // The key is taken from the history, not made again: another key there makes
        // the paper another one, and no redirect. (Linked again: a paper keeps the
        // identity it was first given, see `PaperDerived::identity`.)
        let other_key = SlugHistory {
            abstract_keys: vec![(hash, key ^ 1)],
            ..history.clone()
        };
        let (redirects, next) = redirects_of(&link(&corrected), &other_key);
        assert!(redirects.is_empty(), "{redirects:?}");
        assert_eq!(next.abstract_keys, [(hash, key ^ 1)]);
    }

    #[test]
    fn a_redirect_never_shadows_a_page_and_a_changed_paper_is_not_followed() {
        let before = link(&[file("content/records/a.txt", "Ada Lovelace", "Notes")]);
        let (_, history) = redirects_of(&before, &SlugHistory::default());
        // Another abstract: not the same paper, so no redirect.
        let mut changed = file("content/records/a.txt", "Ada Lovelace", "Notes, revised");
        changed.records[0].abstract_text = Some("Another abstract.".into());
        let (redirects, next) = redirects_of(&link(&[changed]), &history);
        assert!(redirects.is_empty(), "{redirects:?}");
        // An old path that is a page again is no redirect.
        let history = SlugHistory {
            redirects: vec![("papers/notes-2024/".into(), "papers/gone-2024/".into())],
            ..next
        };
        let (redirects, _) = redirects_of(&before, &history);
        assert!(redirects.is_empty(), "{redirects:?}");
        // A remembered path that is no author's or paper's place is ignored.
        let history = SlugHistory {
            redirects: vec![
                ("../outside/".into(), "papers/notes-2024/".into()),
                ("authors/x/../../y/".into(), "papers/notes-2024/".into()),
                ("authors/_a/".into(), "papers/notes-2024/".into()),
            ],
            authors: vec![("../up".into(), 0)],
            ..SlugHistory::default()
        };
        let (redirects, _) = redirects_of(&before, &history);
        assert!(redirects.is_empty(), "{redirects:?}");
    }
}
