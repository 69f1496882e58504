//! What one build hands to the next in the same process (`build --watch`, `serve`):
//! each stage's own memo, and the build cache as last saved.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::cache::{self, BuildCache};
use crate::graph::LinkMemo;
use crate::plan::PlanMemo;
use crate::render::context::RenderMemo;
use crate::search::SearchMemo;
use crate::sources::RecordReuse;
use crate::threads::give_way_to_the_build;

/// Everything one build hands to the next in the same process.
#[derive(Default)]
pub struct BuildMemo {
    /// Parsed record files.
    pub records: RecordReuse,
    /// The papers linking assembled.
    pub link: LinkMemo,
    /// TeX conversions.
    pub plan: PlanMemo,
    /// Search terms.
    pub search: SearchMemo,
    /// Citations and data items.
    pub render: RenderMemo,
    /// The build cache as the last build saved it.
    pub saved: SavedCache,
    /// When a long-running process gives back the memory its builds freed (see
    /// [`FreedMemoryPolicy`]).
    pub freed_memory: Option<FreedMemoryPolicy>,
    /// Whether this is a long-running process's memo ([`BuildMemo::long_running`]).
    long_running: bool,
    /// Whether the current build ran the whole pipeline (a build that finds the site
    /// unchanged since the build cache was saved returns before linking).
    pub(super) ran_pipeline: bool,
    /// Whether a build with this memo has run the whole pipeline, leaving each stage's
    /// results for the next build to reuse.
    warm: bool,
    /// Whether the next build runs the whole pipeline even if the site is unchanged
    /// (see [`super::warm_up`]).
    pub(super) warming: bool,
}

/// When a long-running process gives back the memory its builds freed: after its first
/// build, past a ceiling of 1.25 times the resident memory it had then, and after a
/// quiet spell.
///
/// The allocator keeps memory freed by a build for the next one (getting pages back from
/// the system costs time on every rebuild), so resident memory is the most its heaps
/// ever held. That grows with fragmentation as builds come and go. When it passes the
/// ceiling after a build, the allocator gives back what it holds unused (on every
/// thread), once; the next build pays for getting pages again, and the ones after it
/// run as before. The first build gives back what it freed too, right after its
/// resident memory is noted: it may have rendered every page (a new output folder),
/// which later rebuilds never do again, and a process waiting for changes should hold
/// what it keeps, not the most it once used.
///
/// A process that has had nothing to rebuild for [`QUIET_BEFORE_GIVING_BACK`] gives
/// back what its last build freed too ([`FreedMemoryPolicy::when_quiet`]): a harvester drops
/// files in bursts, and between them the process should hold what it keeps, not what
/// its last rebuild used besides (about 1.5 GB at 500,000 papers). Rebuilds close
/// together keep reusing their memory.
#[derive(Debug, Clone, Copy, Default)]
pub struct FreedMemoryPolicy {
    /// Resident bytes after the first build, once known.
    baseline: Option<u64>,
    /// When the last build ended, while what it freed is still held.
    holding_since: Option<Instant>,
}

/// How long a long-running process waits with nothing to rebuild before it gives back
/// the memory its last build freed.
pub const QUIET_BEFORE_GIVING_BACK: Duration = Duration::from_secs(30);

/// How long a long-running process waits with nothing to rebuild before it writes the
/// last build's cache to its file.
pub const QUIET_BEFORE_SAVING: Duration = Duration::from_secs(1);

/// The ceiling over the first build's resident memory, as a fraction.
const CEILING_RATIO: f64 = 1.25;

impl FreedMemoryPolicy {
    /// After a build: notes the first build's resident memory and gives back what it
    /// freed, or gives memory back if the ceiling is passed. Returns whether memory was
    /// given back.
    pub fn after_build(&mut self) -> bool {
        let Some(resident) = resident_bytes() else {
            return false;
        };
        self.holding_since = None;
        let Some(baseline) = self.baseline else {
            self.baseline = Some(resident);
            give_back_freed_memory();
            return true;
        };
        if (resident as f64) <= baseline as f64 * CEILING_RATIO {
            self.holding_since = Some(Instant::now());
            return false;
        }
        give_back_freed_memory();
        true
    }

    /// While the process waits for changes (at `now`): gives back what the last build
    /// freed once nothing has been rebuilt for [`QUIET_BEFORE_GIVING_BACK`], and only
    /// once a quiet spell. Returns whether memory was given back.
    pub fn when_quiet(&mut self, now: Instant) -> bool {
        if !self.quiet_long_enough(now) {
            return false;
        }
        self.holding_since = None;
        give_back_freed_memory();
        true
    }

