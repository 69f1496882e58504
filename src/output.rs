//! Writing the output folder.
//!
//! * Every file is first written to a staging folder inside the output folder and
//!   renamed into place only when the whole build has succeeded, so a failed build
//!   changes nothing and a reader (a web server, rsync, a killed build) only ever sees a
//!   whole old or a whole new file.
//! * A file whose bytes did not change is not touched: it keeps its modification time.
//! * Files written by an earlier build and not by this one are removed. The list of
//!   what profilegen wrote is kept in the output folder ([`manifest`]); nothing else in
//!   the folder is ever deleted.
//! * Nothing is written outside the output folder: every path must be relative with
//!   plain components, and every folder written into must resolve inside the output
//!   folder (a symlink out of it is refused).

use std::collections::{BTreeSet, HashSet};
use std::fs;
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::hash::ByPath;
use crate::threads::lock;

pub mod generations;
pub mod manifest;

pub use manifest::{MANIFEST, MANIFEST_CHANGES};

/// What a write did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriteStats {
    /// Files created or changed.
    pub written: usize,
    /// Files whose bytes were already right.
    pub unchanged: usize,
    /// Files of an earlier build removed.
    pub removed: usize,
}

/// An I/O failure, with the path it concerns.
#[derive(Debug)]
pub struct OutputError {
    /// The file or folder.
    pub path: PathBuf,
    /// What was being done.
    pub action: &'static str,
    /// The underlying error.
    pub source: io::Error,
}

impl std::fmt::Display for OutputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot {} {}: {}",
            self.action,
            self.path.display(),
            self.source
        )
    }
}

impl std::error::Error for OutputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

fn io_err<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> OutputError + 'a {
    move |source| OutputError {
        path: path.to_path_buf(),
        action,
        source,
    }
}

/// Whether `path` is a safe relative output path: non-empty, plain components only
/// (no `..`, no root, no drive prefix, no `.`), and no backslashes.
pub fn is_safe_relative_path(path: &str) -> bool {
    !path.is_empty()
        && !path.contains('\\')
        && !path.contains('\0')
        && Path::new(path)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
        && !path
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == "..")
}

/// The staging folder inside the output folder, where new files wait until the whole
/// build has succeeded.
pub const STAGING_DIR: &str = ".profilegen-staging";

/// The lock file of an output folder (of its generations folder, in generations): held
/// by the build writing it ([`OutputLock`]). It is empty, so every build leaves the
/// folder with the same bytes.
pub const LOCK_FILE: &str = ".profilegen-lock";

/// The right to write one output folder, held from [`OutputWriter::open`] until commit
/// or abort. Two processes writing one folder at once would move and remove each
/// other's staged files; the second is refused instead, with the first one's process
/// number. The lock is the system's (`flock`), so a killed build holds it no longer: the
/// file itself stays, and a later build takes it again.
#[derive(Debug)]
pub struct OutputLock {
    /// The open lock file: closing it releases the lock.
    _file: fs::File,
}

/// The process holding the lock on `file`, from the system's table of locks
/// (`/proc/locks`, which lists each lock's process and its file's device and inode), if
/// the system has one. Only the inode is compared: at worst the message names the
/// holder of a lock on another disk's file of the same number.
fn lock_holder(file: &fs::File) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let inode = file.metadata().ok()?.ino();
    let locks = fs::read_to_string("/proc/locks").ok()?;
    locks.lines().find_map(|line| {
        // "1: FLOCK  ADVISORY  WRITE 12345 08:01:1234567 0 EOF"
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (pid, file_id) = (fields.get(4)?, fields.get(5)?);
        let line_inode = file_id.rsplit(':').next()?.parse::<u64>().ok()?;
        (fields.get(1) == Some(&"FLOCK") && line_inode == inode)
            .then(|| pid.parse().ok())
            .flatten()
    })
}

impl OutputLock {
    /// Takes the lock of `folder` (which must exist), or says which process holds it.
    pub fn acquire(folder: &Path) -> Result<OutputLock, OutputError> {
        let path = folder.join(LOCK_FILE);
        let file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io_err("open the lock file", &path))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                let holder = match lock_holder(&file) {
                    Some(pid) => format!("profilegen process {pid}"),
                    None => "another profilegen process".to_string(),
                };
                return Err(OutputError {
                    path: folder.to_path_buf(),
                    action: "write",
                    source: io::Error::new(
                        io::ErrorKind::WouldBlock,
                        format!(
                            "{holder} is writing it; one build at a time writes an output \
                             folder (stop the other, or give this one another --output)"
                        ),
                    ),
                });
            }
            Err(fs::TryLockError::Error(err)) => return Err(io_err("lock", &path)(err)),
        }
        Ok(OutputLock { _file: file })
    }
}

