//! Linking: record files -> one graph of authors and papers.
//!
//! * Which files are one author: see [`crate::identity`] (by default, files whose
//!   author names have the same [`crate::normalize::name_key`]).
//! * Records from different files are one paper when their titles have the same
//!   [`text_key`], their years are equal and their abstracts have the same
//!   `text_key` (a record without an abstract matches any abstract). Records of
//!   one file are never merged with each other.
//! * Where merged copies differ, the choice is deterministic (see [`link`]) and
//!   reported as a [`MergeNote`].
//!
//! Files are processed in path order, so the result does not depend on the
//! order in which they were found, nor on the thread count.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex, OnceLock};

use rayon::prelude::*;

use crate::diagnostics::{Diagnostic, Location};
use crate::hash;
use crate::identity::{group_authors, IdentityRules, People};
use crate::normalize::{text_key, text_key_hash};
use crate::records::RecordFile;
use crate::slug::{order_by_key, slugify, unique_slugs_ordered};
use crate::text_store::{Text, TextStore};
use crate::threads::{free_in_background, lock};

/// Index of an author in [`SiteGraph::authors`].
pub type AuthorId = usize;
/// Index of a paper in [`SiteGraph::papers`].
pub type PaperId = usize;

/// Where a record came from: file and line.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Occurrence {
    /// The record file (one allocation per file, shared by its records).
    pub path: Arc<Path>,
    /// The line of the record's source-year block.
    pub line: usize,
}

/// One author: every record file with their name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Author {
    /// Unique, stable, readable ASCII id, used in URLs and data files.
    pub slug: String,
    /// Display name (from the first file in path order).
    pub name: String,
    /// What tells this author from others of the same name, when the site's settings
    /// say (see [`crate::identity`]).
    pub disambiguation: Option<String>,
    /// The identity key of the name.
    pub key: String,
    /// The record files that carry this name, in path order.
    pub files: Vec<PathBuf>,
    /// The author's papers, newest first, then by title.
    pub papers: Vec<PaperId>,
    /// Co-authors on this site with the number of shared papers, most shared first,
    /// then by identity key.
    pub coauthors: Vec<(AuthorId, usize)>,
}

/// One paper: every record of it in any file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paper {
    /// Unique, stable, readable ASCII id, used in URLs and data files.
    pub slug: String,
    /// Title as first listed (file path order).
    pub title: String,
    /// Year of publication.
    pub year: u16,
    /// Source, e.g. `arXiv`.
    pub source: String,
    /// The abstract, if any copy has one: shared with the record it comes from until
    /// [`SiteGraph::store_texts`] moves it to the graph's text store.
    pub abstract_text: Option<Text>,
    /// Subject codes, primary first.
    pub subjects: Vec<String>,
    /// Authors on this site, in the order their files list the paper (file path order).
    pub authors: Vec<AuthorId>,
    /// Every record of this paper.
    pub occurrences: Vec<Occurrence>,
    /// What later stages derive from the fields above but the slug and the authors,
    /// kept with the paper in a long-running process (see [`Paper::derived`]); nothing in
    /// a one-off build, which keeps nothing for a next build and would only hold these
    /// longer than it needs them.
    pub derived: DerivedSlot,
}

/// A paper's [`PaperDerived`], when it keeps them (none in a one-off build). Equal to
/// any other: what it holds follows from the paper's fields, which are compared.
#[derive(Debug, Clone, Default)]
pub struct DerivedSlot(Option<Box<PaperDerived>>);

impl DerivedSlot {
    /// A slot that keeps what is derived from its paper.
    pub fn keeping() -> DerivedSlot {
        DerivedSlot(Some(Box::default()))
    }

    /// The paper's derived values, when it keeps them.
    pub fn get(&self) -> Option<&PaperDerived> {
        self.0.as_deref()
    }
}

impl PartialEq for DerivedSlot {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for DerivedSlot {}

impl Paper {
    /// The value of the paper's [`PaperDerived`] cell that `cell` picks: found once and
    /// kept in the paper when it keeps derived values, else made by `make` every time.
    pub fn derived<T: std::marker::Copy>(
        &self,
        cell: impl FnOnce(&PaperDerived) -> &Derived<T>,
        make: impl FnOnce() -> T,
    ) -> T {
        match self.derived.get() {
            Some(derived) => *cell(derived).get_or_init(make),
            None => make(),
        }
    }
}

/// Values derived from a paper's own fields: its title, year, source, abstract, subjects
/// and occurrences, never its slug or its authors' ids (and for its identity, the
/// history of slugs the build read). Each is found the first time it is asked for and
/// kept with the paper. A long-running process takes a paper whose copies are the same
/// records from its previous build (`KeptPapers`), with only its slug and authors set
/// again, so it finds each of these once, not in every rebuild. Those fields are not
/// changed after linking, which is what makes keeping them right.
#[derive(Debug, Clone, Default)]
pub struct PaperDerived {
    /// The normalized key of the title ([`text_key`]), by which an author's papers of a
    /// year are ordered.
    title_key: Derived<String>,
    /// The slug its title and year make ([`paper_slugs`]), before it is made unique.
    base_slug: Derived<String>,
    /// The paper's identity across builds, with its abstract's content hash and key
    /// (see `crate::plan::redirects`). The key is the one the first build that asked
    /// found, in its history or by normalizing the abstract; that build's history, which
    /// the next build reads, keeps it, so every later build would find it again.
    pub identity: Derived<(u64, Option<(u64, u64)>)>,
    /// A hash of what a paper card shows of the paper's own fields (see
    /// `crate::render::context::reads`).
    pub card: Derived<u64>,
}

/// A value derived from the data it is kept with, found once ([`Derived::get_or_init`]).
#[derive(Debug, Clone)]
pub struct Derived<T>(OnceLock<T>);

impl<T> Default for Derived<T> {
    fn default() -> Self {
        Derived(OnceLock::new())
    }
}

impl<T> Derived<T> {
    /// The value, made by `make` if it was not found yet. `make` must derive it from the
    /// data the cell is kept with alone.
    pub fn get_or_init(&self, make: impl FnOnce() -> T) -> &T {
        self.0.get_or_init(make)
    }
}

/// What was chosen when merged copies of a paper disagreed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeNote {
    /// The paper.
    pub paper: PaperId,
    /// Which field differed: `title`, `abstract`, `subject` or `source`.
    pub field: &'static str,
    /// The value kept.
    pub chosen: String,
    /// How many distinct values the copies had.
    pub variants: usize,
}

/// Authors and papers, linked.
#[derive(Debug, Clone, Default)]
pub struct SiteGraph {
    /// All authors, sorted by slug.
    pub authors: Vec<Author>,
    /// All papers, sorted by slug.
    pub papers: Vec<Paper>,
    /// Disagreements between merged copies, and what was chosen.
    pub merge_notes: Vec<MergeNote>,
    /// Warnings from linking: merged author files, merge disagreements, identity
    /// settings that match nothing.
    pub diagnostics: Vec<Diagnostic>,
    /// Slugs authors' files would have without the site's identity settings, which no
    /// author holds: each with the author now holding most of those files, by slug (see
    /// [`crate::identity`]).
    pub former_author_slugs: Vec<(String, AuthorId)>,
    /// Where the papers' long texts are kept once [`SiteGraph::store_texts`] has moved
    /// them there (in memory until then), and where later stages put theirs.
    pub texts: TextStore,
    /// Which papers were taken from the previous link of the same process, and where
    /// they were in it.
    pub lineage: PaperLineage,
}

/// Where a link's papers were in the previous link of the same process ([`LinkMemo`]),
/// for those taken from it under the same slug. Such a paper has the same fields as
/// there but its authors' ids, so what a later stage derived from those fields in the
/// previous build still holds: the stage can take it by the paper's previous id rather
/// than derive it again, if what it kept is from [`PaperLineage::previous_link`].
#[derive(Debug, Clone, Default)]
pub struct PaperLineage {
    /// This link's number in its process; 0 for a link whose memo keeps nothing.
    pub link: u64,
    /// The number of the link the papers were taken from; 0 when none was.
    pub previous_link: u64,
    /// For each paper, its id in the previous link, if it was taken from it under the
    /// same slug; empty when no paper was.
    pub was: Vec<Option<PaperId>>,
    /// The other way: for each paper of the previous link, its id in this one, if it
    /// was taken under the same slug.
    pub now: Vec<Option<PaperId>>,
}

impl PaperLineage {
    /// Whether this link's papers were taken from link `link` (never link 0).
    pub fn follows(&self, link: u64) -> bool {
        link != 0 && link == self.previous_link
    }

    /// The previous id of `paper`, if it was taken from link `link`.
    pub fn previous_id(&self, paper: PaperId, link: u64) -> Option<PaperId> {
        match self.follows(link) {
            true => self.was.get(paper).copied().flatten(),
            false => None,
        }
    }
}

impl SiteGraph {
    /// Moves every paper's abstract to `store` (a file, so that the graph does not hold
    /// the abstracts in memory), which becomes the graph's text store.
    pub fn store_texts(&mut self, store: TextStore) {
        // A write for a few thousand papers at a time, rather than one for each.
        self.papers.par_chunks_mut(4096).for_each(|papers| {
            store.keep_all(papers.iter_mut().filter_map(|p| p.abstract_text.as_mut()));
        });
        self.texts = store;
    }

    /// Number of papers listed by more than one author.
    pub fn shared_paper_count(&self) -> usize {
        self.papers.iter().filter(|p| p.authors.len() > 1).count()
    }

    /// The id of the author with this slug.
    pub fn author_id_by_slug(&self, slug: &str) -> Option<AuthorId> {
        self.authors
            .binary_search_by(|a| a.slug.as_str().cmp(slug))
            .ok()
    }

    /// The author with this slug.
    pub fn author_by_slug(&self, slug: &str) -> Option<&Author> {
        self.author_id_by_slug(slug).map(|i| &self.authors[i])
    }

    /// The paper with this slug.
    pub fn paper_by_slug(&self, slug: &str) -> Option<&Paper> {
        self.papers
            .binary_search_by(|p| p.slug.as_str().cmp(slug))
            .ok()
            .map(|i| &self.papers[i])
    }
}

/// A paper being assembled from its copies.
struct PaperGroup<'r> {
    title_key: u64,
    /// The year of the records.
    year: u16,
    /// The first abstract among the copies, compared as the same shared copy first
    /// (copies are usually that: see [`crate::records::TextPool`]) ...
    abstract_text: Option<&'r Text>,
    /// ... and by its normalized key only when the bytes differ (computed on demand).
    abstract_key: Option<u64>,
    copies: Vec<Copy>,
}

/// One record's contribution to a paper.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Copy {
    file: usize,
    record: usize,
}

/// Groups `records` (`(file, record)` indexes, in file order) into papers: records
/// with the same title key and year whose abstracts match, at most one per file.
///
/// A record joins the first group of its title key and year, in the order the groups
/// were started, that it can join, or starts one. The groups of one title key and year
/// are a chain through `next_in_bucket`, found by [`bucket_of`]. (A list for each, in a
/// map keyed by both with the standard hasher, made a link at 500,000 papers 0.2–0.6 s
/// slower.)
fn group_records<'r>(records: &[(usize, usize)], files: &[&'r RecordFile]) -> Vec<PaperGroup<'r>> {
    const NONE: usize = usize::MAX;
    let mut groups: Vec<PaperGroup> = Vec::new();
    let mut buckets: hash::ByHash<(usize, usize)> = hash::ByHash::default();
    buckets.reserve(records.len());
    let mut next_in_bucket: Vec<usize> = Vec::new();
    for &(file_index, record_index) in records {
        let record = &files[file_index].records[record_index];
        let title_key = record.title_key();
        let bucket = bucket_of(title_key, record.year);
        let abstract_text = record.abstract_text.as_ref();
        let mut abstract_key = None;
        let mut joined = None;
        let mut candidate = buckets.get(&bucket).map_or(NONE, |&(first, _)| first);
        while candidate != NONE {
            let g = candidate;
            candidate = next_in_bucket[g];
            let group = &mut groups[g];
            if group.title_key != title_key
                || group.year != record.year
                || group.copies.iter().any(|c| c.file == file_index)
            {
                continue;
            }
            let compatible = match (group.abstract_text, abstract_text) {
                (Some(a), Some(b)) if !a.same_as(b) => {
                    let theirs = *group.abstract_key.get_or_insert_with(|| abstract_key_of(a));
                    theirs == *abstract_key.get_or_insert_with(|| abstract_key_of(b))
                }
                _ => true,
            };
            if compatible {
                joined = Some(g);
                break;
            }
        }
        let copy = Copy {
            file: file_index,
            record: record_index,
        };
        if let Some(g) = joined {
            let group = &mut groups[g];
            if group.abstract_text.is_none() {
                group.abstract_text = abstract_text;
                group.abstract_key = abstract_key;
            }
            group.copies.push(copy);
            continue;
        }
        let started = groups.len();
        next_in_bucket.push(NONE);
        match buckets.get_mut(&bucket) {
            Some((_, last)) => {
                next_in_bucket[*last] = started;
                *last = started;
            }
            None => {
                buckets.insert(bucket, (started, started));
            }
        }
        groups.push(PaperGroup {
            title_key,
            year: record.year,
            abstract_text,
            abstract_key,
            copies: vec![copy],
        });
    }
    groups
}

