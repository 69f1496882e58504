//! Reading a site's sources: configuration, record files (parsed in parallel), author
//! bios, extra pages, template overrides and static files, with the hash of every file
//! read (for the build cache). Hidden, temporary and editor files are skipped.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rayon::prelude::*;

use crate::config::{parse_config, SiteConfig, CONFIG_FILE};
use crate::content::{parse_bio, parse_page, Bio, ExtraPage};
use crate::diagnostics::{Diagnostic, Location};
use crate::hash::content_hash;
use crate::ignore;
use crate::records::{parse_record_file, RecordFile, TextPool};
use crate::reuse::Reuse;
use crate::slug::slugify;
use crate::text_store::TextStore;

pub mod kept;

use kept::KeptRecords;

/// Where a site's parts live, relative to its root.
pub const RECORDS_DIR: &str = "content/records";
/// Author bios.
pub const AUTHORS_DIR: &str = "content/authors";
/// Extra pages.
pub const PAGES_DIR: &str = "content/pages";
/// Template overrides.
pub const TEMPLATES_DIR: &str = "templates";
/// Static files copied as they are.
pub const STATIC_DIR: &str = "static";

/// Everything read from a site root, before linking.
#[derive(Debug, Default)]
pub struct SiteInput {
    /// Configuration.
    pub config: SiteConfig,
    /// Parsed record files (the readable ones).
    pub records: Vec<Arc<RecordFile>>,
    /// Author bios.
    pub bios: Vec<Bio>,
    /// Extra pages.
    pub pages: Vec<ExtraPage>,
    /// Template overrides from the site's `templates/`.
    pub templates: Vec<(String, String)>,
    /// Static files from the site's `static/`: `(relative path, bytes)`.
    pub static_files: Vec<(String, Vec<u8>)>,
    /// Diagnostics from reading and parsing.
    pub diagnostics: Vec<Diagnostic>,
    /// `(path relative to the root, hash of its bytes)` of every input file read.
    pub file_hashes: Vec<(String, u64)>,
    /// The text store the records' abstracts went to, when the pool they were read
    /// into stored them (see [`TextPool::storing_from`]).
    pub abstracts_store: Option<TextStore>,
    /// For each of `records`, the key of its size and modification time and the hash
    /// of its bytes, when it may be kept on disk as parsed ([`kept`]): its time is old
    /// enough to be trusted and parsing it gave no diagnostic.
    pub record_stamps: Vec<Option<(u64, u64)>>,
    /// How many of `records` this build read and parsed (the others it took as parsed
    /// from memory or from the kept records).
    pub records_parsed: usize,
}

impl SiteInput {
    /// One hash of every input file and of `extra` (options that shape the output).
    pub fn inputs_hash(&self, extra: &str) -> u64 {
        let mut hashes: Vec<&(String, u64)> = self.file_hashes.iter().collect();
        hashes.sort();
        let mut bytes = Vec::with_capacity(hashes.len() * 48 + extra.len());
        bytes.extend_from_slice(env!("CARGO_PKG_VERSION").as_bytes());
        bytes.push(0);
        bytes.extend_from_slice(extra.as_bytes());
        for (path, hash) in hashes {
            bytes.push(0);
            bytes.extend_from_slice(path.as_bytes());
            bytes.extend_from_slice(&hash.to_le_bytes());
        }
        content_hash(&bytes)
    }
}

