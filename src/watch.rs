//! Turning file-system events into a few meaningful change batches, for `serve` and
//! `build --watch`.
//!
//! How a batch is made:
//!
//! 1. **Events.** notify watches the site root (not recursively, to notice `content/`,
//!    `templates/`, `static/` and `profilegen.yaml` appearing or going away) and each of
//!    the three folders recursively; with [`WatchOptions::poll`] its `PollWatcher` does
//!    the same by scanning. Raw events pass through `notify-debouncer-full` with a short
//!    window, which pairs the two halves of a rename and drops duplicate creates.
//! 2. **Bursts.** [`SiteWatcher::next_batch`] drops what can never matter: read-only
//!    access events (inotify reports every `open`, so the build's own reads would
//!    otherwise trigger the next build), the files that are not part of the site (hidden,
//!    editor and OS temporary files: [`crate::ignore`], the rule the build reads by), the
//!    [`WatchOptions::ignore`] folders and files outside the site's parts
//!    ([`site_part`]). Every other event marks its path dirty. A burst ends once no
//!    such event came for [`WatchOptions::debounce`].
//! 3. **Diff.** The dirty paths are then compared with a snapshot of every site file's
//!    size and modification time. The snapshot, not the event kinds, decides `Created`,
//!    `Modified` or `Removed`: so a file created and removed in one burst disappears, a
//!    rename is `Removed(old)` + `Created(new)`, an editor's save-by-rename is one
//!    `Modified`, a dirty folder is walked (finding files that were written into a new
//!    folder before its watch was in place), and a lost-events notice (inotify queue
//!    overflow) rescans everything.
//! 4. **Settle.** A created or modified file is only reported once its size and
//!    modification time stayed the same for [`WatchOptions::settle`], so a slow copy is
//!    read whole. A batch waits for that at most [`MAX_BATCH_WAIT`] after it began, then
//!    is reported anyway (a later write is then reported as a new change).
//!
//! Polling caveat: notify 8's `PollWatcher` compares modification times in whole seconds
//! (and only notices them moving forward), so a second write within the same second as
//! the one it last saw goes unnoticed. In poll mode the watcher therefore also re-checks,
//! at every poll, the files whose modification time is under two seconds old.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ffi::OsStr;
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, TryRecvError};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use notify::event::{AccessKind, AccessMode, EventKind, ModifyKind};
use notify::{PollWatcher, RecommendedWatcher, RecursiveMode};
// notify-debouncer-full rather than -mini: mini hands over bare paths, without the event
// kind and without notify's "events were lost, rescan" flag. We need the kind to drop the
// access events that every read of a file causes under inotify (without it, each build
// would trigger the next), and the flag to recover from a queue overflow. Full also pairs
// rename halves, so a moved folder is seen under its old and its new name.
use notify_debouncer_full::{
    new_debouncer_opt, DebounceEventResult, DebouncedEvent, Debouncer, NoCache, RecommendedCache,
};

use crate::config::CONFIG_FILE;
use crate::ignore;
use crate::sources::{is_record_path, AUTHORS_DIR, PAGES_DIR, STATIC_DIR, TEMPLATES_DIR};

/// Default for [`WatchOptions::debounce`], in `serve` and `build --watch` too: long
/// enough to fold an editor's save (write, rename, swap-file churn) or a copy of many
/// files into one rebuild, short enough not to be felt.
pub const DEFAULT_DEBOUNCE: Duration = Duration::from_millis(100);
/// Default for [`WatchOptions::settle`], in `serve` and `build --watch` too: long enough
/// for a copy that pauses between writes, short enough not to be felt. A saved file is
/// read about 150 to 220 ms after its last write: the settle time, which outlasts the
/// debounce, plus the raw event window (`RAW_WINDOW`); README.md gives measured figures.
pub const DEFAULT_SETTLE: Duration = Duration::from_millis(150);
/// A batch is reported at most this long after its first event, even if files are still
/// being written or events keep coming.
pub const MAX_BATCH_WAIT: Duration = Duration::from_secs(10);

/// The folder that holds records, bios and pages.
const CONTENT_DIR: &str = "content";
/// The watched folders directly under the root.
const TOP_DIRS: [&str; 3] = [CONTENT_DIR, TEMPLATES_DIR, STATIC_DIR];
/// Window of notify-debouncer-full, at most: long enough to pair rename halves and fold
/// an event storm, short because our own quiet period ([`WatchOptions::debounce`]) does
/// the real debouncing and every millisecond here adds to the latency.
const RAW_WINDOW: Duration = Duration::from_millis(50);
/// How often notify-debouncer-full looks at its queue.
const RAW_TICK: Duration = Duration::from_millis(20);
/// In poll mode, files whose modification time is younger than this are re-checked at
/// every poll (see the module documentation).
const HOT_AGE: Duration = Duration::from_secs(2);
/// At most this many such files are re-checked.
const HOT_MAX: usize = 4096;
/// Longest debounce, settle time or poll interval taken (longer ones are cut to this), so
/// that no time computation can overflow.
const MAX_SETTING: Duration = Duration::from_secs(24 * 60 * 60);
/// Watcher errors kept for [`SiteWatcher::take_errors`].
const MAX_ERRORS: usize = 100;

/// What happened to one path, after debouncing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ChangeKind {
    /// The file is new (it did not exist when the previous batch was made).
    Created,
    /// The file existed before and its contents (or size, or modification time) changed.
    Modified,
    /// The file existed before and is gone (deleted, or renamed away).
    Removed,
}

/// One changed path (absolute or as given under the root), with its kind.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Change {
    /// The file: [`WatchOptions::root`] as given, joined with the path inside the root.
    pub path: PathBuf,
    /// What happened to it.
    pub kind: ChangeKind,
}

/// Which part of the site a path belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SitePart {
    /// `profilegen.yaml`.
    Config,
    /// A record file, `content/records/**/*.txt`.
    Records,
    /// An author bio, `content/authors/*.md`.
    Bios,
    /// An extra page, `content/pages/*.md`.
    Pages,
    /// A template override, anything under `templates/`.
    Templates,
    /// A static file, anything under `static/`.
    Static,
    /// Anything else: not read by a build.
    Other,
}

/// Which part of the site `path` belongs to, by the site layout alone (the file need not
/// exist). `path` is taken relative to `root` when it starts with `root` (compared in the
/// same form: both absolute or both relative), and as already relative to the root when it
/// is a relative path that does not; any other path, and any path with `..`, is
/// [`SitePart::Other`]. Folders themselves (`content/records`) are `Other` too.
pub fn site_part(root: &Path, path: &Path) -> SitePart {
    match path.strip_prefix(root) {
        Ok(rel) => classify(rel),
        Err(_) if path.is_relative() => classify(path),
        Err(_) => SitePart::Other,
    }
}