/// The bucket of a title key and year: a hash of both. Records of different title keys
/// or years may share one, and are told apart by comparing them.
fn bucket_of(title_key: u64, year: u16) -> u64 {
    title_key ^ u64::from(year).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The key that abstracts `text_key`-equal to `text` share (see [`text_key_hash`]).
fn abstract_key_of(text: &Text) -> u64 {
    text_key_hash(&text.load())
}

/// The length of `text` in characters.
fn chars(text: &Text) -> usize {
    text.load().chars().count()
}

/// Work [`link_with`] can reuse from the previous build in the same process: the papers
/// the previous build assembled (see [`LinkMemo::keep_papers`]), with what later stages
/// derived from them ([`PaperDerived`]).
///
/// A taken paper brings the slug its title and year make ([`PaperDerived`]): it is
/// taken before the papers are slugged. (Slugs kept by a hash of the title instead cost
/// more than making them again: at 500,000 papers a link took 2.60–2.77 s with such a
/// table against 2.26–2.39 s without, `examples/link_bench.rs`.)
#[derive(Default)]
pub struct LinkMemo {
    /// Whether papers are kept for the next build.
    keeps_papers: bool,
    /// The previous build's papers.
    kept: Mutex<KeptPapers>,
    /// This build's record files and the keys of its papers' copies, until
    /// [`LinkMemo::keep_papers`] keeps the papers under them.
    this_build: Mutex<KeptPapers>,
    /// How many papers the last link took from the previous build.
    taken: std::sync::atomic::AtomicUsize,
    /// How many authors' lists the last link took from the previous build.
    lists_taken: std::sync::atomic::AtomicUsize,
    /// How many buckets of records the last link grouped again ([`regroup`]);
    /// `usize::MAX` when it grouped every record.
    buckets_regrouped: std::sync::atomic::AtomicUsize,
    /// How many links kept papers ([`PaperLineage::link`]).
    links: std::sync::atomic::AtomicU64,
}

/// Papers one build assembled, each under the key of its copies ([`copies_key`]): the
/// addresses of the record files the copies are in, and the copies' places in them.
///
/// A long-running process reuses each parsed record file that did not change (the same
/// allocation, see [`crate::sources::RecordReuse`]), so a paper of the next build whose
/// copies have the same key is made of the very same records, in the same order, and
/// assembles to the same paper: only its slug, its authors' ids and its place may
/// differ, and those are set again. The next build finds the paper of each group it
/// keeps from this build's grouping by the group's place (`KeptGroups::places`), and
/// compares keys only for the groups it makes again. Papers whose copies disagreed are
/// not taken (their notes and warnings are made again), nor kept are papers whose
/// abstracts are in a text store's file, which the next build replaces.
#[derive(Default)]
struct KeptPapers {
    /// The record files the papers were assembled from, held so that no file of a later
    /// build can be given one of their addresses while its groups are matched to these.
    files: Vec<Arc<RecordFile>>,
    /// Whether each paper, in paper order, may be taken by the next build: not when
    /// its copies disagreed.
    reusable: Vec<bool>,
    /// The papers, in paper order.
    papers: Vec<Paper>,
    /// The number of the link that made them ([`PaperLineage::link`]).
    link: u64,
    /// The authors of the same build, whose lists the next build takes for each author
    /// the change did not touch ([`TakenLists`]).
    authors: Vec<Author>,
    /// How the same build grouped the records into papers ([`group_papers`]).
    groups: KeptGroups,
}

/// How a link grouped the records into papers, for the next link in the same process
/// to group again only the records whose (title key, year) bucket ([`bucket_of`]) a
/// change touched: records of different buckets never meet, so the groups of the
/// other buckets are the same records as before (the same files, reused, see
/// [`KeptPapers`]) grouped the same way. Flat, as a few arrays, rather than a list
/// for each group.
#[derive(Default)]
struct KeptGroups {
    /// The address of each record file grouped, in path order.
    files: Vec<usize>,
    /// Each group's bucket, in group order.
    buckets: Vec<u64>,
    /// Where each group's copies end in `copies`.
    ends: Vec<usize>,
    /// Every group's copies, group after group (files by their place in `files`).
    copies: Vec<Copy>,
    /// Each group's paper's place in its build, in group order (empty until the papers
    /// are placed).
    places: Vec<usize>,
}

impl KeptGroups {
    /// How `groups` of `files` were made.
    fn of(groups: &[PaperGroup], files: &[&RecordFile]) -> KeptGroups {
        let mut kept = KeptGroups {
            files: files.iter().map(|&f| file_address(f)).collect(),
            buckets: groups
                .iter()
                .map(|g| bucket_of(g.title_key, g.year))
                .collect(),
            ends: Vec::with_capacity(groups.len()),
            copies: Vec::with_capacity(groups.iter().map(|g| g.copies.len()).sum()),
            places: Vec::new(),
        };
        for group in groups {
            kept.copies.extend_from_slice(&group.copies);
            kept.ends.push(kept.copies.len());
        }
        kept
    }

    /// The copies of group `g`.
    fn copies(&self, g: usize) -> &[Copy] {
        let start = if g == 0 { 0 } else { self.ends[g - 1] };
        &self.copies[start..self.ends[g]]
    }

    /// The places of the papers of `groups` (of this grouping's build) by the keys of
    /// their copies ([`copies_key`]); none when the papers were not placed.
    fn places_by_key(&self, groups: impl Iterator<Item = usize>) -> hash::ByHash<usize> {
        if self.places.len() != self.buckets.len() {
            return hash::ByHash::default();
        }
        (groups)
            .map(|g| {
                let copies = self.copies(g).iter();
                let key = copies_key(copies.map(|c| (self.files[c.file], c.record)));
                (key, self.places[g])
            })
            .collect()
    }

    /// The place in its build of the paper of group `g`, if the papers were placed.
    fn place(&self, g: usize) -> Option<usize> {
        self.places.get(g).copied()
    }
}

/// What identifies a record file between two links in one process: its address, which
/// no other file can have while the memo holds it (see [`KeptPapers::files`]).
fn file_address(file: &RecordFile) -> usize {
    std::ptr::from_ref(file) as usize
}

impl LinkMemo {
    /// Starts keeping papers for the next build.
    pub fn enable(&mut self) {
        self.keeps_papers = true;
    }

    /// The number of a new link ([`PaperLineage::link`]), which its papers are kept
    /// under; 0 unless the memo keeps papers.
    fn number_link(&self) -> u64 {
        if !self.keeps_papers {
            return 0;
        }
        let link = self.links.fetch_add(1, Relaxed) + 1;
        lock(&self.this_build).link = link;
        link
    }

    /// How many papers the last link took from the previous build rather than
    /// assembling them.
    pub fn papers_taken(&self) -> usize {
        self.taken.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// How many authors' sorted papers and co-authors the last link took from the
    /// previous build rather than finding them (`TakenLists`).
    pub fn author_lists_taken(&self) -> usize {
        self.lists_taken.load(Relaxed)
    }

    /// How many buckets of records (title key and year) the last link grouped again,
    /// taking the other groups from the previous link; `None` when it grouped every
    /// record.
    pub fn buckets_regrouped(&self) -> Option<usize> {
        Some(self.buckets_regrouped.load(Relaxed)).filter(|&n| n != usize::MAX)
    }

    /// Holds the record files this build links (the ones [`link_with`] is given), for
    /// as long as the papers assembled from them are kept; does nothing unless the memo
    /// keeps papers.
    pub fn hold_files(&self, files: &[Arc<RecordFile>]) {
        if self.keeps_papers {
            lock(&self.this_build).files = files.to_vec();
        }
    }

    /// Keeps `graph`'s papers for the next build, which takes again those whose copies
    /// are the same records (`KeptPapers`), rather than assembling them. Does nothing
    /// unless the memo keeps papers and [`LinkMemo::hold_files`] was given the files the
    /// graph was linked from.
    pub fn keep_papers(&self, graph: &mut SiteGraph) {
        let mut this_build = std::mem::take(&mut *lock(&self.this_build));
        let linked =
            this_build.reusable.len() == graph.papers.len() && !this_build.files.is_empty();
        if !self.keeps_papers || !linked || graph.texts.on_disk() {
            return;
        }
        this_build.papers = std::mem::take(&mut graph.papers);
        this_build.authors = std::mem::take(&mut graph.authors);
        *lock(&self.kept) = this_build;
    }

    /// The kept papers at `places` (one for each paper of this build: the place in the
    /// previous build of the paper with the same copies, if any), taken out of the memo,
    /// each with that place, but those whose copies disagreed; the rest of the memo's
    /// papers are dropped. Also the previous build's authors, and how many papers it had.
    /// Nothing when the memo keeps no papers.
    fn take_papers(&self, places: &[Option<usize>]) -> TakenPapers {
        if !self.keeps_papers {
            return TakenPapers::default();
        }
        let mut kept = std::mem::take(&mut *lock(&self.kept));
        let authors = std::mem::take(&mut kept.authors);
        let previous_papers = kept.papers.len();
        let link = kept.link;
        let mut papers: Vec<Option<Paper>> = kept.papers.into_iter().map(Some).collect();
        let reusable = |place: &usize| kept.reusable.get(*place) == Some(&true);
        let taken: Vec<Option<(PaperId, Paper)>> = places
            .iter()
            .map(|place| {
                let place = place.filter(reusable)?;
                papers.get_mut(place)?.take().map(|paper| (place, paper))
            })
            .collect();
        let count = taken.iter().filter(|p| p.is_some()).count();
        self.taken
            .store(count, std::sync::atomic::Ordering::Relaxed);
        // The kept files may go only now: until the groups were matched, no file of
        // this build could have one of their addresses.
        drop(kept.files);
        if papers.iter().any(Option::is_some) {
            free_in_background(papers);
        }
        TakenPapers {
            papers: taken,
            authors,
            previous_papers,
            link,
        }
    }
}

/// What [`LinkMemo::take_papers`] takes from the previous build.
#[derive(Default)]
struct TakenPapers {
    /// For each key [`LinkMemo::take_papers`] was given (a group of records that is a
    /// paper), the previous build's paper with the same copies and its place there.
    papers: Vec<Option<(PaperId, Paper)>>,
    /// The previous build's authors.
    authors: Vec<Author>,
    /// How many papers the previous build had.
    previous_papers: usize,
    /// The number of the link they are from ([`PaperLineage::link`]).
    link: u64,
}

/// The key of a paper's copies: the address of each copy's record file and the copy's
/// place in it, in order (see [`KeptPapers`]).
fn copies_key(copies: impl Iterator<Item = (usize, usize)>) -> u64 {
    hash::key("paper copies", &copies.collect::<Vec<(usize, usize)>>())
}

/// The key of `group`'s copies ([`copies_key`]), its files being some of `files`.
fn group_key(group: &PaperGroup, files: &[&RecordFile]) -> u64 {
    copies_key((group.copies.iter()).map(|c| (file_address(files[c.file]), c.record)))
}

/// Links parsed record files into a [`SiteGraph`], each file its name's author.
pub fn link<F: std::borrow::Borrow<RecordFile> + Sync>(files: &[F]) -> SiteGraph {
    link_with(files, &IdentityRules::default(), &LinkMemo::default())
}

/// [`link`], with the site's identity settings (`rules`), reusing title keys and slugs
/// from `memo`.
///
/// Choices when copies of a paper differ: the title and source of the first copy in
/// file path order; the longest abstract (ties: first copy); the most frequent subject
/// (ties: first copy).
pub fn link_with<F: std::borrow::Borrow<RecordFile> + Sync>(
    files: &[F],
    rules: &IdentityRules,
    memo: &LinkMemo,
) -> SiteGraph {
    let mut order: Vec<usize> = (0..files.len()).collect();
    // On every thread: comparing paths goes component by component (a quarter of a
    // second for 200,000 files on one thread).
    order.par_sort_by(|&a, &b| files[a].borrow().path.cmp(&files[b].borrow().path));
    let files: Vec<&RecordFile> = order.iter().map(|&i| files[i].borrow()).collect();

    // Authors and papers are found side by side: finding authors is mostly serial.
    // Papers are grouped, then those of the previous build with the same copies taken
    // (which bring their base slugs), then slugged.
    let (mut people, (groups, taken, (paper_slugs, paper_order))) = rayon::join(
        || group_authors(&files, rules),
        || {
            find_title_keys(&files);
            let (groups, places) = group_papers_with(&files, memo);
            let taken = memo.take_papers(&places);
            let slugs = paper_slugs(&files, &groups, &taken.papers);
            (groups, taken, slugs)
        },
    );
    let mut diagnostics = std::mem::take(&mut people.diagnostics);

    // Authors sorted by slug: map provisional index -> final id; papers likewise.
    let author_order = order_by_key(&people.slugs);
    let mut author_id = vec![0; author_order.len()];
    for (id, &provisional) in author_order.iter().enumerate() {
        author_id[provisional] = id;
    }
    let file_author: Vec<AuthorId> = people.of_file.iter().map(|&a| author_id[a]).collect();
    let paths: Vec<Arc<Path>> = files.iter().map(|f| Arc::from(f.path.as_path())).collect();

    let assembly = PaperAssembly {
        files: &files,
        paths: &paths,
        groups: &groups,
        file_author: &file_author,
        memo,
    };
    let AssembledPapers {
        papers,
        merge_notes,
        diagnostics: mut paper_diagnostics,
        paper_now,
        paper_was,
    } = assembly.assemble(
        &paper_order,
        paper_slugs,
        taken.papers,
        taken.previous_papers,
    );
    let lineage = PaperLineage {
        link: memo.number_link(),
        previous_link: taken.link,
        was: paper_was,
        now: paper_now,
    };
    diagnostics.append(&mut paper_diagnostics);

    let former_author_slugs = people
        .former_slugs
        .iter()
        .map(|(slug, provisional)| (slug.clone(), author_id[*provisional]))
        .collect();
    let mut authors = assemble_authors(people, &files, &author_id, &papers);
    let previous = TakenLists::new(taken.authors, &lineage.now, &authors);
    let taken = previous.take_into(&mut authors);
    if memo.keeps_papers {
        (memo.lists_taken).store(taken.iter().filter(|&&t| t).count(), Relaxed);
    }
    sort_author_papers(&mut authors, &papers, &taken);
    find_coauthors(&mut authors, &papers, &taken);
    SiteGraph {
        authors,
        papers,
        merge_notes,
        diagnostics,
        former_author_slugs,
        texts: TextStore::default(),
        lineage,
    }
}

/// An assembled paper with its merge notes and warnings, and, for a paper taken from
/// the previous build under the same slug, its place there.
type Assembled = (Paper, Vec<MergeNote>, Vec<Diagnostic>, Option<PaperId>);

/// What papers are assembled from: the record files (in path order) with their paths,
/// the groups of records that are papers, and each file's author.
struct PaperAssembly<'a, 'r> {
    files: &'a [&'r RecordFile],
    paths: &'a [Arc<Path>],
    groups: &'a [PaperGroup<'r>],
    file_author: &'a [AuthorId],
    memo: &'a LinkMemo,
}