/// Reads everything under a site root: configuration (fatal if broken), record files
/// (their abstracts shared through `pool`), bios, pages, template overrides and static
/// files.
pub fn read_site(
    root: &Path,
    (reuse, kept): (&RecordReuse, Option<&KeptRecords>),
    pool: TextPool,
) -> Result<SiteInput, Diagnostic> {
    let mut input = SiteInput::default();
    let config_path = root.join(CONFIG_FILE);
    match fs::read(&config_path) {
        Ok(bytes) => {
            input
                .file_hashes
                .push((CONFIG_FILE.to_string(), content_hash(&bytes)));
            let text = String::from_utf8(bytes).map_err(|err| {
                Diagnostic::error(format!("{CONFIG_FILE} is not valid UTF-8: {err}"), None)
            })?;
            input.config = parse_config(Path::new(CONFIG_FILE), &text)?;
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => {
            return Err(Diagnostic::error(
                format!("cannot read {}: {err}", config_path.display()),
                None,
            ))
        }
    }

    let (records, mut diagnostics, mut hashes, stamps) = read_records(root, (reuse, kept), &pool);
    input.records = records;
    (input.record_stamps, input.records_parsed) = stamps;
    input.abstracts_store = pool.into_store();
    input.diagnostics.append(&mut diagnostics);
    input.file_hashes.append(&mut hashes);

    for (slug, display, text) in read_markdown(root, AUTHORS_DIR, &mut input) {
        match parse_bio(&display, &slug, &text) {
            Ok(bio) => input.bios.push(bio),
            Err(d) => input.diagnostics.push(d.with_note("the bio is skipped")),
        }
    }
    let mut page_slugs = HashSet::new();
    for (stem, display, text) in read_markdown(root, PAGES_DIR, &mut input) {
        let slug = slugify(&stem, "page");
        if !page_slugs.insert(slug.clone()) {
            input.diagnostics.push(Diagnostic::warning(
                format!(
                    "page {} has the same URL /{slug}/ as another page; skipped",
                    display.display()
                ),
                Some(Location::at_line(&display, 1, 1, "", 1)),
            ));
            continue;
        }
        match parse_page(&display, &slug, &text) {
            Ok(page) => input.pages.push(page),
            Err(d) => input.diagnostics.push(d.with_note("the page is skipped")),
        }
    }
    input.templates = read_template_overrides(&root.join(TEMPLATES_DIR))?;
    input.static_files = read_static(&root.join(STATIC_DIR), &mut input.diagnostics);
    for (name, source) in &input.templates {
        let hash = content_hash(source.as_bytes());
        input
            .file_hashes
            .push((format!("{TEMPLATES_DIR}/{name}"), hash));
    }
    for (name, bytes) in &input.static_files {
        let hash = content_hash(bytes);
        input
            .file_hashes
            .push((format!("{STATIC_DIR}/{name}"), hash));
    }
    Ok(input)
}

/// A record file as parsed, with the diagnostics parsing it gave.
#[derive(Debug)]
pub struct ParsedRecordFile {
    /// The file, unless nothing in it was readable.
    pub file: Option<Arc<RecordFile>>,
    /// What was wrong in it.
    pub diagnostics: Vec<Diagnostic>,
}

/// What [`read_records`] may reuse from the previous build in the same process.
#[derive(Default)]
pub struct RecordReuse {
    /// Parsed record files, by path and bytes.
    pub parsed: Reuse<ParsedRecordFile>,
    /// Parsed record files with the hash of their bytes, by path, size and modification
    /// time: a file whose size and time did not change is not read again...
    pub stamps: Reuse<StampedRecordFile>,
    /// ... unless it is one of these, which the watcher saw change since the last build
    /// (relative to the site root): a copy that keeps an old file's size and time is
    /// still read.
    pub reported_changes: HashSet<PathBuf>,
    /// Set by the watcher when the files it reported are the only files of the site
    /// that changed since the last build, all of them record files: the others are then
    /// taken from the last build's listing, neither listed nor looked at again.
    pub only_reported_changed: bool,
    /// The record files the last build read, in path order, each with the key of the
    /// size and time it had then (if they could be trusted); kept only when a walk of
    /// plain folders (no symbolic link, nothing unreadable) found them, which is what
    /// the watcher sees too.
    listing: Mutex<Option<Vec<ListedFile>>>,
}

/// A record file as the last build found it: its path and the key of its size and
/// modification time (see [`stamp_key`]), if they could be trusted.
type ListedFile = (PathBuf, Option<u64>);

impl RecordReuse {
    /// Starts keeping results for the next build (see [`Reuse::enable`]).
    pub fn enable(&mut self) {
        self.parsed.enable();
        self.stamps.enable();
    }

    /// Ends a build: see [`Reuse::finish_build`].
    pub fn finish_build(&mut self) {
        self.parsed.finish_build();
        self.stamps.finish_build();
        self.reported_changes.clear();
        self.only_reported_changed = false;
    }

    /// The record files under `root` as the last build's listing and the reported
    /// changes give them, when the watcher vouches that nothing else changed: each
    /// reported path is looked up in the listing and added or dropped as it is now.
    fn vouched_listing(&self, root: &Path) -> Option<Vec<ListedFile>> {
        if !self.only_reported_changed || !self.stamps.is_enabled() {
            return None;
        }
        let records = root.join(RECORDS_DIR);
        if !reported_folders_are_plain(&records, &self.reported_changes) {
            return None;
        }
        let mut listing = self.listing.lock().ok()?.take()?;
        for rel in &self.reported_changes {
            let path = root.join(rel);
            let is_record = is_record_path(rel)
                && !ignore::is_ignored(rel.strip_prefix(RECORDS_DIR).unwrap_or(rel))
                && path.is_file();
            let key = path_order_key(&path);
            match listing.binary_search_by(|(p, _)| path_order_key(p).cmp(&key)) {
                Ok(at) if !is_record => drop(listing.remove(at)),
                Err(at) if is_record => listing.insert(at, (path, None)),
                _ => {}
            }
        }
        Some(listing)
    }
}

/// Whether `rel` (relative to the site root) is where a record file goes: a `.txt`
/// file under the records folder (whether its name is ignored is [`ignore`]'s rule).
pub fn is_record_path(rel: &Path) -> bool {
    rel.strip_prefix(RECORDS_DIR)
        .is_ok_and(|inner| inner.components().next().is_some() && has_record_extension(inner))
}

/// Whether `path` has a record file's extension, `.txt`.
fn has_record_extension(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "txt")
}