/// [`site_part`] of a path relative to the root.
fn classify(rel: &Path) -> SitePart {
    let Some(rel) = normal_relative(rel) else {
        return SitePart::Other;
    };
    let ext_is = |p: &Path, ext: &str| p.extension().is_some_and(|e| e == ext);
    let has_name = |p: &Path| p.components().next().is_some();
    if rel == Path::new(CONFIG_FILE) {
        return SitePart::Config;
    }
    if is_record_path(&rel) {
        return SitePart::Records;
    }
    if let Ok(inner) = rel.strip_prefix(AUTHORS_DIR) {
        if inner.components().count() == 1 && ext_is(inner, "md") {
            return SitePart::Bios;
        }
    }
    if let Ok(inner) = rel.strip_prefix(PAGES_DIR) {
        if inner.components().count() == 1 && ext_is(inner, "md") {
            return SitePart::Pages;
        }
    }
    if rel.strip_prefix(TEMPLATES_DIR).is_ok_and(has_name) {
        return SitePart::Templates;
    }
    if rel.strip_prefix(STATIC_DIR).is_ok_and(has_name) {
        return SitePart::Static;
    }
    SitePart::Other
}

/// `rel` without `.` components, or `None` if it is not a plain relative path (it has a
/// root, a prefix or `..`).
fn normal_relative(rel: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in rel.components() {
        match component {
            Component::Normal(name) => out.push(name),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// Options for [`SiteWatcher::start`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchOptions {
    /// The site root: the folder with `profilegen.yaml`, `content/`, `templates/` and `static/`.
    pub root: PathBuf,
    /// Paths to ignore entirely (the output folder, the cache folder), even if inside the root.
    /// Relative paths are taken from the current folder, like any other path; they need
    /// not exist yet.
    pub ignore: Vec<PathBuf>,
    /// Poll every this often instead of native events (for network/virtual file systems).
    pub poll: Option<Duration>,
    /// Quiet period that ends a burst ([`DEFAULT_DEBOUNCE`] by default).
    pub debounce: Duration,
    /// A file is read only once its size and modification time stayed the same for this
    /// long ([`DEFAULT_SETTLE`] by default);
    /// until then the batch waits (bounded: it waits at most [`MAX_BATCH_WAIT`] after its
    /// first event, and is then reported anyway).
    pub settle: Duration,
}

impl WatchOptions {
    /// Options for `root` with the defaults: native events, nothing ignored,
    /// [`DEFAULT_DEBOUNCE`] and [`DEFAULT_SETTLE`].
    pub fn new(root: impl Into<PathBuf>) -> WatchOptions {
        WatchOptions {
            root: root.into(),
            ignore: Vec::new(),
            poll: None,
            debounce: DEFAULT_DEBOUNCE,
            settle: DEFAULT_SETTLE,
        }
    }
}

/// Watches a site and hands out batches of meaningful changes; see the module
/// documentation for how they are made. Stops watching when dropped.
pub struct SiteWatcher {
    state: Mutex<State>,
    errors: Mutex<Vec<notify::Error>>,
}

impl std::fmt::Debug for SiteWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SiteWatcher").finish_non_exhaustive()
    }
}

/// The notify watcher behind its debouncer: native or polling.
enum Backend {
    Native(Debouncer<RecommendedWatcher, RecommendedCache>),
    Poll(Debouncer<PollWatcher, NoCache>),
}

impl Backend {
    fn watch(&mut self, path: &Path, mode: RecursiveMode) -> notify::Result<()> {
        match self {
            Backend::Native(debouncer) => debouncer.watch(path, mode),
            Backend::Poll(debouncer) => debouncer.watch(path, mode),
        }
    }

    fn unwatch(&mut self, path: &Path) -> notify::Result<()> {
        match self {
            Backend::Native(debouncer) => debouncer.unwatch(path),
            Backend::Poll(debouncer) => debouncer.unwatch(path),
        }
    }
}

/// What "unchanged" means for a file: same size, same modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
}

impl Stamp {
    /// The stamp of a regular file (after following symlinks), `None` for anything else.
    fn of(meta: &fs::Metadata) -> Option<Stamp> {
        meta.is_file().then(|| Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
        })
    }

    fn read(path: &Path) -> Option<Stamp> {
        fs::metadata(path).ok().and_then(|meta| Stamp::of(&meta))
    }

    /// Whether the file was modified less than [`HOT_AGE`] ago (or in the future).
    fn is_hot(&self) -> bool {
        self.modified.is_some_and(|modified| {
            SystemTime::now()
                .duration_since(modified)
                .map_or(true, |age| age < HOT_AGE)
        })
    }
}

/// A file's stamp as last seen during a burst, and since when it has been that.
#[derive(Debug, Clone, Copy)]
struct Tracked {
    stamp: Option<Stamp>,
    since: Instant,
}

/// The burst being collected.
struct Pending {
    /// When its first relevant event arrived.
    started: Instant,
    /// When its latest relevant event arrived.
    last: Instant,
    /// Paths (relative to the root) that events named; `true` when an event said their
    /// contents changed (rather than only their metadata).
    dirty: BTreeMap<PathBuf, bool>,
    /// Events were lost: compare every site file.
    rescan: bool,
    /// Watched folders directly under the root that were created, removed or renamed.
    rewatch: BTreeSet<&'static str>,
    /// Stability of the files seen so far.
    tracked: HashMap<PathBuf, Tracked>,
}

impl Pending {
    fn new(now: Instant) -> Pending {
        Pending {
            started: now,
            last: now,
            dirty: BTreeMap::new(),
            rescan: false,
            rewatch: BTreeSet::new(),
            tracked: HashMap::new(),
        }
    }

    /// Records `stamp` as `rel`'s current stamp; its stable time restarts if it changed.
    fn track(&mut self, rel: &Path, stamp: Option<Stamp>, now: Instant) -> Tracked {
        match self.tracked.get_mut(rel) {
            Some(tracked) if tracked.stamp == stamp => *tracked,
            Some(tracked) => {
                *tracked = Tracked { stamp, since: now };
                *tracked
            }
            None => {
                let tracked = Tracked { stamp, since: now };
                self.tracked.insert(rel.to_path_buf(), tracked);
                tracked
            }
        }
    }
}

/// Result of looking at a quiet burst.
enum Outcome {
    /// Some files have not settled yet; look again at this time.
    Wait(Instant),
    /// The burst is over; these are its changes (maybe none).
    Done(Vec<Change>),
}

/// Everything [`SiteWatcher::next_batch`] works on.
struct State {
    backend: Backend,
    events: Receiver<DebounceEventResult>,
    /// The root as given, for reporting paths.
    root: PathBuf,
    /// The root as watched: canonical, so event paths start with it.
    watched_root: PathBuf,
    /// [`WatchOptions::ignore`], relative to the root.
    excluded: Vec<PathBuf>,
    debounce: Duration,
    settle: Duration,
    /// [`MAX_BATCH_WAIT`] (shorter in tests).
    max_wait: Duration,
    poll: Option<Duration>,
    /// Every site file (relative to the root) with its stamp when last reported.
    known: BTreeMap<PathBuf, Stamp>,
    /// The top folders currently watched recursively.
    watched: BTreeSet<&'static str>,
    /// Poll mode: recently modified files, re-checked at every poll.
    hot: BTreeSet<PathBuf>,
    /// Poll mode: when the hot files were last checked.
    hot_checked: Instant,
    pending: Option<Pending>,
    /// The debouncer's thread is gone; no more events will come.
    disconnected: bool,
}

