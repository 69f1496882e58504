//! Writing the output folder.
//!
//! * Every file is first written to a staging folder inside the output folder and
//!   renamed into place only when the whole build has succeeded, so a failed build
//!   changes nothing and a reader (a web server, rsync, a killed build) only ever sees a
//!   whole old or a whole new file.
//! * A file whose bytes did not change is not touched: it keeps its modification time.
//! * Files written by an earlier build and not by this one are removed. The list of
//!   what profilegen wrote is kept in the output folder ([`MANIFEST`]); nothing else in
//!   the folder is ever deleted.
//! * Nothing is written outside the output folder: every path must be relative with
//!   plain components, and every folder written into must resolve inside the output
//!   folder (a symlink out of it is refused).

use std::collections::{BTreeSet, HashSet};
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use rayon::prelude::*;

use crate::plan::PlannedFile;

/// The list of files the last build wrote, one relative path a line.
pub const MANIFEST: &str = ".profilegen-manifest";

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

/// Writes one build's files into an output folder in two steps: [`OutputWriter::stage`]
/// each file as it is produced (from any thread), then [`OutputWriter::commit`] them all
/// once the build has succeeded, or [`OutputWriter::abort`] to leave the folder as it
/// was.
///
/// Staging compares each file with the one already in place and keeps only changed
/// files, in a staging folder inside the output folder (so the final rename never
/// crosses file systems). Memory use does not grow with the site.
pub struct OutputWriter {
    root: PathBuf,
    staging: PathBuf,
    next_id: AtomicUsize,
    /// `(relative path, staged file)` of every changed file.
    staged: Mutex<Vec<(String, PathBuf)>>,
    /// Relative path of every file of this build.
    all: Mutex<Vec<String>>,
}

impl OutputWriter {
    /// Opens `out_dir` (created if missing) for a new build, clearing any staging folder
    /// a killed build left behind.
    pub fn open(out_dir: &Path) -> Result<OutputWriter, OutputError> {
        fs::create_dir_all(out_dir).map_err(io_err("create", out_dir))?;
        let root = fs::canonicalize(out_dir).map_err(io_err("resolve", out_dir))?;
        let staging = root.join(STAGING_DIR);
        match fs::remove_dir_all(&staging) {
            Ok(()) => {}
            Err(err) if err.kind() == io::ErrorKind::NotFound => {}
            Err(err) => return Err(io_err("clear", &staging)(err)),
        }
        fs::create_dir(&staging).map_err(io_err("create", &staging))?;
        Ok(OutputWriter {
            root,
            staging,
            next_id: AtomicUsize::new(0),
            staged: Mutex::new(Vec::new()),
            all: Mutex::new(Vec::new()),
        })
    }

    /// Stages one file. Returns whether its bytes differ from the file in place.
    pub fn stage(&self, file: &PlannedFile) -> Result<bool, OutputError> {
        if !is_safe_relative_path(&file.path)
            || file.path == MANIFEST
            || file.path.split('/').next() == Some(STAGING_DIR)
        {
            return Err(OutputError {
                path: PathBuf::from(&file.path),
                action: "write (unsafe output path)",
                source: io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "path leaves the output folder",
                ),
            });
        }
        lock(&self.all).push(file.path.clone());
        let target = self.root.join(&file.path);
        if let Ok(existing) = fs::symlink_metadata(&target) {
            if existing.is_file() && existing.len() == file.bytes.len() as u64 {
                if let Ok(old) = fs::read(&target) {
                    if old == file.bytes {
                        return Ok(false);
                    }
                }
            }
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let staged = self.staging.join(id.to_string());
        fs::write(&staged, &file.bytes).map_err(io_err("write", &staged))?;
        lock(&self.staged).push((file.path.clone(), staged));
        Ok(true)
    }

    /// Records that `path` belongs to this build although it was not staged (it is known
    /// to be unchanged), so that it is not removed as stale.
    pub fn keep(&self, path: &str) {
        lock(&self.all).push(path.to_string());
    }

