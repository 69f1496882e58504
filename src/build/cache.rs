//! The build cache in `<root>/.profilegen/`: what the last successful build read and
//! wrote, so the next one renders only what changed.
//!
//! * `inputs`: a hash of every input file's path and bytes, the command-line options
//!   that shape the output, and the profilegen version. When it is unchanged and every
//!   output file is still as the last build left it, a build has nothing to do.
//! * `outputs`: for each output file, the fingerprint of what it was made from (see
//!   `render::context::reads`), its size, and its modification time: as read from the file,
//!   or for a file the build wrote, the span of time the build was writing (see
//!   [`FileState`]). An output is rendered again only when its fingerprint changed or
//!   the file on disk is not the one written (another size, or a time outside the span).
//!
//! A missing, unreadable or older-version cache is simply ignored: the build is then a
//! full one. The cache changes what is built only by the slug history it keeps
//! (`history`: the redirects of moved pages; a forced build keeps it too, and so does
//! the first build of another version, see [`Loaded`]); for the rest it changes
//! only how much work a build takes.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::diagnostics::Diagnostic;
use crate::hash::{content_hash, ByPath};
use crate::output::{remove_stale_temp_files, write_atomically_with, FileState};
use crate::plan::redirects::SlugHistory;

/// The cache folder, at the site root.
pub const CACHE_DIR: &str = ".profilegen";

/// What the last successful build into one output folder read and wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildCache {
    /// The profilegen version that wrote the cache.
    pub version: String,
    /// Hash of all inputs and output-shaping options.
    pub inputs: u64,
    /// Counts for the summary line.
    pub summary: CachedSummary,
    /// The diagnostics of that build, shown again when nothing changed.
    pub diagnostics: Vec<Diagnostic>,
    /// Each generated output file (path relative to the output folder).
    pub outputs: ByPath<OutputState>,
    /// The slugs of that build and its redirects, for the next to tell moved pages.
    pub history: SlugHistory,
}

/// Counts of the last build, for the summary line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CachedSummary {
    /// Authors.
    pub authors: usize,
    /// Papers.
    pub papers: usize,
    /// Papers shared by several authors.
    pub shared_papers: usize,
    /// HTML pages.
    pub pages: usize,
    /// All files, static ones included.
    pub files: usize,
    /// Old URLs that lead to moved pages.
    pub redirects: usize,
}

/// One output file as the last build left it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputState {
    /// Fingerprint of what it was made from.
    pub fingerprint: u64,
    /// The file's size and modification time after the build.
    pub file: FileState,
}

/// Where the cache of builds into `output` lives: one file per output folder, so that
/// `build` and `serve` (which builds elsewhere) do not overwrite each other's cache. The
/// folder is named by its canonical path; in `generations` by that of the link itself
/// (the folder it leads to changes with every build), and so is a folder not made yet.
pub fn cache_file(root: &Path, output: &Path, generations: bool) -> PathBuf {
    let output = match (generations, output.parent(), output.file_name()) {
        (true, Some(parent), Some(name)) => canonical_path(parent).join(name),
        _ => canonical_path(output),
    };
    let key = content_hash(output.to_string_lossy().as_bytes());
    root.join(CACHE_DIR).join(format!("build-{key:016x}.cache"))
}

/// `path` made absolute with every link resolved, also when it does not exist yet (a
/// first build's output folder): its longest existing ancestor, canonical, joined with
/// the rest. So a first build saves its cache where the next one looks.
fn canonical_path(path: &Path) -> PathBuf {
    let path = if path.as_os_str().is_empty() {
        Path::new(".")
    } else {
        path
    };
    if let Ok(canonical) = fs::canonicalize(path) {
        return canonical;
    }
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    match (absolute.parent(), absolute.file_name()) {
        (Some(parent), Some(name)) => canonical_path(parent).join(name),
        _ => absolute,
    }
}

/// The layout of the cache file; a cache in another layout is ignored.
const FORMAT: u32 = 5;

/// The start of a cache file: which layout and which profilegen wrote it.
#[derive(Serialize, Deserialize)]
struct Head<'a> {
    format: u32,
    version: &'a str,
}

/// The rest of a cache file, as written.
#[derive(Serialize)]
struct Body<'a> {
    inputs: u64,
    summary: CachedSummary,
    diagnostics: &'a [Diagnostic],
    outputs: Vec<(&'a str, &'a OutputState)>,
    history: &'a SlugHistory,
}

/// The rest of a cache file, as read.
#[derive(Deserialize)]
struct OwnedBody {
    inputs: u64,
    summary: CachedSummary,
    diagnostics: Vec<Diagnostic>,
    outputs: Vec<(String, OutputState)>,
    history: SlugHistory,
}

/// What a cache file gives a build.
#[derive(Debug, PartialEq)]
pub enum Loaded {
    /// The cache this profilegen wrote: all of it.
    Current(BuildCache),
    /// Only what earlier builds knew of slugs, from a cache another profilegen version
    /// wrote in this layout: a build cannot vouch for another version's outputs, but the
    /// first build after an upgrade still keeps the redirects. The abstracts' keys are
    /// left out: code that may have changed made them, and they are only a saving.
    OtherVersion(SlugHistory),
}

