//! Work one build keeps on disk for the next, even a one-off one: a file of byte blobs
//! by 64-bit key, written whole by one build ([`KeptFile::write_to`]) and read by offset by
//! the next ([`KeptFile::get`], or [`KeptFile::get_many`] for many at once), so that only
//! its index (28 bytes an entry) is in memory.
//!
//! As with [`crate::reuse::Reuse`], a key is a hash of everything the kept work read,
//! so a blob found is what the work would make again. The file also names what wrote
//! it (`identity`: the profilegen version and binary): a file another binary wrote, or
//! one that is cut short or not such a file at all, is not read, and costs only the
//! work it would have saved. Each blob's hash is in the index, so a blob damaged on
//! disk is not read either.
//!
//! Layout: `MAGIC`, the identity's length (u32) and bytes, the blobs one after another,
//! then the index, `(key u64, offset u64, length u32, xxh3 of the blob u64)` per entry in
//! key order, and last
//! the index's offset and its number of entries (u64 each). Numbers are little-endian.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

use rayon::prelude::*;

use crate::hash::{content_hash, HashRuns};
use crate::text_store::read_exact_at;

/// The first bytes of a kept file.
const MAGIC: &[u8; 8] = b"PGKEPT1\n";
/// At most this many bytes are read at once by [`KeptFile::get_many`] (unless one blob
/// is bigger).
const BYTES_PER_READ: u64 = 1 << 20;
/// Bytes of one index entry.
const ENTRY_BYTES: usize = 28;

/// An earlier kept file that lacks at most one in this many of the blobs a build would
/// keep is left as it is ([`KeptFile::still_serves`]).
pub const MAY_LACK_ONE_IN: usize = 20;

/// Whether the blob read as `bytes` is the one written: its hash is the one the index
/// gives (a blob damaged on disk is not read).
fn is_whole(bytes: &[u8], hash: u64) -> bool {
    content_hash(bytes) == hash
}

/// One index entry: a blob's key, offset, length and hash.
type Entry = (u64, u64, u32, u64);

/// A kept file opened for reading: its index in memory, its blobs on disk.
pub struct KeptFile {
    file: File,
    /// `(key, offset, length, hash)` of each blob, sorted by key.
    index: Vec<Entry>,
    /// Where to look for a key in the index.
    runs: HashRuns,
    /// Where the blobs end (and the index starts).
    blobs_end: u64,
}

impl KeptFile {
    /// Opens the file at `path` if it is a whole kept file written by `identity`.
    pub fn open(path: &Path, identity: &str) -> Option<KeptFile> {
        let mut file = File::open(path).ok()?;
        let size = file.metadata().ok()?.len();
        let mut head = [0u8; 12];
        file.read_exact(&mut head).ok()?;
        let identity_len = u64::from(u32::from_le_bytes(head[8..12].try_into().ok()?));
        if &head[..8] != MAGIC || identity_len != identity.len() as u64 {
            return None;
        }
        let mut written_by = vec![0u8; identity.len()];
        file.read_exact(&mut written_by).ok()?;
        if written_by != identity.as_bytes() || size < 12 + identity_len + 16 {
            return None;
        }
        file.seek(SeekFrom::Start(size - 16)).ok()?;
        let mut foot = [0u8; 16];
        file.read_exact(&mut foot).ok()?;
        let index_at = u64::from_le_bytes(foot[..8].try_into().ok()?);
        let entries = u64::from_le_bytes(foot[8..].try_into().ok()?);
        let index_bytes = entries.checked_mul(ENTRY_BYTES as u64)?;
        if index_at < 12 + identity_len || index_at.checked_add(index_bytes)? != size - 16 {
            return None;
        }
        file.seek(SeekFrom::Start(index_at)).ok()?;
        let mut raw = vec![0u8; usize::try_from(index_bytes).ok()?];
        file.read_exact(&mut raw).ok()?;
        let index = read_index(&raw, index_at)?;
        let runs = HashRuns::of(index.iter().map(|e| e.0));
        Some(KeptFile {
            file,
            index,
            runs,
            blobs_end: index_at,
        })
    }

    /// The blob kept under `key`, if any (`None` too if it cannot be read, or is not
    /// the blob that was written).
    pub fn get(&self, key: u64) -> Option<Vec<u8>> {
        let (offset, len, hash) = self.place(key)?;
        let mut bytes = vec![0u8; len as usize];
        read_exact_at(&self.file, &mut bytes, offset).ok()?;
        is_whole(&bytes, hash).then_some(bytes)
    }

