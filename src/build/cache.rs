//! The build cache in `<root>/.profilegen/`: what the last successful build read and
//! wrote, so the next one renders only what changed.
//!
//! * `inputs`: a hash of every input file's path and bytes, the command-line options
//!   that shape the output, and the profilegen version. When it is unchanged and every
//!   output file is still as the last build left it, a build has nothing to do.
//! * `outputs`: for each output file, the fingerprint of what it was made from (see
//!   `plan::fingerprint`), its size, and its modification time: as read from the file,
//!   or for a file the build wrote, the span of time the build was writing (see
//!   [`FileState`]). An output is rendered again only when its fingerprint changed or
//!   the file on disk is not the one written (another size, or a time outside the span).
//!
//! A missing, unreadable or older-version cache is simply ignored: the build is then a
//! full one. The cache never changes what is built, only how much work it takes.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::diagnostics::Diagnostic;
use crate::hash::content_hash;
use crate::output::{write_parts_atomically, FileState};

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
    pub outputs: HashMap<String, OutputState>,
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
/// `build` and `serve` (which builds elsewhere) do not overwrite each other's cache.
pub fn cache_file(root: &Path, output: &Path) -> PathBuf {
    let output = fs::canonicalize(output).unwrap_or_else(|_| output.to_path_buf());
    let key = content_hash(output.to_string_lossy().as_bytes());
    root.join(CACHE_DIR).join(format!("build-{key:016x}.cache"))
}

/// The layout of the cache file; a cache in another layout is ignored.
const FORMAT: u32 = 2;

/// The header of a cache file: everything but the outputs.
#[derive(Serialize, Deserialize)]
struct Header {
    /// [`FORMAT`]; caches written before it was recorded have none (0).
    #[serde(default)]
    format: u32,
    version: String,
    inputs: u64,
    summary: CachedSummary,
    diagnostics: Vec<Diagnostic>,
}

/// Reads a cache; `None` when there is none, it does not parse, or another version of
/// profilegen wrote it.
///
/// The format is one JSON line (version, inputs hash, summary, diagnostics) followed by
/// one line per output, `fingerprint size modified until path`, numbers in hexadecimal
/// (`until` as its distance from `modified`): tens
/// of thousands of outputs load in a few milliseconds.
pub fn load(path: &Path) -> Option<BuildCache> {
    let text = fs::read_to_string(path).ok()?;
    let mut lines = text.lines();
    let header: Header = serde_json::from_str(lines.next()?).ok()?;
    if header.format != FORMAT || header.version != env!("CARGO_PKG_VERSION") {
        return None;
    }
    let mut outputs = HashMap::new();
    for line in lines {
        let mut fields = line.splitn(5, ' ');
        let fingerprint = u64::from_str_radix(fields.next()?, 16).ok()?;
        let size = u64::from_str_radix(fields.next()?, 16).ok()?;
        let modified_ns = u128::from_str_radix(fields.next()?, 16).ok()?;
        let span = u128::from_str_radix(fields.next()?, 16).ok()?;
        let path = fields.next()?.to_string();
        outputs.insert(
            path,
            OutputState {
                fingerprint,
                file: FileState {
                    size,
                    modified_ns,
                    modified_until_ns: modified_ns.checked_add(span)?,
                },
            },
        );
    }
    Some(BuildCache {
        version: header.version,
        inputs: header.inputs,
        summary: header.summary,
        diagnostics: header.diagnostics,
        outputs,
    })
}

/// Writes a cache atomically, creating the cache folder (with a `.gitignore` that
/// ignores it) when needed.
pub fn save(path: &Path, cache: &BuildCache) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
        let ignore = dir.join(".gitignore");
        if !ignore.exists() {
            fs::write(ignore, "*\n")?;
        }
    }
    let header = Header {
        format: FORMAT,
        version: cache.version.clone(),
        inputs: cache.inputs,
        summary: cache.summary,
        diagnostics: cache.diagnostics.clone(),
    };
    let mut text = serde_json::to_string(&header).map_err(io::Error::other)?;
    text.push('\n');
    // In no particular order: only profilegen reads it, into a map. Tens of thousands of
    // lines, written in parallel chunks.
    let entries: Vec<(&String, &OutputState)> = cache
        .outputs
        .iter()
        // Output paths are made of slugs: no line breaks.
        .filter(|(path, _)| !path.contains('\n'))
        .collect();
    let chunks: Vec<String> = entries
        .par_chunks(4096)
        .map(|chunk| {
            let mut lines = String::with_capacity(chunk.iter().map(|(p, _)| p.len() + 48).sum());
            for (path, state) in chunk {
                push_hex(&mut lines, u128::from(state.fingerprint));
                lines.push(' ');
                push_hex(&mut lines, u128::from(state.file.size));
                lines.push(' ');
                push_hex(&mut lines, state.file.modified_ns);
                lines.push(' ');
                push_hex(
                    &mut lines,
                    state
                        .file
                        .modified_until_ns
                        .saturating_sub(state.file.modified_ns),
                );
                lines.push(' ');
                lines.push_str(path);
                lines.push('\n');
            }
            lines
        })
        .collect();
    let mut parts: Vec<&[u8]> = vec![text.as_bytes()];
    parts.extend(chunks.iter().map(|chunk| chunk.as_bytes()));
    write_parts_atomically(path, &parts)
        .map_err(|err| io::Error::new(err.source.kind(), err.to_string()))
}

/// Appends `n` in lowercase hexadecimal, without leading zeros (as `{:x}`).
fn push_hex(text: &mut String, n: u128) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut buf = [0u8; 32];
    let mut start = buf.len();
    let mut rest = n;
    loop {
        start -= 1;
        buf[start] = DIGITS[(rest & 0xf) as usize];
        rest >>= 4;
        if rest == 0 {
            break;
        }
    }
    // Hexadecimal digits are ASCII, so the bytes are a string.
    text.push_str(std::str::from_utf8(&buf[start..]).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    #[test]
    fn hex_is_as_formatted() {
        for n in [0u128, 9, 10, 255, 4096, u128::from(u64::MAX), u128::MAX] {
            let mut text = String::new();
            super::push_hex(&mut text, n);
            assert_eq!(text, format!("{n:x}"));
        }
    }

    use super::*;

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
        save(&path, &cache).unwrap();
        assert_eq!(load(&path), Some(cache.clone()));
        assert!(dir.path().join(CACHE_DIR).join(".gitignore").exists());
        cache.version = "0.0.0-other".into();
        save(&path, &cache).unwrap();
        assert_eq!(load(&path), None);
        fs::write(&path, "not json").unwrap();
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