/// Writes one build's files into an output folder in two steps: [`OutputWriter::stage`]
/// each file as it is produced (from any thread), then [`OutputWriter::commit`] them all
/// once the build has succeeded, or [`OutputWriter::abort`] to leave the folder as it
/// was.
///
/// Staging compares each file with the one already in place and keeps only changed
/// files, at their own paths in a staging folder inside the output folder (so the final
/// renames never cross file systems). Committing moves each staged folder whose
/// counterpart does not exist yet in one rename, so a build into an empty folder costs a
/// handful of renames however many files it has. Memory use does not grow with the site.
pub struct OutputWriter {
    root: PathBuf,
    staging: PathBuf,
    /// Number of files staged (created or changed).
    written: AtomicUsize,
    /// Relative path of every file of this build, with what this writer knows of it.
    files: Mutex<Vec<(String, Seen)>>,
    /// Folders made in the staging folder so far (relative paths), so that a file's
    /// folder is made before the file rather than after a failed attempt to create it.
    made_dirs: Mutex<HashSet<String>>,
    /// The staging folder's modification time when it was made (nanoseconds since the
    /// epoch): no file staged in it is older. `None` when the file system gives no time;
    /// each written file's time is then read back.
    staged_since_ns: Option<u128>,
    /// Names in the output folder when it was opened (the staging folder aside). A file
    /// whose first path component is not among them cannot exist yet, so it is staged
    /// without looking for one to compare with: a build into an empty folder makes no
    /// lookups at all.
    existing: HashSet<std::ffi::OsString>,
    /// The generation being written, when the output path is built in generations
    /// ([`generations`]): committing switches the output path to it.
    generation: Option<generations::NextGeneration>,
    /// Held until the writer commits or aborts; released when dropped.
    _lock: OutputLock,
}

/// What an [`OutputWriter`] knows of one file of the build.
#[derive(Debug, Clone, Copy)]
enum Seen {
    /// Its state as read from the file.
    State(Option<FileState>),
    /// Staged with this many bytes; its time lies in the span of the staging.
    Written(u64),
}

/// What [`OutputWriter::commit`] did.
#[derive(Debug, Default)]
pub struct Committed {
    /// Files written, unchanged and removed.
    pub stats: WriteStats,
    /// Size and modification time of each file staged or compared, by relative path, as
    /// they are in the output folder now.
    pub states: ByPath<FileState>,
    /// The files of the previous build that this one did not produce (removed, or
    /// already gone), by relative path.
    pub stale: Vec<String>,
}

impl OutputWriter {
    /// Opens `out_dir` (created if missing) for a new build, clearing any staging folder
    /// a killed build left behind. Fails if another process is writing it
    /// ([`OutputLock`]).
    pub fn open(out_dir: &Path) -> Result<OutputWriter, OutputError> {
        fs::create_dir_all(out_dir).map_err(io_err("create", out_dir))?;
        let lock = OutputLock::acquire(out_dir)?;
        OutputWriter::open_locked(out_dir, lock)
    }

    /// [`OutputWriter::open`], with the lock that covers `out_dir` already held.
    fn open_locked(out_dir: &Path, lock: OutputLock) -> Result<OutputWriter, OutputError> {
        let root = fs::canonicalize(out_dir).map_err(io_err("resolve", out_dir))?;
        let staging = root.join(STAGING_DIR);
        match fs::remove_dir_all(&staging) {
            Ok(()) => {}
            Err(err) if err.kind() == io::ErrorKind::NotFound => {}
            Err(err) => return Err(io_err("clear", &staging)(err)),
        }
        let existing = fs::read_dir(&root)
            .map_err(io_err("read", &root))?
            .map(|entry| entry.map(|e| e.file_name()))
            .collect::<Result<HashSet<_>, _>>()
            .map_err(io_err("read", &root))?;
        fs::create_dir(&staging).map_err(io_err("create", &staging))?;
        let staged_since_ns = fs::metadata(&staging)
            .ok()
            .and_then(|meta| modified_ns(&meta));
        Ok(OutputWriter {
            root,
            staging,
            written: AtomicUsize::new(0),
            files: Mutex::new(Vec::new()),
            existing,
            made_dirs: Mutex::new(HashSet::new()),
            staged_since_ns,
            generation: None,
            _lock: lock,
        })
    }

    /// Opens the next generation of the output path `link` for a new build (see
    /// [`generations`]): the files of the current generation are linked into it, and
    /// [`OutputWriter::commit`] makes `link` lead to it.
    pub fn open_next_generation(link: &Path) -> Result<OutputWriter, OutputError> {
        let lock = generations::lock(link)?;
        let generation = generations::NextGeneration::prepare(link)?;
        match OutputWriter::open_locked(&generation.dir(), lock) {
            Ok(writer) => Ok(OutputWriter {
                generation: Some(generation),
                ..writer
            }),
            Err(err) => {
                generation.discard();
                Err(err)
            }
        }
    }