/// Reads a cache; `None` when there is none, it does not parse, or it is in another
/// layout.
///
/// The format is postcard (serde's compact binary format, with a documented stable
/// wire format): a head (layout and version), then the inputs hash, the summary, the
/// diagnostics, the outputs and the slug history. A head in another layout ends the
/// reading early.
pub fn load(path: &Path) -> Option<Loaded> {
    let bytes = fs::read(path).ok()?;
    let (head, rest) = postcard::take_from_bytes::<Head>(&bytes).ok()?;
    if head.format != FORMAT {
        return None;
    }
    let body: OwnedBody = postcard::from_bytes(rest).ok()?;
    if head.version != env!("CARGO_PKG_VERSION") {
        let mut history = body.history;
        history.abstract_keys.clear();
        return Some(Loaded::OtherVersion(history));
    }
    Some(Loaded::Current(BuildCache {
        version: head.version.to_string(),
        inputs: body.inputs,
        summary: body.summary,
        diagnostics: body.diagnostics,
        outputs: body.outputs.into_iter().collect(),
        history: body.history,
    }))
}

/// Writes a cache atomically, creating the cache folder (with a `.gitignore` that
/// ignores it) when needed, and removing the temporary files that a process killed
/// while it saved a file there left behind ([`remove_stale_temp_files`]).
pub fn save(path: &Path, cache: &BuildCache) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
        let ignore = dir.join(".gitignore");
        if !ignore.exists() {
            fs::write(ignore, "*\n")?;
        }
        remove_stale_temp_files(dir, std::time::SystemTime::now());
    }
    let head = Head {
        format: FORMAT,
        version: &cache.version,
    };
    let body = Body {
        inputs: cache.inputs,
        summary: cache.summary,
        diagnostics: &cache.diagnostics,
        outputs: cache.outputs.iter().map(|(p, s)| (p.as_str(), s)).collect(),
        history: &cache.history,
    };
    write_atomically_with(path, |file| {
        postcard::to_io(&head, &mut *file).map_err(io::Error::other)?;
        postcard::to_io(&body, file).map_err(io::Error::other)?;
        Ok(())
    })
    .map_err(|err| io::Error::new(err.source.kind(), err.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_folder_has_one_cache_before_and_after_it_exists() {
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("site/public");
        let before = cache_file(dir.path(), &output, false);
        fs::create_dir_all(&output).unwrap();
        assert_eq!(cache_file(dir.path(), &output, false), before);
        let dotted = dir.path().join("site/./public");
        assert_eq!(cache_file(dir.path(), &dotted, false), before);
        // A generations link is named by itself, made or not.
        let link = dir.path().join("site/live");
        let before = cache_file(dir.path(), &link, true);
        std::os::unix::fs::symlink(&output, &link).unwrap();
        assert_eq!(cache_file(dir.path(), &link, true), before);
        assert_ne!(before, cache_file(dir.path(), &output, true));
    }

    #[test]
    fn round_trips_and_rejects_other_versions_and_garbage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CACHE_DIR).join("build-x.cache");
        let mut cache = BuildCache {
            version: env!("CARGO_PKG_VERSION").into(),
            inputs: 42,
            ..BuildCache::default()
        };
        cache.outputs.insert(
            "papers/a b/index.html".into(),
            OutputState {
                fingerprint: u64::MAX,
                file: FileState {
                    size: 0,
                    modified_ns: u128::MAX,
                    modified_until_ns: u128::MAX,
                },
            },
        );
        cache.outputs.insert(
            "index.html".into(),
            OutputState {
                fingerprint: 7,
                file: FileState {
                    size: 3,
                    modified_ns: 9,
                    modified_until_ns: 14,
                },
            },
        );
        cache.outputs.insert(
            "odd\npath with a line break".into(),
            OutputState {
                fingerprint: 1,
                file: FileState {
                    size: 1,
                    modified_ns: 1,
                    modified_until_ns: 1,
                },
            },
        );
        cache
            .diagnostics
            .push(Diagnostic::warning("a warning", None));
        save(&path, &cache).unwrap();
        assert_eq!(load(&path), Some(Loaded::Current(cache.clone())));
        assert!(dir.path().join(CACHE_DIR).join(".gitignore").exists());
        let whole = fs::read(&path).unwrap();
        fs::write(&path, &whole[..whole.len() - 3]).unwrap();
        assert_eq!(load(&path), None, "a truncated cache is ignored");
        // Another version's cache gives its history, but for the abstracts' keys.
        cache
            .history
            .redirects
            .push(("authors/old/".into(), "authors/new/".into()));
        cache.history.abstract_keys.push((1, 2));
        cache.version = "0.0.0-other".into();
        save(&path, &cache).unwrap();
        let Some(Loaded::OtherVersion(history)) = load(&path) else {
            panic!("another version's history");
        };
        assert_eq!(history.redirects, cache.history.redirects);
        assert!(history.abstract_keys.is_empty());
        fs::write(&path, "not a cache").unwrap();
        assert_eq!(load(&path), None);
        assert_eq!(load(&dir.path().join("missing")), None);
    }

    #[test]
    fn file_state_sees_changes() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a");
        fs::write(&file, "one").unwrap();
        let before = FileState::of(&file).unwrap();
        assert_eq!(before.size, 3);
        fs::write(&file, "three").unwrap();
        assert_ne!(FileState::of(&file), Some(before));
        assert_eq!(FileState::of(dir.path()), None, "folders have no state");
    }

    #[test]
    fn a_span_admits_the_times_within_it() {
        let span = FileState {
            size: 5,
            modified_ns: 100,
            modified_until_ns: 200,
        };
        let at = |size: u64, ns: u128| FileState {
            size,
            modified_ns: ns,
            modified_until_ns: ns,
        };
        assert!(span.admits(&at(5, 100)));
        assert!(span.admits(&at(5, 150)));
        assert!(span.admits(&at(5, 200)));
        assert!(!span.admits(&at(5, 201)), "changed after the writing");
        assert!(!span.admits(&at(5, 99)), "older than the writing");
        assert!(!span.admits(&at(6, 150)), "another size");
        let exact = at(5, 150);
        assert!(exact.admits(&at(5, 150)));
        assert!(!exact.admits(&at(5, 151)));
    }
}