    /// The blobs kept under `keys`, in their order, each as [`KeptFile::get`] gives it,
    /// in as few reads as their places allow: blobs that lie one after another in the
    /// file (as a build writes them, in its order) are read at once, up to
    /// `BYTES_PER_READ`. A one-off build at 500,000 papers reads 715,000 blobs of
    /// search terms, twice over; read this way rather than one by one, its search index
    /// took 2.07–2.14 s against 2.56–2.72 s.
    pub fn get_many(&self, keys: &[u64]) -> Vec<Option<Vec<u8>>> {
        let mut places: Vec<(usize, u64, u32, u64)> = (keys.iter().enumerate())
            .filter_map(|(i, &key)| self.place(key).map(|(at, len, hash)| (i, at, len, hash)))
            .collect();
        places.sort_unstable_by_key(|&(_, at, _, _)| at);
        let mut blobs = vec![None; keys.len()];
        let mut rest = &places[..];
        while let Some(&(_, start, first_len, _)) = rest.first() {
            // The run: the first blob, then each that starts where the last ends, while
            // the run stays within a read.
            let (mut end, mut run) = (start + u64::from(first_len), 1);
            while let Some(&(_, at, len, _)) = rest.get(run) {
                if at != end || at + u64::from(len) - start > BYTES_PER_READ {
                    break;
                }
                end = at + u64::from(len);
                run += 1;
            }
            let (read, later) = rest.split_at(run);
            let mut bytes = vec![0u8; (end - start) as usize];
            if read_exact_at(&self.file, &mut bytes, start).is_ok() {
                for &(i, at, len, hash) in read {
                    let blob = &bytes[(at - start) as usize..][..len as usize];
                    blobs[i] = is_whole(blob, hash).then(|| blob.to_vec());
                }
            }
            rest = later;
        }
        blobs
    }

    /// Where the blob kept under `key` lies in the file: `(offset, length, hash)`
    /// (without reading it).
    pub fn place(&self, key: u64) -> Option<(u64, u32, u64)> {
        let at = self.runs.find(&self.index, key, |e| e.0)?;
        let (_, offset, len, hash) = self.index[at];
        Some((offset, len, hash))
    }

    /// A second handle on the open file (the same file, even if another replaced it on
    /// disk since it was opened), with the offset where its blobs end.
    pub fn blobs_file(&self) -> Option<(File, u64)> {
        Some((self.file.try_clone().ok()?, self.blobs_end))
    }

    /// Whether a blob is kept under `key` (without reading it).
    pub fn contains(&self, key: u64) -> bool {
        self.runs.find(&self.index, key, |e| e.0).is_some()
    }

    /// Whether a build that would keep the blobs under `keys` may leave this file, an
    /// earlier build's, as it is: it lacks at most one in [`MAY_LACK_ONE_IN`] of them
    /// (the next build makes those again, as this one does) and holds at most as many
    /// again that are no longer wanted. A handful of new documents then costs the next
    /// build their work, not this one the writing of the whole file (at 500,000 papers,
    /// 243 MB of search terms and 161 MB of conversions) and the work of making it.
    /// A key given more than once (two documents with the same fields) counts once.
    pub fn still_serves(&self, keys: &[u64]) -> bool {
        let mut wanted = keys.to_vec();
        wanted.par_sort_unstable();
        wanted.dedup();
        let lacking = wanted
            .par_iter()
            .filter(|&&key| !self.contains(key))
            .count();
        let unwanted = (self.index.len() + lacking).saturating_sub(wanted.len());
        lacking * MAY_LACK_ONE_IN <= wanted.len() && unwanted <= wanted.len()
    }

    /// The keys kept, in order.
    pub fn keys(&self) -> impl Iterator<Item = u64> + '_ {
        self.index.iter().map(|e| e.0)
    }

    /// Writes `entries` (a key and its blob each; a key given twice is kept once) to
    /// `out` as a kept file of `identity` (a [`KeptWriter`] given them all at once).
    /// Written to a file beside the one it replaces and renamed over it
    /// (`output::write_atomically_with`), a reader sees the old file or the new one, whole.
    pub fn write_to(
        out: &mut dyn Write,
        identity: &str,
        entries: impl IntoIterator<Item = (u64, Vec<u8>)>,
    ) -> io::Result<()> {
        let mut writer = KeptWriter::new(out, identity)?;
        for (key, blob) in entries {
            writer.add(key, &blob)?;
        }
        writer.finish().map(drop)
    }
}

/// A kept file written a blob at a time, as the work it keeps is done: only the index
/// (28 bytes a blob) is held until [`KeptWriter::finish`] writes it.
pub struct KeptWriter<W: Write> {
    out: W,
    /// Where the next blob goes.
    at: u64,
    index: Vec<Entry>,
}