/// Whether the `records` folder, and every folder of it that holds a `reported` path
/// (relative to the site root), is a plain folder rather than a symbolic link. A folder
/// replaced by a link shows as its files changed; the link's folder must then be walked
/// (and, like any link, walked every time after).
fn reported_folders_are_plain(records: &Path, reported: &HashSet<PathBuf>) -> bool {
    let is_plain_folder = |dir: &Path| fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir());
    let inner_folders = reported
        .iter()
        .filter_map(|rel| rel.strip_prefix(RECORDS_DIR).ok()?.parent())
        .flat_map(Path::ancestors)
        .filter(|folder| !folder.as_os_str().is_empty());
    is_plain_folder(records)
        && inner_folders
            .into_iter()
            .all(|f| is_plain_folder(&records.join(f)))
}

/// A parsed record file with the hash of its bytes, as [`read_records`] remembers it by
/// path, size and modification time.
#[derive(Debug)]
pub struct StampedRecordFile {
    /// Hash of the file's bytes.
    pub hash: u64,
    /// The file as parsed.
    pub parsed: Arc<ParsedRecordFile>,
}

/// How old a file's modification time must be before its size and time are trusted to
/// say that it did not change (file systems with coarse times could otherwise hide a
/// second write within the same tick).
const STAMP_MIN_AGE: Duration = Duration::from_secs(2);

/// A key for `path`'s size and modification time, when they can be trusted.
fn stamp_key(shown: &str, path: &Path) -> Option<u64> {
    stamp_key_of(shown, &fs::metadata(path).ok()?)
}

/// A key for the size and modification time `meta` gives, when they can be trusted;
/// on Unix with the file's inode and status change time too, which no copy or tool
/// sets back (a file rewritten with its old size and modification time, as `cp -p` or
/// `rsync -t` may leave it, then gets another key).
fn stamp_key_of(shown: &str, meta: &fs::Metadata) -> Option<u64> {
    let modified = meta.modified().ok()?;
    let age = std::time::SystemTime::now().duration_since(modified).ok()?;
    if age < STAMP_MIN_AGE {
        return None;
    }
    let since_epoch = modified.duration_since(std::time::UNIX_EPOCH).ok()?;
    Some(crate::hash::key(
        "record stamp",
        &(shown, meta.len(), since_epoch.as_nanos(), status_of(meta)),
    ))
}

/// The inode and status change time (seconds, nanoseconds) of the file `meta`
/// describes.
#[cfg(unix)]
fn status_of(meta: &fs::Metadata) -> (u64, i64, i64) {
    use std::os::unix::fs::MetadataExt;
    (meta.ino(), meta.ctime(), meta.ctime_nsec())
}

#[cfg(not(unix))]
fn status_of(_: &fs::Metadata) -> (u64, i64, i64) {
    (0, 0, 0)
}

/// The records of the site, their diagnostics, each file's path and hash, and each
/// record file's stamp with how many were parsed (see [`SiteInput::record_stamps`]).
type ReadRecords = (
    Vec<Arc<RecordFile>>,
    Vec<Diagnostic>,
    Vec<(String, u64)>,
    (Vec<Option<(u64, u64)>>, usize),
);

/// Reads and parses every `*.txt` under `<root>/content/records`, in parallel, sorted by
/// path. Also returns each file's path (relative to the root) and the hash of its bytes.
/// Files that list the same abstract share one copy of it, `pool`'s. A file
/// `reuse` holds with the same path and bytes is not parsed again, and one it
/// holds with the same path, size and (old enough) modification time is not even read,
/// unless the watcher reported it changed. A one-off build takes such a file from the
/// records an earlier one `kept` instead.
pub fn read_records(
    root: &Path,
    (reuse, kept): (&RecordReuse, Option<&KeptRecords>),
    pool: &TextPool,
) -> ReadRecords {
    let (listing, diagnostics, plain) = record_listing(root, reuse);
    let results: Vec<FileRead> = listing
        .par_iter()
        .map(|(path, listed_stamp)| {
            read_record_file(root, path, *listed_stamp, (reuse, kept), pool)
        })
        .collect();
    gather_records(results, listing, diagnostics, (reuse, plain))
}