/// The papers, in the order of their slugs, with what assembling them reported, and
/// for each of the previous build's papers its id now, if it was taken under the same
/// slug (and for each paper its id then: empty when none was taken).
struct AssembledPapers {
    papers: Vec<Paper>,
    merge_notes: Vec<MergeNote>,
    diagnostics: Vec<Diagnostic>,
    paper_now: Vec<Option<PaperId>>,
    paper_was: Vec<Option<PaperId>>,
}

/// A group's paper before it takes its place: the previous build's paper with the
/// same copies, already given this build's slug and authors, with its place in that
/// build if its slug is the same; or the slug of a paper to assemble.
enum Prepared {
    Taken(Paper, Option<PaperId>),
    ToAssemble(String),
}

impl PaperAssembly<'_, '_> {
    /// Assembles the papers (the groups in `paper_order`, with their `slugs`) in
    /// parallel, or takes them from the previous build (`taken`, by group, when the memo
    /// kept papers; `previous_papers` were kept); each reports its own disagreements.
    /// Keeps, for the next build, each group's paper's place and which papers it may
    /// take: not those whose copies disagreed.
    fn assemble(
        &self,
        paper_order: &[usize],
        slugs: Vec<String>,
        taken: Vec<Option<(PaperId, Paper)>>,
        previous_papers: usize,
    ) -> AssembledPapers {
        let assembled: Vec<Assembled> = match taken.is_empty() {
            // Nothing to prepare: each slug moved to its paper's place, and no more.
            true => {
                let mut slugs = slugs;
                let slugs: Vec<String> = (paper_order.iter())
                    .map(|&g| std::mem::take(&mut slugs[g]))
                    .collect();
                (paper_order.par_iter().zip(slugs).enumerate())
                    .map(|(paper_id, (&g, slug))| {
                        self.paper(paper_id, g, Prepared::ToAssemble(slug))
                    })
                    .collect()
            }
            // Each paper takes its group's prepared paper on every thread (putting them
            // in paper order first, one move after another on one thread, took 60 ms of
            // a rebuild at 500,000 papers).
            false => {
                let prepared = self.prepare(slugs, taken);
                let assembled = (paper_order.par_iter().enumerate())
                    .map(|(paper_id, &g)| {
                        let placeholder = Prepared::ToAssemble(String::new());
                        let prepared = std::mem::replace(&mut *lock(&prepared[g]), placeholder);
                        self.paper(paper_id, g, prepared)
                    })
                    .collect();
                free_in_background(prepared);
                assembled
            }
        };
        let mut reusable = vec![true; assembled.len()];
        let mut done = AssembledPapers {
            papers: Vec::with_capacity(assembled.len()),
            merge_notes: Vec::new(),
            diagnostics: Vec::new(),
            paper_now: vec![None; previous_papers],
            paper_was: Vec::new(),
        };
        if previous_papers > 0 {
            done.paper_was = vec![None; assembled.len()];
        }
        for (paper_id, (paper, mut notes, mut diags, place)) in assembled.into_iter().enumerate() {
            if !(notes.is_empty() && diags.is_empty()) {
                reusable[paper_id] = false;
            }
            if let Some(place) = place {
                done.paper_now[place] = Some(paper_id);
                done.paper_was[paper_id] = Some(place);
            }
            done.papers.push(paper);
            done.merge_notes.append(&mut notes);
            done.diagnostics.append(&mut diags);
        }
        if self.memo.keeps_papers {
            let mut this_build = lock(&self.memo.this_build);
            this_build.reusable = reusable;
            this_build.groups.places = places_of_groups(paper_order);
        }
        done
    }

    /// Each group's paper as far as it can go in group order, in which the groups,
    /// their slugs and their files are read one after another rather than from
    /// scattered places: a paper `taken` from the previous build given its slug and
    /// authors; for another, its slug. (Done in paper order, this took 0.13 s of a
    /// rebuild at 500,000 papers.) Each behind a lock, for the papers to take on every
    /// thread.
    fn prepare(
        &self,
        slugs: Vec<String>,
        taken: Vec<Option<(PaperId, Paper)>>,
    ) -> Vec<Mutex<Prepared>> {
        (slugs.into_par_iter().zip(taken).zip(self.groups))
            .map(|((slug, taken), group)| match taken {
                Some((place, paper)) => {
                    let same_slug = paper.slug == slug;
                    let paper = reassign(paper, slug, group, self.file_author);
                    Prepared::Taken(paper, same_slug.then_some(place))
                }
                None => Prepared::ToAssemble(slug),
            })
            .map(Mutex::new)
            .collect()
    }

    /// Paper `paper_id`, of group `g`, as `prepared`: taken from the previous build, or
    /// assembled from its copies.
    fn paper(&self, paper_id: PaperId, g: usize, prepared: Prepared) -> Assembled {
        match prepared {
            Prepared::Taken(paper, place) => (paper, vec![], vec![], place),
            Prepared::ToAssemble(slug) => {
                let copies = PaperCopies::new(&self.groups[g], self.files, self.paths);
                let (mut paper, notes, diagnostics) =
                    copies.assemble(paper_id, slug, self.file_author);
                if self.memo.keeps_papers {
                    paper.derived = DerivedSlot::keeping();
                }
                (paper, notes, diagnostics, None)
            }
        }
    }
}

/// Each group's place among the papers, from the group of each paper (`paper_order`).
fn places_of_groups(paper_order: &[usize]) -> Vec<usize> {
    let mut places = vec![0; paper_order.len()];
    for (place, &g) in paper_order.iter().enumerate() {
        places[g] = place;
    }
    places
}

/// A paper taken from the previous build, with this build's `slug` and its authors'
/// ids, which are all that can differ for the same copies ([`KeptPapers`]).
fn reassign(mut paper: Paper, slug: String, group: &PaperGroup, file_author: &[AuthorId]) -> Paper {
    paper.slug = slug;
    paper.authors.clear();
    push_authors(&mut paper.authors, group, file_author);
    paper
}

/// The authors of a paper's copies, each once, in the order of the copies.
fn authors_of(group: &PaperGroup, file_author: &[AuthorId]) -> Vec<AuthorId> {
    let mut authors = Vec::new();
    push_authors(&mut authors, group, file_author);
    authors
}

/// Pushes the authors of a paper's copies onto `authors`, each once, in the order of
/// the copies.
fn push_authors(authors: &mut Vec<AuthorId>, group: &PaperGroup, file_author: &[AuthorId]) {
    for copy in &group.copies {
        let id = file_author[copy.file];
        if !authors.contains(&id) {
            authors.push(id);
        }
    }
}

/// The authors, each at the id `author_id` gives its provisional index, with their
/// papers (in paper order). Made in provisional order and then sorted by id, on every
/// thread: taking each author's parts in id order, from places scattered over five
/// lists, took 0.13 s of a rebuild at 500,000 papers on one.
fn assemble_authors(
    people: People,
    files: &[&RecordFile],
    author_id: &[AuthorId],
    papers: &[Paper],
) -> Vec<Author> {
    let People {
        files: author_files,
        keys,
        names,
        disambiguations,
        slugs,
        ..
    } = people;
    let parts = (slugs, names, disambiguations, keys, author_files);
    let mut by_id: Vec<(AuthorId, Author)> = (parts.into_par_iter().zip(author_id))
        .map(|((slug, name, disambiguation, key, author_files), &id)| {
            let files = author_files.iter().map(|&f| files[f].path.clone());
            let author = Author {
                slug,
                name,
                disambiguation,
                key,
                files: files.collect(),
                papers: Vec::new(),
                coauthors: Vec::new(),
            };
            (id, author)
        })
        .collect();
    by_id.par_sort_unstable_by_key(|&(id, _)| id);
    let mut authors: Vec<Author> = by_id.into_iter().map(|(_, author)| author).collect();
    for (author, list) in authors
        .iter_mut()
        .zip(papers_by_author(papers, author_id.len()))
    {
        author.papers = list;
    }
    authors
}