impl SiteWatcher {
    /// Watches `content/`, `templates/`, `static/` and `profilegen.yaml` under the root (whichever exist; also
    /// notice when one of these folders/the config is created later — watching the root non-recursively
    /// for those names is one way).
    ///
    /// Takes a snapshot of every site file first, so that the first batch compares
    /// against the site as it was at this call. Fails if the root is not a readable
    /// folder or notify cannot watch it (for example when inotify's watch limit,
    /// `fs.inotify.max_user_watches`, is reached: polling then still works). Durations
    /// over a day are taken as a day.
    pub fn start(options: WatchOptions) -> Result<SiteWatcher, notify::Error> {
        let debounce = options.debounce.min(MAX_SETTING);
        let settle = options.settle.min(MAX_SETTING);
        let poll = options
            .poll
            .map(|interval| interval.clamp(Duration::from_millis(1), MAX_SETTING));
        let watched_root = fs::canonicalize(&options.root)
            .map_err(|err| notify::Error::io(err).add_path(options.root.clone()))?;
        if !watched_root.is_dir() {
            return Err(notify::Error::path_not_found().add_path(options.root.clone()));
        }
        let excluded = options
            .ignore
            .iter()
            .flat_map(|path| relative_to_root(path, &options.root, &watched_root))
            .collect();

        let (sender, events) = mpsc::channel();
        let window = debounce.clamp(Duration::from_millis(10), RAW_WINDOW);
        let tick = Some(RAW_TICK.min(window));
        let backend = match poll {
            None => Backend::Native(new_debouncer_opt(
                window,
                tick,
                sender,
                RecommendedCache::new(),
                notify::Config::default(),
            )?),
            Some(interval) => Backend::Poll(new_debouncer_opt(
                window,
                tick,
                sender,
                NoCache::new(),
                notify::Config::default().with_poll_interval(interval),
            )?),
        };

        let mut state = State {
            backend,
            events,
            root: options.root,
            watched_root,
            excluded,
            debounce,
            settle,
            max_wait: MAX_BATCH_WAIT,
            poll,
            known: BTreeMap::new(),
            watched: BTreeSet::new(),
            hot: BTreeSet::new(),
            hot_checked: Instant::now(),
            pending: None,
            disconnected: false,
        };
        // Watch first, snapshot second: a change in between is then seen by both, and
        // none is lost.
        let root = state.watched_root.clone();
        state.backend.watch(&root, RecursiveMode::NonRecursive)?;
        for top in TOP_DIRS {
            let dir = root.join(top);
            if dir.is_dir() {
                state.backend.watch(&dir, RecursiveMode::Recursive)?;
                state.watched.insert(top);
            }
        }
        let mut found = BTreeMap::new();
        state.scan_all(&mut found);
        for (rel, stamp) in found {
            if let Some(stamp) = stamp {
                state.remember(rel, stamp);
            }
        }
        Ok(SiteWatcher {
            state: Mutex::new(state),
            errors: Mutex::new(Vec::new()),
        })
    }

    /// Blocks until the next batch of meaningful changes (debounced, ignored paths dropped, deduplicated and sorted;
    /// a path created then removed within one burst disappears; a rename shows as Removed(old) + Created(new);
    /// modified files are reported only after they settled), or until `timeout` passes (None).
    ///
    /// Only files that are part of the site ([`site_part`] is not [`SitePart::Other`])
    /// are reported, never folders: a removed or renamed folder shows as its files.
    /// Changes made while nobody waits here (during a build) are kept and come in the
    /// next batch. A batch that is still being collected when `timeout` passes is kept
    /// for the next call. With a zero `timeout`, this returns a batch only if one is
    /// ready now.
    pub fn next_batch(&self, timeout: Duration) -> Option<Vec<Change>> {
        let deadline = Instant::now().checked_add(timeout);
        let mut state = lock(&self.state);
        loop {
            let now = Instant::now();
            loop {
                match state.events.try_recv() {
                    Ok(result) => state.absorb(result, now, &self.errors),
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => {
                        state.disconnected = true;
                        break;
                    }
                }
            }
            state.check_hot(now);

            let mut wake = deadline;
            let due = state.pending.as_ref().map(|pending| {
                (pending.last + state.debounce).min(pending.started + state.max_wait)
            });
            match due {
                Some(due) if now >= due => match state.check(now, &self.errors) {
                    Outcome::Done(batch) if !batch.is_empty() => return Some(batch),
                    Outcome::Done(_) => {}
                    Outcome::Wait(at) => wake = earliest(wake, Some(at)),
                },
                Some(due) => wake = earliest(wake, Some(due)),
                None => {}
            }
            wake = earliest(wake, state.next_hot_check());

            let now = Instant::now();
            if deadline.is_some_and(|deadline| now >= deadline) {
                return None;
            }
            // With no deadline and nothing pending, wake up now and then anyway.
            let wait = wake.map_or(Duration::from_secs(3600), |at| {
                at.saturating_duration_since(now)
            });
            if state.disconnected {
                std::thread::sleep(wait.min(Duration::from_secs(1)));
                continue;
            }
            match state.events.recv_timeout(wait) {
                Ok(result) => state.absorb(result, Instant::now(), &self.errors),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => state.disconnected = true,
            }
        }
    }

    /// Takes the errors the watcher has reported so far (at most the last 100), for
    /// example a folder that could not be read or watched. They do not stop watching.
    pub fn take_errors(&self) -> Vec<notify::Error> {
        std::mem::take(&mut *lock(&self.errors))
    }
}

impl State {
    /// Takes in what the debouncer sent.
    fn absorb(
        &mut self,
        result: DebounceEventResult,
        now: Instant,
        errors: &Mutex<Vec<notify::Error>>,
    ) {
        match result {
            Ok(events) => {
                for event in &events {
                    self.absorb_event(event, now);
                }
            }
            Err(new_errors) => push_errors(errors, new_errors),
        }
    }

    fn absorb_event(&mut self, event: &DebouncedEvent, now: Instant) {
        if event.need_rescan() {
            let pending = self.pending.get_or_insert_with(|| Pending::new(now));
            pending.rescan = true;
            pending.last = now;
            return;
        }
        let contents = match event.kind {
            // Written and closed: the end of a save.
            EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
            // Opened, read, closed after reading: the build itself causes these.
            EventKind::Access(_) | EventKind::Other => return,
            // chmod, touch, atime: matters only if the stamp changed (poll mode reports
            // every change of modification time this way).
            EventKind::Modify(ModifyKind::Metadata(_)) => false,
            _ => true,
        };
        for path in &event.paths {
            self.note(path, contents, now);
        }
    }