/// The record files under `root` (each with the stamp it was listed with, if any): the
/// watcher's vouched listing when there is one, or a walk of the records folder, with
/// the walk's diagnostics and whether it met only plain folders and files.
fn record_listing(root: &Path, reuse: &RecordReuse) -> (Vec<ListedFile>, Vec<Diagnostic>, bool) {
    match reuse.vouched_listing(root) {
        Some(listing) => (listing, Vec::new(), true),
        None => {
            let (paths, diagnostics, plain) = record_paths(&root.join(RECORDS_DIR));
            let listing = paths.into_iter().map(|p| (p, None)).collect();
            (listing, diagnostics, plain)
        }
    }
}

/// One record file as [`read_record_file`] found it.
#[derive(Default)]
struct FileRead {
    /// The file as parsed (`None` when it could not be read).
    parsed: Option<Arc<ParsedRecordFile>>,
    /// Why it could not be read.
    diagnostics: Vec<Diagnostic>,
    /// Its path as shown (relative to the site root) and the hash of its bytes.
    hash: Option<(String, u64)>,
    /// The key of its size and time, when they can be trusted ([`stamp_key`]).
    stamp: Option<u64>,
    /// Whether it was read and parsed rather than taken as it was.
    parsed_now: bool,
}

/// Reads the record file at `path` (listed with `listed_stamp`), unless `reuse` holds
/// it with the same stamp or an earlier one-off build `kept` it; parses it unless
/// `reuse` holds the same path and bytes.
fn read_record_file(
    root: &Path,
    path: &Path,
    listed_stamp: Option<u64>,
    (reuse, kept): (&RecordReuse, Option<&KeptRecords>),
    pool: &TextPool,
) -> FileRead {
    let RecordReuse {
        parsed,
        stamps,
        reported_changes,
        ..
    } = reuse;
    let display = path.strip_prefix(root).unwrap_or(path);
    let shown = display.to_string_lossy().into_owned();
    // A file the watcher vouches for has the stamp it was listed with, without a look
    // at it. A long-running process keeps stamps, and a one-off build finds them in the
    // records an earlier one kept; a one-off build without those does not look at the
    // file twice (217,500 lookups at 500,000 papers).
    let looks = stamps.is_enabled() || kept.is_some();
    let stamp = listed_stamp
        .or_else(|| looks.then(|| stamp_key(&shown, path))?)
        .filter(|_| !reported_changes.contains(display));
    let known = stamp.and_then(|key| match stamps.get(key) {
        Some(known) => Some((Arc::clone(&known.parsed), known.hash)),
        None => kept?.get(key, display).map(|k| (k.parsed, k.hash)),
    });
    if let Some((file, hash)) = known {
        return FileRead {
            parsed: Some(file),
            hash: Some((shown, hash)),
            stamp,
            ..FileRead::default()
        };
    }
    let (bytes, meta) = match read_whole(path) {
        Ok(read) => read,
        Err(err) => {
            let message = format!("cannot read {}: {err}", display.display());
            return FileRead {
                diagnostics: vec![Diagnostic::error(message, None)],
                ..FileRead::default()
            };
        }
    };
    let hash = content_hash(&bytes);
    let key = || crate::hash::key("record file", &(&shown, hash));
    let file = parsed.get_or(key, || {
        let (mut file, diagnostics) = parse_record_file(display, &bytes);
        if let Some(file) = &mut file {
            file.share_texts(pool);
        }
        ParsedRecordFile {
            file: file.map(Arc::new),
            diagnostics,
        }
    });
    // The stamp of the file read, which may not be the one looked at before if it was
    // replaced since. A build that did not look (a one-off one) finds it too, to keep
    // the file ([`kept`]).
    let read_stamp = (stamp.is_some() || !looks)
        .then(|| stamp_key_of(&shown, &meta))
        .flatten();
    if let Some(stamp) = read_stamp {
        let parsed = Arc::clone(&file);
        stamps.insert(stamp, StampedRecordFile { hash, parsed });
    }
    FileRead {
        parsed: Some(file),
        diagnostics: Vec::new(),
        hash: Some((shown, hash)),
        stamp: read_stamp,
        parsed_now: true,
    }
}

