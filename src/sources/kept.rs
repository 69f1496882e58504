//! Parsed record files that a large one-off build keeps on disk for the next
//! (`records.kept` in the build cache's folder): a one-off build after a change then
//! reads and parses only the record files whose size or modification time changed, as
//! a long-running process does with the files it holds in memory.
//!
//! The file is a [`KeptFile`]: each record file's parse under the key of its path, size
//! and modification time (the stamp [`super::read_records`] trusts), and each distinct
//! abstract once, under the key of its hash and length. An abstract is not read when the
//! file is opened: the records' [`Text`]s point into the kept file, which is read back
//! (and checked against the text's hash) only where an abstract is needed, as with the
//! build's own text store. A file whose parse gave a diagnostic is not kept (it is read
//! again, and its diagnostics shown again).

use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{ParsedRecordFile, StampedRecordFile};
use crate::hash::ByHash;
use crate::kept_file::{KeptFile, KeptWriter, MAY_LACK_ONE_IN};
use crate::records::{Record, RecordFile};
use crate::text_store::{KeptTexts, Text};

/// The kept file's name in the build cache's folder.
pub const KEPT_RECORDS_FILE: &str = "records.kept";

/// A record file as kept: what [`RecordFile`] holds besides its path (which its key
/// gives), with each abstract as its hash, length and TeX test.
#[derive(Serialize, Deserialize)]
struct KeptForm {
    /// Hash of the file's bytes.
    hash: u64,
    author_name: String,
    declared_count: Option<u64>,
    records: Vec<KeptRecord>,
}

/// A record as kept.
#[derive(Serialize, Deserialize)]
struct KeptRecord {
    source: String,
    year: u16,
    title: String,
    /// `(hash, length, has TeX)` of the abstract.
    abstract_text: Option<(u64, u32, bool)>,
    subjects: Vec<String>,
    line: u64,
    title_key: u64,
}

/// The key of an abstract of `hash` and `len` bytes in the kept file.
fn abstract_key(hash: u64, len: u32) -> u64 {
    crate::hash::key("kept abstract", &(hash, len))
}

/// The record files an earlier build kept, opened for reading.
pub struct KeptRecords {
    file: KeptFile,
    texts: KeptTexts,
}

impl KeptRecords {
    /// Opens the file at `path` if it is a whole kept file written by `identity`.
    pub fn open(path: &Path, identity: &str) -> Option<KeptRecords> {
        let file = KeptFile::open(path, identity)?;
        let (handle, blobs_end) = file.blobs_file()?;
        let texts = KeptTexts::in_file(handle, blobs_end);
        Some(KeptRecords { file, texts })
    }

    /// The record file shown as `display` whose size and time have the key `stamp`, as
    /// parsed, if it is kept (and whole).
    pub fn get(&self, stamp: u64, display: &Path) -> Option<StampedRecordFile> {
        let form: KeptForm = postcard::from_bytes(&self.file.get(stamp)?).ok()?;
        let records = form
            .records
            .into_iter()
            .map(|r| {
                let abstract_text = match r.abstract_text {
                    None => None,
                    Some((hash, len, tex)) => Some(self.kept_text(hash, len, tex)?),
                };
                let line = usize::try_from(r.line).ok()?;
                let record =
                    Record::new(r.source, r.year, r.title, abstract_text, r.subjects, line);
                Some(record.knowing_title_key(r.title_key))
            })
            .collect::<Option<Vec<Record>>>()?;
        let file = RecordFile {
            path: display.to_path_buf(),
            author_name: form.author_name,
            declared_count: form.declared_count.and_then(|c| usize::try_from(c).ok()),
            records,
        };
        Some(StampedRecordFile {
            hash: form.hash,
            parsed: Arc::new(ParsedRecordFile {
                file: Some(Arc::new(file)),
                diagnostics: Vec::new(),
            }),
        })
    }