    /// Stages one file. Returns whether its bytes differ from the file in place.
    pub fn stage(&self, path: &str, bytes: &[u8]) -> Result<bool, OutputError> {
        if !is_safe_relative_path(path)
            || path == MANIFEST
            || path == MANIFEST_CHANGES
            || path == LOCK_FILE
            || path.split('/').next() == Some(STAGING_DIR)
        {
            return Err(OutputError {
                path: PathBuf::from(path),
                action: "write (unsafe output path)",
                source: io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "path leaves the output folder",
                ),
            });
        }
        let first = path.split('/').next().unwrap_or_default();
        let target = self.root.join(path);
        let may_exist = self.existing.contains(std::ffi::OsStr::new(first));
        if let Some(existing) = may_exist
            .then(|| fs::symlink_metadata(&target).ok())
            .flatten()
        {
            if existing.is_file() && existing.len() == bytes.len() as u64 {
                if let Ok(old) = fs::read(&target) {
                    if old == bytes {
                        let state = FileState::from_metadata(&existing);
                        lock(&self.files).push((path.to_string(), Seen::State(state)));
                        return Ok(false);
                    }
                }
            }
        }
        let staged = self.staging.join(path);
        if let Some((dir, _)) = path.rsplit_once('/') {
            if !lock(&self.made_dirs).contains(dir) {
                let path = self.staging.join(dir);
                fs::create_dir_all(&path).map_err(io_err("create", &path))?;
                lock(&self.made_dirs).insert(dir.to_string());
            }
        }
        // Within a known span of time, a written file's own time need not be read.
        let read_time = self.staged_since_ns.is_none();
        let state = write_new_file(&staged, bytes, read_time)?;
        self.written.fetch_add(1, Ordering::Relaxed);
        let seen = if read_time {
            Seen::State(state)
        } else {
            Seen::Written(bytes.len() as u64)
        };
        lock(&self.files).push((path.to_string(), seen));
        Ok(true)
    }

    /// Makes room for `count` more files staged in this build: a large site's list of
    /// them would otherwise grow by doubling, and at 1,073,618 files (just over 2^20)
    /// hold room for twice as many, 50 MB unused.
    pub fn expect_files(&self, count: usize) {
        lock(&self.files).reserve_exact(count);
    }

    /// The folder files are written into (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Moves every staged file into place, removes the files of the previous build that
    /// this one did not produce, and records this build's files in the manifest: those
    /// staged and those `kept` (relative paths of files this build has but did not
    /// stage, as they are known to be unchanged; they are not looked at). In
    /// generations, then makes the output path lead to the new generation; on failure,
    /// the generation is removed and the output path left as it was.
    ///
    /// The kept paths are lent rather than given to the writer: a rebuild of a large
    /// site keeps most of its files, a million paths that would otherwise be copied.
    pub fn commit(mut self, kept: &[&str]) -> Result<Committed, OutputError> {
        let generation = self.generation.take();
        let committed = self.commit_files(kept);
        match (committed, generation) {
            (Ok(committed), Some(generation)) => generation.switch().map(|()| committed),
            (Err(err), Some(generation)) => {
                generation.discard();
                Err(err)
            }
            (committed, None) => committed,
        }
    }

    /// [`OutputWriter::commit`] in the folder written into.
    fn commit_files(self, kept: &[&str]) -> Result<Committed, OutputError> {
        let root = &self.root;
        // The end of the span the staged files were written in: a file made after them
        // all has a time no earlier than theirs.
        let staged_until_ns = self.staged_since_ns.and_then(|_| {
            let probe = self.staging.join(".profilegen-written");
            let time = fs::File::create(&probe)
                .and_then(|file| file.metadata())
                .ok()
                .and_then(|meta| modified_ns(&meta));
            let _ = fs::remove_file(&probe);
            time
        });
        move_into_place(root, &self.staging, root)?;
        let _ = fs::remove_dir_all(&self.staging);

        let mut files = self.files.into_inner().unwrap_or_else(|e| e.into_inner());
        files.par_sort_by(|a, b| a.0.cmp(&b.0));
        files.dedup_by(|a, b| a.0 == b.0);
        let paths = all_paths(&files, kept);
        let written = self.written.into_inner();

        // Remove what an earlier build wrote and this one did not.
        let earlier = manifest::EarlierManifest::read(root);
        let recorded = earlier.as_ref().map(manifest::EarlierManifest::paths);
        let earlier_paths = recorded.as_ref().map_or(&[][..], |r| r.all());
        let mut removed = 0;
        let mut stale = Vec::new();
        let mut emptied_dirs = BTreeSet::new();
        for old_path in stale_paths(earlier_paths, &paths) {
            if !is_safe_relative_path(old_path) {
                continue;
            }
            stale.push(old_path.to_string());
            let path = root.join(old_path);
            match fs::remove_file(&path) {
                Ok(()) => removed += 1,
                Err(err) if err.kind() == io::ErrorKind::NotFound => {}
                Err(err) => return Err(io_err("remove", &path)(err)),
            }
            let mut dir = Path::new(old_path).parent();
            while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
                emptied_dirs.insert(d.to_path_buf());
                dir = d.parent();
            }
        }
        // Deepest first; only folders left empty go.
        for dir in emptied_dirs.iter().rev() {
            let _ = fs::remove_dir(root.join(dir));
        }
        manifest::record(root, earlier.as_ref().zip(recorded.as_ref()), &paths)?;
        let stats = WriteStats {
            written,
            unchanged: paths.len() - written,
            removed,
        };
        // Both hold every path once more: freed before the states are gathered.
        drop((paths, recorded));
        drop(earlier);
        let mut states = ByPath::with_capacity_and_hasher(files.len(), Default::default());
        for (path, seen) in files {
            let state = match seen {
                Seen::State(state) => state,
                Seen::Written(size) => self.staged_since_ns.zip(staged_until_ns).map(
                    |(modified_ns, modified_until_ns)| FileState {
                        size,
                        modified_ns,
                        modified_until_ns,
                    },
                ),
            };
            if let Some(state) = state {
                states.insert(path, state);
            }
        }
        Ok(Committed {
            stats,
            states,
            stale,
        })
    }

    /// Discards everything staged: the output folder stays as it was (in generations,
    /// the new generation is removed).
    pub fn abort(self) {
        let _ = fs::remove_dir_all(&self.staging);
        if let Some(generation) = self.generation {
            generation.discard();
        }
    }
}

