//! The manifest: the files profilegen wrote into an output folder, so that the next
//! build removes those it no longer makes, and nothing else.
//!
//! * [`MANIFEST`] lists them, one relative path a line, sorted.
//! * A build that changes few of a large site's files does not write the whole list
//!   again: a rebuild as the benchmark's new record file comes or goes adds or removes
//!   three of the million paths of a 500,000-paper site (the author's page and feed and
//!   a search shard), whose list is 58 MB (half a second to write on a disk). It writes
//!   the paths added and removed since the list was last written whole
//!   to [`MANIFEST_CHANGES`], whose first line names the list they apply to (its length
//!   and hash). Changes that do not match the list are ignored: they are left from
//!   before the list was last written whole (a build killed between the two writes).
//! * Lists under [`CHANGES_MIN_PATHS`] paths, and changes past a
//!   [`CHANGES_MAX_SHARE`]th of the list, are written whole (and the changes removed).

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::Path;

use super::{io_err, write_atomically, write_atomically_with, OutputError};

/// The list of files the builds wrote, one relative path a line, sorted.
pub const MANIFEST: &str = ".profilegen-manifest";

/// The paths added to and removed from the [`MANIFEST`] since it was written whole.
pub const MANIFEST_CHANGES: &str = ".profilegen-manifest-changes";

/// The fewest paths a list must have for its changes to be written apart from it.
pub const CHANGES_MIN_PATHS: usize = 4096;

/// Changes are kept apart while they are at most this fraction (its inverse) of the list.
pub const CHANGES_MAX_SHARE: usize = 16;

/// The manifest an earlier build left in an output folder.
pub struct EarlierManifest {
    list: String,
    /// The changes file, when it applies to `list`.
    changes: Option<String>,
}

impl EarlierManifest {
    /// Reads the manifest in the output folder `root`, if there is one.
    pub fn read(root: &Path) -> Option<EarlierManifest> {
        let list = fs::read_to_string(root.join(MANIFEST)).ok()?;
        let changes = fs::read_to_string(root.join(MANIFEST_CHANGES))
            .ok()
            .filter(|changes| changes.lines().next() == Some(changes_header(&list).as_str()));
        Some(EarlierManifest { list, changes })
    }

    /// The paths it records: its list's lines, and those with the changes applied.
    pub fn paths(&self) -> RecordedPaths<'_> {
        let listed: Vec<&str> = self.list.lines().collect();
        let changed = self.changes.as_ref().map(|changes| {
            let (added, removed) = parse_changes(changes);
            let removed: HashSet<&str> = removed.into_iter().collect();
            let kept = listed
                .iter()
                .copied()
                .filter(|path| !removed.contains(path));
            merge_sorted(kept, added)
        });
        RecordedPaths { listed, changed }
    }
}

/// The paths an [`EarlierManifest`] records, its list's lines read once: a build
/// compares every path it made with the paths recorded, and writes its changes to that
/// list (a million lines on a 500,000-paper site, read again for it before).
pub struct RecordedPaths<'m> {
    /// The list's lines, in its order.
    listed: Vec<&'m str>,
    /// The list with the changes applied; `None` when there are no changes.
    changed: Option<Vec<&'m str>>,
}

impl<'m> RecordedPaths<'m> {
    /// Every path recorded: the list's, in its order, with the changes applied.
    pub fn all(&self) -> &[&'m str] {
        self.changed.as_deref().unwrap_or(&self.listed)
    }
}

/// Records `files` (sorted, each once) as the files of the output folder `root` that
/// profilegen wrote, where `earlier` (with the paths it records) was the record:
/// nothing is written when it lists them already, the changes when they are few, else
/// the list.
pub fn record(
    root: &Path,
    earlier: Option<(&EarlierManifest, &RecordedPaths)>,
    files: &[&str],
) -> Result<(), OutputError> {
    if let Some((earlier, recorded)) = earlier {
        if recorded.all() == files {
            return Ok(());
        }
        let listed = &recorded.listed;
        let sorted = listed.windows(2).all(|pair| pair[0] < pair[1]);
        if sorted && listed.len() >= CHANGES_MIN_PATHS {
            let (added, removed) = differences(listed, files);
            if added.len() + removed.len() <= listed.len() / CHANGES_MAX_SHARE {
                return write_changes(root, &earlier.list, &added, &removed);
            }
        }
    }
    // Written as it is made: at a million paths the list would be 60 MB more at the
    // end of a build, when its memory peaks.
    write_atomically_with(&root.join(MANIFEST), |out| {
        files.iter().try_for_each(|path| {
            out.write_all(path.as_bytes())?;
            out.write_all(b"\n")
        })
    })?;
    remove_changes(root)
}