    /// The kept abstract of `hash` and `len` bytes, pointing into the file.
    fn kept_text(&self, hash: u64, len: u32, tex: bool) -> Option<Text> {
        let (offset, kept_len, kept_hash) = self.file.place(abstract_key(hash, len))?;
        (kept_len == len && kept_hash == hash)
            .then(|| self.texts.text(offset, len, hash, tex))
            .flatten()
    }

    /// The first failure to read a kept abstract back, if any.
    pub fn failure(&self) -> Option<String> {
        self.texts.failure()
    }

    /// The abstracts' file alone (the records are all taken: their index is freed),
    /// to learn whether reading one back failed ([`KeptTexts::failure`]).
    pub fn into_texts(self) -> KeptTexts {
        self.texts
    }
}

/// Whether a build that read and parsed `parsed` of its `files` record files (the
/// others were kept) should write the kept file anew: more than one in
/// [`MAY_LACK_ONE_IN`] was not kept, the rule of the other kept files.
pub fn worth_rewriting(parsed: usize, files: usize) -> bool {
    parsed * MAY_LACK_ONE_IN > files
}

/// A record file to keep: its stamp key, the hash of its bytes, and the file.
pub type Keepable = (u64, u64, Arc<RecordFile>);

/// Writes `files` to `out` as a kept file of `identity`. Each distinct abstract is
/// written once; a file with an abstract that differs from another of the same hash and
/// length is left out (it is read again next time). Files are serialized on every
/// thread, a slice at a time, and written in their order.
pub fn write_kept(out: &mut dyn Write, identity: &str, files: &[Keepable]) -> io::Result<()> {
    const SLICE: usize = 4096;
    let mut writer = KeptWriter::new(out, identity)?;
    let mut written: ByHash<Text> = ByHash::default();
    for slice in files.chunks(SLICE) {
        let forms: Vec<(u64, KeptForm)> = slice
            .par_iter()
            .map(|(stamp, hash, file)| (*stamp, kept_form(*hash, file)))
            .collect();
        for ((stamp, form), (_, _, file)) in forms.into_iter().zip(slice) {
            if let Some(abstracts) = new_abstracts(file, &written) {
                for (key, text) in abstracts {
                    writer.add(key, text.load().as_bytes())?;
                    written.insert(key, text);
                }
                let blob = postcard::to_allocvec(&form).map_err(io::Error::other)?;
                writer.add(stamp, &blob)?;
            }
        }
    }
    writer.finish()?.flush()
}

/// The kept form of `file`, whose bytes have the hash `hash`.
fn kept_form(hash: u64, file: &RecordFile) -> KeptForm {
    KeptForm {
        hash,
        author_name: file.author_name.clone(),
        declared_count: file.declared_count.map(|c| c as u64),
        records: file
            .records
            .iter()
            .map(|r| KeptRecord {
                source: r.source.clone(),
                year: r.year,
                title: r.title.clone(),
                abstract_text: r.abstract_text.as_ref().map(|a| {
                    let len = u32::try_from(a.len()).unwrap_or(u32::MAX);
                    (a.content_hash(), len, a.has_tex())
                }),
                subjects: r.subjects.clone(),
                line: r.line as u64,
                title_key: r.title_key(),
            })
            .collect(),
    }
}