/// Every path of a build, sorted and each once: those of the `staged` files (sorted,
/// each once) and the `kept`.
///
/// A rebuild keeps most of a large site's files: a million paths to sort. They come in
/// long sorted runs (the kept outputs in the plan's order, each kind's in the order of
/// its slugs), which a merge sort finds: at 500,000 papers it took about a third of the
/// time of an unstable sort.
fn all_paths<'p>(staged: &'p [(String, Seen)], kept: &[&'p str]) -> Vec<&'p str> {
    let mut kept = kept.to_vec();
    kept.par_sort();
    let mut paths = Vec::with_capacity(staged.len() + kept.len());
    let mut kept = kept.into_iter().peekable();
    for (path, _) in staged {
        while let Some(k) = kept.next_if(|k| *k < path.as_str()) {
            paths.push(k);
        }
        kept.next_if_eq(&path.as_str());
        paths.push(path.as_str());
    }
    paths.extend(kept);
    paths.dedup();
    paths
}

/// The paths of an earlier manifest that are not among `files` (sorted). A manifest
/// written by profilegen is sorted too, so the two lists are walked side by side; any
/// other is checked path by path against a set.
fn stale_paths<'m>(old: &[&'m str], files: &[&str]) -> Vec<&'m str> {
    if !old.windows(2).all(|pair| pair[0] < pair[1]) {
        let current: HashSet<&str> = files.iter().copied().collect();
        return old
            .iter()
            .copied()
            .filter(|p| !current.contains(p))
            .collect();
    }
    let mut stale = Vec::new();
    let mut current = files.iter().copied().peekable();
    for &path in old {
        while current.next_if(|c| *c < path).is_some() {}
        if current.next_if_eq(&path).is_none() {
            stale.push(path);
        }
    }
    stale
}

/// Creates (or truncates) the file at `path`, creating its missing parent folders, and
/// writes `bytes` to it. Returns its size and modification time when `read_time`.
fn write_new_file(
    path: &Path,
    bytes: &[u8],
    read_time: bool,
) -> Result<Option<FileState>, OutputError> {
    let mut file = match fs::File::create(path) {
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).map_err(io_err("create", parent))?;
            }
            fs::File::create(path).map_err(io_err("create", path))?
        }
        created => created.map_err(io_err("create", path))?,
    };
    file.write_all(bytes).map_err(io_err("write", path))?;
    if !read_time {
        return Ok(None);
    }
    Ok(file
        .metadata()
        .ok()
        .and_then(|m| FileState::from_metadata(&m)))
}

/// The entries of the folder `dir`.
fn folder_entries(dir: &Path) -> Result<Vec<fs::DirEntry>, OutputError> {
    fs::read_dir(dir)
        .map_err(io_err("read", dir))?
        .collect::<Result<_, _>>()
        .map_err(io_err("read", dir))
}

/// Moves everything in the staging folder `from` to the folder `to` inside `root`: a
/// folder that does not exist at `to` yet is moved whole, in one rename; one that does is
/// entered and its entries moved one by one. A folder met on the way must resolve inside
/// `root` (a symlink leading out is refused); a file where a folder must go is replaced.
fn move_into_place(root: &Path, from: &Path, to: &Path) -> Result<(), OutputError> {
    let entries = folder_entries(from)?;
    entries.par_iter().try_for_each(|entry| {
        let source = entry.path();
        let target = to.join(entry.file_name());
        let is_dir = entry
            .file_type()
            .map_err(io_err("inspect", &source))?
            .is_dir();
        if !is_dir {
            return fs::rename(&source, &target).map_err(io_err("replace", &target));
        }
        match fs::symlink_metadata(&target) {
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                fs::rename(&source, &target).map_err(io_err("create", &target))
            }
            Err(err) => Err(io_err("inspect", &target)(err)),
            Ok(meta) if meta.is_dir() => move_into_place(root, &source, &target),
            Ok(meta) if meta.file_type().is_symlink() => {
                let resolved = fs::canonicalize(&target).map_err(io_err("resolve", &target))?;
                if !resolved.starts_with(root) || !resolved.is_dir() {
                    return Err(OutputError {
                        path: target,
                        action: "write into",
                        source: io::Error::new(
                            io::ErrorKind::InvalidInput,
                            "folder resolves outside the output folder",
                        ),
                    });
                }
                move_into_place(root, &source, &target)
            }
            Ok(_) => {
                // A file where a folder must go (e.g. left by hand): replace it.
                fs::remove_file(&target).map_err(io_err("remove", &target))?;
                fs::rename(&source, &target).map_err(io_err("create", &target))
            }
        }
    })
}

/// An output folder held open, to look at the files in it by their paths inside it:
/// each look resolves only the path inside the folder, not the folder's own path again
/// (a quarter less processor time for a million looks, measured on their own).
pub struct OpenFolder {
    root: PathBuf,
    #[cfg(unix)]
    dir: Option<fs::File>,
}

impl OpenFolder {
    /// Opens the folder `root`; if it cannot be opened, each look goes by the whole path.
    pub fn open(root: &Path) -> OpenFolder {
        OpenFolder {
            root: root.to_path_buf(),
            #[cfg(unix)]
            dir: fs::File::open(root)
                .ok()
                .filter(|dir| dir.metadata().is_ok_and(|meta| meta.is_dir())),
        }
    }

    /// The state of the file at `path` inside the folder, if it is a regular file (as
    /// [`FileState::of`] its whole path).
    pub fn state_of(&self, path: &str) -> Option<FileState> {
        #[cfg(unix)]
        if let Some(dir) = &self.dir {
            let flags = rustix::fs::AtFlags::SYMLINK_NOFOLLOW;
            return FileState::from_stat(&rustix::fs::statat(dir, path, flags).ok()?);
        }
        FileState::of(&self.root.join(path))
    }
}

