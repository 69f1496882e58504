//! The cache decision: what the last build into the same output folder left, whether
//! the site is unchanged since, and which outputs can be kept as they are.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;

use rayon::prelude::*;

use super::cache::{self, BuildCache, Loaded, OutputState};
use super::memo::{write_cache, SavedCache};
use super::BuildOptions;
use crate::hash::ByPath;
use crate::output::generations::current_generation;
use crate::output::{FileState, OpenFolder, MANIFEST};
use crate::plan::redirects::SlugHistory;
use crate::plan::PlannedOutput;
use crate::render::context::Fingerprinted;
use crate::threads::give_way_to_the_build;

/// What the last successful build into this output folder left, as far as this build
/// may rely on it.
pub(super) struct PreviousBuild {
    /// Where this build's cache is saved.
    pub cache_path: PathBuf,
    /// The hash of every input and output-shaping option of this build.
    pub inputs_hash: u64,
    /// The last build's cache, unless there is none, it is unreadable or the build is
    /// forced (or only checks).
    pub cache: Option<Arc<BuildCache>>,
    /// What earlier builds knew of slugs, when the cache is not used: a forced build,
    /// or one whose cache another profilegen wrote, still keeps the redirects.
    history_only: Option<SlugHistory>,
    /// Whether this process saved that cache itself, so that it describes the output
    /// folder without a look at its files (files changed by hand while a long-running
    /// build runs are repaired by the next one-off build, which checks every file).
    trusted: bool,
    /// The outputs of the build that saved that cache, in order, when this process
    /// saved it and keeps them.
    pub order: Option<OutputOrder>,
    /// Whether this process saved that cache and has not yet written it to its file: a
    /// build that ends without saving its own (it failed) writes it when it lets it go.
    unsaved: bool,
}

impl Drop for PreviousBuild {
    fn drop(&mut self) {
        if let Some(cache) = self.cache.as_ref().filter(|_| self.unsaved) {
            // Nowhere to report a failure: the next build reads an older cache.
            let _ = write_cache(&self.cache_path, cache);
        }
    }
}

/// The last build's cache being found: the memo's, or the one on disk, read on another
/// thread while the sources are read (at 500,000 papers a 143 MB file, 0.6 s to read).
pub(super) struct FindingPrevious {
    cache_path: PathBuf,
    uses_cache: bool,
    /// Reading the cache on disk; `None` when this process saved it (it is in the
    /// memo), or for `check`, which writes nothing and uses none.
    reading: Option<JoinHandle<Option<Loaded>>>,
    /// Whether the output folder's manifest is there.
    manifest: bool,
    /// Why this process's saves of the cache failed, found when the last cache had to
    /// be written before the file was read.
    pub save_failures: Vec<String>,
}

impl PreviousBuild {
    /// Starts finding the last build's cache: the memo's, if this process saved it for
    /// the same output folder, else the one on disk.
    pub fn start_finding(
        options: &BuildOptions,
        output: &Path,
        saved: &mut SavedCache,
    ) -> FindingPrevious {
        let cache_path = cache::cache_file(&options.root, output, options.in_generations());
        // The first build in generations makes the link, even of an unchanged site.
        let first_generation = options.generations && current_generation(output).is_none();
        let uses_cache = options.write && !options.force && !first_generation;
        let saved_here = uses_cache && saved.cache.as_ref().is_some_and(|(p, _)| *p == cache_path);
        let mut save_failures = Vec::new();
        let reading = (options.write && !saved_here).then(|| {
            // The file read holds the cache saved last.
            save_failures = saved.flush();
            let path = cache_path.clone();
            std::thread::spawn(move || cache::load(&path))
        });
        FindingPrevious {
            cache_path,
            uses_cache,
            reading,
            manifest: output.join(MANIFEST).is_file(),
            save_failures,
        }
    }
}