    /// Whether the memory the last build freed has been held, with nothing rebuilt, for
    /// [`QUIET_BEFORE_GIVING_BACK`] at `now`.
    fn quiet_long_enough(&self, now: Instant) -> bool {
        self.holding_since
            .is_some_and(|since| now.saturating_duration_since(since) >= QUIET_BEFORE_GIVING_BACK)
    }
}

/// The process's resident memory (Linux: `VmRSS` in `/proc/self/status`).
pub fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// `mi_option_purge_delay` in mimalloc.h (the same in mimalloc 2 and 3).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Tells mimalloc to keep freed memory rather than give it back to the system (the
/// binary calls it first). A rebuild in `build --watch` or `serve` uses about as much
/// memory as the last one, and getting pages back from the system (which zeroes them)
/// cost about 40 ms a rebuild on the benchmark site; [`FreedMemoryPolicy`] bounds what is
/// kept. A one-off build exits soon after anyway (a large one gives freed memory back
/// instead: [`give_back_freed_memory_from_now_on`]).
///
/// The delay is a day rather than mimalloc's "never" (-1): with -1 mimalloc does not
/// even note which freed ranges could be given back, so [`give_back_freed_memory`]
/// found nothing to give (a watcher of a 500,000-paper site stayed at 3.8 GB with every
/// result it kept dropped); with a delay it notes them, and gives them all back when
/// asked.
pub fn keep_freed_memory() {
    // SAFETY: sets an integer option; mimalloc allows this at any time, from any thread.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, KEEP_FREED_MS) };
}

/// How long mimalloc keeps freed memory in a long-running process before giving it back
/// of its own accord, in milliseconds: a day.
const KEEP_FREED_MS: std::ffi::c_long = 24 * 60 * 60 * 1000;

/// The purge delay of a large one-off build, in milliseconds: `mi_option_purge_delay`'s
/// default in mimalloc 2. (The `mimalloc` crate builds mimalloc 3, whose default is
/// 1,000 ms; the figures below were measured with 10.)
const ONE_OFF_PURGE_DELAY_MS: std::ffi::c_long = 10;

/// Tells mimalloc to give freed memory back to the system shortly after it is freed
/// (undoing [`keep_freed_memory`]). For a large one-off
/// build (see `build::lean_from_bytes`): its stages each free large structures that the
/// next does not reuse in the same shape (the parsed records after linking, the search
/// index's terms after it is written), and rendering on every thread leaves pages that
/// each thread's heap keeps. Kept, that memory adds to the peak: at 500,000 papers it
/// went from 2.60 to 1.98 GB with memory given back, in about the same wall time (the
/// disk sets the pace there); at 100,000 papers on tmpfs, from about 560 to 450–520 MB,
/// for about 10% more wall time (rendering takes longer: threads get pages back from the
/// system, zeroed, instead of reusing their own). Giving memory back only at the ends of
/// stages kept the speed but not the memory (100,000 papers: 551 against 548 MB).
pub fn give_back_freed_memory_from_now_on() {
    // SAFETY: sets an integer option; mimalloc allows this at any time, from any thread.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, ONE_OFF_PURGE_DELAY_MS) };
}

/// Makes the kernel back the memory this process touches from now on with ordinary
/// pages rather than transparent huge pages (`PR_SET_THP_DISABLE`; the binary calls it
/// first). mimalloc asks for huge pages on its arenas, and each first touch of one is
/// a fault that zeroes 2 MB; memory given back and touched again
/// ([`give_back_freed_memory_from_now_on`]) is zeroed again, a whole huge page at a
/// time (45% of the cycles of a one-off build at 100,000 papers, by `perf record`).
/// Measured with huge pages off against on (tmpfs, paired; README, "Speed"): fresh
/// builds at 10,000 papers 1.03 s against 1.28 s, one-off builds at 100,000 papers
/// 3.48 s against 4.16 s, `build --watch` rebuilds the same; a fresh build at 100,000
/// papers is about 4% slower without them. A no-op where the call fails or is not
/// Linux's.
pub fn stop_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: `prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0)` sets a flag of the calling process
    // and reads no memory; it returns an error code rather than failing otherwise.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// Lets the program `command` starts use transparent huge pages as usual: the setting
/// of [`stop_huge_pages`] is inherited by child processes (the browser `serve --open`
/// starts, for one), and is this process's choice, not theirs.
pub fn let_child_use_huge_pages(command: &mut std::process::Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: the hook runs in the child between fork and exec, where only
        // async-signal-safe calls are allowed; `prctl` is a plain system call that
        // neither allocates nor takes locks.
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_THP_DISABLE, 0, 0, 0, 0);
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