    /// Marks `path` dirty if it can matter to the site.
    fn note(&mut self, path: &Path, contents: bool, now: Instant) {
        let Ok(rel) = path.strip_prefix(&self.watched_root) else {
            return;
        };
        let Some(rel) = normal_relative(rel) else {
            return;
        };
        let Some(first) = rel.components().next() else {
            return; // the root itself
        };
        if ignore::is_ignored(&rel) || self.is_excluded(&rel) {
            return;
        }
        let top = TOP_DIRS
            .into_iter()
            .find(|top| first.as_os_str() == OsStr::new(top));
        if top.is_none() && rel != Path::new(CONFIG_FILE) {
            return; // another file or folder in the root: README, public/, ...
        }
        let meta = fs::metadata(path).ok();
        let is_dir = meta.as_ref().is_some_and(fs::Metadata::is_dir);
        let is_top = rel.components().count() == 1;
        if is_dir && !contents {
            return; // a folder's times changed: its entries have their own events
        }
        if !is_dir && !is_top && classify(&rel) == SitePart::Other && !self.has_known_under(&rel) {
            return; // not a site file, and not a folder that held some
        }
        let pending = self.pending.get_or_insert_with(|| Pending::new(now));
        pending.last = now;
        if is_top && contents {
            if let Some(top) = top {
                pending.rewatch.insert(top);
            }
        }
        if let Some(meta) = meta.filter(|meta| !meta.is_dir()) {
            pending.track(&rel, Stamp::of(&meta), now);
        }
        *pending.dirty.entry(rel).or_insert(false) |= contents;
    }

    /// Looks at a burst that went quiet: re-watches top folders as needed, diffs the dirty
    /// paths against the snapshot and reports the changes once every file settled.
    fn check(&mut self, now: Instant, errors: &Mutex<Vec<notify::Error>>) -> Outcome {
        let Some(mut pending) = self.pending.take() else {
            return Outcome::Done(Vec::new());
        };
        self.reconcile_watches(&mut pending, errors);

        let mut current = BTreeMap::new();
        if pending.rescan {
            self.scan_all(&mut current);
            for rel in self.known.keys() {
                current.entry(rel.clone()).or_insert(None);
            }
        } else {
            for rel in pending.dirty.keys() {
                self.collect(rel, &mut current);
            }
        }

        let force = now >= pending.started + self.max_wait;
        let mut wake: Option<Instant> = None;
        let mut changes = Vec::new();
        for (rel, stamp) in current {
            if classify(&rel) == SitePart::Other {
                continue; // e.g. a file where a watched folder should be
            }
            let kind = match (self.known.get(&rel), stamp) {
                (None, None) => continue,
                (Some(_), None) => ChangeKind::Removed,
                (None, Some(_)) => ChangeKind::Created,
                (Some(old), Some(new)) => {
                    let contents = pending.dirty.get(&rel).copied().unwrap_or(false);
                    if *old == new && !contents {
                        continue;
                    }
                    ChangeKind::Modified
                }
            };
            if kind != ChangeKind::Removed && !force {
                let tracked = pending.track(&rel, stamp, now);
                let settled_at = tracked.since + self.settle;
                if settled_at > now {
                    wake = earliest(wake, Some(settled_at));
                }
            }
            changes.push((rel, kind, stamp));
        }
        if let Some(at) = wake {
            self.pending = Some(pending);
            return Outcome::Wait(at);
        }

        let mut batch = Vec::new();
        for (rel, kind, stamp) in changes {
            batch.push(Change {
                path: self.root.join(&rel),
                kind,
            });
            match stamp {
                Some(stamp) => self.remember(rel, stamp),
                None => {
                    self.hot.remove(&rel);
                    self.known.remove(&rel);
                }
            }
        }
        batch.sort();
        batch.dedup();
        Outcome::Done(batch)
    }

    /// Makes the recursive watches match the top folders that exist now, re-watching those
    /// that were created, removed or renamed (a renamed folder keeps its inotify watch under
    /// the old name). A folder that is (re)watched is compared whole.
    fn reconcile_watches(&mut self, pending: &mut Pending, errors: &Mutex<Vec<notify::Error>>) {
        for top in TOP_DIRS {
            let dir = self.watched_root.join(top);
            let exists = dir.is_dir();
            let watched = self.watched.contains(top);
            if exists == watched && !pending.rewatch.contains(top) {
                continue;
            }
            if watched {
                // Fails when the folder is gone, which is fine.
                let _ = self.backend.unwatch(&dir);
                self.watched.remove(top);
            }
            if exists {
                match self.backend.watch(&dir, RecursiveMode::Recursive) {
                    Ok(()) => {
                        self.watched.insert(top);
                    }
                    Err(err) => push_errors(errors, vec![err]),
                }
            }
            pending.dirty.insert(PathBuf::from(top), true);
        }
        pending.rewatch.clear();
    }

    /// Adds the current stamp of `rel`, of every site file under it if it is a folder, and
    /// of every known file under it (`None` when gone), to `out`.
    fn collect(&self, rel: &Path, out: &mut BTreeMap<PathBuf, Option<Stamp>>) {
        let path = self.watched_root.join(rel);
        match fs::metadata(&path) {
            Ok(meta) if meta.is_dir() => self.walk(rel, out),
            Ok(meta) => {
                out.insert(rel.to_path_buf(), Stamp::of(&meta));
            }
            Err(_) => {
                out.insert(rel.to_path_buf(), None);
            }
        }
        for known in self.known_under(rel) {
            out.entry(known.clone()).or_insert(None);
        }
    }

    /// Adds every site file under the root to `out`.
    fn scan_all(&self, out: &mut BTreeMap<PathBuf, Option<Stamp>>) {
        for top in TOP_DIRS {
            self.walk(Path::new(top), out);
        }
        let config = Path::new(CONFIG_FILE);
        if let Some(stamp) = Stamp::read(&self.watched_root.join(config)) {
            out.insert(config.to_path_buf(), Some(stamp));
        }
    }

    /// Adds every site file under the folder `rel` to `out`, skipping hidden folders,
    /// ignored files and excluded folders. Follows symlinks, as the build does.
    fn walk(&self, rel: &Path, out: &mut BTreeMap<PathBuf, Option<Stamp>>) {
        let start = self.watched_root.join(rel);
        if ignore::is_in_ignored_folder(rel) || !start.is_dir() {
            return; // inside (or itself) a hidden folder, such as a `.git` just created
        }
        let entries = walkdir::WalkDir::new(&start)
            .follow_links(true)
            .into_iter()
            .filter_entry(|entry| {
                let Ok(rel) = entry.path().strip_prefix(&self.watched_root) else {
                    return false;
                };
                !ignore::is_ignored_entry(entry) && !self.is_excluded(rel)
            });
        for entry in entries.flatten() {
            if !entry.file_type().is_file() {
                continue;
            }
            let Ok(rel) = entry.path().strip_prefix(&self.watched_root) else {
                continue;
            };
            if classify(rel) == SitePart::Other {
                continue;
            }
            let stamp = entry.metadata().ok().and_then(|meta| Stamp::of(&meta));
            out.insert(rel.to_path_buf(), stamp);
        }
    }

    /// Records `stamp` as the reported state of `rel`.
    fn remember(&mut self, rel: PathBuf, stamp: Stamp) {
        if self.poll.is_some() && stamp.is_hot() && self.hot.len() < HOT_MAX {
            self.hot.insert(rel.clone());
        }
        self.known.insert(rel, stamp);
    }