/// The site's records from each listed file's `results` (in the listing's order), with
/// the listing's `diagnostics` first; keeps the listing for the next build when `reuse`
/// keeps stamps and the walk was `plain`.
fn gather_records(
    results: Vec<FileRead>,
    listing: Vec<ListedFile>,
    mut diagnostics: Vec<Diagnostic>,
    (reuse, plain): (&RecordReuse, bool),
) -> ReadRecords {
    let mut files = Vec::with_capacity(results.len());
    let mut hashes = Vec::with_capacity(results.len());
    let keep_listing = plain && reuse.stamps.is_enabled();
    let mut next_listing = Vec::with_capacity(if keep_listing { listing.len() } else { 0 });
    let mut file_stamps = Vec::with_capacity(files.capacity());
    let mut parsed_count = 0;
    for (mut read, (path, _)) in results.into_iter().zip(listing) {
        if let Some(file) = read.parsed {
            if let Some(record_file) = &file.file {
                files.push(Arc::clone(record_file));
                let clean = file.diagnostics.is_empty();
                let stamp_and_hash = read.stamp.zip(read.hash.as_ref().map(|h| h.1));
                file_stamps.push(stamp_and_hash.filter(|_| clean));
                parsed_count += usize::from(read.parsed_now);
            }
            diagnostics.extend(file.diagnostics.iter().cloned());
        }
        diagnostics.append(&mut read.diagnostics);
        hashes.extend(read.hash);
        if keep_listing {
            next_listing.push((path, read.stamp));
        }
    }
    if let Ok(mut listing) = reuse.listing.lock() {
        *listing = keep_listing.then_some(next_listing);
    }
    (files, diagnostics, hashes, (file_stamps, parsed_count))
}

/// The record files (`*.txt`) under `dir`, except ignored ones, in path order
/// (component by component, as a walk visiting each folder's entries by name has them),
/// with a diagnostic for each folder or file that could not be looked at, and whether
/// the walk met only plain folders and files (no symbolic link, nothing unreadable). The
/// walk itself does not sort: sorting by name asks each entry's path for its last
/// component at every comparison; sorting once instead took the reading step of a
/// rebuild at 500,000 papers (217,500 files in one folder) from 0.59 to 0.44 s.
fn record_paths(dir: &Path) -> (Vec<PathBuf>, Vec<Diagnostic>, bool) {
    let mut diagnostics = Vec::new();
    let mut paths = Vec::new();
    let mut plain = true;
    let walk = walkdir::WalkDir::new(dir).follow_links(true).into_iter();
    for entry in walk.filter_entry(|entry| !ignore::is_ignored_entry(entry)) {
        match entry {
            Ok(entry) => {
                plain &= !entry.path_is_symlink();
                if entry.file_type().is_file() && has_record_extension(entry.path()) {
                    paths.push(entry.into_path());
                }
            }
            Err(err)
                if err
                    .io_error()
                    .is_some_and(|e| e.kind() == std::io::ErrorKind::NotFound)
                    && err.depth() == 0 => {}
            Err(err) => {
                plain = false;
                diagnostics.push(Diagnostic::error(
                    format!("cannot read {}: {err}", err.path().unwrap_or(dir).display()),
                    None,
                ));
            }
        }
    }
    paths.par_sort_by_cached_key(|path| path_order_key(path));
    (paths, diagnostics, plain)
}

/// A key whose byte order is `path`'s order component by component: its bytes with
/// each separator made a zero byte, which sorts before any byte a name can hold (so
/// `a/b` comes before `a.b`, as the component `a` does before `a.b`).
fn path_order_key(path: &Path) -> Vec<u8> {
    let mut key = Vec::with_capacity(path.as_os_str().len());
    for (i, component) in path.components().enumerate() {
        if i > 0 {
            key.push(0);
        }
        key.extend_from_slice(component.as_os_str().as_encoded_bytes());
    }
    key
}

/// How many times a file that changes while it is read is read again.
const READ_ATTEMPTS: usize = 3;

/// The bytes of the file at `path`, read whole from one open file, with its metadata.
/// A file replaced (renamed over) meanwhile is read as it was when opened; one written
/// in place while it is read (its size or time changes) is read again, and is an error
/// if it keeps changing.
fn read_whole(path: &Path) -> std::io::Result<(Vec<u8>, fs::Metadata)> {
    use std::io::Read;
    let same = |a: &fs::Metadata, b: &fs::Metadata| {
        a.len() == b.len() && a.modified().ok() == b.modified().ok()
    };
    for _ in 0..READ_ATTEMPTS {
        let mut file = fs::File::open(path)?;
        let before = file.metadata()?;
        let mut bytes = Vec::with_capacity(before.len() as usize);
        file.read_to_end(&mut bytes)?;
        let after = file.metadata()?;
        if same(&before, &after) {
            return Ok((bytes, after));
        }
    }
    Err(std::io::Error::other(format!(
        "it changed each of the {READ_ATTEMPTS} times it was read"
    )))
}

