//! The site's sorted lists of papers: every paper newest first, each subject's papers
//! in that order, and each year's papers by title. A long-running process patches the
//! last build's lists rather than sorting half a million papers again
//! ([`ListsMemo`]).

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use rayon::prelude::*;

use crate::graph::{PaperId, SiteGraph};
use crate::slug::order_by_key;
use crate::threads::{free_in_background, lock};

/// Every paper newest first, and the papers of each subject (in that order) and of
/// each year (by title, case-insensitive, then slug).
pub struct PaperLists<'g> {
    /// Every paper, newest first (then by slug).
    pub newest: Vec<PaperId>,
    /// Subject code -> papers, newest first.
    pub subjects: BTreeMap<&'g str, Vec<PaperId>>,
    /// Year -> papers, by title.
    pub years: BTreeMap<u16, Vec<PaperId>>,
}

/// The lists of the last build of a long-running process, by the ids of the link it
/// planned ([`crate::graph::PaperLineage`]).
///
/// A paper the next link takes from that one under the same slug is in the same lists
/// (its year and subjects are the same) and, among the other papers so taken, in the
/// same order: lists go by year, title and slug, and ids are in the order of slugs. So
/// the next lists are these, with the ids changed and the papers not taken left out,
/// and the papers the next link did not take put in their places: work for the papers
/// a change touched, not for every paper.
#[derive(Default)]
pub struct ListsMemo {
    enabled: bool,
    kept: Mutex<KeptLists>,
}

/// [`PaperLists`] by owned subject codes, with the link whose ids they hold.
#[derive(Default)]
struct KeptLists {
    link: u64,
    newest: Vec<PaperId>,
    subjects: Vec<(String, Vec<PaperId>)>,
    years: Vec<(u16, Vec<PaperId>)>,
}

impl ListsMemo {
    /// Starts keeping lists for the next build.
    pub fn enable(&mut self) {
        self.enabled = true;
    }
}

/// The lists of `graph`: patched from the last build's (see [`ListsMemo`]) when its
/// link took papers from that build's, else made afresh; kept for the next build.
pub fn paper_lists<'g>(graph: &'g SiteGraph, memo: &ListsMemo) -> PaperLists<'g> {
    let kept = std::mem::take(&mut *lock(&memo.kept));
    let lineage = &graph.lineage;
    let lists = match lineage.follows(kept.link) {
        true => patched(graph, &kept),
        false => {
            let newest = newest_first(graph);
            let (subjects, years) = subject_and_year_lists(graph, &newest);
            PaperLists {
                newest,
                subjects,
                years,
            }
        }
    };
    free_in_background(kept);
    if memo.enabled && lineage.link != 0 {
        *lock(&memo.kept) = KeptLists {
            link: lineage.link,
            newest: lists.newest.clone(),
            subjects: (lists.subjects.iter())
                .map(|(code, list)| (code.to_string(), list.clone()))
                .collect(),
            years: (lists.years.iter())
                .map(|(&year, list)| (year, list.clone()))
                .collect(),
        };
    }
    lists
}

/// The papers of each subject and of each year.
type SubjectAndYearLists<'g> = (BTreeMap<&'g str, Vec<PaperId>>, BTreeMap<u16, Vec<PaperId>>);

/// Subject lists (in the order of `newest`: newest first, then by slug) and year lists
/// (by title, case-insensitive, then slug).
fn subject_and_year_lists<'g>(graph: &'g SiteGraph, newest: &[PaperId]) -> SubjectAndYearLists<'g> {
    // Looked up by hash, then ordered: a few hundred subjects for a million entries.
    let mut by_subject: HashMap<&str, Vec<PaperId>> = HashMap::new();
    for &id in newest {
        for subject in &graph.papers[id].subjects {
            by_subject.entry(subject.as_str()).or_default().push(id);
        }
    }
    let subjects = by_subject.into_iter().collect();
    let mut years: BTreeMap<u16, Vec<PaperId>> = BTreeMap::new();
    for (id, paper) in graph.papers.iter().enumerate() {
        years.entry(paper.year).or_default().push(id);
    }
    let lowercase_titles: Vec<String> = graph
        .papers
        .par_iter()
        .map(|p| p.title.to_lowercase())
        .collect();
    // Each list is in id order, so equal titles stay in id (slug) order.
    years.par_iter_mut().for_each(|(_, list)| {
        let titles: Vec<&str> = list
            .iter()
            .map(|&id| lowercase_titles[id].as_str())
            .collect();
        *list = order_by_key(&titles).into_iter().map(|i| list[i]).collect();
    });
    (subjects, years)
}

/// Every paper, newest first, then by slug. Papers' ids are in the order of their
/// (unique) slugs, so ids are compared rather than slugs.
fn newest_first(graph: &SiteGraph) -> Vec<PaperId> {
    let mut newest: Vec<PaperId> = (0..graph.papers.len()).collect();
    newest.par_sort_unstable_by_key(|&id| (std::cmp::Reverse(graph.papers[id].year), id));
    newest
}