/// Makes mimalloc give back the memory it holds unused, on every thread of the rayon
/// pool and this one: each thread's empty pages go back to its arenas, and a forced
/// purge gives every freed range of the arenas back to the system at once, whatever the
/// purge delay (which must not be 0 or -1 then, or mimalloc skips the purge: see
/// [`keep_freed_memory`]). Harmless where mimalloc is not the global allocator: its
/// heaps are then empty.
pub fn give_back_freed_memory() {
    // SAFETY: mi_collect may be called at any time from any thread; each thread
    // collects its own heap.
    unsafe {
        rayon::broadcast(|_| libmimalloc_sys::mi_collect(true));
        libmimalloc_sys::mi_collect(true);
    }
}

/// The build cache as the last build saved it, and its saving.
#[derive(Default)]
pub struct SavedCache {
    /// The cache saved last, with the file it goes to (written there at once, or later:
    /// see [`SavedCache::in_background`]): no need to read it back.
    pub cache: Option<(PathBuf, Arc<BuildCache>)>,
    /// Save the build cache later, for long-running processes: once nothing has been
    /// rebuilt for [`QUIET_BEFORE_SAVING`] (see [`SavedCache::when_quiet`]), on another
    /// thread at the lowest priority, and when the process ends. The process itself
    /// reads the cache from memory; the file is for the next process. A save of the 1
    /// million outputs of a 500,000-paper site takes 0.4 s, which a rebuild that
    /// followed at once waited for, and then shared the processor with; rebuilds in a
    /// burst of changes now save only the last cache.
    pub in_background: bool,
    /// When `cache` was saved, while it is not yet in its file.
    unsaved_since: Option<Instant>,
    /// The save still under way, if any: its error message, if it failed.
    pending: Option<JoinHandle<Result<(), String>>>,
    /// Why saves failed, until a build reports it.
    failed: Vec<String>,
    /// Whether the outputs of the build that saved the cache are kept with it, in the
    /// order that build planned them (for long-running processes: the next build walks
    /// its own outputs beside them to find their last fingerprints).
    pub keeps_order: bool,
    /// Those outputs, when kept (see `build::previous::OutputOrder`).
    pub(super) order: Option<super::previous::OutputOrder>,
}

impl BuildMemo {
    /// A memo for a long-running process: results are kept for the next build, and the
    /// cache is saved in the background. ([`BuildMemo::default`] keeps nothing.)
    pub fn long_running() -> BuildMemo {
        let mut memo = BuildMemo::default();
        memo.records.enable();
        memo.link.enable();
        memo.plan.enable();
        memo.search.enable();
        memo.render.enable();
        memo.saved.in_background = true;
        memo.saved.keeps_order = true;
        memo.freed_memory = Some(FreedMemoryPolicy::default());
        memo.long_running = true;
        memo
    }

    /// While the process waits for changes (at `now`): writes the last build's cache to
    /// its file and gives back the memory it freed, each after its quiet spell
    /// ([`SavedCache::when_quiet`], [`FreedMemoryPolicy::when_quiet`]).
    pub fn when_quiet(&mut self, now: Instant) {
        self.saved.when_quiet(now);
        if let Some(policy) = self.freed_memory.as_mut() {
            policy.when_quiet(now);
        }
    }

    /// Whether this memo is a long-running process's, which keeps each build's results
    /// for the next.
    pub fn is_long_running(&self) -> bool {
        self.long_running
    }

    /// Whether this is a long-running process's memo that no build has run the whole
    /// pipeline with yet (its first build found the site unchanged), so that a rebuild
    /// would link, plan and index the whole site from nothing: see [`super::warm_up`].
    pub fn is_cold(&self) -> bool {
        self.long_running && !self.warm
    }

    /// Ends a build (successful or not): see [`crate::reuse::Reuse::finish_build`]. The
    /// memory ceiling starts from the first build that ran the whole pipeline, which
    /// holds what every rebuild holds.
    pub fn finish_build(&mut self) {
        self.records.finish_build();
        self.plan.finish_build();
        self.search.finish_build();
        self.render.finish_build();
        if let Some(policy) = self.freed_memory.as_mut().filter(|_| self.ran_pipeline) {
            policy.after_build();
        }
        self.warm |= self.ran_pipeline;
        self.ran_pipeline = false;
    }
}