/// `(file stem, path shown in diagnostics, text)` of every `*.md` directly under
/// `<root>/<dir>` that is part of the site ([`crate::ignore`]); records each file's
/// hash, and diagnostics for unreadable ones.
fn read_markdown(root: &Path, dir: &str, input: &mut SiteInput) -> Vec<(String, PathBuf, String)> {
    let mut out = Vec::new();
    let Ok(entries) = fs::read_dir(root.join(dir)) else {
        return out;
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| !ignore::is_ignored_file(&e.file_name()))
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md") && p.is_file())
        .collect();
    paths.sort();
    for path in paths {
        let display = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
        match read_whole(&path).map(|(bytes, _)| String::from_utf8(bytes)) {
            Ok(Ok(text)) => {
                input.file_hashes.push((
                    display.to_string_lossy().into_owned(),
                    content_hash(text.as_bytes()),
                ));
                let stem = path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                out.push((stem, display, text));
            }
            Ok(Err(err)) => {
                let bytes = err.as_bytes();
                let valid = err.utf8_error().valid_up_to();
                let text = String::from_utf8_lossy(bytes);
                let valid_len = String::from_utf8_lossy(&bytes[..valid]).len();
                input.diagnostics.push(Diagnostic::error(
                    "file is not valid UTF-8; skipped",
                    Some(Location::in_text(&display, &text, valid_len, 1)),
                ));
            }
            Err(err) => input.diagnostics.push(Diagnostic::error(
                format!("cannot read {}: {err}", display.display()),
                None,
            )),
        }
    }
    out
}

/// Every file under `dir` as `(relative path with /, bytes)`, skipping the files that
/// are not part of the site ([`crate::ignore`]; whether a path is safe to write is the
/// output stage's rule).
fn read_static(dir: &Path, diagnostics: &mut Vec<Diagnostic>) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    if !dir.is_dir() {
        return files;
    }
    for entry in walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| !ignore::is_ignored_entry(entry))
        .filter_map(Result::ok)
    {
        if !entry.file_type().is_file() {
            continue;
        }
        let relative: Vec<String> = entry
            .path()
            .strip_prefix(dir)
            .unwrap_or(entry.path())
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let relative = relative.join("/");
        match read_whole(entry.path()).map(|(bytes, _)| bytes) {
            Ok(bytes) => files.push((relative, bytes)),
            Err(err) => diagnostics.push(Diagnostic::error(
                format!("cannot read {}: {err}", entry.path().display()),
                None,
            )),
        }
    }
    files
}