/// Each of the `authors`' papers, in paper order: every (author, paper) pair, sorted on
/// every thread, then cut into runs, rather than a push into each author's list paper
/// by paper on one thread (making the authors with that loop took 0.14 s at 500,000
/// papers, all of it on one thread).
fn papers_by_author(papers: &[Paper], authors: usize) -> Vec<Vec<PaperId>> {
    let mut pairs: Vec<(AuthorId, PaperId)> = (papers.par_iter().enumerate())
        .flat_map_iter(|(id, paper)| paper.authors.iter().map(move |&author| (author, id)))
        .collect();
    pairs.par_sort_unstable();
    let mut lists = vec![Vec::new(); authors];
    for run in pairs.chunk_by(|a, b| a.0 == b.0) {
        lists[run[0].0] = run.iter().map(|&(_, paper)| paper).collect();
    }
    lists
}

/// Finds every record's title key ([`crate::records::Record::title_key`]), on every
/// thread, before [`group_papers`] partitions the records by it on one. Each record
/// keeps its key: a record file a long-running process reuses has them already.
fn find_title_keys(files: &[&RecordFile]) {
    files.par_iter().for_each(|file| {
        for record in &file.records {
            record.title_key();
        }
    });
}

/// [`group_papers`], regrouping only the buckets a change touched when `memo` keeps
/// how the previous link grouped ([`KeptGroups`]); keeps this link's grouping for the
/// next. At 500,000 papers grouping every record took 0.39 s of a watcher's rebuild.
///
/// Also, for each group, the place in the previous build of the paper with the same
/// copies, if there was one: a group kept as it was has its paper's place, and a group
/// made again is matched by the key of its copies ([`copies_key`]) to the previous
/// groups made again. (Matching every group by key took 0.25 s of processor time a
/// rebuild at 500,000 papers: a key and a table entry for each.)
fn group_papers_with<'r>(
    files: &[&'r RecordFile],
    memo: &LinkMemo,
) -> (Vec<PaperGroup<'r>>, Vec<Option<usize>>) {
    if !memo.keeps_papers {
        memo.buckets_regrouped.store(usize::MAX, Relaxed);
        return (group_papers(files), Vec::new());
    }
    let previous = std::mem::take(&mut lock(&memo.kept).groups);
    let max_touched = previous.buckets.len() / 8;
    let (groups, places, regrouped) = match regroup(&previous, files, max_touched) {
        Some(Regrouped {
            groups,
            kept_from,
            made_again,
            touched,
        }) => {
            let by_key = previous.places_by_key(made_again.into_iter());
            let place = |(group, from): (&PaperGroup, Option<usize>)| match from {
                Some(g) => previous.place(g),
                None => by_key.get(&group_key(group, files)).copied(),
            };
            let places = groups.iter().zip(kept_from).map(place).collect();
            (groups, places, touched)
        }
        None => {
            let groups = group_papers(files);
            let by_key = previous.places_by_key(0..previous.buckets.len());
            let places = (groups.par_iter())
                .map(|group| by_key.get(&group_key(group, files)).copied())
                .collect();
            (groups, places, usize::MAX)
        }
    };
    memo.buckets_regrouped.store(regrouped, Relaxed);
    // The previous grouping goes now: its files may go when the papers are taken.
    drop(previous);
    lock(&memo.this_build).groups = KeptGroups::of(&groups, files);
    (groups, places)
}

/// The groups [`regroup`] makes.
struct Regrouped<'r> {
    /// The groups, in the order of their first copies.
    groups: Vec<PaperGroup<'r>>,
    /// For each group kept as it was, the previous group it is.
    kept_from: Vec<Option<usize>>,
    /// The previous groups of the touched buckets.
    made_again: Vec<usize>,
    /// How many buckets the change touched.
    touched: usize,
}

/// The groups of `files` made from the `previous` link's: those of the buckets no
/// added or removed file has a record in, as they were (with the files' places now),
/// and the records of the other buckets grouped again, in file order, as
/// [`group_papers`] groups them; with which previous group each kept one is, and how
/// many buckets were touched. `None` when there is no previous grouping, or when the
/// change touched more than `max_touched` buckets (grouping everything then costs about
/// the same).
fn regroup<'r>(
    previous: &KeptGroups,
    files: &[&'r RecordFile],
    max_touched: usize,
) -> Option<Regrouped<'r>> {
    if previous.buckets.is_empty() {
        return None;
    }
    // Addresses are multiples of the alignment: hashed, not taken as their own hash.
    let place_now: HashMap<usize, usize, foldhash::fast::RandomState> = (files.iter().enumerate())
        .map(|(place, &f)| (file_address(f), place))
        .collect();
    let now: Vec<Option<usize>> = (previous.files.iter())
        .map(|address| place_now.get(address).copied())
        .collect();
    let mut is_old = vec![false; files.len()];
    for place in now.iter().flatten() {
        is_old[*place] = true;
    }
    // The buckets of the records of removed files, then of added ones.
    let mut touched: HashSet<u64, nohash_hasher::BuildNoHashHasher<u64>> =
        (0..previous.buckets.len())
            .filter(|&g| previous.copies(g).iter().any(|c| now[c.file].is_none()))
            .map(|g| previous.buckets[g])
            .collect();
    let added: Vec<usize> = (0..files.len()).filter(|&f| !is_old[f]).collect();
    for &f in &added {
        touched.extend(
            files[f]
                .records
                .iter()
                .map(|r| bucket_of(r.title_key(), r.year)),
        );
    }
    if touched.len() > max_touched {
        return None;
    }
    let moved = |c: &Copy| now[c.file].map(|file| Copy { file, ..*c });
    let (kept, to_regroup): (Vec<usize>, Vec<usize>) =
        (0..previous.buckets.len()).partition(|&g| !touched.contains(&previous.buckets[g]));
    // Every record of a touched bucket, in file order: those grouped before, in files
    // still here, and every record of the added files.
    let mut records: Vec<(usize, usize)> = (to_regroup.iter())
        .flat_map(|&g| previous.copies(g).iter().filter_map(moved))
        .map(|c| (c.file, c.record))
        .collect();
    for &f in &added {
        records.extend((0..files[f].records.len()).map(|record| (f, record)));
    }
    records.sort_unstable();
    let first_copy = |(g, _): &(PaperGroup, Option<usize>)| g.copies[0];
    // The kept groups come in the order of their first copies: the files keep their
    // order (by path), and no kept group lost a copy. The few made again are merged in
    // (sorting all of them took 0.08 s of processor time a rebuild at 500,000 papers).
    let mut kept: Vec<(PaperGroup, Option<usize>)> = (kept.par_iter())
        .map(|&g| {
            let copies: Vec<Copy> = previous.copies(g).iter().filter_map(moved).collect();
            (group_of(copies, files), Some(g))
        })
        .collect();
    if !kept.is_sorted_by_key(first_copy) {
        kept.par_sort_unstable_by_key(first_copy);
    }
    let mut made: Vec<(PaperGroup, Option<usize>)> = (group_records(&records, files))
        .into_iter()
        .map(|g| (g, None))
        .collect();
    made.sort_unstable_by_key(first_copy);
    let (groups, kept_from) = merge_sorted(kept, made, first_copy).into_iter().unzip();
    Some(Regrouped {
        groups,
        kept_from,
        made_again: to_regroup,
        touched: touched.len(),
    })
}

/// `a` and `b`, each in the order of `key`, merged in that order (of equal keys, `b`'s
/// first).
fn merge_sorted<T, K: Ord>(a: Vec<T>, b: Vec<T>, key: impl Fn(&T) -> K) -> Vec<T> {
    let mut merged = Vec::with_capacity(a.len() + b.len());
    let mut b = b.into_iter().peekable();
    for item in a {
        while let Some(before) = b.next_if(|next| key(next) <= key(&item)) {
            merged.push(before);
        }
        merged.push(item);
    }
    merged.extend(b);
    merged
}

/// The group of `copies` (in file order, of one title key and year) as
/// [`group_records`] makes it: its abstract is the first copy's that has one.
fn group_of<'r>(copies: Vec<Copy>, files: &[&'r RecordFile]) -> PaperGroup<'r> {
    let record = |c: &Copy| &files[c.file].records[c.record];
    let first = record(&copies[0]);
    PaperGroup {
        title_key: first.title_key(),
        year: first.year,
        abstract_text: copies.iter().find_map(|c| record(c).abstract_text.as_ref()),
        abstract_key: None,
        copies,
    }
}

/// Papers: records with the same title key and year whose abstracts match, grouped.
/// Records of different (title key, year) never meet, so they are grouped in parallel
/// by partitions of that key; groups then take the order in which the records that
/// started them come in the files, as if grouped one by one.
fn group_papers<'r>(files: &[&'r RecordFile]) -> Vec<PaperGroup<'r>> {
    const PARTITIONS: u64 = 16;
    let mut partitions: Vec<Vec<(usize, usize)>> = vec![Vec::new(); PARTITIONS as usize];
    for (file_index, file) in files.iter().enumerate() {
        for (record_index, record) in file.records.iter().enumerate() {
            let bucket = bucket_of(record.title_key(), record.year);
            partitions[(bucket % PARTITIONS) as usize].push((file_index, record_index));
        }
    }
    let mut groups: Vec<PaperGroup> = partitions
        .par_iter()
        .flat_map_iter(|records| group_records(records, files).into_iter())
        .collect();
    groups.par_sort_unstable_by_key(|g| (g.copies[0].file, g.copies[0].record));
    groups
}

/// Each paper's slug: its first copy's title and its year (which a paper `taken` from
/// the previous build for the group brings; `taken` is empty when none is), made unique by the paper's abstract and
/// title keys; and the papers in the order of their slugs.
fn paper_slugs(
    files: &[&RecordFile],
    groups: &[PaperGroup],
    taken: &[Option<(PaperId, Paper)>],
) -> (Vec<String>, Vec<usize>) {
    unique_slugs_ordered(
        (groups.par_iter().enumerate())
            .map(|(i, g)| {
                let base_slug = || {
                    let first = &g.copies[0];
                    let record = &files[first.file].records[first.record];
                    format!("{}-{}", slugify(&record.title, "paper"), record.year)
                };
                let taken = taken.get(i).and_then(Option::as_ref);
                match taken.and_then(|(_, paper)| paper.derived.get()) {
                    Some(derived) => derived.base_slug.get_or_init(base_slug).clone(),
                    None => base_slug(),
                }
            })
            .collect(),
        |i| {
            let g = &groups[i];
            let abstract_key = g
                .abstract_key
                .or_else(|| g.abstract_text.map(abstract_key_of))
                .unwrap_or(0);
            format!("{abstract_key:016x}-{:016x}", g.title_key)
        },
    )
}

/// The copies of one paper, with the records they are.
struct PaperCopies<'g> {
    group: &'g PaperGroup<'g>,
    files: &'g [&'g RecordFile],
    /// The files' paths, shared by the papers' occurrences.
    paths: &'g [Arc<Path>],
    records: Vec<&'g crate::records::Record>,
}