/// Size and modification time (nanoseconds since the epoch) of a file, or for a file
/// profilegen wrote without reading its time back, the span of time it was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileState {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch: the earliest it can be.
    pub modified_ns: u128,
    /// The latest modification time the file can have and still be as it was left: the
    /// same as `modified_ns` when the time was read from the file, the end of the
    /// writing otherwise. A file changed afterwards has a later time.
    pub modified_until_ns: u128,
}

impl FileState {
    /// The state of the file at `path`, if it is a regular file.
    pub fn of(path: &Path) -> Option<FileState> {
        FileState::from_metadata(&fs::symlink_metadata(path).ok()?)
    }

    /// The state a `stat` of a file describes, if it is that of a regular file (as
    /// [`FileState::from_metadata`], with the same times).
    #[cfg(unix)]
    fn from_stat(stat: &rustix::fs::Stat) -> Option<FileState> {
        let is_file =
            rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::RegularFile;
        // Before the epoch, as `SystemTime::duration_since` has it: no time.
        let modified_ns = u128::try_from(stat.st_mtime)
            .ok()
            .map(|seconds| seconds * 1_000_000_000 + u128::from(stat.st_mtime_nsec as u32));
        FileState::of_regular_file(is_file, u64::try_from(stat.st_size).ok()?, modified_ns)
    }

    /// The state `meta` describes, if it is that of a regular file.
    pub fn from_metadata(meta: &fs::Metadata) -> Option<FileState> {
        FileState::of_regular_file(meta.is_file(), meta.len(), modified_ns(meta))
    }

    /// The state of a file of `size` bytes modified at `modified_ns`, if it is a
    /// regular file (`is_file`) with a time: what either look at a file gives.
    fn of_regular_file(is_file: bool, size: u64, modified_ns: Option<u128>) -> Option<FileState> {
        let modified_ns = modified_ns.filter(|_| is_file)?;
        Some(FileState {
            size,
            modified_ns,
            modified_until_ns: modified_ns,
        })
    }

    /// Whether a file found in state `actual` (read from the file) is still as this
    /// state describes it: the same size, modified within this state's span.
    pub fn admits(&self, actual: &FileState) -> bool {
        actual.size == self.size
            && self.modified_ns <= actual.modified_ns
            && actual.modified_ns <= self.modified_until_ns
    }
}

/// The modification time `meta` gives, in nanoseconds since the Unix epoch.
pub fn modified_ns(meta: &fs::Metadata) -> Option<u128> {
    Some(
        meta.modified()
            .ok()?
            .duration_since(UNIX_EPOCH)
            .ok()?
            .as_nanos(),
    )
}

/// Writes `files` into `out_dir` (created if missing): stages them all, then commits.
pub fn write_output(
    out_dir: &Path,
    files: &[(String, Vec<u8>)],
) -> Result<WriteStats, OutputError> {
    let writer = OutputWriter::open(out_dir)?;
    let staged = files
        .par_iter()
        .try_for_each(|(path, bytes)| writer.stage(path, bytes).map(|_| ()));
    match staged {
        Ok(()) => writer.commit(&[]).map(|committed| committed.stats),
        Err(err) => {
            writer.abort();
            Err(err)
        }
    }
}

/// Writes `bytes` to a temporary file beside `target`, then renames it over `target`.
pub fn write_atomically(target: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    write_atomically_with(target, |file| file.write_all(bytes))
}

/// Lets `write` write a temporary file beside `target` (buffered), then renames it over
/// `target` (an [`AtomicFile`] written at once).
pub fn write_atomically_with(
    target: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), OutputError> {
    let mut file = AtomicFile::create(target)?;
    write(&mut file).map_err(io_err("write", target))?;
    file.commit()
}

/// A file written beside `target` (buffered) that replaces `target` when committed:
/// readers see the old file or the whole new one, never a part, and a file made in
/// pieces, over a whole build, need not be held in memory first. Dropped uncommitted,
/// or if it cannot be finished, it is removed. (The temporary file is `tempfile`'s,
/// which makes it with a unique name and removes it when dropped unless persisted; its
/// name starts with `.` and ends in `.profilegen-tmp`, so nothing reads it as part of a
/// site.)
pub struct AtomicFile {
    target: PathBuf,
    temp: io::BufWriter<tempfile::NamedTempFile>,
}

/// How every [`AtomicFile`]'s temporary file is named at the end.
const TEMP_SUFFIX: &str = ".profilegen-tmp";

/// How long an [`AtomicFile`]'s temporary file may go unchanged before it is taken for one
/// that a process killed while writing it left behind: a file being written changes all
/// the time, and no file profilegen writes takes that long.
pub const STALE_TEMP_AGE: Duration = Duration::from_secs(60 * 60);

/// Removes the temporary files of [`AtomicFile`]s in `dir` (`.<name>.<random>` and
/// `TEMP_SUFFIX`) that have not changed for [`STALE_TEMP_AGE`] at `now`: what a
/// process killed (or a machine stopped) while it wrote a file there left behind. Other
/// files, and ones that cannot be looked at, are left alone. Returns how many went.
pub fn remove_stale_temp_files(dir: &Path, now: SystemTime) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let stale = |entry: &fs::DirEntry| {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let modified = entry.metadata().ok().filter(fs::Metadata::is_file);
        let age = modified.and_then(|m| m.modified().ok());
        let age = age.and_then(|time| now.duration_since(time).ok());
        name.starts_with('.') && name.ends_with(TEMP_SUFFIX) && age >= Some(STALE_TEMP_AGE)
    };
    (entries.filter_map(Result::ok))
        .filter(|entry| stale(entry) && fs::remove_file(entry.path()).is_ok())
        .count()
}