/// The lists of `graph` made from the `kept` lists of the link its papers were taken
/// from (see [`ListsMemo`]).
fn patched<'g>(graph: &'g SiteGraph, kept: &KeptLists) -> PaperLists<'g> {
    let papers = &graph.papers;
    let now_of = &graph.lineage.now;
    let mut fresh: Vec<PaperId> = (0..papers.len())
        .filter(|&id| graph.lineage.previous_id(id, kept.link).is_none())
        .collect();
    let by_date = |id: PaperId| (std::cmp::Reverse(papers[id].year), id);
    fresh.sort_unstable_by_key(|&id| by_date(id));
    let newest = patch(&kept.newest, now_of, &fresh, |a, b| by_date(a) < by_date(b));

    let mut subjects: BTreeMap<&str, Vec<PaperId>> = BTreeMap::new();
    let mut fresh_by_subject: HashMap<&str, Vec<PaperId>> = HashMap::new();
    for &id in &fresh {
        for subject in &papers[id].subjects {
            fresh_by_subject
                .entry(subject.as_str())
                .or_default()
                .push(id);
        }
    }
    for (code, list) in &kept.subjects {
        let fresh = fresh_by_subject.remove(code.as_str()).unwrap_or_default();
        let list = patch(list, now_of, &fresh, |a, b| by_date(a) < by_date(b));
        // The code as the graph holds it, from a paper of the list (none if empty).
        let first = list.first().map(|&first| &papers[first].subjects);
        if let Some(code) = first.and_then(|codes| codes.iter().find(|c| *c == code)) {
            subjects.insert(code.as_str(), list);
        }
    }
    subjects.extend(fresh_by_subject);

    let by_title = |id: PaperId| (papers[id].title.to_lowercase(), id);
    let mut fresh_by_year: BTreeMap<u16, Vec<(String, PaperId)>> = BTreeMap::new();
    for &id in &fresh {
        fresh_by_year
            .entry(papers[id].year)
            .or_default()
            .push(by_title(id));
    }
    let mut years = BTreeMap::new();
    for (year, list) in &kept.years {
        let mut fresh = fresh_by_year.remove(year).unwrap_or_default();
        fresh.sort_unstable();
        let fresh: Vec<PaperId> = fresh.into_iter().map(|(_, id)| id).collect();
        let list = patch(list, now_of, &fresh, |a, b| by_title(a) < by_title(b));
        if !list.is_empty() {
            years.insert(*year, list);
        }
    }
    for (year, mut fresh) in fresh_by_year {
        fresh.sort_unstable();
        years.insert(year, fresh.into_iter().map(|(_, id)| id).collect());
    }
    PaperLists {
        newest,
        subjects,
        years,
    }
}