/// The first line of a changes file that applies to `list`.
fn changes_header(list: &str) -> String {
    let hash = xxhash_rust::xxh3::xxh3_64(list.as_bytes());
    format!(
        "# changes to the manifest of {} bytes, {hash:016x}",
        list.len()
    )
}

/// Writes the changes to `list` (`added` and `removed`, each sorted), or removes the
/// changes file when there are none.
fn write_changes(
    root: &Path,
    list: &str,
    added: &[&str],
    removed: &[&str],
) -> Result<(), OutputError> {
    if added.is_empty() && removed.is_empty() {
        return remove_changes(root);
    }
    let mut changes = changes_header(list);
    changes.push('\n');
    let marked_added = added.iter().map(|path| ('+', *path));
    let marked_removed = removed.iter().map(|path| ('-', *path));
    let mut marked: Vec<(char, &str)> = marked_added.chain(marked_removed).collect();
    marked.sort_unstable_by_key(|&(_, path)| path);
    for (mark, path) in marked {
        changes.push(mark);
        changes.push_str(path);
        changes.push('\n');
    }
    write_atomically(&root.join(MANIFEST_CHANGES), changes.as_bytes())
}

/// Removes the changes file, if there is one.
fn remove_changes(root: &Path) -> Result<(), OutputError> {
    let path = root.join(MANIFEST_CHANGES);
    match fs::remove_file(&path) {
        Err(err) if err.kind() != io::ErrorKind::NotFound => Err(io_err("remove", &path)(err)),
        _ => Ok(()),
    }
}

/// The paths a changes file adds and removes (lines after the header starting with `+`
/// and `-`), each in the file's order.
fn parse_changes(changes: &str) -> (Vec<&str>, Vec<&str>) {
    let (mut added, mut removed) = (Vec::new(), Vec::new());
    for line in changes.lines().skip(1) {
        if let Some(path) = line.strip_prefix('+') {
            added.push(path);
        } else if let Some(path) = line.strip_prefix('-') {
            removed.push(path);
        }
    }
    (added, removed)
}

/// The paths of `files` not in `listed`, and those of `listed` not in `files` (both
/// sorted, so walked side by side).
fn differences<'p>(listed: &[&'p str], files: &[&'p str]) -> (Vec<&'p str>, Vec<&'p str>) {
    let (mut added, mut removed) = (Vec::new(), Vec::new());
    let (mut old, mut new) = (listed.iter().peekable(), files.iter().peekable());
    loop {
        match (old.peek(), new.peek()) {
            (Some(o), Some(n)) if o == n => {
                old.next();
                new.next();
            }
            (Some(o), Some(n)) if o < n => removed.extend(old.next()),
            (_, Some(_)) => added.extend(new.next()),
            (Some(_), None) => removed.extend(old.next()),
            (None, None) => return (added, removed),
        }
    }
}