impl FindingPrevious {
    /// The last build, for a build whose inputs have the hash `inputs_hash` (taking
    /// the cache this process saved out of `saved`).
    pub fn finish(self, inputs_hash: u64, saved: &mut SavedCache) -> PreviousBuild {
        let (cache_path, uses_cache) = (self.cache_path, self.uses_cache);
        // Taken in any case: an order must not outlive the cache it goes with.
        let order = saved.order.take();
        let saved_here = uses_cache
            .then(|| saved.take())
            .flatten()
            .filter(|(path, _, _)| *path == cache_path);
        let from_memo = saved_here.is_some();
        let unsaved = saved_here.as_ref().is_some_and(|(_, _, unsaved)| *unsaved);
        let (cache, history_only, trusted) = match (saved_here, self.reading) {
            (Some((_, cache, _)), _) => (Some(cache), None, self.manifest),
            (None, None) => (None, None, false),
            // Without its manifest the output folder is not the one the cache describes
            // (emptied, or gone): its files are all to be made again, so only the slug
            // history is kept, and the table of every output goes at once (at 500,000
            // papers 1,073,618 entries, which a build into an emptied folder carried
            // to its end: peak 2.25 GB).
            (None, Some(reading)) => match reading.join().ok().flatten() {
                Some(Loaded::Current(cache)) if uses_cache && self.manifest => {
                    (Some(Arc::new(cache)), None, false)
                }
                Some(Loaded::Current(cache)) => (None, Some(cache.history), false),
                Some(Loaded::OtherVersion(history)) => (None, Some(history), false),
                None => (None, None, false),
            },
        };
        PreviousBuild {
            cache_path,
            inputs_hash,
            cache,
            history_only,
            trusted,
            order: order.filter(|_| from_memo && trusted),
            unsaved,
        }
    }
}

impl PreviousBuild {
    /// Gives the cache this build started from back to `saved` as it was, for a build
    /// that found the site unchanged.
    pub fn give_back(&mut self, saved: &mut SavedCache) {
        if let Some(cache) = self.cache.take() {
            saved.put_back(self.cache_path.clone(), cache, self.unsaved);
        }
        self.unsaved = false;
    }

    /// What the last build into this output folder knew of slugs (nothing, without one).
    pub fn history(&self) -> &SlugHistory {
        static NONE: SlugHistory = SlugHistory {
            authors: Vec::new(),
            papers: Vec::new(),
            redirects: Vec::new(),
            abstract_keys: Vec::new(),
        };
        match (&self.cache, &self.history_only) {
            (Some(cache), _) => &cache.history,
            (None, Some(history)) => history,
            (None, None) => &NONE,
        }
    }

    /// The last build's cache, if nothing changed since: the same inputs, and every
    /// output file as that build left it.
    pub fn unchanged_site(&self, output: &Path) -> Option<&Arc<BuildCache>> {
        self.cache
            .as_ref()
            .filter(|cache| cache.inputs == self.inputs_hash && outputs_intact(output, cache))
    }

    /// Starts finding which outputs are no longer as the last build left them, on
    /// another thread (it runs while the sources are linked and planned). `None` when
    /// there is nothing to check: no cache, or one this process saved itself.
    pub fn check_outputs(&self, output: &Path) -> Option<JoinHandle<HashSet<String>>> {
        let cache = self.cache.as_ref().filter(|_| !self.trusted)?;
        let (cache, output) = (Arc::clone(cache), output.to_path_buf());
        Some(std::thread::spawn(move || damaged_outputs(&output, &cache)))
    }
}

/// What a build knows of the output files the last build's cache lists.
pub(super) enum OutputCheck {
    /// Not looked at: there is no cache to keep outputs by, or this process saved it
    /// itself (and so knows the files are as it left them).
    Trusted,
    /// Looked at: these are no longer as that build left them (changed or gone).
    Damaged(HashSet<String>),
    /// Not known (looking failed): none is kept.
    Unknown,
}

impl OutputCheck {
    /// What the check started by [`PreviousBuild::check_outputs`] found.
    pub fn finish(check: Option<JoinHandle<HashSet<String>>>) -> OutputCheck {
        match check.map(JoinHandle::join) {
            None => OutputCheck::Trusted,
            Some(Ok(damaged)) => OutputCheck::Damaged(damaged),
            Some(Err(_)) => OutputCheck::Unknown,
        }
    }

    /// Whether the file of `path`, which the cache lists, is as the last build left it.
    fn intact(&self, path: &str) -> bool {
        match self {
            OutputCheck::Trusted => true,
            // Usually none: a million paths need not be hashed to learn that.
            OutputCheck::Damaged(damaged) => damaged.is_empty() || !damaged.contains(path),
            OutputCheck::Unknown => false,
        }
    }
}