impl SavedCache {
    /// Waits for the save under way, if any; the error messages of the saves that
    /// failed since the last call.
    pub fn wait(&mut self) -> Vec<String> {
        self.join_pending();
        std::mem::take(&mut self.failed)
    }

    /// Waits for the save under way, if any, and notes its failure.
    fn join_pending(&mut self) {
        if let Some(handle) = self.pending.take() {
            let saved =
                (handle.join()).unwrap_or_else(|_| Err("saving the build cache failed".into()));
            self.failed.extend(saved.err());
        }
    }

    /// Writes the cache saved last to its file if it is not there yet, and waits for
    /// the save under way: then the file holds the last cache. The error messages of
    /// the saves that failed since the last [`SavedCache::wait`].
    pub fn flush(&mut self) -> Vec<String> {
        let mut failures = self.wait();
        let unsaved = self.cache.as_ref().filter(|_| self.unsaved_since.is_some());
        if let Some((path, cache)) = unsaved {
            failures.extend(write_cache(path, cache).err());
        }
        self.unsaved_since = None;
        failures
    }

    /// Takes the cache saved last for a build to start from, with whether it is not
    /// yet in its file (the build then writes it if it fails, see
    /// `build::previous::PreviousBuild`).
    pub fn take(&mut self) -> Option<(PathBuf, Arc<BuildCache>, bool)> {
        let (path, cache) = self.cache.take()?;
        Some((path, cache, self.unsaved_since.take().is_some()))
    }

    /// Gives back a cache taken with [`SavedCache::take`] by a build that found the
    /// site unchanged, as it was.
    pub fn put_back(&mut self, path: PathBuf, cache: Arc<BuildCache>, unsaved: bool) {
        self.cache = Some((path, cache));
        self.unsaved_since = unsaved.then(Instant::now);
    }

    /// While the process waits for changes (at `now`): once nothing has been rebuilt
    /// for [`QUIET_BEFORE_SAVING`], starts writing the cache saved last to its file, on
    /// a thread at the lowest priority. Returns whether it started.
    pub fn when_quiet(&mut self, now: Instant) -> bool {
        let quiet = (self.unsaved_since)
            .is_some_and(|at| now.saturating_duration_since(at) >= QUIET_BEFORE_SAVING);
        let saving = self.pending.as_ref().is_some_and(|p| !p.is_finished());
        let Some((path, cache)) = self.cache.as_ref().filter(|_| quiet && !saving) else {
            return false;
        };
        let (path, cache) = (path.clone(), Arc::clone(cache));
        self.join_pending();
        let thread = std::thread::Builder::new().name("save-cache".into());
        let started = thread.spawn(move || {
            give_way_to_the_build();
            write_cache(&path, &cache)
        });
        // Where no thread can be started, it is tried again at the next quiet moment,
        // or written when the process ends.
        if let Ok(handle) = started {
            self.pending = Some(handle);
            self.unsaved_since = None;
        }
        self.pending.is_some()
    }

    /// Saves `new_cache` to `path` and keeps it for the next build; a cache that cannot
    /// be saved only costs time later (the message says why). In the background, the
    /// file is written later ([`SavedCache::in_background`]), and an error is reported
    /// by a later build.
    pub fn save(&mut self, path: PathBuf, new_cache: Arc<BuildCache>) -> Option<String> {
        // Whatever order was kept went with another cache.
        self.order = None;
        if self.in_background {
            self.cache = Some((path, new_cache));
            self.unsaved_since = Some(Instant::now());
            return None;
        }
        let failure = write_cache(&path, &new_cache).err();
        if failure.is_none() {
            self.cache = Some((path, new_cache));
        }
        failure
    }
}

/// Writes `cache` to its file at `path`; why it could not.
pub(super) fn write_cache(path: &Path, cache: &BuildCache) -> Result<(), String> {
    cache::save(path, cache)
        .map_err(|err| format!("cannot save the build cache {}: {err}", path.display()))
}