/// Reads a site's template overrides: every file under `dir` that is part of the site
/// ([`crate::ignore`]), named by its path relative to `dir` with `/` separators. A
/// missing folder means no overrides.
pub fn read_template_overrides(dir: &Path) -> Result<Vec<(String, String)>, Diagnostic> {
    let mut overrides = Vec::new();
    if !dir.is_dir() {
        return Ok(overrides);
    }
    let entries = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| !ignore::is_ignored_entry(entry));
    for entry in entries {
        let entry = entry.map_err(|err| {
            Diagnostic::error(
                format!("cannot read templates folder {}: {err}", dir.display()),
                None,
            )
        })?;
        if !entry.file_type().is_file() {
            continue;
        }
        let name = entry
            .path()
            .strip_prefix(dir)
            .unwrap_or(entry.path())
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        let source = std::fs::read_to_string(entry.path()).map_err(|err| {
            Diagnostic::error(
                format!("cannot read template {}: {err}", entry.path().display()),
                None,
            )
        })?;
        overrides.push((name, source));
    }
    Ok(overrides)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;

    fn record(title: &str) -> String {
        format!(
            "arXiv subjects\n\nAda Lovelace\n\nPublications and source records attributed to \
             Ada Lovelace.\n\n1 recordLinked to original sources\n\narXiv2024\n\n{title}\n\n\
             An abstract.\n\ncs.DC\u{2197}"
        )
    }

    #[test]
    fn record_files_come_in_the_order_of_a_walk_sorted_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let names = [
            "a.txt",
            "a/b.txt",
            "a/c/d.txt",
            "a-b.txt",
            "a.b/c.txt",
            "B.txt",
            "b.txt",
            "é.txt",
            "z/ignored.md",
            ".hidden/x.txt",
            "a/.y.txt",
            "0.txt",
        ];
        for name in names {
            let path = dir.path().join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, "x").unwrap();
        }
        let (paths, diagnostics, plain) = record_paths(dir.path());
        assert!(diagnostics.is_empty() && plain);
        let walked: Vec<PathBuf> = walkdir::WalkDir::new(dir.path())
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|entry| !ignore::is_ignored_entry(entry))
            .map(|entry| entry.unwrap())
            .filter(|e| e.file_type().is_file() && e.path().extension().unwrap() == "txt")
            .map(|entry| entry.into_path())
            .collect();
        assert_eq!(paths, walked);
        let shown: Vec<String> = paths
            .iter()
            .map(|p| {
                p.strip_prefix(dir.path())
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        let expected = [
            "0.txt",
            "B.txt",
            "a/b.txt",
            "a/c/d.txt",
            "a-b.txt",
            "a.b/c.txt",
            "a.txt",
            "b.txt",
            "é.txt",
        ];
        assert_eq!(shown, expected);
    }

    fn titles(root: &Path, reuse: &RecordReuse) -> Vec<String> {
        let (files, _, _, _) = read_records(root, (reuse, None), &TextPool::default());
        files
            .iter()
            .flat_map(|f| f.records.iter().map(|r| r.title.clone()))
            .collect()
    }

    #[test]
    fn files_the_watcher_vouches_for_are_not_looked_at_and_reported_ones_are() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let records = root.join(RECORDS_DIR);
        fs::create_dir_all(&records).unwrap();
        let an_hour_ago = SystemTime::now() - Duration::from_secs(3600);
        let write = |name: &str, title: &str| {
            let file = records.join(name);
            fs::write(&file, record(title)).unwrap();
            let file = fs::File::options().write(true).open(&file).unwrap();
            file.set_modified(an_hour_ago).unwrap();
        };
        let rel = |name: &str| PathBuf::from(RECORDS_DIR).join(name);
        let mut reuse = RecordReuse::default();
        reuse.enable();
        write("b.txt", "Bee");
        write("d.txt", "Dee");
        assert_eq!(titles(root, &reuse), ["Bee", "Dee"]);
        reuse.finish_build();

        // Nothing vouched for: a file changed in place with another time is read...
        write("b.txt", "Bee 2");
        assert_eq!(titles(root, &reuse), ["Bee 2", "Dee"]);
        reuse.finish_build();
        // ... and with the watcher vouching that only `c.txt` (new) changed, neither
        // an unreported change nor an unreported new file is looked at: the listing of
        // the last build, with `c.txt`, in path order.
        fs::write(records.join("d.txt"), record("Dee, unreported")).unwrap();
        write("a.txt", "Aye, unreported");
        write("c.txt", "Cee");
        reuse.only_reported_changed = true;
        reuse.reported_changes.insert(rel("c.txt"));
        assert_eq!(titles(root, &reuse), ["Bee 2", "Cee", "Dee"]);
        reuse.finish_build();
        assert!(!reuse.only_reported_changed, "vouches for one build");

        // A reported removal and change.
        fs::remove_file(records.join("b.txt")).unwrap();
        write("c.txt", "Cee 2");
        reuse.only_reported_changed = true;
        reuse.reported_changes.extend([rel("b.txt"), rel("c.txt")]);
        let (files, diagnostics, hashes, _) =
            read_records(root, (&reuse, None), &TextPool::default());
        let titles_read: Vec<&str> = files.iter().map(|f| f.records[0].title.as_str()).collect();
        assert_eq!(titles_read, ["Cee 2", "Dee"]);
        assert!(
            diagnostics.is_empty(),
            "the removed file is not looked for: {diagnostics:?}"
        );
        assert_eq!(hashes.len(), 2);
        reuse.finish_build();

        // Without the watcher's word, the folder is walked and each file looked at.
        assert_eq!(
            titles(root, &reuse),
            ["Aye, unreported", "Cee 2", "Dee, unreported"]
        );
        reuse.finish_build();

        // A reported file that is ignored, or not a record file, is not read.
        write(".hidden.txt", "Hidden");
        fs::write(records.join("notes.md"), "notes").unwrap();
        reuse.only_reported_changed = true;
        reuse
            .reported_changes
            .extend([rel(".hidden.txt"), rel("notes.md")]);
        assert_eq!(
            titles(root, &reuse),
            ["Aye, unreported", "Cee 2", "Dee, unreported"]
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_walk_through_a_symbolic_link_is_not_vouched_for() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("site");
        let elsewhere = dir.path().join("elsewhere");
        fs::create_dir_all(root.join(RECORDS_DIR)).unwrap();
        fs::create_dir_all(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, root.join(RECORDS_DIR).join("linked")).unwrap();
        let file = elsewhere.join("x.txt");
        let an_hour_ago = SystemTime::now() - Duration::from_secs(3600);
        let write = |title: &str| {
            fs::write(&file, record(title)).unwrap();
            let file = fs::File::options().write(true).open(&file).unwrap();
            file.set_modified(an_hour_ago).unwrap();
        };
        write("Linked");
        let mut reuse = RecordReuse::default();
        reuse.enable();
        assert_eq!(titles(&root, &reuse), ["Linked"]);
        reuse.finish_build();
        // A change the watcher of the site cannot see, and a batch of other changes.
        write("Linked, changed elsewhere");
        reuse.only_reported_changed = true;
        reuse
            .reported_changes
            .insert(PathBuf::from(RECORDS_DIR).join("y.txt"));
        assert_eq!(titles(&root, &reuse), ["Linked, changed elsewhere"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_folder_replaced_by_a_symbolic_link_is_walked_from_then_on() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("site");
        let sub = root.join(RECORDS_DIR).join("sub");
        let elsewhere = dir.path().join("elsewhere");
        fs::create_dir_all(&sub).unwrap();
        fs::create_dir_all(&elsewhere).unwrap();
        let an_hour_ago = SystemTime::now() - Duration::from_secs(3600);
        let write = |file: &Path, title: &str| {
            fs::write(file, record(title)).unwrap();
            let file = fs::File::options().write(true).open(file).unwrap();
            file.set_modified(an_hour_ago).unwrap();
        };
        write(&sub.join("x.txt"), "Plain");
        let mut reuse = RecordReuse::default();
        reuse.enable();
        assert_eq!(titles(&root, &reuse), ["Plain"]);
        reuse.finish_build();
        // The folder becomes a link to another holding a file of the same name; the
        // watcher reports that file as changed.
        write(&elsewhere.join("x.txt"), "Linked");
        fs::remove_dir_all(&sub).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &sub).unwrap();
        reuse.only_reported_changed = true;
        let reported = PathBuf::from(RECORDS_DIR).join("sub/x.txt");
        reuse.reported_changes.insert(reported);
        assert_eq!(titles(&root, &reuse), ["Linked"]);
        reuse.finish_build();
        // From then on the folder is walked: a file the site's watcher cannot see
        // through the link is found with the next batch of record changes.
        write(&elsewhere.join("y.txt"), "Linked too");
        reuse.only_reported_changed = true;
        let reported = PathBuf::from(RECORDS_DIR).join("z.txt");
        reuse.reported_changes.insert(reported);
        assert_eq!(titles(&root, &reuse), ["Linked", "Linked too"]);
    }

    #[test]
    fn old_enough_unchanged_stamps_are_not_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let records = dir.path().join(RECORDS_DIR);
        fs::create_dir_all(&records).unwrap();
        let file = records.join("ada.txt");
        let an_hour_ago = SystemTime::now() - Duration::from_secs(3600);
        let write = |text: &str, modified: SystemTime| {
            fs::write(&file, text).unwrap();
            fs::File::options()
                .write(true)
                .open(&file)
                .unwrap()
                .set_modified(modified)
                .unwrap();
        };
        let mut reuse = RecordReuse::default();
        reuse.enable();

        write(&record("First Title"), an_hour_ago);
        assert_eq!(titles(dir.path(), &reuse), ["First Title"]);
        assert_eq!(
            reuse.stamps.len(),
            0,
            "nothing to reuse before the build ends"
        );
        reuse.finish_build();
        assert_eq!(reuse.stamps.len(), 1);

        // Untouched: trusted, not read...
        let parsed = |reuse: &RecordReuse| {
            let (_, _, _, (_, parsed)) =
                read_records(dir.path(), (reuse, None), &TextPool::default());
            parsed
        };
        assert_eq!(parsed(&reuse), 0);
        // ... unless the watcher saw the file change.
        reuse
            .reported_changes
            .insert(PathBuf::from(RECORDS_DIR).join("ada.txt"));
        assert_eq!(parsed(&reuse), 1);
        reuse.finish_build();
        assert!(reuse.reported_changes.is_empty(), "reports last one build");
        reuse.finish_build();

        // Rewritten with the same size and modification time (as `cp -p` leaves a
        // copy): on Unix, its status change time says so, and it is read again.
        write(&record("Other Title"), an_hour_ago);
        #[cfg(unix)]
        assert_eq!(titles(dir.path(), &reuse), ["Other Title"]);
        reuse.finish_build();

        // Another time: read again.
        write(&record("Third Title"), an_hour_ago + Duration::from_secs(1));
        assert_eq!(titles(dir.path(), &reuse), ["Third Title"]);

        // A time too recent to trust: always read.
        write(&record("Forth Title"), SystemTime::now());
        assert_eq!(titles(dir.path(), &reuse), ["Forth Title"]);
        reuse.finish_build();
        write(&record("Fifth Title"), SystemTime::now());
        assert_eq!(titles(dir.path(), &reuse), ["Fifth Title"]);
    }
}