impl AtomicFile {
    /// Starts the file that will replace `target`, in `target`'s folder.
    pub fn create(target: &Path) -> Result<AtomicFile, OutputError> {
        let dir = target
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(TEMP_SUFFIX);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(fs::Permissions::from_mode(0o644));
        }
        let temp = builder
            .tempfile_in(dir)
            .map_err(io_err("create a temporary file in", dir))?;
        Ok(AtomicFile {
            target: target.to_path_buf(),
            temp: io::BufWriter::with_capacity(1 << 16, temp),
        })
    }

    /// Finishes the file and renames it over its target.
    pub fn commit(self) -> Result<(), OutputError> {
        let target = self.target;
        let temp =
            (self.temp.into_inner()).map_err(|e| io_err("write", &target)(e.into_error()))?;
        temp.persist(&target)
            .map_err(|err| io_err("replace", &target)(err.error))?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.temp.write(bytes)
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.temp.write_all(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.temp.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_that_says_how_many_files_it_writes_lists_them_in_that_much_room() {
        let dir = tempfile::tempdir().unwrap();
        let writer = OutputWriter::open(&dir.path().join("public")).unwrap();
        writer.expect_files(5);
        for n in 0..5 {
            writer.stage(&format!("papers/p{n}.html"), b"x").unwrap();
        }
        assert_eq!(lock(&writer.files).capacity(), 5);
        let committed = writer.commit(&[]).unwrap();
        assert_eq!(committed.stats.written, 5);
    }

    #[test]
    fn only_temporary_files_left_unchanged_for_an_hour_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let now = SystemTime::now();
        let made = |name: &str, age: Duration| {
            let path = dir.path().join(name);
            fs::write(&path, "x").unwrap();
            let file = fs::File::options().write(true).open(&path).unwrap();
            file.set_modified(now - age).unwrap();
        };
        let hour = STALE_TEMP_AGE;
        made(".build-1.cache.a1b2.profilegen-tmp", hour);
        made(".records.kept.c3d4.profilegen-tmp", hour * 30);
        made(
            ".build-1.cache.e5f6.profilegen-tmp",
            hour - Duration::from_secs(60),
        );
        made("build-1.cache", hour * 30);
        made("old.profilegen-tmp", hour * 30);
        fs::create_dir(dir.path().join(".folder.profilegen-tmp")).unwrap();
        assert_eq!(remove_stale_temp_files(dir.path(), now), 2);
        let mut left: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let kept = [
            ".build-1.cache.e5f6.profilegen-tmp",
            ".folder.profilegen-tmp",
            "build-1.cache",
            "old.profilegen-tmp",
        ];
        assert_eq!(
            left, kept,
            "a file still being written, a folder, other files"
        );
        assert_eq!(remove_stale_temp_files(&dir.path().join("none"), now), 0);
    }

    fn file(path: &str, text: &str) -> (String, Vec<u8>) {
        (path.into(), text.as_bytes().to_vec())
    }

    #[test]
    fn safe_paths() {
        assert!(is_safe_relative_path("authors/x/index.html"));
        assert!(is_safe_relative_path("subjects/cs.DC/index.html"));
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../../x",
            "a//b",
            "./a",
            "a\\..\\b",
            "a/./b",
        ] {
            assert!(!is_safe_relative_path(bad), "{bad}");
        }
    }

    #[test]
    fn a_second_writer_of_one_folder_is_refused_until_the_first_is_done() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        let first = OutputWriter::open(&out).unwrap();
        first.stage("a/index.html", b"first").unwrap();
        let refused = OutputWriter::open(&out)
            .err()
            .expect("second writer refused");
        let message = refused.to_string();
        assert_eq!(refused.source.kind(), io::ErrorKind::WouldBlock);
        assert!(
            message.contains(&format!("profilegen process {}", std::process::id())),
            "{message}"
        );
        // The refused writer touched nothing: the first one's staged file is there.
        assert!(out.join(STAGING_DIR).join("a/index.html").is_file());
        first.commit(&[]).unwrap();
        assert_eq!(fs::read(out.join("a/index.html")).unwrap(), b"first");

        // Once committed (or aborted) the folder takes a writer again; the lock file
        // stays, is no output of the build, and is never removed as stale.
        let second = OutputWriter::open(&out).unwrap();
        second.abort();
        let stats = write_output(&out, &[file("b/index.html", "B")]).unwrap();
        assert_eq!(stats.removed, 1);
        assert!(out.join(LOCK_FILE).is_file());
        let manifest = fs::read_to_string(out.join(MANIFEST)).unwrap();
        assert_eq!(manifest, "b/index.html\n");
        let writer = OutputWriter::open(&out).unwrap();
        assert!(writer.stage(LOCK_FILE, b"page").is_err());
        writer.abort();
    }

    #[test]
    fn generations_of_one_output_path_take_one_writer_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("public");
        let first = OutputWriter::open_next_generation(&link).unwrap();
        let refused = OutputWriter::open_next_generation(&link)
            .err()
            .expect("second writer refused");
        assert_eq!(refused.source.kind(), io::ErrorKind::WouldBlock);
        // The refused writer did not take the first one's generation for a leftover.
        assert!(first.root().is_dir());
        first.stage("index.html", b"one").unwrap();
        first.commit(&[]).unwrap();
        assert_eq!(fs::read(link.join("index.html")).unwrap(), b"one");
        let next = OutputWriter::open_next_generation(&link).unwrap();
        next.stage("index.html", b"two").unwrap();
        next.commit(&[]).unwrap();
        assert_eq!(fs::read(link.join("index.html")).unwrap(), b"two");
    }

    #[test]
    fn writes_skips_unchanged_and_removes_stale() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        let stats = write_output(
            &out,
            &[file("a/index.html", "A"), file("b/index.html", "B")],
        )
        .unwrap();
        assert_eq!(
            stats,
            WriteStats {
                written: 2,
                unchanged: 0,
                removed: 0
            }
        );
        fs::write(out.join("keep.txt"), "not ours").unwrap();
        let stats = write_output(&out, &[file("a/index.html", "A2")]).unwrap();
        assert_eq!(
            stats,
            WriteStats {
                written: 1,
                unchanged: 0,
                removed: 1
            }
        );
        assert!(!out.join("b").exists(), "emptied folder removed");
        assert_eq!(fs::read_to_string(out.join("a/index.html")).unwrap(), "A2");
        assert_eq!(
            fs::read_to_string(out.join("keep.txt")).unwrap(),
            "not ours"
        );
        let stats = write_output(&out, &[file("a/index.html", "A2")]).unwrap();
        assert_eq!(
            stats,
            WriteStats {
                written: 0,
                unchanged: 1,
                removed: 0
            }
        );
        let leftovers: Vec<_> = fs::read_dir(out.join("a"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            leftovers,
            vec![std::ffi::OsString::from("index.html")],
            "no temp files left"
        );
    }

    #[test]
    fn an_open_folder_sees_what_the_whole_path_sees() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::write(root.join("a/b/page.html"), "four").unwrap();
        fs::write(root.join("top.txt"), "").unwrap();
        let old = std::time::UNIX_EPOCH + std::time::Duration::new(1_000_000_000, 123_456_789);
        let file = fs::File::options().write(true).open(root.join("top.txt"));
        file.unwrap().set_modified(old).unwrap();
        let folder = OpenFolder::open(root);
        for path in ["a/b/page.html", "top.txt"] {
            let state = folder.state_of(path);
            assert_eq!(state, FileState::of(&root.join(path)), "{path}");
            assert!(state.is_some(), "{path}");
        }
        let top = folder.state_of("top.txt").unwrap();
        assert_eq!((top.size, top.modified_ns), (0, 1_000_000_000_123_456_789));
        assert_eq!(folder.state_of("a/b/page.html").unwrap().size, 4);
        // Folders and missing files have no state, and neither does a link, even to a
        // file: a file is looked at as it is, not followed.
        assert_eq!(folder.state_of("a/b"), None);
        assert_eq!(folder.state_of("a/missing.html"), None);
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root.join("top.txt"), root.join("a/link.txt")).unwrap();
            assert_eq!(folder.state_of("a/link.txt"), None);
        }
        // A file changed after the folder was opened is seen as it is now.
        fs::write(root.join("a/b/page.html"), "changed").unwrap();
        assert_eq!(folder.state_of("a/b/page.html").unwrap().size, 7);
        // A folder that cannot be opened: each look goes by the whole path.
        let missing = OpenFolder::open(&root.join("not-there"));
        assert_eq!(missing.state_of("top.txt"), None);
    }

    #[test]
    fn new_folders_move_whole_and_existing_ones_merge() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        write_output(&out, &[file("a/x/index.html", "X"), file("top.txt", "T")]).unwrap();
        fs::write(out.join("c"), "a file where a folder will go").unwrap();
        fs::write(out.join("a/mine.txt"), "not ours").unwrap();
        let writer = OutputWriter::open(&out).unwrap();
        for f in [
            file("a/x/index.html", "X"),
            file("a/y/deep/index.html", "Y"),
            file("b/z/index.html", "Z"),
            file("c/index.html", "C"),
            file("top.txt", "T2"),
        ] {
            writer.stage(&f.0, &f.1).unwrap();
        }
        let committed = writer.commit(&[]).unwrap();
        assert_eq!(committed.stats.written, 4);
        assert_eq!(committed.stats.unchanged, 1);
        for (path, text) in [
            ("a/x/index.html", "X"),
            ("a/y/deep/index.html", "Y"),
            ("b/z/index.html", "Z"),
            ("c/index.html", "C"),
            ("top.txt", "T2"),
            ("a/mine.txt", "not ours"),
        ] {
            assert_eq!(fs::read_to_string(out.join(path)).unwrap(), text, "{path}");
        }
        assert!(!out.join(STAGING_DIR).exists(), "staging folder removed");
        assert_eq!(committed.states.len(), 5);
        for (path, state) in &committed.states {
            let actual = FileState::of(&out.join(path)).unwrap();
            assert!(
                state.admits(&actual),
                "{path}: the state reported admits the file's ({state:?}, {actual:?})"
            );
        }
        // The same bytes written again later no longer match the state.
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
        let path = "b/z/index.html";
        let file = fs::File::options()
            .write(true)
            .open(out.join(path))
            .unwrap();
        file.set_modified(later).unwrap();
        let actual = FileState::of(&out.join(path)).unwrap();
        assert!(!committed.states[path].admits(&actual));
    }

    #[test]
    fn stale_paths_of_sorted_and_unsorted_manifests() {
        let files = ["a/x", "b", "c/y", "d"];
        assert_eq!(
            stale_paths(&["a/w", "a/x", "b", "bb", "d", "e"], &files),
            ["a/w", "bb", "e"]
        );
        assert_eq!(stale_paths(&["e", "a/x", "z", "b"], &files), ["e", "z"]);
        assert!(stale_paths(&[], &files).is_empty());
        assert_eq!(stale_paths(&["b"], &[]), ["b"]);
    }

    #[test]
    fn a_builds_paths_are_its_staged_and_kept_paths_merged_each_once() {
        let staged: Vec<(String, Seen)> = ["b", "c/y", "e"]
            .iter()
            .map(|p| (p.to_string(), Seen::Written(1)))
            .collect();
        // Kept paths come in sorted runs (the plan's kinds), not sorted as a whole.
        let kept = ["c/x", "d", "f", "a/x", "a/y", "c/y"];
        assert_eq!(
            all_paths(&staged, &kept),
            ["a/x", "a/y", "b", "c/x", "c/y", "d", "e", "f"]
        );
        assert_eq!(all_paths(&staged, &[]), ["b", "c/y", "e"]);
        assert_eq!(all_paths(&[], &["b", "a", "b"]), ["a", "b"]);
    }

    /// Files kept by a build (lent at the commit, never staged) stay in place and in the
    /// manifest, and count as unchanged; a file of the previous build that this one
    /// neither staged nor kept goes.
    #[test]
    fn kept_files_stay_in_place_and_in_the_manifest() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        let first = OutputWriter::open(&out).unwrap();
        for (path, bytes) in [("a/index.html", "a"), ("b.html", "b"), ("c.html", "c")] {
            first.stage(path, bytes.as_bytes()).unwrap();
        }
        first.commit(&[]).unwrap();
        let next = OutputWriter::open(&out).unwrap();
        next.stage("b.html", b"b, changed").unwrap();
        let committed = next.commit(&["a/index.html"]).unwrap();
        assert_eq!((committed.stats.written, committed.stats.unchanged), (1, 1));
        assert_eq!(committed.stats.removed, 1);
        assert_eq!(committed.stale, ["c.html"]);
        assert_eq!(fs::read_to_string(out.join("a/index.html")).unwrap(), "a");
        assert_eq!(
            fs::read_to_string(out.join("b.html")).unwrap(),
            "b, changed"
        );
        assert!(!out.join("c.html").exists());
        let manifest = manifest::EarlierManifest::read(&out).unwrap();
        assert_eq!(manifest.paths().all(), ["a/index.html", "b.html"]);
        // A kept file's state is not looked at: only the staged one has a state.
        assert!(!committed.states.contains_key("a/index.html"));
        assert!(committed.states.contains_key("b.html"));
    }

    #[test]
    fn a_large_folder_records_few_changes_apart_and_removes_what_they_remove() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        let site: Vec<(String, Vec<u8>)> = (0..manifest::CHANGES_MIN_PATHS + 4)
            .map(|i| (format!("p/{i:05}.html"), format!("page {i}").into_bytes()))
            .collect();
        write_output(&out, &site).unwrap();
        let list = fs::read(out.join(MANIFEST)).unwrap();

        // One page gone and one new: the list stays, the changes say so.
        let mut changed: Vec<_> = site.iter().skip(1).cloned().collect();
        changed.push(file("q/new.html", "new"));
        let stats = write_output(&out, &changed).unwrap();
        assert_eq!((stats.written, stats.removed), (1, 1));
        assert!(!out.join("p/00000.html").exists());
        assert_eq!(fs::read(out.join(MANIFEST)).unwrap(), list);
        let changes = fs::read_to_string(out.join(MANIFEST_CHANGES)).unwrap();
        assert_eq!(
            changes.lines().skip(1).collect::<Vec<_>>(),
            ["-p/00000.html", "+q/new.html"]
        );

        // The next build reads both: the new page, no longer made, is removed too.
        let stats = write_output(&out, &changed[..changed.len() - 1]).unwrap();
        assert_eq!(stats.removed, 1);
        assert!(!out.join("q/new.html").exists());
        let earlier = manifest::EarlierManifest::read(&out).unwrap();
        let expected: Vec<&str> = changed[..changed.len() - 1]
            .iter()
            .map(|(p, _)| p.as_str())
            .collect();
        assert_eq!(earlier.paths().all(), expected);

        // Back to the first site: the folder is as that site's first build left it.
        write_output(&out, &site).unwrap();
        assert_eq!(fs::read(out.join(MANIFEST)).unwrap(), list);
        assert!(!out.join(MANIFEST_CHANGES).exists());
        assert!(write_output(&out, &[file(MANIFEST_CHANGES, "x")]).is_err());
    }

    #[test]
    fn refuses_paths_outside_the_output() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        let err = write_output(&out, &[file("../escape.html", "x")]).unwrap_err();
        assert!(err.to_string().contains("unsafe output path"), "{err}");
        assert!(!dir.path().join("escape.html").exists());
    }

    #[cfg(unix)]
    #[test]
    fn refuses_symlinked_folders_leading_out() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        let outside = dir.path().join("outside");
        fs::create_dir_all(&out).unwrap();
        fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, out.join("authors")).unwrap();
        let err = write_output(&out, &[file("authors/x/index.html", "x")]).unwrap_err();
        assert!(
            err.to_string().contains("outside the output folder"),
            "{err}"
        );
        assert!(
            !outside.join("x").exists(),
            "nothing created through the link"
        );
    }
}