impl<W: Write> KeptWriter<W> {
    /// Starts a kept file of `identity` in `out`.
    pub fn new(mut out: W, identity: &str) -> io::Result<KeptWriter<W>> {
        out.write_all(MAGIC)?;
        let identity_len = u32::try_from(identity.len()).map_err(io::Error::other)?;
        out.write_all(&identity_len.to_le_bytes())?;
        out.write_all(identity.as_bytes())?;
        Ok(KeptWriter {
            out,
            at: 12 + u64::from(identity_len),
            index: Vec::new(),
        })
    }

    /// Adds `blob` under `key` (a key added twice keeps its first blob).
    pub fn add(&mut self, key: u64, blob: &[u8]) -> io::Result<()> {
        let len = u32::try_from(blob.len()).map_err(io::Error::other)?;
        self.out.write_all(blob)?;
        self.index.push((key, self.at, len, content_hash(blob)));
        self.at += u64::from(len);
        Ok(())
    }

    /// Writes the index and the file's end, and gives back the output.
    pub fn finish(mut self) -> io::Result<W> {
        let mut index = std::mem::take(&mut self.index);
        index.sort_by_key(|e| e.0);
        index.dedup_by_key(|e| e.0);
        for &(key, offset, len, hash) in &index {
            self.out.write_all(&key.to_le_bytes())?;
            self.out.write_all(&offset.to_le_bytes())?;
            self.out.write_all(&len.to_le_bytes())?;
            self.out.write_all(&hash.to_le_bytes())?;
        }
        self.out.write_all(&self.at.to_le_bytes())?;
        self.out.write_all(&(index.len() as u64).to_le_bytes())?;
        Ok(self.out)
    }
}