impl<'g> PaperCopies<'g> {
    fn new(
        group: &'g PaperGroup<'g>,
        files: &'g [&'g RecordFile],
        paths: &'g [Arc<Path>],
    ) -> PaperCopies<'g> {
        let records = group
            .copies
            .iter()
            .map(|c| &files[c.file].records[c.record])
            .collect();
        PaperCopies {
            group,
            files,
            paths,
            records,
        }
    }

    /// The paper, with a note and a warning for each field its copies disagree in;
    /// `file_author` gives each file's author.
    fn assemble(
        &self,
        paper_id: PaperId,
        slug: String,
        file_author: &[AuthorId],
    ) -> (Paper, Vec<MergeNote>, Vec<Diagnostic>) {
        let first = self.records[0];
        let authors = authors_of(self.group, file_author);
        let abstract_text = self
            .records
            .iter()
            .filter_map(|r| r.abstract_text.as_ref())
            .fold(None::<&Text>, |best, a| match best {
                Some(b) if b.same_as(a) || chars(b) >= chars(a) => Some(b),
                _ => Some(a),
            })
            .cloned();
        let subjects = choose_subjects(&self.records);
        let (notes, diagnostics) = self.disagreements(paper_id, abstract_text.as_ref(), &subjects);
        let paper = Paper {
            slug,
            title: first.title.clone(),
            year: first.year,
            source: first.source.clone(),
            abstract_text,
            subjects,
            authors,
            occurrences: self
                .group
                .copies
                .iter()
                .map(|c| Occurrence {
                    path: Arc::clone(&self.paths[c.file]),
                    line: self.files[c.file].records[c.record].line,
                })
                .collect(),
            derived: DerivedSlot::default(),
        };
        (paper, notes, diagnostics)
    }

    /// A note and a warning for each field the copies disagree in (copies usually agree
    /// in everything: then there is nothing to report).
    fn disagreements(
        &self,
        paper_id: PaperId,
        abstract_text: Option<&Text>,
        subjects: &[String],
    ) -> (Vec<MergeNote>, Vec<Diagnostic>) {
        let copies = &self.records;
        let first = copies[0];
        let mut found = (Vec::new(), Vec::new());
        if copies.iter().any(|r| r.title != first.title) {
            let values = copies.iter().map(|r| Some(r.title.as_str())).collect();
            self.report(&mut found, paper_id, "title", values, &first.title);
        }
        let mut present_abstracts = copies.iter().filter_map(|r| r.abstract_text.as_ref());
        if present_abstracts.any(|a| abstract_text.is_none_or(|chosen| !a.same_as(chosen))) {
            let loaded: Vec<Option<Arc<str>>> = (copies.iter())
                .map(|r| r.abstract_text.as_ref().map(Text::load))
                .collect();
            let values = loaded.iter().map(Option::as_deref).collect();
            let chosen = abstract_text.map(Text::load);
            let chosen = chosen.as_deref().unwrap_or("");
            self.report(&mut found, paper_id, "abstract", values, chosen);
        }
        if copies.iter().any(|r| r.subjects != first.subjects) {
            let subject_values: Vec<String> = copies.iter().map(|r| r.subjects.join(" ")).collect();
            let values = subject_values.iter().map(|s| Some(s.as_str())).collect();
            self.report(&mut found, paper_id, "subject", values, &subjects.join(" "));
        }
        if copies.iter().any(|r| r.source != first.source) {
            let values = copies.iter().map(|r| Some(r.source.as_str())).collect();
            self.report(&mut found, paper_id, "source", values, &first.source);
        }
        found
    }

    /// Reports a disagreement in `field`, unless the copies that have it agree.
    /// `values` holds one entry per copy (`None`: the copy has no such value).
    fn report(
        &self,
        (notes, diagnostics): &mut (Vec<MergeNote>, Vec<Diagnostic>),
        paper_id: PaperId,
        field: &'static str,
        values: Vec<Option<&str>>,
        chosen: &str,
    ) {
        let present: Vec<&str> = values.iter().flatten().copied().collect();
        if present.iter().all(|v| *v == present[0]) {
            return;
        }
        let mut distinct = present;
        distinct.sort_unstable();
        distinct.dedup();
        notes.push(MergeNote {
            paper: paper_id,
            field,
            chosen: chosen.to_string(),
            variants: distinct.len(),
        });
        // Point at the first copy that differs from the value kept.
        let differing = values
            .iter()
            .position(|v| v.is_some_and(|v| v != chosen))
            .unwrap_or(0);
        let copy = &self.group.copies[differing];
        let record = self.records[differing];
        diagnostics.push(
            Diagnostic::warning(
                format!(
                    "copies of `{}` in {} files differ in their {field} ({} variants)",
                    self.records[0].title,
                    self.records.len(),
                    distinct.len()
                ),
                Some(Location::at_line(
                    &self.files[copy.file].path,
                    record.line,
                    1,
                    &format!("{}{}", record.source, record.year),
                    1,
                )),
            )
            .with_note(format!(
                "this copy differs; using {field} `{}` from {}",
                shorten(chosen),
                self.files[self.group.copies[0].file].path.display()
            )),
        );
    }
}

/// Each author's papers, newest first, then by title key and slug; but those of the
/// authors whose lists were `taken` from the previous build, which are in that order.
///
/// Title keys are found only for the papers of the authors to sort: in a watcher's
/// rebuild, a few dozen of half a million.
fn sort_author_papers(authors: &mut [Author], papers: &[Paper], taken: &[bool]) {
    let mut to_key = vec![false; papers.len()];
    for (author, _) in authors.iter().zip(taken).filter(|(_, &taken)| !taken) {
        for &paper in &author.papers {
            to_key[paper] = true;
        }
    }
    let title_keys: Vec<Cow<str>> = (papers.par_iter().zip(&to_key))
        .map(|(p, &to_key)| match p.derived.get() {
            _ if !to_key => Cow::Borrowed(""),
            Some(derived) => Cow::Borrowed(
                derived
                    .title_key
                    .get_or_init(|| text_key(&p.title))
                    .as_str(),
            ),
            None => Cow::Owned(text_key(&p.title)),
        })
        .collect();
    let to_sort = (authors.par_iter_mut().zip(taken)).filter(|(_, &taken)| !taken);
    to_sort.for_each(|(author, _)| {
        author.papers.sort_by(|&a, &b| {
            papers[b]
                .year
                .cmp(&papers[a].year)
                .then_with(|| title_keys[a].cmp(&title_keys[b]))
                .then(a.cmp(&b)) // Ids are in the order of the papers' slugs.
        });
    });
}

/// Each author's co-authors with the number of papers they share, most first (ties:
/// by name key); but those of the authors whose lists were `taken` from the previous
/// build.
fn find_coauthors(authors: &mut [Author], papers: &[Paper], taken: &[bool]) {
    let key_rank = key_ranks(authors);
    let lists: Vec<Option<Vec<(AuthorId, usize)>>> = (0..authors.len())
        .into_par_iter()
        .map(|id| (!taken[id]).then(|| coauthors_of(id, &authors[id], papers, &key_rank)))
        .collect();
    for (author, list) in authors.iter_mut().zip(lists) {
        if let Some(list) = list {
            author.coauthors = list;
        }
    }
}

/// The co-authors of `author` (whose id is `id`) with the number of papers they share,
/// most first, then by `key_rank`.
fn coauthors_of(
    id: AuthorId,
    author: &Author,
    papers: &[Paper],
    key_rank: &[u32],
) -> Vec<(AuthorId, usize)> {
    // Every co-author once per shared paper, sorted, then counted in runs.
    let mut others: Vec<AuthorId> = (author.papers.iter())
        .flat_map(|&paper| papers[paper].authors.iter().copied())
        .filter(|&other| other != id)
        .collect();
    others.sort_unstable();
    let mut list: Vec<(AuthorId, usize)> = Vec::new();
    for other in others {
        match list.last_mut() {
            Some((last, count)) if *last == other => *count += 1,
            _ => list.push((other, 1)),
        }
    }
    list.sort_by_key(|&(other, count)| (std::cmp::Reverse(count), key_rank[other]));
    list
}

/// The previous build's authors, and where its papers and authors are in this build,
/// for those that are the same: a paper taken from it ([`KeptPapers`]) with the same
/// slug; an author with the same slug, identity key and files.
///
/// An author who is the same, all of whose previous papers are the same and as many as
/// now, and all of whose previous co-authors are the same, has the same lists as
/// before, with the ids of this build:
/// * the same papers: each has the same copies, in the same files, which are the
///   author's now as they were; as many, so no other;
/// * in the same order: the same years and titles, and ids in the order of slugs,
///   which are the same;
/// * the same co-authors, as many times: the same papers' files belong to the same
///   authors; in the same order, since their keys and slugs are the same.
///
/// So a rebuild finds these lists only for the authors a change touched.
struct TakenLists<'p> {
    /// The previous build's authors, by their previous ids.
    authors: Vec<Author>,
    /// For each previous paper, its id in this build if it is the same.
    paper_now: &'p [Option<PaperId>],
    /// For each previous author, their id in this build if they are the same.
    author_now: Vec<Option<AuthorId>>,
}

impl<'p> TakenLists<'p> {
    /// Matches the `previous` authors (sorted by slug, as `authors` are) to this build's.
    ///
    /// Matched on every thread, a stretch of this build's authors each, from the first
    /// previous author whose slug is not before the stretch's first (one walk over both
    /// lists took 41–109 ms of a rebuild at 215,000 authors, this 45–52 ms).
    fn new(previous: Vec<Author>, paper_now: &'p [Option<PaperId>], authors: &[Author]) -> Self {
        let stretch = authors.len().div_ceil(64).max(1);
        let same: Vec<(usize, AuthorId)> = (authors.par_chunks(stretch).enumerate())
            .flat_map_iter(|(n, stretch_authors)| {
                let first = &stretch_authors[0].slug;
                let before = previous.partition_point(|was| was.slug < *first);
                same_authors(&previous[before..], stretch_authors)
                    .map(move |(was, is)| (before + was, n * stretch + is))
            })
            .collect();
        let mut author_now = vec![None; previous.len()];
        for (was, is) in same {
            author_now[was] = Some(is);
        }
        TakenLists {
            authors: previous,
            paper_now,
            author_now,
        }
    }

    /// Gives each author whose lists are the same as before (see [`TakenLists`]) those
    /// lists, with this build's ids; whether each author's were taken. The previous
    /// lists are changed in place, and the rest of the previous authors freed on
    /// another thread (a free for each of their strings and lists: 0.2 s at 215,000
    /// authors on this one).
    fn take_into(self, authors: &mut [Author]) -> Vec<bool> {
        let TakenLists {
            authors: previous,
            paper_now,
            author_now,
        } = self;
        if previous.is_empty() {
            return vec![false; authors.len()];
        }
        let mut was_by_now: Vec<Option<Author>> = (0..authors.len()).map(|_| None).collect();
        let mut gone = Vec::new();
        for (was, now) in previous.into_iter().zip(&author_now) {
            match now {
                Some(now) => was_by_now[*now] = Some(was),
                None => gone.push(was),
            }
        }
        let taken = (authors.par_iter_mut().zip(&mut was_by_now))
            .map(|(author, was)| {
                let Some(was) = was else { return false };
                let same = was.papers.len() == author.papers.len()
                    && now_ids(&mut was.papers, |paper| paper_now[paper])
                    && now_ids(&mut was.coauthors, |(other, count)| {
                        Some((author_now[other]?, count))
                    });
                if same {
                    author.papers = std::mem::take(&mut was.papers);
                    author.coauthors = std::mem::take(&mut was.coauthors);
                }
                same
            })
            .collect();
        free_in_background((was_by_now, gone));
        taken
    }
}

/// The authors of `previous` (sorted by slug) who are the same as one of `authors`
/// (sorted by slug): the same slug, identity key and files; as pairs of places in the
/// two lists, found in one walk over both.
fn same_authors<'a>(
    previous: &'a [Author],
    authors: &'a [Author],
) -> impl Iterator<Item = (usize, usize)> + 'a {
    let (mut before, mut now) = (0, 0);
    std::iter::from_fn(move || {
        while before < previous.len() && now < authors.len() {
            let (was, is) = (&previous[before], &authors[now]);
            match was.slug.cmp(&is.slug) {
                std::cmp::Ordering::Less => before += 1,
                std::cmp::Ordering::Greater => now += 1,
                std::cmp::Ordering::Equal => {
                    let pair = (before, now);
                    before += 1;
                    now += 1;
                    if was.key == is.key && was.files == is.files {
                        return Some(pair);
                    }
                }
            }
        }
        None
    })
}

/// Changes each of `ids` to what `now` gives for it; false, leaving `ids` part changed,
/// as soon as `now` gives nothing.
fn now_ids<T: std::marker::Copy>(ids: &mut [T], now: impl Fn(T) -> Option<T>) -> bool {
    for id in ids {
        match now(*id) {
            Some(new) => *id = new,
            None => return false,
        }
    }
    true
}