/// The outputs of the build that saved a cache, in the order it planned them, each with
/// the fingerprint the cache holds for it and its digest (none when the cache has no
/// entry: its file was not written). A rebuild's outputs come in nearly the same order,
/// so walking both lists side by side finds each output's last fingerprint by comparing
/// paths one after another, rather than by looking up each of a million paths in the
/// cache (in paired watcher's rebuilds at 500,000 papers, rendering took 100–126 ms
/// against 159–160 ms); and a paper page's digest, which finds its fingerprint again
/// when it did not change ([`crate::render::context::OutputMaker::fingerprint_after`]).
pub(super) struct OutputOrder {
    outputs: Vec<PlannedOutput>,
    last: Vec<Option<Fingerprinted>>,
}

/// How far ahead of where the walk is an output is looked for in an [`OutputOrder`]
/// before the cache is asked: past the outputs that went at one place.
const LOOKAHEAD: usize = 8;

impl OutputOrder {
    /// The order of `outputs` with their `fingerprints`, for a cache that holds an entry
    /// for each but the outputs `without_entry` (indices).
    pub fn new(
        outputs: Vec<PlannedOutput>,
        fingerprints: &[Fingerprinted],
        without_entry: &[usize],
    ) -> OutputOrder {
        let mut last: Vec<Option<Fingerprinted>> = fingerprints.iter().copied().map(Some).collect();
        for &i in without_entry {
            last[i] = None;
        }
        OutputOrder { outputs, last }
    }

    /// The fingerprint `cache`, the one saved with this order, holds for each of
    /// `outputs`, if any, with its digest: found in the order, or else in the cache
    /// (without the digest).
    fn last_fingerprints(
        &self,
        outputs: &[PlannedOutput],
        cache: &BuildCache,
    ) -> Vec<Option<Fingerprinted>> {
        let mut next = 0;
        (outputs.iter())
            .map(|o| {
                let ahead = self.outputs.get(next..).unwrap_or_default();
                match ahead
                    .iter()
                    .take(LOOKAHEAD)
                    .position(|last| last.path == o.path)
                {
                    Some(passed) => {
                        next += passed + 1;
                        self.last[next - 1]
                    }
                    None => cached_fingerprint(cache, &o.path),
                }
            })
            .collect()
    }
}

/// Which outputs a build keeps as they are: those whose fingerprint is the one the last
/// build recorded and whose file is as that build left it.
pub(super) struct KeptOutputs<'b> {
    /// The last build's cache (none: everything is rendered).
    pub cache: Option<&'b BuildCache>,
    /// What is known of the files the cache lists.
    pub files: OutputCheck,
    /// The outputs of the build that saved the cache, when this process did.
    pub order: Option<&'b OutputOrder>,
}

impl KeptOutputs<'_> {
    /// What the last build recorded for each of `outputs`: its fingerprint, and its
    /// digest when this process made that build. Nothing when the build `writes`
    /// nothing (each output is rendered).
    pub fn last(&self, outputs: &[PlannedOutput], writes: bool) -> Vec<Option<Fingerprinted>> {
        let (Some(cache), true) = (self.cache, writes) else {
            return vec![None; outputs.len()];
        };
        match self.order {
            Some(order) => order.last_fingerprints(outputs, cache),
            None => (outputs.par_iter())
                .map(|o| cached_fingerprint(cache, &o.path))
                .collect(),
        }
    }

    /// For each of `outputs`, with its `fingerprints` and what the last build recorded
    /// for it (`last`, see [`KeptOutputs::last`]), whether it is kept.
    pub fn mark(
        &self,
        outputs: &[PlannedOutput],
        fingerprints: &[Fingerprinted],
        last: &[Option<Fingerprinted>],
    ) -> Vec<bool> {
        (outputs.par_iter().zip(fingerprints).zip(last))
            .map(|((o, now), last)| {
                last.is_some_and(|last| last.fingerprint == now.fingerprint)
                    && self.files.intact(&o.path)
            })
            .collect()
    }
}

/// The fingerprint `cache` holds for the output at `path`, if any (without a digest).
fn cached_fingerprint(cache: &BuildCache, path: &str) -> Option<Fingerprinted> {
    let state = cache.outputs.get(path)?;
    Some(Fingerprinted {
        fingerprint: state.fingerprint,
        digest: None,
    })
}