/// The index entries of `raw`, if they are in key order and every blob lies before
/// `blobs_end` (where the index starts).
fn read_index(raw: &[u8], blobs_end: u64) -> Option<Vec<Entry>> {
    let mut index: Vec<Entry> = Vec::with_capacity(raw.len() / ENTRY_BYTES);
    for entry in raw.chunks_exact(ENTRY_BYTES) {
        let key = u64::from_le_bytes(entry[..8].try_into().ok()?);
        let offset = u64::from_le_bytes(entry[8..16].try_into().ok()?);
        let len = u32::from_le_bytes(entry[16..20].try_into().ok()?);
        let hash = u64::from_le_bytes(entry[20..].try_into().ok()?);
        let in_order = index.last().is_none_or(|&(last, ..)| last < key);
        if !in_order || offset.checked_add(u64::from(len))? > blobs_end {
            return None;
        }
        index.push((key, offset, len, hash));
    }
    Some(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes a kept file at `path` (its folder made if missing).
    fn write(path: &Path, identity: &str, entries: impl IntoIterator<Item = (u64, Vec<u8>)>) {
        let mut bytes = Vec::new();
        KeptFile::write_to(&mut bytes, identity, entries).unwrap();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    #[test]
    fn blobs_come_back_by_key_from_a_file_of_the_same_identity() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/kept");
        let entries = vec![
            (9, b"nine".to_vec()),
            (2, Vec::new()),
            (5, "fünf".as_bytes().to_vec()),
            (9, b"nine again".to_vec()),
        ];
        write(&path, "v1 binary", entries);
        let kept = KeptFile::open(&path, "v1 binary").expect("a whole file");
        assert_eq!(kept.keys().collect::<Vec<_>>(), [2, 5, 9]);
        assert_eq!(kept.get(5).as_deref(), Some("fünf".as_bytes()));
        assert_eq!(kept.get(2), Some(Vec::new()));
        assert_eq!(
            kept.get(9).as_deref(),
            Some(&b"nine"[..]),
            "the first of a key"
        );
        assert_eq!(kept.get(7), None);
        let keys = [5, 7, 9, 2, 5, 9];
        let one_by_one: Vec<_> = keys.iter().map(|&key| kept.get(key)).collect();
        assert_eq!(kept.get_many(&keys), one_by_one);
        assert_eq!(kept.get_many(&[]), Vec::<Option<Vec<u8>>>::new());
        // Another binary's file is not read.
        assert!(KeptFile::open(&path, "v2 binary").is_none());
        assert!(KeptFile::open(&dir.path().join("missing"), "v1 binary").is_none());
        // Written again: the new file replaces the old one.
        write(&path, "v1 binary", [(1, b"one".to_vec())]);
        let kept = KeptFile::open(&path, "v1 binary").unwrap();
        assert_eq!(kept.keys().collect::<Vec<_>>(), [1]);
    }

    #[test]
    fn a_file_lacking_one_blob_in_twenty_or_fewer_still_serves() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kept");
        write(&path, "id", (0..100u64).map(|k| (k, vec![1])));
        let kept = KeptFile::open(&path, "id").unwrap();
        assert!(kept.contains(99) && !kept.contains(100));
        let wanted = |keys: std::ops::Range<u64>| keys.collect::<Vec<_>>();
        assert!(kept.still_serves(&wanted(0..100)), "all of them");
        assert!(kept.still_serves(&wanted(0..105)), "5 of 105 lacking");
        assert!(!kept.still_serves(&wanted(0..106)), "6 of 106 lacking");
        assert!(
            kept.still_serves(&wanted(5..105)),
            "5 of 100 lacking, 5 unwanted"
        );
        assert!(!kept.still_serves(&wanted(10..110)), "10 of 100 lacking");
        // Half of the file is still wanted: as many unwanted as wanted.
        assert!(kept.still_serves(&wanted(0..50)));
        assert!(
            !kept.still_serves(&wanted(0..49)),
            "more unwanted than wanted"
        );
        assert!(!kept.still_serves(&[]), "nothing wanted");
        // A key wanted twice is wanted once: 40 keys wanted, 60 unwanted.
        let twice: Vec<u64> = (0..40).chain(0..40).collect();
        assert!(!kept.still_serves(&twice), "more unwanted than wanted");
        // One lacking key of 101, however often it is given.
        let lacking_often = [&wanted(0..100)[..], &[100; 10]].concat();
        assert!(kept.still_serves(&lacking_often));
    }

    #[test]
    fn many_blobs_are_read_in_runs_no_longer_than_a_read_and_come_back_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kept");
        let blob = |k: u64| vec![k as u8; 1000 + 300_000 * (k as usize % 2)];
        write(&path, "id", (0..12u64).map(|k| (k, blob(k))));
        let kept = KeptFile::open(&path, "id").unwrap();
        let keys = [11, 3, 0, 12, 4, 5, 6, 7, 8, 9, 10, 1, 2];
        let many = kept.get_many(&keys);
        for (&key, got) in keys.iter().zip(&many) {
            assert_eq!(got, &(key < 12).then(|| blob(key)), "key {key}");
        }
        let one_bigger_than_a_read = vec![7u8; BYTES_PER_READ as usize + 1];
        write(
            &path,
            "id",
            [(1, b"a".to_vec()), (2, one_bigger_than_a_read.clone())],
        );
        let kept = KeptFile::open(&path, "id").unwrap();
        let both = vec![Some(b"a".to_vec()), Some(one_bigger_than_a_read)];
        assert_eq!(kept.get_many(&[1, 2]), both);
    }

    #[test]
    fn a_cut_or_damaged_file_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kept");
        let entries = (0..50u64).map(|k| (k * 7, k.to_le_bytes().repeat(3)));
        write(&path, "id", entries);
        let whole = std::fs::read(&path).unwrap();
        assert!(KeptFile::open(&path, "id").is_some());
        for cut in [0, 5, 12, 14, 40, whole.len() / 2, whole.len() - 1] {
            std::fs::write(&path, &whole[..cut]).unwrap();
            assert!(KeptFile::open(&path, "id").is_none(), "cut at {cut}");
        }
        // An index out of order, or pointing past the blobs.
        let index_at = u64::from_le_bytes(whole[whole.len() - 16..][..8].try_into().unwrap());
        let first = index_at as usize;
        for (at, value) in [(first, 0xff), (first + 11, 0x7f), (first + 19, 0x7f)] {
            let mut damaged = whole.clone();
            damaged[at] = value;
            std::fs::write(&path, &damaged).unwrap();
            assert!(KeptFile::open(&path, "id").is_none(), "byte {at}");
        }
        // A blob damaged on disk is not read; the others are.
        let mut damaged = whole.clone();
        damaged[14 + 7 * 24] ^= 1;
        std::fs::write(&path, &damaged).unwrap();
        let kept = KeptFile::open(&path, "id").unwrap();
        assert_eq!(kept.get(7 * 7), None);
        assert_eq!(kept.get(6 * 7), Some(6u64.to_le_bytes().repeat(3)));
        let keys: Vec<u64> = (0..50u64).rev().map(|k| k * 7).collect();
        let many = kept.get_many(&keys);
        for (key, blob) in keys.iter().zip(&many) {
            let expected = (*key != 7 * 7).then(|| (key / 7).to_le_bytes().repeat(3));
            assert_eq!(blob, &expected, "key {key}");
        }
        std::fs::write(&path, b"not a kept file at all, but long enough").unwrap();
        assert!(KeptFile::open(&path, "id").is_none());
    }
}