/// A sorted list of the previous link's ids (`previous`) with this link's ids
/// (`now_of`, none for a paper not taken, which is left out), and the `fresh` papers,
/// sorted the same way, each put in its place: after every paper that goes `before` it.
/// Finds each place by bisection, so compares only a few papers for each fresh one.
fn patch(
    previous: &[PaperId],
    now_of: &[Option<PaperId>],
    fresh: &[PaperId],
    before: impl Fn(PaperId, PaperId) -> bool,
) -> Vec<PaperId> {
    let taken: Vec<PaperId> = previous.iter().filter_map(|&was| now_of[was]).collect();
    let mut list = Vec::with_capacity(taken.len() + fresh.len());
    let mut start = 0;
    for &paper in fresh {
        let place = start + taken[start..].partition_point(|&other| before(other, paper));
        list.extend_from_slice(&taken[start..place]);
        list.push(paper);
        start = place;
    }
    list.extend_from_slice(&taken[start..]);
    list
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{Record, RecordFile};
    use std::sync::Arc;

    /// Year lists are by title whatever its case, then by slug; subject lists newest
    /// first, then by slug; each subject once.
    #[test]
    fn year_lists_go_by_title_and_subject_lists_by_date() {
        let record = |title: &str, year: u16, abs: &str, subject: &str| {
            let abs = Some(abs.into());
            Record::new(
                "arXiv".into(),
                year,
                title.into(),
                abs,
                vec![subject.into()],
                9,
            )
        };
        let file = RecordFile {
            path: "content/records/a.txt".into(),
            author_name: "A".into(),
            declared_count: None,
            records: vec![
                record("Beta", 2020, "One.", "cs.DL"),
                record("Alpha", 2020, "Two.", "math.AG"),
                record("alpha", 2020, "Three.", "cs.DL"),
                record("Gamma", 2021, "Four.", "cs.DL"),
            ],
        };
        let graph = crate::graph::link(&[file]);
        let newest = newest_first(&graph);
        let (subjects, years) = subject_and_year_lists(&graph, &newest);
        let titles = |ids: &[PaperId]| -> Vec<&str> {
            ids.iter()
                .map(|&id| graph.papers[id].title.as_str())
                .collect()
        };
        let alphas: Vec<&str> = titles(&years[&2020])[..2].to_vec();
        let slugs: Vec<&str> = years[&2020][..2]
            .iter()
            .map(|&id| graph.papers[id].slug.as_str())
            .collect();
        assert!(slugs[0] < slugs[1], "{slugs:?}");
        assert_eq!(titles(&years[&2020])[2], "Beta");
        assert!(alphas.contains(&"Alpha") && alphas.contains(&"alpha"));
        assert_eq!(
            subjects.keys().copied().collect::<Vec<_>>(),
            ["cs.DL", "math.AG"]
        );
        let dl = titles(&subjects["cs.DL"]);
        assert_eq!(dl[0], "Gamma");
        assert_eq!(dl.len(), 3);
    }

    /// A record file of one author, one `(title, year, subjects)` a record.
    fn shared(path: &str, name: &str, papers: &[(&str, u16, &[&str])]) -> Arc<RecordFile> {
        let records = (papers.iter().enumerate())
            .map(|(i, &(title, year, subjects))| {
                let subjects = subjects.iter().map(|s| s.to_string()).collect();
                let abs = Some(format!("About {title}, in {path}.").as_str().into());
                Record::new("arXiv".into(), year, title.into(), abs, subjects, 9 + 6 * i)
            })
            .collect();
        Arc::new(RecordFile {
            path: path.into(),
            author_name: name.into(),
            declared_count: None,
            records,
        })
    }

    /// The lists as plain owned data, to compare.
    type PlainLists = (
        Vec<PaperId>,
        Vec<(String, Vec<PaperId>)>,
        Vec<(u16, Vec<PaperId>)>,
    );

    fn plain(lists: &PaperLists) -> PlainLists {
        let subjects = lists
            .subjects
            .iter()
            .map(|(c, l)| (c.to_string(), l.clone()));
        let years = lists.years.iter().map(|(y, l)| (*y, l.clone()));
        (lists.newest.clone(), subjects.collect(), years.collect())
    }

    /// A change to the record files of a site.
    type Change = Box<dyn Fn(&mut Vec<Arc<RecordFile>>)>;

    #[test]
    fn lists_patched_from_the_last_build_equal_lists_made_afresh() {
        let rules = crate::identity::IdentityRules::default();
        let mut links = crate::graph::LinkMemo::default();
        links.enable();
        let mut memo = ListsMemo::default();
        memo.enable();
        let mut files = vec![
            shared(
                "a.txt",
                "Ada Byron",
                &[
                    ("Engines", 1843, &["cs.GL"]),
                    ("Ångström lines", 1843, &["cs.GL"]),
                    ("tables", 1844, &["math.NA", "cs.GL"]),
                ],
            ),
            shared(
                "b.txt",
                "Bo Chen",
                &[("Gears", 1843, &["cs.AR"]), ("Levers", 1850, &["cs.AR"])],
            ),
        ];
        // Each step changes the files; the lists of every link after the first are
        // patched, and equal to lists made afresh.
        let steps: Vec<Change> = vec![
            Box::new(|_| {}),
            // Papers that sort among the others in every list, one with a new subject
            // and a new year; a title that differs from another only in case; one whose
            // title sorts after Ångström's (by title, byte for byte) and slug before.
            Box::new(|f| {
                f.push(shared(
                    "0.txt",
                    "Aaron Abel",
                    &[
                        ("Fuses", 1843, &["cs.GL", "cs.AR"]),
                        ("Tables", 1844, &["math.NA"]),
                        ("Wheels", 1799, &["physics.hist-ph"]),
                        ("Zeta functions", 1843, &["cs.GL"]),
                    ],
                ))
            }),
            // A file rewritten: its papers are made again, and one is gone.
            Box::new(|f| f[1] = shared("b.txt", "Bo Chen", &[("Gears", 1843, &["cs.AR"])])),
            // A file removed: a subject and a year lose their last paper.
            Box::new(|f| f.retain(|f| f.path != std::path::Path::new("0.txt"))),
        ];
        for (step, change) in steps.iter().enumerate() {
            change(&mut files);
            links.hold_files(&files);
            let mut graph = crate::graph::link_with(&files, &rules, &links);
            let patches = graph.lineage.follows(lock(&memo.kept).link);
            assert_eq!(patches, step > 0, "step {step}");
            let lists = paper_lists(&graph, &memo);
            let afresh = paper_lists(&graph, &ListsMemo::default());
            assert_eq!(plain(&lists), plain(&afresh), "step {step}");
            assert_eq!(lock(&memo.kept).link, graph.lineage.link);
            drop(lists);
            drop(afresh);
            links.keep_papers(&mut graph);
        }
    }
}