/// The cache's outputs after a build: the previous entries of the outputs kept as they
/// were, and the new fingerprint and file state of the others. The previous map is
/// updated in place when this build holds the only reference to it (a rebuild usually
/// changes a few hundred of tens of thousands of entries): the entries of `stale` files
/// (the previous build's that this one did not produce) go, and only if the map still
/// holds more than this build's outputs are they all looked for. Otherwise the new map takes
/// its paths from `states` (the committed files' states, by path), so that a large
/// build does not hold every output's path a third time while the cache is made. Also
/// the outputs (indices) the new map has no entry for: those neither kept nor written.
pub(super) fn updated_outputs(
    previous: Option<Arc<BuildCache>>,
    outputs: &[PlannedOutput],
    fingerprints: &[Fingerprinted],
    kept: &[bool],
    mut states: ByPath<FileState>,
    stale: &[String],
) -> (ByPath<OutputState>, Vec<usize>) {
    let entry = |i: usize, file: FileState| OutputState {
        fingerprint: fingerprints[i].fingerprint,
        file,
    };
    match previous.map(Arc::try_unwrap) {
        Some(Ok(previous)) => {
            let mut map = previous.outputs;
            let mut without_state = Vec::new();
            for (i, o) in outputs.iter().enumerate().filter(|(i, _)| !kept[*i]) {
                match states.get(&o.path) {
                    Some(state) => match map.get_mut(&o.path) {
                        Some(old) => *old = entry(i, *state),
                        None => {
                            map.insert(o.path.clone(), entry(i, *state));
                        }
                    },
                    None => {
                        map.remove(&o.path);
                        without_state.push(i);
                    }
                }
            }
            // Entries of outputs this build no longer has. Every output with a state
            // has one by now, so the map holds no other when the counts agree.
            for path in stale {
                map.remove(path);
            }
            if map.len() != outputs.len() - without_state.len() {
                let planned: HashSet<&str> = outputs.iter().map(|o| o.path.as_str()).collect();
                map.retain(|path, _| planned.contains(path.as_str()));
            }
            (map, without_state)
        }
        previous => {
            let previous = previous.and_then(Result::err);
            let mut map = ByPath::with_capacity_and_hasher(outputs.len(), Default::default());
            let mut without_state = Vec::new();
            for (i, o) in outputs.iter().enumerate() {
                let committed = states.remove_entry(&o.path);
                let previous_entry = previous.as_ref().and_then(|c| c.outputs.get(&o.path));
                let state = match previous_entry {
                    Some(state) if kept[i] => Some(state.file),
                    _ => committed.as_ref().map(|(_, state)| *state),
                };
                match state {
                    Some(file) => {
                        let path = committed.map_or_else(|| o.path.clone(), |(path, _)| path);
                        map.insert(path, entry(i, file));
                    }
                    None => without_state.push(i),
                }
            }
            (map, without_state)
        }
    }
}

/// The outputs the cache lists whose file is no longer as the last build left it: few
/// or none, where the intact ones are all of a large site's million files.
fn damaged_outputs(output: &Path, cache: &BuildCache) -> HashSet<String> {
    let folder = OpenFolder::open(output);
    let check = || {
        cache
            .outputs
            .par_iter()
            .filter(|(path, state)| !is_intact(&folder, path, state))
            .map(|(path, _)| path.clone())
            .collect()
    };
    match look_pool() {
        Ok(pool) => pool.install(check),
        Err(_) => check(),
    }
}

/// The threads that look at the output files, at the lowest priority
/// ([`give_way_to_the_build`]): their result is needed only once rendering starts, and
/// they yield the processor to linking, planning and indexing. Once the files are in
/// the system's cache a look is the kernel's work, not the disk's; at 500,000 papers it
/// took 2.3 s of the 6.1 s of processor time spent while the site was linked, and 1.15
/// of 5.3 s at this priority (its 16 threads still weigh something). Looking at a file
/// waits on the disk, not the processor: many at once keep the disk busy (a million
/// files of a large site take seconds, not a minute, this way).
fn look_pool() -> Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(STAT_THREADS)
        .thread_name(|i| format!("stat-{i}"))
        .start_handler(|_| give_way_to_the_build())
        .build()
}