/// The abstracts of `file` not `written` yet, by key; `None` if one has the key of a
/// different written text (or is too long to keep).
fn new_abstracts(file: &RecordFile, written: &ByHash<Text>) -> Option<Vec<(u64, Text)>> {
    let mut new: Vec<(u64, Text)> = Vec::new();
    for text in file.records.iter().filter_map(|r| r.abstract_text.as_ref()) {
        let key = abstract_key(text.content_hash(), u32::try_from(text.len()).ok()?);
        match written
            .get(&key)
            .or_else(|| new.iter().find(|(k, _)| *k == key).map(|(_, t)| t))
        {
            Some(known) if known == text => {}
            Some(_) => return None,
            None => new.push((key, text.clone())),
        }
    }
    Some(new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text_store::TextStore;

    /// Three files: two share an abstract (one copy, as the pool makes them), one
    /// abstract is in a text store, one record has none.
    fn files(store: &TextStore) -> Vec<Keepable> {
        let shared: Text = "A shared abstract with $x^2$.".into();
        let stored = store.put("An abstract from the store.");
        let mut a =
            RecordFile::for_test(("a.txt", "Ada"), &["One", "Two"], (2020, "math.AG"), |_| {
                None
            });
        a.records[0].abstract_text = Some(shared.clone());
        a.records[1].abstract_text = Some(stored);
        let mut b = RecordFile::for_test(("b.txt", "Bo"), &["One"], (2020, "math.AG"), |_| None);
        b.records[0].abstract_text = Some(shared);
        b.declared_count = Some(1);
        let c = RecordFile::for_test(("c.txt", "Cy"), &["Three"], (2021, "cs.DC"), |_| None);
        vec![
            (1, 11, Arc::new(a)),
            (2, 12, Arc::new(b)),
            (3, 13, Arc::new(c)),
        ]
    }

    fn written(files: &[Keepable]) -> tempfile::NamedTempFile {
        let mut out = tempfile::NamedTempFile::new().unwrap();
        write_kept(out.as_file_mut(), "test", files).unwrap();
        out
    }

    #[test]
    fn kept_files_come_back_as_they_were_with_shared_abstracts_shared() {
        let dir = tempfile::tempdir().unwrap();
        let store = TextStore::in_dir(dir.path());
        let files = files(&store);
        let out = written(&files);
        assert!(KeptRecords::open(out.path(), "another binary").is_none());
        let kept = KeptRecords::open(out.path(), "test").unwrap();
        for (stamp, hash, file) in &files {
            let back = kept.get(*stamp, &file.path).unwrap();
            assert_eq!(back.hash, *hash);
            let parsed = back.parsed.file.as_ref().unwrap();
            assert_eq!(**parsed, **file);
            let keys = |f: &RecordFile| f.records.iter().map(Record::title_key).collect::<Vec<_>>();
            assert_eq!(keys(parsed), keys(file));
            assert!(back.parsed.diagnostics.is_empty());
        }
        assert!(kept.get(4, Path::new("d.txt")).is_none());
        let (a, b) = (
            kept.get(1, Path::new("a.txt")).unwrap(),
            kept.get(2, Path::new("b.txt")).unwrap(),
        );
        let first = |s: &StampedRecordFile| {
            s.parsed.file.as_ref().unwrap().records[0]
                .abstract_text
                .clone()
                .unwrap()
        };
        assert!(first(&a).same_as(&first(&b)));
        assert_eq!(&*first(&a).load(), "A shared abstract with $x^2$.");
        assert!(first(&a).has_tex());
        assert_eq!(kept.failure(), None);
    }

    #[test]
    fn a_damaged_kept_abstract_is_read_as_a_failure_not_as_text() {
        let files = files(&TextStore::default());
        let out = written(&files);
        let raw = std::fs::read(out.path()).unwrap();
        let text = b"A shared abstract";
        let at = raw.windows(text.len()).position(|w| w == text).unwrap();
        let mut damaged = raw.clone();
        damaged[at] = b'a';
        std::fs::write(out.path(), &damaged).unwrap();
        let kept = KeptRecords::open(out.path(), "test").unwrap();
        let back = kept.get(1, Path::new("a.txt")).unwrap();
        let record = &back.parsed.file.as_ref().unwrap().records[0];
        assert_eq!(&*record.abstract_text.as_ref().unwrap().load(), "");
        assert!(
            kept.failure().unwrap().contains("damaged"),
            "{:?}",
            kept.failure()
        );
    }

    #[test]
    fn the_kept_file_is_written_anew_when_more_than_one_in_twenty_files_was_parsed() {
        assert!(!worth_rewriting(0, 0));
        assert!(!worth_rewriting(1, 20));
        assert!(worth_rewriting(2, 20));
        assert!(worth_rewriting(1, 1));
        assert!(!worth_rewriting(5, 100_000));
    }
}