    /// The folder files are written into (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Moves every staged file into place, removes the files of the previous build that
    /// this one did not produce, and records this build's files in the manifest.
    pub fn commit(self) -> Result<WriteStats, OutputError> {
        let root = &self.root;
        let mut staged = self.staged.into_inner().unwrap_or_else(|e| e.into_inner());
        staged.sort();
        let mut all = self.all.into_inner().unwrap_or_else(|e| e.into_inner());
        all.sort_unstable();
        all.dedup();

        // Create every folder, checking each resolves inside the output folder: level by
        // level, each level in parallel once its parents exist.
        let mut levels: Vec<BTreeSet<&str>> = Vec::new();
        for (path, _) in &staged {
            for (depth, (i, _)) in path.match_indices('/').enumerate() {
                if levels.len() <= depth {
                    levels.push(BTreeSet::new());
                }
                levels[depth].insert(&path[..i]);
            }
        }
        for level in &levels {
            level
                .par_iter()
                .try_for_each(|dir| ensure_dir_inside(root, &root.join(dir)))?;
        }
        staged.par_iter().try_for_each(|(path, staged_file)| {
            let target = root.join(path);
            fs::rename(staged_file, &target).map_err(io_err("replace", &target))
        })?;
        let _ = fs::remove_dir_all(&self.staging);

        // Remove what an earlier build wrote and this one did not.
        let manifest_path = root.join(MANIFEST);
        let current: HashSet<&str> = all.iter().map(String::as_str).collect();
        let old_manifest = fs::read_to_string(&manifest_path).ok();
        let mut removed = 0;
        if let Some(old) = &old_manifest {
            let mut emptied_dirs = BTreeSet::new();
            for old_path in old.lines() {
                if current.contains(old_path) || !is_safe_relative_path(old_path) {
                    continue;
                }
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
        }
        let mut manifest = all.join("\n");
        manifest.push('\n');
        if old_manifest.as_deref() != Some(manifest.as_str()) {
            write_atomically(&manifest_path, manifest.as_bytes())?;
        }
        Ok(WriteStats {
            written: staged.len(),
            unchanged: all.len() - staged.len(),
            removed,
        })
    }

    /// Discards everything staged: the output folder stays as it was.
    pub fn abort(self) {
        let _ = fs::remove_dir_all(&self.staging);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Writes `files` into `out_dir` (created if missing): stages them all, then commits.
pub fn write_output(out_dir: &Path, files: &[PlannedFile]) -> Result<WriteStats, OutputError> {
    let writer = OutputWriter::open(out_dir)?;
    let staged = files
        .par_iter()
        .try_for_each(|file| writer.stage(file).map(|_| ()));
    match staged {
        Ok(()) => writer.commit(),
        Err(err) => {
            writer.abort();
            Err(err)
        }
    }
}

/// Makes sure `path` (whose parent is known to be inside `root`) is a folder inside
/// `root`, creating it if missing. A symlink is followed only if it stays inside.
fn ensure_dir_inside(root: &Path, path: &Path) -> Result<(), OutputError> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            let resolved = fs::canonicalize(path).map_err(io_err("resolve", path))?;
            if !resolved.starts_with(root) || !resolved.is_dir() {
                return Err(OutputError {
                    path: path.to_path_buf(),
                    action: "write into",
                    source: io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "folder resolves outside the output folder",
                    ),
                });
            }
            Ok(())
        }
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => {
            // A file where a folder must go (e.g. left by hand): replace it.
            fs::remove_file(path).map_err(io_err("remove", path))?;
            fs::create_dir(path).map_err(io_err("create", path))
        }
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            fs::create_dir(path).map_err(io_err("create", path))
        }
        Err(err) => Err(io_err("inspect", path)(err)),
    }
}

/// Writes `bytes` to a temporary file beside `target`, then renames it over `target`.
pub fn write_atomically(target: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = target.with_file_name(format!(".{name}.profilegen-tmp"));
    fs::write(&temp, bytes).map_err(io_err("write", &temp))?;
    fs::rename(&temp, target).map_err(|err| {
        let _ = fs::remove_file(&temp);
        io_err("replace", target)(err)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, text: &str) -> PlannedFile {
        PlannedFile {
            path: path.into(),
            bytes: text.as_bytes().to_vec(),
        }
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