/// Each author's rank among the authors ordered by identity key (equal keys, equal
/// ranks), so that the many lists ordered by key compare numbers, not strings.
fn key_ranks(authors: &[Author]) -> Vec<u32> {
    let keys: Vec<&str> = authors.iter().map(|a| a.key.as_str()).collect();
    let order = order_by_key(&keys);
    let mut ranks = vec![0u32; authors.len()];
    let mut rank = 0;
    for (i, &author) in order.iter().enumerate() {
        if i > 0 && authors[order[i - 1]].key != authors[author].key {
            rank += 1;
        }
        ranks[author] = rank;
    }
    ranks
}

/// The subjects of a merged paper: the most frequent primary subject first (ties: first
/// copy), then the rest of that copy's subjects.
fn choose_subjects(copies: &[&crate::records::Record]) -> Vec<String> {
    let mut best: Option<(&Vec<String>, usize)> = None;
    for record in copies {
        if record.subjects.is_empty() {
            continue;
        }
        let count = copies
            .iter()
            .filter(|other| other.subjects == record.subjects)
            .count();
        if best.is_none_or(|(_, c)| count > c) {
            best = Some((&record.subjects, count));
        }
    }
    best.map(|(s, _)| s.clone()).unwrap_or_default()
}

fn shorten(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(60).collect();
    if chars.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::Record;

    fn record(title: &str, year: u16, abs: Option<&str>, subject: &str) -> Record {
        Record::new(
            "arXiv".into(),
            year,
            title.into(),
            abs.map(Text::from),
            vec![subject.into()],
            9,
        )
    }

    fn file(path: &str, name: &str, records: Vec<Record>) -> RecordFile {
        RecordFile {
            path: PathBuf::from(path),
            author_name: name.into(),
            declared_count: Some(records.len()),
            records,
        }
    }

    #[test]
    fn same_paper_in_two_files_is_one_paper_with_both_authors() {
        let graph = link(&[
            file(
                "b.txt",
                "Shunkang Zhang",
                vec![record("Megatron", 2026, Some("Abs."), "cs.DC")],
            ),
            file(
                "a.txt",
                "Zhongbo Zhu",
                vec![record("Megatron", 2026, Some("Abs."), "cs.DC")],
            ),
        ]);
        assert_eq!(graph.papers.len(), 1);
        let paper = &graph.papers[0];
        let names: Vec<&str> = paper
            .authors
            .iter()
            .map(|&a| graph.authors[a].name.as_str())
            .collect();
        assert_eq!(names, ["Zhongbo Zhu", "Shunkang Zhang"], "file path order");
        assert_eq!(graph.authors[0].coauthors, vec![(1, 1)]);
        assert_eq!(graph.authors[1].coauthors, vec![(0, 1)]);
        assert_eq!(graph.shared_paper_count(), 1);
        assert!(graph.diagnostics.is_empty());
    }

    #[test]
    fn case_spacing_and_punctuation_differences_merge_and_are_reported() {
        let graph = link(&[
            file(
                "a.txt",
                "A",
                vec![record(
                    "Mixture-of-Experts: A Study",
                    2020,
                    Some("We study, things."),
                    "cs.LG",
                )],
            ),
            file(
                "b.txt",
                "B",
                vec![record(
                    "mixture of experts  a study",
                    2020,
                    Some("we study things"),
                    "cs.LG",
                )],
            ),
        ]);
        assert_eq!(graph.papers.len(), 1);
        assert_eq!(graph.papers[0].title, "Mixture-of-Experts: A Study");
        let fields: Vec<&str> = graph.merge_notes.iter().map(|n| n.field).collect();
        assert_eq!(fields, ["title", "abstract"]);
    }

    #[test]
    fn abstracts_in_a_text_store_link_as_in_memory() {
        let files = || {
            // 27 characters in 29 bytes.
            let shared = Some("We study things — at length");
            vec![
                file(
                    "a.txt",
                    "A",
                    vec![
                        record("Mixture of Experts", 2020, shared, "cs.LG"),
                        record("Notes", 2021, Some("One."), "cs.LG"),
                        record("Untitled", 2022, None, "cs.LG"),
                    ],
                ),
                file(
                    "b.txt",
                    "B",
                    vec![
                        // The longer variant (in characters, not bytes) is kept.
                        record(
                            "Mixture of Experts",
                            2020,
                            Some("We study things, at length!!"),
                            "cs.LG",
                        ),
                        record("Notes", 2021, Some("Two."), "cs.LG"),
                        record("Untitled", 2022, Some("Found later."), "cs.LG"),
                    ],
                ),
                file(
                    "c.txt",
                    "C",
                    vec![record("Mixture of Experts", 2020, shared, "cs.AI")],
                ),
            ]
        };
        let dir = tempfile::tempdir().unwrap();
        let linked = |pool: crate::records::TextPool| {
            let mut files = files();
            files.iter_mut().for_each(|f| f.share_texts(&pool));
            assert_eq!(pool.stores(), pool.into_store().is_some());
            link(&files)
        };
        let held = linked(crate::records::TextPool::default());
        let stored = linked(crate::records::TextPool::storing_from(
            0,
            dir.path().to_path_buf(),
        ));
        assert_eq!(held.papers.len(), 4, "{:?}", held.papers);
        assert_eq!(stored.papers, held.papers);
        let notes = |g: &SiteGraph| format!("{:?}", g.merge_notes);
        assert_eq!(notes(&stored), notes(&held));
        assert!(
            notes(&held).contains("chosen: \"We study things, at length!!\""),
            "{}",
            notes(&held)
        );
        let messages = |g: &SiteGraph| {
            g.diagnostics
                .iter()
                .map(|d| d.message.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(messages(&stored), messages(&held));
        let merged = &held
            .papers
            .iter()
            .find(|p| p.title == "Mixture of Experts")
            .unwrap();
        assert_eq!(merged.authors.len(), 3);
    }

    #[test]
    fn same_title_in_one_file_stays_two_papers() {
        let graph = link(&[file(
            "a.txt",
            "A",
            vec![
                record("Notes", 2020, Some("One."), "cs.LG"),
                record("Notes", 2021, Some("Two."), "cs.LG"),
                record("Notes", 2021, Some("Two."), "cs.LG"),
            ],
        )]);
        assert_eq!(graph.papers.len(), 3);
        let mut slugs: Vec<&str> = graph.papers.iter().map(|p| p.slug.as_str()).collect();
        slugs.dedup();
        assert_eq!(slugs.len(), 3, "unique slugs: {slugs:?}");
    }

    #[test]
    fn same_title_different_year_or_abstract_stays_apart() {
        let graph = link(&[
            file(
                "a.txt",
                "A",
                vec![record("Graphs", 2020, Some("First."), "cs.LG")],
            ),
            file(
                "b.txt",
                "B",
                vec![record("Graphs", 2021, Some("First."), "cs.LG")],
            ),
            file(
                "c.txt",
                "C",
                vec![record("Graphs", 2020, Some("Different."), "cs.LG")],
            ),
        ]);
        assert_eq!(graph.papers.len(), 3);
        assert!(graph.papers.iter().all(|p| p.authors.len() == 1));
        assert_eq!(graph.shared_paper_count(), 0);
    }

    #[test]
    fn missing_abstract_matches_a_present_one_and_the_present_one_is_kept() {
        let graph = link(&[
            file("a.txt", "A", vec![record("T", 2020, None, "cs.LG")]),
            file(
                "b.txt",
                "B",
                vec![record("T", 2020, Some("Kept."), "cs.LG")],
            ),
        ]);
        assert_eq!(graph.papers.len(), 1);
        assert_eq!(
            graph.papers[0]
                .abstract_text
                .as_ref()
                .map(|t| t.load())
                .as_deref(),
            Some("Kept.")
        );
    }

    #[test]
    fn subject_disagreement_takes_the_most_frequent() {
        let graph = link(&[
            file("a.txt", "A", vec![record("T", 2020, Some("X"), "cs.AI")]),
            file("b.txt", "B", vec![record("T", 2020, Some("X"), "cs.LG")]),
            file("c.txt", "C", vec![record("T", 2020, Some("X"), "cs.LG")]),
        ]);
        assert_eq!(graph.papers[0].subjects, ["cs.LG"]);
        assert_eq!(graph.merge_notes[0].field, "subject");
        assert_eq!(graph.diagnostics.len(), 1);
        assert!(graph.diagnostics[0]
            .message
            .contains("differ in their subject"));
    }

    #[test]
    fn files_with_the_same_normalized_name_are_one_author() {
        let graph = link(&[
            file(
                "a.txt",
                "Zoë  Li",
                vec![record("One", 2020, Some("X"), "cs.LG")],
            ),
            file(
                "b.txt",
                "ZOË LI",
                vec![record("Two", 2021, Some("Y"), "cs.LG")],
            ),
            file(
                "c.txt",
                "Zoe Li",
                vec![record("Three", 2021, Some("Z"), "cs.LG")],
            ),
        ]);
        assert_eq!(graph.authors.len(), 2, "Zoë and Zoe differ");
        let zoe = graph.authors.iter().find(|a| a.name == "Zoë  Li").unwrap();
        assert_eq!(zoe.files.len(), 2);
        assert_eq!(zoe.papers.len(), 2);
        assert_eq!(graph.diagnostics.len(), 1);
        assert!(graph.diagnostics[0]
            .message
            .contains("merged into one author"));
        // Both slug to zoe-li: unique slugs all the same.
        let slugs: Vec<&str> = graph.authors.iter().map(|a| a.slug.as_str()).collect();
        assert!(slugs.contains(&"zoe-li"), "{slugs:?}");
        assert_ne!(slugs[0], slugs[1]);
    }

    #[test]
    fn slugs_do_not_change_when_unrelated_files_are_added() {
        let base = vec![
            file(
                "a.txt",
                "Łukasz Nowak",
                vec![record("Deep Nets", 2020, Some("X"), "cs.LG")],
            ),
            file(
                "b.txt",
                "Zoë Li",
                vec![
                    record("Deep Nets", 2020, Some("X"), "cs.LG"),
                    record("Other", 2019, None, "cs.AI"),
                ],
            ),
        ];
        let before = link(&base);
        let mut more = base.clone();
        more.insert(
            0,
            file(
                "0.txt",
                "Someone Else",
                vec![record("Unrelated", 2022, Some("Q"), "cs.CL")],
            ),
        );
        let after = link(&more);
        for author in &before.authors {
            assert_eq!(
                after.author_by_slug(&author.slug).unwrap().name,
                author.name
            );
        }
        for paper in &before.papers {
            assert_eq!(after.paper_by_slug(&paper.slug).unwrap().title, paper.title);
        }
        assert_eq!(
            before.author_by_slug("lukasz-nowak").unwrap().name,
            "Łukasz Nowak"
        );
        assert!(before.paper_by_slug("deep-nets-2020").is_some());
    }

    #[test]
    fn input_order_does_not_matter() {
        let files = vec![
            file(
                "a.txt",
                "A",
                vec![
                    record("P", 2020, Some("X"), "cs.LG"),
                    record("Q", 2021, None, "cs.AI"),
                ],
            ),
            file("b.txt", "B", vec![record("P", 2020, Some("X"), "cs.DC")]),
            file("c.txt", "C", vec![record("Q", 2021, Some("Y"), "cs.AI")]),
        ];
        let mut reversed = files.clone();
        reversed.reverse();
        let (x, y) = (link(&files), link(&reversed));
        assert_eq!(x.authors, y.authors);
        assert_eq!(x.papers, y.papers);
    }

    #[test]
    fn author_papers_are_newest_first_and_coauthors_by_shared_count() {
        let graph = link(&[
            file(
                "a.txt",
                "A",
                vec![
                    record("Old", 2001, None, "cs.LG"),
                    record("New", 2020, None, "cs.LG"),
                    record("Mid", 2010, None, "cs.LG"),
                ],
            ),
            file("b.txt", "B", vec![record("Old", 2001, None, "cs.LG")]),
            file(
                "c.txt",
                "C",
                vec![
                    record("New", 2020, None, "cs.LG"),
                    record("Mid", 2010, None, "cs.LG"),
                ],
            ),
        ]);
        let a = graph.author_by_slug("a").unwrap();
        let years: Vec<u16> = a.papers.iter().map(|&p| graph.papers[p].year).collect();
        assert_eq!(years, [2020, 2010, 2001]);
        let coauthors: Vec<(&str, usize)> = a
            .coauthors
            .iter()
            .map(|&(id, n)| (graph.authors[id].name.as_str(), n))
            .collect();
        assert_eq!(coauthors, [("C", 2), ("B", 1)]);
    }

    #[test]
    fn coauthors_sharing_as_many_papers_are_in_order_of_their_keys_not_their_slugs() {
        let shared = || record("Shared", 2020, None, "cs.LG");
        let graph = link(&[
            file("a.txt", "A", vec![shared()]),
            file("e.txt", "Émile", vec![shared()]),
            file("f.txt", "Fred", vec![shared()]),
            file("z.txt", "zed", vec![shared()]),
            file("z2.txt", "Zed", vec![shared()]),
        ]);
        let slugs: Vec<&str> = graph.authors.iter().map(|a| a.slug.as_str()).collect();
        assert_eq!(slugs, ["a", "emile", "fred", "zed"], "Zed and zed are one");
        let a = graph.author_by_slug("a").unwrap();
        let names: Vec<&str> = (a.coauthors.iter())
            .map(|&(id, _)| graph.authors[id].name.as_str())
            .collect();
        // Keys "fred" < "zed" < "émile" (by bytes), though the slug "emile" is first.
        assert_eq!(names.len(), 3, "{names:?}");
        assert_eq!(names[0], "Fred");
        assert_eq!(names[2], "Émile");
    }

    #[test]
    fn equal_keys_have_equal_ranks_and_ranks_follow_the_keys() {
        let author = |key: &str| Author {
            slug: String::new(),
            name: String::new(),
            disambiguation: None,
            key: key.into(),
            files: Vec::new(),
            papers: Vec::new(),
            coauthors: Vec::new(),
        };
        let authors = [author("b"), author("a"), author("c"), author("a")];
        assert_eq!(key_ranks(&authors), [1, 0, 2, 0]);
        assert_eq!(key_ranks(&[]), Vec::<u32>::new());
    }

    /// A record file as the watcher holds it, one `(title, year, abstract, subject)` a record.
    fn shared(
        path: &str,
        name: &str,
        papers: &[(&str, u16, Option<&str>, &str)],
    ) -> Arc<RecordFile> {
        let records = (papers.iter())
            .map(|&(title, year, abs, subject)| record(title, year, abs, subject))
            .collect();
        Arc::new(file(path, name, records))
    }

    /// Links `files` as a long-running process does with `memo`: holding the files,
    /// then keeping the papers for the next link.
    fn link_keeping(files: &[Arc<RecordFile>], memo: &LinkMemo) -> SiteGraph {
        memo.hold_files(files);
        let mut graph = link_with(files, &IdentityRules::default(), memo);
        let linked = graph.clone();
        memo.keep_papers(&mut graph);
        linked
    }

    fn assert_same_graph(a: &SiteGraph, b: &SiteGraph) {
        assert_eq!(a.papers, b.papers);
        assert_eq!(a.authors, b.authors);
        assert_eq!(a.merge_notes, b.merge_notes);
        assert_eq!(a.diagnostics, b.diagnostics);
        assert_eq!(a.former_author_slugs, b.former_author_slugs);
    }

    #[test]
    fn what_was_derived_from_a_paper_stays_with_it_while_its_copies_stay_the_same() {
        let mut memo = LinkMemo::default();
        memo.enable();
        let ada = shared(
            "a.txt",
            "Ada Byron",
            &[("Engines", 1843, Some("Notes."), "cs.GL")],
        );
        let bo = |year| shared("b.txt", "Bo Chen", &[("Gears", year, None, "cs.AR")]);
        let first = vec![Arc::clone(&ada), bo(1850)];
        memo.hold_files(&first);
        let mut graph = link_with(&first, &IdentityRules::default(), &memo);
        for paper in &graph.papers {
            assert_eq!(paper.derived(|d| &d.card, || 1), 1);
        }
        memo.keep_papers(&mut graph);

        // Bo's file rewritten with another year: Gears is made again, Engines is taken.
        let second = vec![Arc::clone(&ada), bo(1851)];
        let linked = link_keeping(&second, &memo);
        assert_same_graph(&linked, &link(&second));
        let engines = linked.paper_by_slug("engines-1843").unwrap();
        let gears = linked.paper_by_slug("gears-1851").unwrap();
        assert_eq!(engines.derived(|d| &d.card, || 2), 1, "kept");
        assert_eq!(gears.derived(|d| &d.card, || 2), 2, "made again");
        // Linking itself found the title keys, which a taken paper brings along.
        let title_key = engines
            .derived
            .get()
            .unwrap()
            .title_key
            .get_or_init(String::new);
        assert_eq!(title_key, &text_key("Engines"));
        // So did slugging the title and year, kept for the next link.
        let base_slug = engines.derived.get().unwrap().base_slug.0.get();
        assert_eq!(base_slug.map(String::as_str), Some("engines-1843"));
        // And the next link uses it rather than slugging again: a kept base slug made
        // to differ from what the title and year make is the one the paper gets.
        memo.hold_files(&second);
        let mut graph = link_with(&second, &IdentityRules::default(), &memo);
        let engines = graph.papers.iter_mut().find(|p| p.title == "Engines");
        let derived = engines.unwrap().derived.0.as_mut().unwrap();
        derived.base_slug = Derived(OnceLock::from("kept-base-slug".to_string()));
        memo.keep_papers(&mut graph);
        let third = link_keeping(&second, &memo);
        assert!(third.paper_by_slug("kept-base-slug").is_some());
        assert!(third.paper_by_slug("engines-1843").is_none());
        // A one-off link keeps nothing with its papers.
        let one_off = link(&second);
        assert!(one_off.papers.iter().all(|p| p.derived.get().is_none()));
        assert_eq!(one_off.papers[0].derived(|d| &d.card, || 3), 3);
    }

    #[test]
    fn papers_taken_from_the_previous_link_equal_papers_linked_afresh() {
        let mut memo = LinkMemo::default();
        memo.enable();
        let ada = shared(
            "a.txt",
            "Ada Byron",
            &[
                ("Engines", 1843, Some("Notes."), "cs.GL"),
                ("Tables", 1844, Some("Numbers."), "math.NA"),
                ("Looms", 1845, Some("Cards."), "cs.AR"),
            ],
        );
        let bo = shared(
            "b.txt",
            "Bo Chen",
            &[
                ("Engines", 1843, Some("Notes."), "cs.GL"),
                ("Gears", 1850, None, "cs.AR"),
            ],
        );
        let cy = shared("c.txt", "Cy Dane", &[("Tables", 1844, None, "math.NA")]);
        let first = vec![Arc::clone(&ada), Arc::clone(&bo), Arc::clone(&cy)];
        let first_linked = link_keeping(&first, &memo);
        assert_same_graph(&first_linked, &link(&first));
        assert_eq!(memo.papers_taken(), 0, "nothing kept before the first link");
        assert!(first_linked.lineage.was.is_empty());

        // A new author whose name sorts first (every author's id moves), sharing Gears;
        // Bo's file rewritten with Engines' title spelled otherwise (a disagreement).
        let aaron = shared(
            "0.txt",
            "Aaron Abel",
            &[("Gears", 1850, Some("Teeth."), "cs.AR")],
        );
        let bo_again = shared(
            "b.txt",
            "Bo Chen",
            &[
                ("ENGINES", 1843, Some("Notes."), "cs.GL"),
                ("Gears", 1850, None, "cs.AR"),
            ],
        );
        let second = vec![
            Arc::clone(&aaron),
            Arc::clone(&ada),
            bo_again,
            Arc::clone(&cy),
        ];
        let linked = link_keeping(&second, &memo);
        assert_same_graph(&linked, &link(&second));
        assert_eq!(
            memo.papers_taken(),
            2,
            "Tables (Ada's and Cy's) and Looms (Ada's)"
        );
        // Each taken paper's id in the first link, where it had the same slug.
        let lineage = &linked.lineage;
        assert_eq!(lineage.previous_link, first_linked.lineage.link);
        let was: Vec<(&str, &str)> = (0..linked.papers.len())
            .filter_map(|id| {
                let was = lineage.previous_id(id, first_linked.lineage.link)?;
                Some((
                    linked.papers[id].slug.as_str(),
                    first_linked.papers[was].slug.as_str(),
                ))
            })
            .collect();
        assert_eq!(
            was,
            [("looms-1845", "looms-1845"), ("tables-1844", "tables-1844")]
        );
        assert_eq!(
            lineage.previous_id(0, lineage.link),
            None,
            "not of this link"
        );
        assert_eq!(linked.merge_notes.len(), 1, "{:?}", linked.merge_notes);
        let tables = linked.paper_by_slug("tables-1844").unwrap();
        let names: Vec<&str> = (tables.authors.iter())
            .map(|&a| linked.authors[a].name.as_str())
            .collect();
        assert_eq!(
            names,
            ["Ada Byron", "Cy Dane"],
            "ids of this link's authors"
        );

        // Cy's file removed: Tables is made of other copies now; Looms is taken again,
        // Engines (whose copies disagree) is not.
        let third = vec![aaron, ada];
        assert_same_graph(&link_keeping(&third, &memo), &link(&third));
        assert_eq!(memo.papers_taken(), 1, "Looms");
    }

    /// When a change touches few buckets of records, a group kept as it was brings the
    /// previous paper at its place, and a group made again the previous paper with the
    /// same copies, if any: two papers of one title and year (one bucket) stay apart,
    /// and the one whose copies a new file does not join is taken though its bucket
    /// was grouped again.
    #[test]
    fn papers_of_kept_and_regrouped_groups_are_taken_by_place_and_by_copies() {
        let mut memo = LinkMemo::default();
        memo.enable();
        let mut files: Vec<Arc<RecordFile>> = (0..12)
            .map(|i| {
                let (first, second) = (format!("Topic {i}"), format!("Other topic {i}"));
                let papers = [
                    (first.as_str(), 1900 + i, Some("Plain."), "math.GM"),
                    (second.as_str(), 1950 + i, None, "math.GM"),
                ];
                shared(&format!("f{i:02}.txt"), &format!("Author {i}"), &papers)
            })
            .collect();
        files.push(shared(
            "x.txt",
            "Xi Wu",
            &[("Twins", 2000, Some("Left."), "cs.GL")],
        ));
        files.push(shared(
            "y.txt",
            "Yo Ng",
            &[("Twins", 2000, Some("Right."), "cs.GL")],
        ));
        let first = link_keeping(&files, &memo);
        assert_eq!(first.papers.len(), 26);

        // A third file with the right twin: its bucket is grouped again; the left
        // twin's copies are as they were.
        files.push(shared(
            "z.txt",
            "Zo Li",
            &[("Twins", 2000, Some("Right."), "cs.GL")],
        ));
        let linked = link_keeping(&files, &memo);
        assert_same_graph(&linked, &link(&files));
        assert_eq!(memo.buckets_regrouped(), Some(1));
        assert_eq!(memo.papers_taken(), 25, "all but the right twin");
        let right = linked.papers.iter().find(|p| p.authors.len() == 2).unwrap();
        assert_eq!(right.title, "Twins");

        // The third file gone: the right twin's copies change back, and whatever is
        // taken equals what is found afresh.
        files.pop();
        let linked = link_keeping(&files, &memo);
        assert_same_graph(&linked, &link(&files));
        assert_eq!(memo.buckets_regrouped(), Some(1));
        assert_eq!(memo.papers_taken(), 25, "all but the right twin");
    }

    /// Previous authors are matched to this build's stretch by stretch on every thread:
    /// the same matches as by slug over the whole lists, at the stretches' edges too.
    #[test]
    fn previous_authors_match_the_same_slug_key_and_files_across_stretches() {
        let author = |n: usize, file: &str| Author {
            slug: format!("author-{n:04}"),
            name: format!("Author {n}"),
            disambiguation: None,
            key: format!("author {n}"),
            files: vec![PathBuf::from(file)],
            papers: Vec::new(),
            coauthors: Vec::new(),
        };
        // 1,000 previous authors; now every third gone, one in seven with another file,
        // and new ones between: several authors to each of the 64 stretches.
        let previous: Vec<Author> = (0..1000).map(|n| author(2 * n, "a.txt")).collect();
        let mut now: Vec<Author> = Vec::new();
        for n in 0..1000 {
            if n % 3 != 0 {
                now.push(author(2 * n, if n % 7 == 0 { "b.txt" } else { "a.txt" }));
            }
            if n % 5 == 0 {
                now.push(author(2 * n + 1, "a.txt"));
            }
        }
        let expected: Vec<Option<AuthorId>> = (previous.iter())
            .map(|was| now.iter().position(|is| is == was))
            .collect();
        assert!(expected.iter().filter(|m| m.is_some()).count() > 500);
        let lists = TakenLists::new(previous, &[], &now);
        assert_eq!(lists.author_now, expected);
    }

    #[test]
    fn author_lists_taken_from_the_previous_link_equal_lists_found_afresh() {
        let mut memo = LinkMemo::default();
        memo.enable();
        let ada = shared(
            "a.txt",
            "Ada Byron",
            &[
                ("Engines", 1843, Some("Notes."), "cs.GL"),
                ("Tables", 1844, Some("Numbers."), "math.NA"),
            ],
        );
        let bo = shared(
            "b.txt",
            "Bo Chen",
            &[
                ("Engines", 1843, Some("Notes."), "cs.GL"),
                ("Gears", 1850, Some("Teeth."), "cs.AR"),
            ],
        );
        let cy = shared(
            "c.txt",
            "Cy Dane",
            &[
                ("Tables", 1844, Some("Numbers."), "math.NA"),
                ("Dials", 1846, Some("Hands."), "cs.AR"),
            ],
        );
        let di = shared(
            "d.txt",
            "Di Eve",
            &[("Dials", 1846, Some("Hands."), "cs.AR")],
        );
        let mut files = vec![ada, bo, cy, di];
        link_keeping(&files, &memo);
        assert_eq!(
            memo.author_lists_taken(),
            0,
            "nothing kept before the first link"
        );

        // A new author whose name sorts first: every id moves, no list changes.
        files.push(shared(
            "0.txt",
            "Aaron Abel",
            &[("Levers", 1860, Some("Force."), "physics.class-ph")],
        ));
        let linked = link_keeping(&files, &memo);
        assert_same_graph(&linked, &link(&files));
        assert_eq!(
            memo.author_lists_taken(),
            4,
            "every author's but the new one's"
        );

        // Di gets a second file: Di's papers and Cy's co-authors change. Ada's lists
        // are taken (Cy is the same author), Bo's and Aaron's too.
        files.push(shared(
            "d2.txt",
            "Di Eve",
            &[("Springs", 1847, Some("Coils."), "cs.AR")],
        ));
        let linked = link_keeping(&files, &memo);
        assert_same_graph(&linked, &link(&files));
        assert_eq!(memo.author_lists_taken(), 3, "Aaron's, Ada's and Bo's");
        let cy = linked.author_by_slug("cy-dane").unwrap();
        assert_eq!(cy.coauthors.len(), 2);

        // Another paper titled Gears in 1850 with another abstract: its slug and maybe
        // the first one's change; whatever is taken equals what is found afresh.
        files.push(shared(
            "z.txt",
            "Zed Young",
            &[
                ("Gears", 1850, Some("Other teeth."), "cs.AR"),
                ("Engines", 1843, Some("Notes."), "cs.GL"),
            ],
        ));
        let linked = link_keeping(&files, &memo);
        assert_same_graph(&linked, &link(&files));
        let bo = linked.author_by_slug("bo-chen").unwrap();
        assert_eq!(bo.coauthors.len(), 2, "Ada and now Zed");
        assert_eq!(memo.author_lists_taken(), 3, "Aaron's, Cy's and Di's");

        // Ada's file removed: Engines' and Tables' copies change, so Bo's, Cy's and
        // Zed's lists are found again; Aaron's and Di's are taken.
        files.retain(|f| f.path != Path::new("a.txt"));
        let linked = link_keeping(&files, &memo);
        assert_same_graph(&linked, &link(&files));
        assert_eq!(memo.author_lists_taken(), 2, "Aaron's and Di's");
    }

    proptest::proptest! {
        /// Two lists in order merge into the list of both in order.
        #[test]
        fn two_sorted_lists_merge_into_one_sorted_list(
            a in proptest::collection::vec(0u8..20, 0..30),
            b in proptest::collection::vec(0u8..20, 0..30),
        ) {
            let (mut a, mut b) = (a, b);
            a.sort_unstable();
            b.sort_unstable();
            let mut both = [a.clone(), b.clone()].concat();
            both.sort_unstable();
            proptest::prop_assert_eq!(merge_sorted(a, b, |&x| x), both);
        }
    }

    #[test]
    fn records_whose_title_keys_and_years_share_a_bucket_stay_apart() {
        // Two title keys chosen so that with these years they fall in one bucket.
        let (key, year, other_year) = (0x1234_5678_9abc_def0_u64, 2020, 2021);
        let other_key = key ^ bucket_of(0, year) ^ bucket_of(0, other_year);
        assert_eq!(bucket_of(key, year), bucket_of(other_key, other_year));
        let a = file(
            "a.txt",
            "Ada Byron",
            vec![record("Engines", year, Some("Notes."), "cs.GL").knowing_title_key(key)],
        );
        let b = file(
            "b.txt",
            "Bo Chen",
            vec![
                record("Engines", other_year, Some("Notes."), "cs.GL").knowing_title_key(other_key),
                record("Engines", year, Some("Notes."), "cs.GL").knowing_title_key(key),
            ],
        );
        let groups = group_records(&[(0, 0), (1, 0), (1, 1)], &[&a, &b]);
        let copies: Vec<Vec<(usize, usize)>> = (groups.iter())
            .map(|g| g.copies.iter().map(|c| (c.file, c.record)).collect())
            .collect();
        assert_eq!(copies, [vec![(0, 0), (1, 1)], vec![(1, 0)]]);
    }

    /// The groups made again for only the buckets a change touched are those grouping
    /// every record makes: with files removed, added and replaced (a new file at a
    /// reused file's path), records joining groups of kept files, a title and year with
    /// two different abstracts (two groups in one bucket), and copies without an
    /// abstract.
    #[test]
    fn regrouping_the_touched_buckets_makes_the_groups_of_grouping_everything() {
        let shape = |groups: &[PaperGroup]| -> Vec<(u64, u16, Option<usize>, Vec<Copy>)> {
            (groups.iter())
                .map(|g| {
                    let text = g.abstract_text.map(|t| std::ptr::from_ref(t) as usize);
                    (g.title_key, g.year, text, g.copies.clone())
                })
                .collect()
        };
        let a = file(
            "a.txt",
            "Ada Byron",
            vec![
                record("Engines", 1843, Some("Notes."), "cs.GL"),
                record("Looms", 1844, None, "cs.GL"),
                record("Tables", 1845, Some("Numbers."), "math.NA"),
            ],
        );
        let b = file(
            "b.txt",
            "Bo Chen",
            vec![
                record("Engines", 1843, None, "cs.GL"),
                record("Looms", 1844, Some("Weaving."), "cs.GL"),
                record("Tables", 1845, Some("Other numbers entirely."), "math.NA"),
            ],
        );
        let c = file(
            "c.txt",
            "Cy Dunn",
            vec![
                record("Engines", 1843, Some("Notes."), "cs.GL"),
                record("Gears", 1850, None, "cs.GL"),
            ],
        );
        let d = file(
            "d.txt",
            "Di Eve",
            vec![
                record("Tables", 1845, Some("Numbers."), "math.NA"),
                record("Gears", 1851, None, "cs.GL"),
                record("Pulleys", 1852, Some("Ropes."), "cs.GL"),
            ],
        );
        let b_again = file(
            "b.txt",
            "Bo Chen",
            vec![record("Looms", 1844, Some("Weaving."), "cs.GL")],
        );
        let steps: [&[&RecordFile]; 5] = [
            &[&a, &b, &c],
            &[&a, &b, &c, &d],
            &[&a, &c, &d],
            &[&a, &b_again, &c, &d],
            &[&b_again],
        ];
        let (mut regrouped, mut kept, mut made_again) = (0, 0, 0);
        let mut previous = KeptGroups::of(&group_papers(steps[0]), steps[0]);
        for files in &steps[1..] {
            let everything = group_papers(files);
            if let Some(made) = regroup(&previous, files, usize::MAX) {
                assert_eq!(shape(&made.groups), shape(&everything));
                // A group kept as it was has the same copies as the previous group it
                // names: the same records of the same files.
                for (group, from) in made.groups.iter().zip(&made.kept_from) {
                    let Some(from) = *from else { continue };
                    let then = previous.copies(from).iter();
                    let then: Vec<(usize, usize)> =
                        then.map(|c| (previous.files[c.file], c.record)).collect();
                    let now = group.copies.iter();
                    let now: Vec<(usize, usize)> = now
                        .map(|c| (file_address(files[c.file]), c.record))
                        .collect();
                    assert_eq!(then, now);
                }
                kept += made.kept_from.iter().flatten().count();
                made_again += made.kept_from.iter().filter(|from| from.is_none()).count();
                regrouped += 1;
            }
            previous = KeptGroups::of(&everything, files);
        }
        assert_eq!(regrouped, 4, "each step after the first regroups");
        assert!(
            kept > 0 && made_again > 0,
            "{kept} kept, {made_again} made again"
        );
        let none = KeptGroups::default();
        assert!(
            regroup(&none, steps[0], usize::MAX).is_none(),
            "nothing to start from"
        );
        let previous = KeptGroups::of(&group_papers(steps[0]), steps[0]);
        assert!(
            regroup(&previous, steps[1], 0).is_none(),
            "too many buckets touched"
        );
    }

    /// A watcher's links, which group again only the records of the titles and years a
    /// change touched, link as afresh: a file added with papers shared with kept files,
    /// removed, and rewritten.
    #[test]
    fn links_that_group_again_only_what_a_change_touched_equal_links_afresh() {
        let mut memo = LinkMemo::default();
        memo.enable();
        let author = |i: usize| {
            let papers = [
                (format!("Paper {i}"), 2000 + (i % 7) as u16),
                (format!("Shared {}", i / 3), 2010),
                (format!("Note {i}"), 2020),
            ];
            let papers: Vec<(&str, u16, Option<&str>, &str)> = (papers.iter())
                .map(|(title, year)| (title.as_str(), *year, Some("Same."), "math.AG"))
                .collect();
            shared(&format!("a{i:02}.txt"), &format!("Author {i}"), &papers)
        };
        let mut files: Vec<Arc<RecordFile>> = (0..40).map(author).collect();
        link_keeping(&files, &memo);
        assert_eq!(
            memo.buckets_regrouped(),
            None,
            "the first link groups everything"
        );
        let newcomer = shared(
            "a05b.txt",
            "Newcomer",
            &[
                ("Shared 1", 2010, None, "math.AG"),
                ("Fresh", 2024, Some("New."), "cs.LG"),
            ],
        );
        files.push(newcomer);
        let linked = link_keeping(&files, &memo);
        assert_same_graph(&linked, &link(&files));
        assert_eq!(memo.buckets_regrouped(), Some(2), "Shared 1 and Fresh");
        files.remove(7);
        let linked = link_keeping(&files, &memo);
        assert_same_graph(&linked, &link(&files));
        assert_eq!(memo.buckets_regrouped(), Some(3), "a07's three papers");
        files[2] = shared("a02.txt", "Author 2", &[("Paper 2", 2003, None, "math.AG")]);
        let linked = link_keeping(&files, &memo);
        assert_same_graph(&linked, &link(&files));
        assert_eq!(
            memo.buckets_regrouped(),
            Some(4),
            "a02's papers before and after"
        );
    }
}