    /// Known files at or under `rel`.
    fn known_under<'a>(&'a self, rel: &'a Path) -> impl Iterator<Item = &'a PathBuf> + 'a {
        // Paths order component by component, so everything under `rel` follows it.
        self.known
            .range(rel.to_path_buf()..)
            .map(|(path, _)| path)
            .take_while(move |path| path.starts_with(rel))
    }

    fn has_known_under(&self, rel: &Path) -> bool {
        self.known_under(rel).next().is_some()
    }

    fn is_excluded(&self, rel: &Path) -> bool {
        self.excluded
            .iter()
            .any(|excluded| rel.starts_with(excluded))
    }

    /// Poll mode: when the hot files are due for their next check.
    fn next_hot_check(&self) -> Option<Instant> {
        let interval = self.poll?;
        (!self.hot.is_empty()).then(|| self.hot_checked + interval)
    }

    /// Poll mode: re-checks the recently modified files (see the module documentation).
    fn check_hot(&mut self, now: Instant) {
        let Some(due) = self.next_hot_check() else {
            return;
        };
        if now < due {
            return;
        }
        self.hot_checked = now;
        let hot = std::mem::take(&mut self.hot);
        let mut changed = Vec::new();
        for rel in hot {
            let Some(known) = self.known.get(&rel).copied() else {
                continue;
            };
            let stamp = Stamp::read(&self.watched_root.join(&rel));
            // Compared with the latest sighting: a change already waiting in the current
            // burst must not keep that burst from going quiet.
            let seen = self
                .pending
                .as_ref()
                .and_then(|pending| pending.tracked.get(&rel))
                .map_or(Some(known), |tracked| tracked.stamp);
            if stamp != seen {
                changed.push(rel.clone());
            }
            if stamp.is_some_and(|stamp| stamp.is_hot()) {
                self.hot.insert(rel);
            }
        }
        for rel in changed {
            let path = self.watched_root.join(&rel);
            self.note(&path, false, now);
        }
    }
}

/// The forms of an ignored path relative to the root: through the canonical root, and
/// as written (they differ when a symlink is involved). Empty if outside the root.
fn relative_to_root(path: &Path, root: &Path, watched_root: &Path) -> Vec<PathBuf> {
    let mut forms = Vec::new();
    if let Ok(canonical) = fs::canonicalize(path) {
        if let Ok(rel) = canonical.strip_prefix(watched_root) {
            forms.extend(normal_relative(rel));
        }
    }
    if let (Ok(path), Ok(root)) = (std::path::absolute(path), std::path::absolute(root)) {
        let path = lexical_normal(&path);
        for root in [lexical_normal(&root), watched_root.to_path_buf()] {
            if let Ok(rel) = path.strip_prefix(&root) {
                forms.extend(normal_relative(rel));
            }
        }
    }
    forms.sort();
    forms.dedup();
    forms
}

/// An absolute path with `.` and `..` resolved by the text alone.
fn lexical_normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The earlier of two optional times (`None` is never).
fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