/// Threads that look at the output files at once.
const STAT_THREADS: usize = 16;

/// Whether every output file the cache lists is still as the last build left it, and
/// the output folder's manifest is there.
fn outputs_intact(output: &Path, cache: &BuildCache) -> bool {
    let folder = OpenFolder::open(output);
    output.join(MANIFEST).is_file()
        && (cache.outputs.par_iter()).all(|(path, state)| is_intact(&folder, path, state))
}

/// Whether the file at `path` in the output `folder` is as the last build left it
/// (`state`, from its cache).
fn is_intact(folder: &OpenFolder, path: &str, state: &OutputState) -> bool {
    (folder.state_of(path)).is_some_and(|actual| state.file.admits(&actual))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::OutputKind;

    #[cfg(target_os = "linux")]
    #[test]
    fn the_thread_that_gives_way_runs_at_the_lowest_priority_and_only_it() {
        use rustix::process::getpriority_process;
        let before = getpriority_process(None).unwrap();
        let lowered = std::thread::spawn(|| {
            give_way_to_the_build();
            getpriority_process(None).unwrap()
        });
        assert_eq!(lowered.join().unwrap(), 19);
        assert_eq!(
            getpriority_process(None).unwrap(),
            before,
            "the caller's own stays"
        );
        // Every thread of the pool that looks at the output files gives way.
        let pool = look_pool().unwrap();
        let priorities: Vec<i32> = pool.broadcast(|_| getpriority_process(None).unwrap());
        assert_eq!(priorities, vec![19; STAT_THREADS]);
    }

    #[test]
    fn only_the_outputs_found_damaged_are_not_intact_and_a_failed_check_keeps_none() {
        let trusted = OutputCheck::finish(None);
        assert!(matches!(trusted, OutputCheck::Trusted));
        assert!(trusted.intact("index.html"));
        let damaged = std::thread::spawn(|| HashSet::from(["gone.html".to_string()]));
        let checked = OutputCheck::finish(Some(damaged));
        assert!(checked.intact("index.html"));
        assert!(!checked.intact("gone.html"));
        let failed = std::thread::spawn(|| -> HashSet<String> { panic!("the check failed") });
        let unknown = OutputCheck::finish(Some(failed));
        assert!(matches!(unknown, OutputCheck::Unknown));
        assert!(!unknown.intact("index.html"));
    }

    fn state(size: u64) -> FileState {
        FileState {
            size,
            modified_ns: 1,
            modified_until_ns: 1,
        }
    }

    fn output(path: &str) -> PlannedOutput {
        PlannedOutput {
            path: path.to_string(),
            template: None,
            kind: OutputKind::Robots,
        }
    }

    /// The previous build's cache, with outputs `a`, `b` and `c` (fingerprints 1, 2, 3).
    fn previous() -> Arc<BuildCache> {
        let outputs = [("a", 1), ("b", 2), ("c", 3)].map(|(path, n)| {
            let entry = OutputState {
                fingerprint: n,
                file: state(n),
            };
            (path.to_string(), entry)
        });
        Arc::new(BuildCache {
            outputs: outputs.into_iter().collect(),
            ..BuildCache::default()
        })
    }

    /// A cache of `entries` (path, fingerprint).
    fn cache_of(entries: &[(&str, u64)]) -> BuildCache {
        let outputs = entries.iter().map(|&(path, n)| {
            let file = state(n);
            let entry = OutputState {
                fingerprint: n,
                file,
            };
            (path.to_string(), entry)
        });
        BuildCache {
            outputs: outputs.collect(),
            ..BuildCache::default()
        }
    }

    /// Walked beside the outputs of the build that saved the cache, a rebuild's outputs
    /// find what the cache holds for each, however many came or went, and wherever; and
    /// the digest of those found in the order.
    #[test]
    fn the_order_of_the_last_outputs_gives_what_the_cache_holds() {
        let last: Vec<&str> = (0..40).map(|i| ["p0", "p1", "p2", "p3"][i % 4]).collect();
        let last: Vec<String> = (last.iter().enumerate())
            .map(|(i, p)| format!("{p}/{i}"))
            .collect();
        // Every output but the last has an entry; its fingerprint is its number.
        let entries: Vec<(&str, u64)> = (last.iter().enumerate())
            .take(last.len() - 1)
            .map(|(i, path)| (path.as_str(), i as u64))
            .collect();
        let cache = cache_of(&entries);
        let outputs: Vec<PlannedOutput> = last.iter().map(|p| output(p)).collect();
        let fingerprints: Vec<Fingerprinted> = (0..last.len() as u64)
            .map(|n| Fingerprinted {
                fingerprint: n,
                digest: (n % 2 == 0).then_some(n + 1000),
            })
            .collect();
        let order = OutputOrder::new(outputs, &fingerprints, &[last.len() - 1]);
        let from_cache = |outputs: &[PlannedOutput]| -> Vec<Option<u64>> {
            let entry = |o: &PlannedOutput| cache.outputs.get(&o.path).map(|s| s.fingerprint);
            outputs.iter().map(entry).collect()
        };
        let fingerprints_of = |found: &[Option<Fingerprinted>]| -> Vec<Option<u64>> {
            found.iter().map(|f| f.map(|f| f.fingerprint)).collect()
        };
        let mut now: Vec<PlannedOutput> = (last.iter()).map(|p| output(p)).collect();
        // One new at the start, one gone, twelve gone at once (past the look ahead),
        // two swapped, one the cache never had, and the last, without an entry.
        now.insert(0, output("new/0"));
        now.remove(5);
        now.drain(10..22);
        now.swap(3, 4);
        now.insert(8, output("new/8"));
        let found = order.last_fingerprints(&now, &cache);
        assert_eq!(fingerprints_of(&found), from_cache(&now));
        assert_eq!(found.last(), Some(&None), "no entry for the last");
        assert!(found.iter().filter(|f| f.is_some()).count() > 20);
        // Those found in the order have the digest they were saved with.
        let with_digest = found.iter().flatten().filter(|f| f.digest.is_some());
        assert!(with_digest.clone().count() >= 3);
        assert!(with_digest
            .clone()
            .all(|f| f.digest == Some(f.fingerprint + 1000)));
        // In any other order too, down to none shared.
        now.reverse();
        let found = order.last_fingerprints(&now, &cache);
        assert_eq!(fingerprints_of(&found), from_cache(&now));
        assert_eq!(order.last_fingerprints(&[], &cache), Vec::new());
    }

    /// The outputs as (path, fingerprint, size), sorted.
    fn entries(map: &ByPath<OutputState>) -> Vec<(&str, u64, u64)> {
        let mut entries: Vec<_> = map
            .iter()
            .map(|(p, s)| (p.as_str(), s.fingerprint, s.file.size))
            .collect();
        entries.sort();
        entries
    }

    #[test]
    fn outputs_kept_stay_rewritten_ones_change_and_stale_ones_go() {
        // `a` is kept, `c` written again (fingerprint 30), `d` new, `b` no longer made.
        let outputs = [output("a"), output("c"), output("d")];
        let fingerprints = [1, 30, 40].map(|fingerprint| Fingerprinted {
            fingerprint,
            digest: None,
        });
        let kept = [true, false, false];
        let update = |previous: Arc<BuildCache>, stale: &[String]| {
            let states: ByPath<FileState> = [("c", 30), ("d", 40)]
                .map(|(path, size)| (path.to_string(), state(size)))
                .into_iter()
                .collect();
            let (map, _) = updated_outputs(
                Some(previous),
                &outputs,
                &fingerprints,
                &kept,
                states,
                stale,
            );
            entries(&map)
                .into_iter()
                .map(|(p, f, s)| (p.to_string(), f, s))
                .collect::<Vec<_>>()
        };
        let expected =
            [("a", 1, 1), ("c", 30, 30), ("d", 40, 40)].map(|(p, f, s)| (p.to_string(), f, s));
        // In place, with the stale file named by the writer...
        let stale = ["b".to_string()];
        assert_eq!(update(previous(), &stale), expected);
        // ... or found among all the entries when it is not.
        assert_eq!(update(previous(), &[]), expected);
        // From a cache another holder still shares, a new map.
        let shared = previous();
        assert_eq!(update(Arc::clone(&shared), &stale), expected);
        assert_eq!(
            shared.outputs.len(),
            3,
            "the shared cache is left as it was"
        );
    }
}