/// `a` and `b` (each sorted) as one sorted list, a path in both once.
fn merge_sorted<'p>(a: impl Iterator<Item = &'p str>, b: Vec<&'p str>) -> Vec<&'p str> {
    let mut merged = Vec::with_capacity(b.len());
    let mut b = b.into_iter().peekable();
    for path in a {
        while let Some(earlier) = b.next_if(|added| *added < path) {
            merged.push(earlier);
        }
        b.next_if_eq(&path);
        merged.push(path);
    }
    merged.extend(b);
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(count: usize) -> Vec<String> {
        (0..count).map(|i| format!("papers/p{i:05}.html")).collect()
    }

    fn as_strs(paths: &[String]) -> Vec<&str> {
        paths.iter().map(String::as_str).collect()
    }

    /// Records `files` after whatever manifest `root` holds; returns what it holds then.
    fn record_after_earlier(root: &Path, files: &[String]) -> Vec<String> {
        let earlier = EarlierManifest::read(root);
        let recorded = earlier.as_ref().map(EarlierManifest::paths);
        let files = as_strs(files);
        record(root, earlier.as_ref().zip(recorded.as_ref()), &files).unwrap();
        let now = EarlierManifest::read(root).unwrap();
        now.paths()
            .all()
            .iter()
            .map(|path| path.to_string())
            .collect()
    }

    #[test]
    fn differences_and_merges_of_sorted_lists() {
        let (added, removed) = differences(&["a", "b", "d", "f"], &["b", "c", "d", "g", "h"]);
        assert_eq!(added, ["c", "g", "h"]);
        assert_eq!(removed, ["a", "f"]);
        assert_eq!(differences(&[], &["a"]), (vec!["a"], vec![]));
        assert_eq!(differences(&["a"], &[]), (vec![], vec!["a"]));
        let merged = merge_sorted(["b", "d", "f"].into_iter(), vec!["a", "d", "e", "g"]);
        assert_eq!(merged, ["a", "b", "d", "e", "f", "g"]);
    }

    #[test]
    fn a_small_list_is_written_whole() {
        let dir = tempfile::tempdir().unwrap();
        let files = paths(10);
        assert_eq!(record_after_earlier(dir.path(), &files), files);
        let fewer = paths(9);
        assert_eq!(record_after_earlier(dir.path(), &fewer), fewer);
        let list = fs::read_to_string(dir.path().join(MANIFEST)).unwrap();
        assert_eq!(list.lines().count(), 9);
        assert!(!dir.path().join(MANIFEST_CHANGES).exists());
    }

    /// A folder whose manifest lists the smallest list kept apart from its changes.
    fn folder_with_a_large_list() -> (tempfile::TempDir, Vec<String>) {
        let dir = tempfile::tempdir().unwrap();
        let base = paths(CHANGES_MIN_PATHS);
        record_after_earlier(dir.path(), &base);
        (dir, base)
    }

    #[test]
    fn few_changes_to_a_large_list_are_written_apart_until_they_are_many() {
        let (dir, base) = folder_with_a_large_list();
        let root = dir.path();
        let list = fs::read(root.join(MANIFEST)).unwrap();

        // One path removed and two added: only the changes are written.
        let mut changed = base.clone();
        changed.remove(7);
        changed.push("papers/zz-new.html".into());
        changed.push("authors/new/index.html".into());
        changed.sort();
        assert_eq!(record_after_earlier(root, &changed), changed);
        assert_eq!(fs::read(root.join(MANIFEST)).unwrap(), list, "list kept");
        let changes = fs::read_to_string(root.join(MANIFEST_CHANGES)).unwrap();
        let lines: Vec<&str> = changes.lines().skip(1).collect();
        assert_eq!(
            lines,
            [
                "+authors/new/index.html",
                "-papers/p00007.html",
                "+papers/zz-new.html"
            ]
        );

        // The same files again: nothing written.
        let before = fs::metadata(root.join(MANIFEST_CHANGES)).unwrap();
        assert_eq!(record_after_earlier(root, &changed), changed);
        let after = fs::metadata(root.join(MANIFEST_CHANGES)).unwrap();
        assert_eq!(before.modified().unwrap(), after.modified().unwrap());

        // Back to the list: the changes go.
        assert_eq!(record_after_earlier(root, &base), base);
        assert!(!root.join(MANIFEST_CHANGES).exists());

        // Changes past a sixteenth of the list: the list is written whole.
        let many = paths(CHANGES_MIN_PATHS + CHANGES_MIN_PATHS / CHANGES_MAX_SHARE + 1);
        assert_eq!(record_after_earlier(root, &many), many);
        assert!(!root.join(MANIFEST_CHANGES).exists());
        let list = fs::read_to_string(root.join(MANIFEST)).unwrap();
        assert_eq!(list.lines().collect::<Vec<_>>(), as_strs(&many));
    }

    #[test]
    fn changes_to_another_list_are_ignored() {
        let (dir, base) = folder_with_a_large_list();
        let root = dir.path();
        let mut changed = base.clone();
        changed.push("z/new.html".into());
        record_after_earlier(root, &changed);
        // The list written whole after them (a build killed before it removed them).
        let other = paths(CHANGES_MIN_PATHS - 1);
        let mut list = as_strs(&other).join("\n");
        list.push('\n');
        fs::write(root.join(MANIFEST), list).unwrap();
        assert!(root.join(MANIFEST_CHANGES).exists());
        let earlier = EarlierManifest::read(root).unwrap();
        assert_eq!(
            earlier.paths().all(),
            as_strs(&other),
            "changes not applied"
        );
    }
}