/// Locks a mutex, carrying on if a panic elsewhere poisoned it.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn push_errors(errors: &Mutex<Vec<notify::Error>>, new_errors: Vec<notify::Error>) {
    let mut errors = lock(errors);
    errors.extend(new_errors);
    let excess = errors.len().saturating_sub(MAX_ERRORS);
    errors.drain(..excess);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::sync::mpsc;

    /// Upper bound for anything a test waits for.
    const LIMIT: Duration = Duration::from_secs(4);

    /// A site with the usual folders (no `templates/`) and one record, bio and page.
    fn site() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        for sub in [
            "content/records",
            "content/authors",
            "content/pages",
            "static",
        ] {
            fs::create_dir_all(root.join(sub)).expect("mkdir");
        }
        fs::write(root.join("profilegen.yaml"), "title: Test\n").expect("write");
        fs::write(root.join("content/records/seed.txt"), "seed\n").expect("write");
        fs::write(root.join("content/authors/zoe.md"), "bio\n").expect("write");
        fs::write(root.join("content/pages/about.md"), "about\n").expect("write");
        dir
    }

    /// Default options but a longer quiet period, for tests that expect exactly one batch
    /// even on a loaded machine (where a test thread may stall between two writes).
    fn robust(root: &Path) -> WatchOptions {
        let mut options = WatchOptions::new(root);
        options.debounce = Duration::from_millis(300);
        options
    }

    fn start(options: WatchOptions) -> SiteWatcher {
        SiteWatcher::start(options).expect("watcher starts")
    }

    fn change(root: &Path, rel: &str, kind: ChangeKind) -> Change {
        Change {
            path: root.join(rel),
            kind,
        }
    }

    /// Batches until `done` holds for all changes so far, or [`LIMIT`] passes.
    fn collect_until(watcher: &SiteWatcher, done: impl Fn(&[Change]) -> bool) -> Vec<Vec<Change>> {
        let end = Instant::now() + LIMIT;
        let mut batches = Vec::new();
        let mut all = Vec::new();
        while !done(&all) {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            if let Some(batch) = watcher.next_batch(left) {
                all.extend(batch.iter().cloned());
                batches.push(batch);
            }
        }
        batches
    }

    /// The first batch, within [`LIMIT`].
    fn first_batch(watcher: &SiteWatcher) -> Vec<Change> {
        watcher.next_batch(LIMIT).expect("a batch within the limit")
    }

    /// No further batch comes within a while.
    fn assert_quiet(watcher: &SiteWatcher) {
        assert_eq!(watcher.next_batch(Duration::from_millis(500)), None);
    }

    #[test]
    fn site_parts() {
        let root = Path::new("/site");
        let cases = [
            ("/site/profilegen.yaml", SitePart::Config),
            ("/site/content/records/a.txt", SitePart::Records),
            ("/site/content/records/2024/deep/a.txt", SitePart::Records),
            ("/site/content/records/a.md", SitePart::Other),
            ("/site/content/records", SitePart::Other),
            ("/site/content/authors/zoe.md", SitePart::Bios),
            ("/site/content/authors/x/zoe.md", SitePart::Other),
            ("/site/content/authors/zoe.txt", SitePart::Other),
            ("/site/content/pages/about.md", SitePart::Pages),
            ("/site/content/pages/sub/about.md", SitePart::Other),
            ("/site/content/other.txt", SitePart::Other),
            ("/site/templates/base.html", SitePart::Templates),
            ("/site/templates/partials/nav.html", SitePart::Templates),
            ("/site/templates", SitePart::Other),
            ("/site/static/style.css", SitePart::Static),
            ("/site/static/img/logo.svg", SitePart::Static),
            ("/site/public/index.html", SitePart::Other),
            ("/site/README.md", SitePart::Other),
            ("/elsewhere/static/style.css", SitePart::Other),
            ("/site/content/records/../../x.txt", SitePart::Other),
            // Relative paths are relative to the root.
            ("content/records/a.txt", SitePart::Records),
            ("./static/a.css", SitePart::Static),
            ("profilegen.yaml", SitePart::Config),
        ];
        for (path, part) in cases {
            assert_eq!(site_part(root, Path::new(path)), part, "{path}");
        }
        // A relative root works the same way.
        let dot = Path::new(".");
        assert_eq!(
            site_part(dot, Path::new("./templates/a.html")),
            SitePart::Templates
        );
        assert_eq!(
            site_part(dot, Path::new("./profilegen.yaml")),
            SitePart::Config
        );
    }

    #[test]
    fn watcher_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<SiteWatcher>();
    }

    #[test]
    fn start_fails_for_a_missing_root() {
        let dir = tempfile::tempdir().expect("temp dir");
        assert!(SiteWatcher::start(WatchOptions::new(dir.path().join("missing"))).is_err());
    }

    #[test]
    fn nothing_happens_nothing_is_reported() {
        let dir = site();
        let watcher = start(WatchOptions::new(dir.path()));
        // Reading files (as a build does) must not count as a change.
        for rel in [
            "profilegen.yaml",
            "content/records/seed.txt",
            "content/pages/about.md",
        ] {
            fs::read(dir.path().join(rel)).expect("read");
        }
        assert_quiet(&watcher);
        assert_eq!(watcher.next_batch(Duration::ZERO), None);
    }

    #[test]
    fn burst_of_200_records_is_one_batch() {
        let dir = site();
        let root = dir.path();
        let watcher = start(WatchOptions::new(root));
        let began = Instant::now();
        for i in 0..200 {
            fs::write(
                root.join(format!("content/records/r{i:03}.txt")),
                format!("record {i}\n"),
            )
            .expect("write");
        }
        let last_write = Instant::now();
        let batches = collect_until(&watcher, |all| all.len() >= 200);
        let arrived = Instant::now();
        let all: Vec<Change> = batches.iter().flatten().cloned().collect();
        assert_eq!(all.len(), 200, "{batches:?}");
        assert!(all.iter().all(|c| c.kind == ChangeKind::Created));
        assert!(batches.len() <= 3, "{} batches", batches.len());
        eprintln!(
            "timing native burst: 200 files written in {:?}, {} batch(es), first after last write +{:?}",
            last_write - began,
            batches.len(),
            arrived - last_write
        );
        assert_quiet(&watcher);
    }

    #[test]
    fn files_in_a_new_subfolder_are_all_found() {
        let dir = site();
        let root = dir.path();
        let watcher = start(robust(root));
        let sub = root.join("content/records/2026/batch");
        fs::create_dir_all(&sub).expect("mkdir");
        for i in 0..50 {
            fs::write(sub.join(format!("n{i:02}.txt")), "x\n").expect("write");
        }
        let batches = collect_until(&watcher, |all| all.len() >= 50);
        let all: Vec<Change> = batches.into_iter().flatten().collect();
        assert_eq!(all.len(), 50, "{all:?}");
        assert!(all
            .iter()
            .all(|c| c.kind == ChangeKind::Created && c.path.starts_with(&sub)));
    }

    #[test]
    fn files_the_build_skips_are_no_changes() {
        let dir = site();
        let root = dir.path();
        let watcher = start(robust(root));
        let static_dir = root.join("static");
        fs::create_dir_all(static_dir.join("css")).expect("mkdir");
        for name in ["x.tmp", "X.TMP", ".htaccess", ".DS_Store", "css/.hidden"] {
            fs::write(static_dir.join(name), "not part of the site").expect("write");
        }
        fs::write(static_dir.join("css/x.css"), "a {}").expect("write");

        let batch = first_batch(&watcher);
        assert_eq!(
            batch,
            vec![change(root, "static/css/x.css", ChangeKind::Created)]
        );
        fs::write(static_dir.join("x.tmp"), "edited").expect("write");
        fs::write(static_dir.join(".htaccess"), "edited").expect("write");
        assert_quiet(&watcher);
    }

    #[test]
    fn editor_save_is_one_change() {
        let dir = site();
        let root = dir.path();
        let records = root.join("content/records");
        fs::write(records.join("x.txt"), "old\n").expect("write");
        let watcher = start(robust(root));

        // vim: swap file, write test, backup by rename; then a temp file renamed over.
        fs::write(records.join(".x.txt.swp"), "swap").expect("write");
        fs::write(records.join("4913"), "").expect("write");
        fs::remove_file(records.join("4913")).expect("remove");
        fs::rename(records.join("x.txt"), records.join("x.txt~")).expect("rename");
        fs::write(records.join("x.txt.tmp"), "new contents\n").expect("write");
        fs::rename(records.join("x.txt.tmp"), records.join("x.txt")).expect("rename");
        fs::remove_file(records.join("x.txt~")).expect("remove");
        fs::remove_file(records.join(".x.txt.swp")).expect("remove");

        let batch = first_batch(&watcher);
        assert_eq!(
            batch,
            vec![change(root, "content/records/x.txt", ChangeKind::Modified)]
        );
        assert_quiet(&watcher);
    }

    #[test]
    fn slow_write_is_reported_once_settled() {
        let dir = site();
        let root = dir.path().to_path_buf();
        let watcher = start(WatchOptions::new(&root));
        let path = root.join("content/records/slow.txt");
        // Writes a third of the settle time apart, within one burst.
        let (writer, finished) = slow_writer(path.clone(), 7, DEFAULT_SETTLE / 3);
        let batch = first_batch(&watcher);
        let arrived = Instant::now();
        let size = fs::metadata(&path).expect("stat").len();
        let last_write = finished.try_recv().expect("the writer had finished");
        writer.join().expect("writer");
        assert_eq!(
            batch,
            vec![change(
                &root,
                "content/records/slow.txt",
                ChangeKind::Created
            )]
        );
        assert_eq!(size, 7 * 4096);
        assert!(arrived >= last_write + DEFAULT_SETTLE);
        eprintln!(
            "timing native slow write: batch at last chunk +{:?}",
            arrived - last_write
        );
        assert_quiet(&watcher);
    }

    /// Appends `chunks` chunks of 4 KiB to `path`, `gap` apart, and sends the time of the
    /// last write once done.
    fn slow_writer(
        path: PathBuf,
        chunks: u8,
        gap: Duration,
    ) -> (std::thread::JoinHandle<()>, mpsc::Receiver<Instant>) {
        let (sender, finished) = mpsc::channel();
        let writer = std::thread::spawn(move || {
            let mut file = fs::File::create(&path).expect("create");
            for i in 0..chunks {
                if i > 0 {
                    std::thread::sleep(gap);
                }
                file.write_all(&[b'a' + i % 26; 4096]).expect("write");
                file.flush().expect("flush");
            }
            drop(file);
            let _ = sender.send(Instant::now());
        });
        (writer, finished)
    }

    #[test]
    fn pauses_longer_than_the_quiet_period_wait_for_settling() {
        // Pauses of 150 ms end a burst (debounce 50 ms), but not the settle time (300 ms).
        let dir = site();
        let root = dir.path().to_path_buf();
        let mut options = WatchOptions::new(&root);
        options.debounce = Duration::from_millis(50);
        options.settle = Duration::from_millis(300);
        let watcher = start(options);
        let path = root.join("content/records/paused.txt");
        let (writer, finished) = slow_writer(path.clone(), 5, Duration::from_millis(150));
        let batch = first_batch(&watcher);
        let arrived = Instant::now();
        let size = fs::metadata(&path).expect("stat").len();
        let last_write = finished.try_recv().expect("the writer had finished");
        writer.join().expect("writer");
        assert_eq!(
            batch,
            vec![change(
                &root,
                "content/records/paused.txt",
                ChangeKind::Created
            )]
        );
        assert_eq!(size, 5 * 4096);
        assert!(arrived >= last_write + Duration::from_millis(300));
        eprintln!(
            "timing native paused write (settle 300 ms): batch at last chunk +{:?}",
            arrived - last_write
        );
        assert_quiet(&watcher);
    }

    #[test]
    fn a_file_that_never_settles_is_reported_after_the_bound() {
        let dir = site();
        let root = dir.path().to_path_buf();
        let watcher = start(WatchOptions::new(&root));
        lock(&watcher.state).max_wait = Duration::from_millis(800);
        let path = root.join("content/records/endless.txt");
        let began = Instant::now();
        let (writer, finished) = slow_writer(path, 40, Duration::from_millis(50));
        let batch = first_batch(&watcher);
        let first_after = began.elapsed();
        assert!(
            finished.try_recv().is_err(),
            "reported while still being written"
        );
        assert_eq!(
            batch,
            vec![change(
                &root,
                "content/records/endless.txt",
                ChangeKind::Created
            )]
        );
        assert!(first_after >= Duration::from_millis(800), "{first_after:?}");
        writer.join().expect("writer");
        // The rest of the writing is the next batch.
        let batch = first_batch(&watcher);
        assert_eq!(
            batch,
            vec![change(
                &root,
                "content/records/endless.txt",
                ChangeKind::Modified
            )]
        );
    }

    #[test]
    fn lost_events_lead_to_a_full_comparison() {
        let dir = site();
        let root = dir.path();
        let mut options = robust(root);
        // Polls so rarely that only the rescan below can find the changes.
        options.poll = Some(Duration::from_secs(3600));
        let watcher = start(options);
        // Let the poller finish its first scan, which would otherwise race the writes.
        std::thread::sleep(Duration::from_millis(500));
        fs::write(root.join("content/records/unseen.txt"), "x").expect("write");
        fs::remove_file(root.join("content/pages/about.md")).expect("remove");
        fs::write(root.join("profilegen.yaml"), "title: Other\n").expect("write");
        assert_quiet(&watcher);
        let overflow = notify::Event::new(EventKind::Other).set_flag(notify::event::Flag::Rescan);
        lock(&watcher.state).absorb(
            Ok(vec![DebouncedEvent::new(overflow, Instant::now())]),
            Instant::now(),
            &watcher.errors,
        );
        let batch = first_batch(&watcher);
        assert_eq!(
            batch,
            vec![
                change(root, "content/pages/about.md", ChangeKind::Removed),
                change(root, "content/records/unseen.txt", ChangeKind::Created),
                change(root, "profilegen.yaml", ChangeKind::Modified),
            ]
        );
    }

    #[test]
    fn short_lived_file_disappears() {
        let dir = site();
        let root = dir.path();
        let watcher = start(robust(root));
        fs::write(root.join("content/records/gone.txt"), "x").expect("write");
        fs::write(root.join("content/records/kept.txt"), "x").expect("write");
        fs::remove_file(root.join("content/records/gone.txt")).expect("remove");
        let batch = first_batch(&watcher);
        assert_eq!(
            batch,
            vec![change(
                root,
                "content/records/kept.txt",
                ChangeKind::Created
            )]
        );
    }

    #[test]
    fn deletion_and_rename_are_reported() {
        let dir = site();
        let root = dir.path();
        fs::write(root.join("content/records/a.txt"), "a").expect("write");
        fs::write(root.join("content/records/b.txt"), "b").expect("write");
        fs::write(root.join("content/authors/ann.md"), "ann").expect("write");
        let watcher = start(robust(root));
        fs::remove_file(root.join("content/records/a.txt")).expect("remove");
        fs::rename(
            root.join("content/records/b.txt"),
            root.join("content/records/c.txt"),
        )
        .expect("rename");
        // A whole folder goes: its files are reported.
        fs::remove_dir_all(root.join("content/authors")).expect("remove");
        let mut expected = vec![
            change(root, "content/authors/ann.md", ChangeKind::Removed),
            change(root, "content/authors/zoe.md", ChangeKind::Removed),
            change(root, "content/records/a.txt", ChangeKind::Removed),
            change(root, "content/records/b.txt", ChangeKind::Removed),
            change(root, "content/records/c.txt", ChangeKind::Created),
        ];
        expected.sort();
        let batches = collect_until(&watcher, |all| all.len() >= expected.len());
        let mut all: Vec<Change> = batches.into_iter().flatten().collect();
        all.sort();
        assert_eq!(all, expected);

        // A renamed folder: old names removed, new names created.
        fs::rename(root.join("content/pages"), root.join("content/pages-old")).expect("rename");
        fs::create_dir(root.join("content/pages")).expect("mkdir");
        fs::rename(
            root.join("content/pages-old/about.md"),
            root.join("content/pages/about-us.md"),
        )
        .expect("rename");
        let batch = first_batch(&watcher);
        assert_eq!(
            batch,
            vec![
                change(root, "content/pages/about-us.md", ChangeKind::Created),
                change(root, "content/pages/about.md", ChangeKind::Removed),
            ]
        );
    }

    #[test]
    fn output_and_ignored_folders_are_ignored() {
        let dir = site();
        let root = dir.path();
        fs::create_dir_all(root.join("public")).expect("mkdir");
        let mut options = robust(root);
        options.ignore = vec![root.join("public"), root.join("static/generated")];
        let watcher = start(options);
        fs::write(root.join("public/index.html"), "x").expect("write");
        fs::create_dir_all(root.join("public/authors/x")).expect("mkdir");
        fs::write(root.join("public/authors/x/index.html"), "x").expect("write");
        fs::create_dir_all(root.join("static/generated")).expect("mkdir");
        fs::write(root.join("static/generated/app.css"), "x").expect("write");
        fs::write(root.join("README.md"), "x").expect("write");
        fs::write(root.join("content/records/notes.md"), "x").expect("write");
        fs::create_dir_all(root.join("content/.profilegen")).expect("mkdir");
        fs::write(root.join("content/.profilegen/cache"), "x").expect("write");
        assert_quiet(&watcher);
        fs::write(root.join("static/style.css"), "x").expect("write");
        let batch = first_batch(&watcher);
        assert_eq!(
            batch,
            vec![change(root, "static/style.css", ChangeKind::Created)]
        );
    }

    #[test]
    fn config_bios_and_pages_changes() {
        let dir = site();
        let root = dir.path();
        let watcher = start(robust(root));
        fs::write(root.join("profilegen.yaml"), "title: Changed\n").expect("write");
        fs::write(root.join("content/authors/zoe.md"), "new bio\n").expect("write");
        fs::write(root.join("content/pages/contact.md"), "contact\n").expect("write");
        let batch = first_batch(&watcher);
        assert_eq!(
            batch,
            vec![
                change(root, "content/authors/zoe.md", ChangeKind::Modified),
                change(root, "content/pages/contact.md", ChangeKind::Created),
                change(root, "profilegen.yaml", ChangeKind::Modified),
            ]
        );
        let parts: Vec<SitePart> = batch.iter().map(|c| site_part(root, &c.path)).collect();
        assert_eq!(parts, [SitePart::Bios, SitePart::Pages, SitePart::Config]);
    }

    #[test]
    fn folder_created_after_start_is_watched() {
        let dir = site();
        let root = dir.path();
        let watcher = start(robust(root));
        fs::create_dir(root.join("templates")).expect("mkdir");
        fs::write(root.join("templates/base.html"), "<html>").expect("write");
        let batch = first_batch(&watcher);
        assert_eq!(
            batch,
            vec![change(root, "templates/base.html", ChangeKind::Created)]
        );
        // Watched now, not merely scanned once.
        fs::create_dir(root.join("templates/partials")).expect("mkdir");
        fs::write(root.join("templates/base.html"), "<html><body>").expect("write");
        fs::write(root.join("templates/partials/nav.html"), "<nav>").expect("write");
        let batch = first_batch(&watcher);
        assert_eq!(
            batch,
            vec![
                change(root, "templates/base.html", ChangeKind::Modified),
                change(root, "templates/partials/nav.html", ChangeKind::Created),
            ]
        );
    }

    #[test]
    fn replaced_top_folder_is_watched_again() {
        let dir = site();
        let root = dir.path();
        fs::write(root.join("static/old.css"), "x").expect("write");
        let watcher = start(robust(root));
        fs::rename(root.join("static"), root.join("static.bak")).expect("rename");
        fs::create_dir(root.join("static")).expect("mkdir");
        fs::write(root.join("static/new.css"), "x").expect("write");
        let batch = first_batch(&watcher);
        assert_eq!(
            batch,
            vec![
                change(root, "static/new.css", ChangeKind::Created),
                change(root, "static/old.css", ChangeKind::Removed),
            ]
        );
        // Writes in the moved-away folder are not the site's any more...
        fs::write(root.join("static.bak/old.css"), "changed").expect("write");
        assert_quiet(&watcher);
        // ...while the new folder is watched.
        fs::write(root.join("static/new.css"), "changed").expect("write");
        let batch = first_batch(&watcher);
        assert_eq!(
            batch,
            vec![change(root, "static/new.css", ChangeKind::Modified)]
        );
    }

    #[test]
    fn poll_mode_detects_create_modify_and_new_folders() {
        let dir = site();
        let root = dir.path();
        let mut options = WatchOptions::new(root);
        options.poll = Some(Duration::from_millis(100));
        let watcher = start(options);

        // Default timing here, to measure it.
        let path = root.join("content/records/p.txt");
        fs::write(&path, "one\n").expect("write");
        let written = Instant::now();
        let batch = first_batch(&watcher);
        let created_after = written.elapsed();
        assert_eq!(
            batch,
            vec![change(root, "content/records/p.txt", ChangeKind::Created)]
        );

        // Modified at once: most likely within the same second as the creation, which
        // notify 8's PollWatcher alone would miss.
        fs::write(&path, "one\ntwo\n").expect("write");
        let written = Instant::now();
        let batch = first_batch(&watcher);
        let modified_after = written.elapsed();
        assert_eq!(
            batch,
            vec![change(root, "content/records/p.txt", ChangeKind::Modified)]
        );
        eprintln!(
            "timing poll 100ms: create reported after +{created_after:?}, modify after +{modified_after:?}"
        );

        fs::create_dir(root.join("templates")).expect("mkdir");
        fs::write(root.join("templates/page.html"), "x").expect("write");
        let batch = first_batch(&watcher);
        assert_eq!(
            batch,
            vec![change(root, "templates/page.html", ChangeKind::Created)]
        );
        fs::remove_file(root.join("templates/page.html")).expect("remove");
        let batch = first_batch(&watcher);
        assert_eq!(
            batch,
            vec![change(root, "templates/page.html", ChangeKind::Removed)]
        );
    }

    #[test]
    fn poll_mode_sees_a_second_write_within_the_same_second() {
        let dir = site();
        let root = dir.path();
        let mut options = WatchOptions::new(root);
        options.poll = Some(Duration::from_millis(100));
        let watcher = start(options);

        // Pin both modification times inside one wall-clock second.
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .expect("clock after 1970");
        let second = SystemTime::UNIX_EPOCH + Duration::from_secs(now.as_secs());
        let path = root.join("content/records/same.txt");
        let set = |contents: &str, offset_ms: u64| {
            fs::write(&path, contents).expect("write");
            fs::File::options()
                .write(true)
                .open(&path)
                .and_then(|file| file.set_modified(second + Duration::from_millis(offset_ms)))
                .expect("set mtime");
        };
        set("one\n", 100);
        let batch = first_batch(&watcher);
        assert_eq!(
            batch,
            vec![change(
                root,
                "content/records/same.txt",
                ChangeKind::Created
            )]
        );
        set("two, longer\n", 600);
        let batch = first_batch(&watcher);
        assert_eq!(
            batch,
            vec![change(
                root,
                "content/records/same.txt",
                ChangeKind::Modified
            )]
        );
    }

    #[test]
    fn poll_mode_burst() {
        let dir = site();
        let root = dir.path();
        let mut options = WatchOptions::new(root);
        options.poll = Some(Duration::from_millis(100));
        let watcher = start(options);
        for i in 0..200 {
            fs::write(root.join(format!("content/records/q{i:03}.txt")), "x\n").expect("write");
        }
        let last_write = Instant::now();
        let batches = collect_until(&watcher, |all| all.len() >= 200);
        let arrived = Instant::now();
        let all: Vec<Change> = batches.iter().flatten().cloned().collect();
        assert_eq!(all.len(), 200);
        assert!(batches.len() <= 3, "{} batches", batches.len());
        eprintln!(
            "timing poll burst: {} batch(es), last after last write +{:?}",
            batches.len(),
            arrived - last_write
        );
    }

    #[test]
    fn changes_during_a_build_come_in_the_next_batch() {
        let dir = site();
        let root = dir.path();
        let watcher = start(robust(root));
        // Nobody waits in next_batch while these happen ("the build is running").
        fs::write(root.join("content/records/during.txt"), "x").expect("write");
        std::thread::sleep(Duration::from_millis(600));
        fs::write(root.join("content/records/during.txt"), "xy").expect("write");
        std::thread::sleep(Duration::from_millis(600));
        let batch = first_batch(&watcher);
        assert_eq!(
            batch,
            vec![change(
                root,
                "content/records/during.txt",
                ChangeKind::Created
            )]
        );
    }
}