impl Drop for SavedCache {
    fn drop(&mut self) {
        self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A long-running process's cache reaches its file after a quiet spell, the last
    /// one of a burst of builds only, or when the process ends; a one-off build's at
    /// once. Failures are reported by the next wait.
    #[test]
    fn a_long_running_process_saves_the_last_cache_after_a_quiet_spell_or_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("build.cache");
        let cache = |inputs: u64| {
            Arc::new(BuildCache {
                version: env!("CARGO_PKG_VERSION").to_string(),
                inputs,
                ..BuildCache::default()
            })
        };
        let on_disk = |path: &Path| match cache::load(path) {
            Some(cache::Loaded::Current(cache)) => Some(cache.inputs),
            _ => None,
        };
        let mut saved = SavedCache::default();
        saved.in_background = true;
        assert_eq!(saved.save(path.clone(), cache(1)), None);
        assert_eq!(saved.save(path.clone(), cache(2)), None);
        assert_eq!(saved.cache.as_ref().map(|(_, c)| c.inputs), Some(2));
        let soon = Instant::now();
        assert!(!saved.when_quiet(soon), "not quiet yet");
        assert!(saved.wait().is_empty());
        assert_eq!(on_disk(&path), None, "nothing written during the burst");
        assert!(saved.when_quiet(soon + QUIET_BEFORE_SAVING));
        assert!(saved.wait().is_empty());
        assert_eq!(on_disk(&path), Some(2), "the last cache only");
        assert!(
            !saved.when_quiet(soon + QUIET_BEFORE_SAVING * 2),
            "saved once"
        );

        assert_eq!(saved.save(path.clone(), cache(3)), None);
        drop(saved);
        assert_eq!(on_disk(&path), Some(3), "written when the process ends");

        let mut one_off = SavedCache::default();
        assert_eq!(one_off.save(path.clone(), cache(4)), None);
        assert_eq!(on_disk(&path), Some(4), "written at once");

        // A file where the cache's folder should be: the save fails, and says so.
        let blocked = dir.path().join("file").join("build.cache");
        std::fs::write(dir.path().join("file"), "").unwrap();
        let mut saved = SavedCache::default();
        saved.in_background = true;
        assert_eq!(saved.save(blocked.clone(), cache(5)), None);
        assert!(saved.when_quiet(Instant::now() + QUIET_BEFORE_SAVING));
        let failures = saved.wait();
        assert_eq!(failures.len(), 1, "{failures:?}");
        assert!(
            failures[0].contains("cannot save the build cache"),
            "{failures:?}"
        );
        assert!(saved.wait().is_empty(), "reported once");
        assert_eq!(saved.save(blocked, cache(6)), None);
        assert_eq!(saved.flush().len(), 1, "flushed, and failed");
    }

    /// Memory a build freed is held until the process has been quiet for
    /// [`QUIET_BEFORE_GIVING_BACK`], given back once, and held again after the next
    /// build; a build that gave memory back itself leaves nothing to give.
    #[test]
    fn freed_memory_is_given_back_once_after_a_quiet_spell() {
        let built = Instant::now();
        let later = |d: Duration| built + d;
        let mut policy = FreedMemoryPolicy {
            baseline: Some(u64::MAX / 2),
            holding_since: Some(built),
        };
        assert!(!policy.when_quiet(later(Duration::from_secs(1))));
        assert!(!policy.when_quiet(later(QUIET_BEFORE_GIVING_BACK - Duration::from_millis(1))));
        assert!(policy.when_quiet(later(QUIET_BEFORE_GIVING_BACK)));
        assert!(
            !policy.when_quiet(later(QUIET_BEFORE_GIVING_BACK * 3)),
            "once a quiet spell"
        );
        if resident_bytes().is_some() {
            assert!(!policy.after_build(), "far under the ceiling");
            assert!(
                policy.holding_since.is_some(),
                "the build's freed memory is held"
            );
            policy.baseline = Some(1);
            assert!(policy.after_build(), "past the ceiling: given back");
            assert!(
                policy.holding_since.is_none(),
                "nothing left to give back when quiet"
            );
        }
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn huge_pages_can_be_turned_off_for_the_process() {
        // `THP_enabled` of a process's `/proc/<pid>/status`.
        let thp_of = |status: &str| {
            let line = status.lines().find(|l| l.starts_with("THP_enabled:"))?;
            line.split_whitespace().nth(1).map(str::to_string)
        };
        let thp_enabled = || thp_of(&std::fs::read_to_string("/proc/self/status").ok()?);
        let Some(before) = thp_enabled() else {
            return; // A kernel that does not report it (before Linux 5.0).
        };
        stop_huge_pages();
        assert_eq!(thp_enabled().as_deref(), Some("0"), "was {before}");
        // A child inherits the setting, unless it is let use huge pages.
        let child_thp = |let_it: bool| {
            let mut command = std::process::Command::new("cat");
            command.arg("/proc/self/status");
            if let_it {
                let_child_use_huge_pages(&mut command);
            }
            thp_of(&String::from_utf8(command.output().ok()?.stdout).ok()?)
        };
        if let Some(inherited) = child_thp(false) {
            assert_eq!(inherited, "0");
            assert_eq!(child_thp(true).as_deref(), Some("1"));
        }
    }
}
