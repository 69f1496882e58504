//! Long texts kept on disk rather than in memory for the length of a build.
//!
//! A paper's abstract is the largest text a build holds, and it is read only a few
//! times: when it is converted, indexed for search, and rendered into the outputs that
//! show it. A [`TextStore`] is an unnamed temporary file that such texts are appended
//! to; each is then a [`Text`] of 32 bytes (the file, an offset, a length and the
//! hash of its content) and is read back, with one positioned read, where it is
//! needed. So the memory a build holds does not grow with the total length of the
//! abstracts. The operating system's page
//! cache keeps recently written texts at hand; it is not the process's memory and is
//! given back under pressure.
//!
//! A store that cannot create its file keeps its texts in memory, as does
//! [`TextStore::default`] (for tests and small inputs). Should reading a stored text
//! fail, [`Text::load`] gives an empty text and the store records the failure, which
//! the build reports as an error before committing anything ([`TextStore::failure`]).

use std::fmt;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::threads::lock;

/// Where texts are put: a temporary file, or memory.
#[derive(Clone, Default)]
pub struct TextStore {
    file: Option<Arc<StoreFile>>,
}

/// The temporary file behind a store, with the offset where the next text goes.
struct StoreFile {
    file: File,
    /// The folder the file is in (`None`: the system's temporary folder).
    dir: Option<PathBuf>,
    end: AtomicU64,
    failure: Mutex<Option<String>>,
    /// Whether a text read back is checked against its hash: so for a file that an
    /// earlier build wrote ([`KeptTexts`]), which this process did not.
    checked: bool,
}

/// Texts that an earlier build wrote into a file it kept, read from there as
/// [`Text`]s without being read now: see [`KeptTexts::text`].
pub struct KeptTexts(Arc<StoreFile>);

impl KeptTexts {
    /// The texts in `file`, which is `len` bytes long (an open file: one that replaces
    /// it on disk later is not read).
    pub fn in_file(file: File, len: u64) -> KeptTexts {
        KeptTexts(Arc::new(StoreFile {
            file,
            dir: None,
            end: AtomicU64::new(len),
            failure: Mutex::new(None),
            checked: true,
        }))
    }

    /// The text of `len` bytes at `offset`, whose [`crate::hash::content_hash`] is
    /// `hash` and [`crate::tex::has_tex`] is `tex` (as they were when it was written);
    /// `None` if it would end past the file. Read back only when loaded; one that is
    /// not what its hash says then fails the build ([`KeptTexts::failure`]).
    pub fn text(&self, offset: u64, len: u32, hash: u64, tex: bool) -> Option<Text> {
        let end = offset.checked_add(u64::from(len))?;
        (end <= self.0.end.load(Ordering::Relaxed)).then(|| Text {
            repr: Repr::Stored {
                file: Arc::clone(&self.0),
                offset,
                len,
            },
            hash,
            tex,
        })
    }

    /// The first failure to read a text back, if any.
    pub fn failure(&self) -> Option<String> {
        lock(&self.0.failure).clone()
    }
}

/// A text: held in memory, or stored in a [`TextStore`]'s file; with the hash of its
/// content, found once when it is made, so that what only compares texts (a build's
/// fingerprints, the search index's reuse) need not read them.
#[derive(Clone)]
pub struct Text {
    repr: Repr,
    /// [`crate::hash::content_hash`] of the text.
    hash: u64,
    /// [`crate::tex::has_tex`] of the text, found when it was made, so that a text
    /// without TeX is not read again (back from the store, or scanned in memory in each
    /// rebuild of a long-running process) to be converted.
    tex: bool,
}

#[derive(Clone)]
enum Repr {
    Held(Arc<str>),
    Stored {
        file: Arc<StoreFile>,
        offset: u64,
        len: u32,
    },
}

impl TextStore {
    /// A store whose texts go to an unnamed temporary file in `dir` (created if
    /// missing), or in the system's temporary folder if that fails, or in memory if
    /// both fail. The file is removed by the operating system when the last [`Text`]
    /// in it is dropped.
    pub fn in_dir(dir: &Path) -> TextStore {
        let file = std::fs::create_dir_all(dir)
            .and_then(|()| tempfile::tempfile_in(dir))
            .map(|file| (file, Some(dir.to_path_buf())))
            .or_else(|_| tempfile::tempfile().map(|file| (file, None)));
        TextStore {
            file: file.ok().map(|(file, dir)| {
                Arc::new(StoreFile {
                    file,
                    dir,
                    end: AtomicU64::new(0),
                    failure: Mutex::new(None),
                    checked: false,
                })
            }),
        }
    }

    /// Whether texts put here go to a file (rather than stay in memory).
    pub fn on_disk(&self) -> bool {
        self.file.is_some()
    }

    /// For a store on disk, a new scratch file in the same folder, for other data of
    /// the build's size that a stage keeps out of memory for a while. `None` for a
    /// store in memory, or when the file cannot be made.
    pub fn scratch_file(&self) -> Option<ScratchFile> {
        let store = self.file.as_ref()?;
        let file = match &store.dir {
            Some(dir) => tempfile::tempfile_in(dir),
            None => tempfile::tempfile(),
        };
        Some(ScratchFile {
            file: file.ok()?,
            end: 0,
        })
    }

    /// Puts `text` in the store. Safe to call from several threads at once. A text of
    /// 4 GiB or more, or one that cannot be written, stays in memory.
    pub fn put(&self, text: &str) -> Text {
        let (hash, tex) = (
            crate::hash::content_hash(text.as_bytes()),
            crate::tex::has_tex(text),
        );
        let held = || Text {
            repr: Repr::Held(Arc::from(text)),
            hash,
            tex,
        };
        self.store_known(text, hash, tex).unwrap_or_else(held)
    }

    /// [`TextStore::put`] for a text already made (its hash and TeX test are not
    /// found again); a stored text, and one that cannot be stored, stays as it is.
    pub fn put_text(&self, text: &Text) -> Text {
        let stored = match &text.repr {
            Repr::Held(content) => self.store_known(content, text.hash, text.tex),
            Repr::Stored { .. } => None,
        };
        stored.unwrap_or_else(|| text.clone())
    }

    /// `text`, whose [`crate::hash::content_hash`] is `hash` and
    /// [`crate::tex::has_tex`] is `tex`, written to the store's file; `None` for a
    /// store in memory, a text of 4 GiB or more, or a failed write.
    fn store_known(&self, text: &str, hash: u64, tex: bool) -> Option<Text> {
        let store = self.file.as_ref()?;
        let len = u32::try_from(text.len()).ok()?;
        let offset = store.end.fetch_add(u64::from(len), Ordering::Relaxed);
        write_all_at(&store.file, text.as_bytes(), offset).ok()?;
        Some(Text {
            repr: Repr::Stored {
                file: Arc::clone(store),
                offset,
                len,
            },
            hash,
            tex,
        })
    }

    /// Moves the texts held in memory among `texts` into the store with one write (a
    /// stored one stays as it is). Texts of 4 GiB or more, and all of them if the
    /// write fails, stay in memory.
    pub fn keep_all<'t>(&self, texts: impl IntoIterator<Item = &'t mut Text>) {
        let Some(store) = &self.file else {
            return;
        };
        let mut held: Vec<(&mut Text, Arc<str>, u32)> = Vec::new();
        for text in texts {
            if let Repr::Held(content) = &text.repr {
                if let Ok(len) = u32::try_from(content.len()) {
                    let content = Arc::clone(content);
                    held.push((text, content, len));
                }
            }
        }
        let bytes: Vec<u8> = held
            .iter()
            .flat_map(|(_, c, _)| c.as_bytes())
            .copied()
            .collect();
        let mut offset = store.end.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        if write_all_at(&store.file, &bytes, offset).is_err() {
            return;
        }
        for (text, _, len) in held {
            text.repr = Repr::Stored {
                file: Arc::clone(store),
                offset,
                len,
            };
            offset += u64::from(len);
        }
    }

    /// The first failure to read a text back from the store, if any.
    pub fn failure(&self) -> Option<String> {
        let store = self.file.as_ref()?;
        lock(&store.failure).clone()
    }
}

/// An unnamed temporary file (removed by the operating system when dropped) that
/// blocks of 32-bit numbers are appended to and read back from.
pub struct ScratchFile {
    file: File,
    end: u64,
}

/// Where [`ScratchFile::append`] put a block: its offset and its length in numbers.
#[derive(Debug, Clone, Copy)]
pub struct ScratchBlock {
    offset: u64,
    len: usize,
}

impl ScratchFile {
    /// Writes `numbers` at the end of the file; `None` if that fails.
    pub fn append(&mut self, numbers: &[u32]) -> Option<ScratchBlock> {
        let bytes = words_to_bytes(numbers);
        write_all_at(&self.file, &bytes, self.end).ok()?;
        let block = ScratchBlock {
            offset: self.end,
            len: numbers.len(),
        };
        self.end += bytes.len() as u64;
        Some(block)
    }

    /// The numbers of `block`, read back; `None` if that fails.
    pub fn read(&self, block: ScratchBlock) -> Option<Vec<u32>> {
        let mut bytes = vec![0; block.len * 4];
        read_exact_at(&self.file, &mut bytes, block.offset).ok()?;
        words_from_bytes(&bytes)
    }
}

/// Numbers as they are kept on disk: four bytes each, little-endian.
pub fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|n| n.to_le_bytes()).collect()
}

/// The numbers of [`words_to_bytes`]; `None` if `bytes` are not a whole number of them.
pub fn words_from_bytes(bytes: &[u8]) -> Option<Vec<u32>> {
    let (words, rest) = bytes.as_chunks::<4>();
    rest.is_empty()
        .then(|| words.iter().map(|&w| u32::from_le_bytes(w)).collect())
}

impl Text {
    /// The text. A stored text is read from its file (an empty text if that fails; see
    /// [`TextStore::failure`]).
    pub fn load(&self) -> Arc<str> {
        match &self.repr {
            Repr::Held(text) => Arc::clone(text),
            Repr::Stored {
                file, offset, len, ..
            } => match file.read(*offset, *len, self.hash) {
                Ok(text) => text,
                Err(message) => {
                    let mut failure = lock(&file.failure);
                    failure.get_or_insert(message);
                    Arc::from("")
                }
            },
        }
    }

    /// The text's length in bytes, without reading it.
    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Held(text) => text.len(),
            Repr::Stored { len, .. } => *len as usize,
        }
    }

    /// Whether the text is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The hash of the text ([`crate::hash::content_hash`] of its bytes), without
    /// reading it.
    pub fn content_hash(&self) -> u64 {
        self.hash
    }

    /// Whether the text has anything TeX conversion reads ([`crate::tex::has_tex`]),
    /// without reading it.
    pub fn has_tex(&self) -> bool {
        self.tex
    }

    /// Whether two texts are the same stored or held text (not only equal).
    pub fn same_as(&self, other: &Text) -> bool {
        match (&self.repr, &other.repr) {
            (Repr::Held(a), Repr::Held(b)) => Arc::ptr_eq(a, b),
            (
                Repr::Stored {
                    file: a, offset: x, ..
                },
                Repr::Stored {
                    file: b, offset: y, ..
                },
            ) => Arc::ptr_eq(a, b) && x == y,
            _ => false,
        }
    }
}

impl StoreFile {
    /// The `len` bytes at `offset`, as text (checked against `hash` in a file that an
    /// earlier build wrote).
    fn read(&self, offset: u64, len: u32, hash: u64) -> Result<Arc<str>, String> {
        let mut bytes = vec![0; len as usize];
        read_exact_at(&self.file, &mut bytes, offset)
            .map_err(|e| format!("could not read the build's text store back: {e}"))?;
        if self.checked && crate::hash::content_hash(&bytes) != hash {
            return Err(
                "a text kept by an earlier build is damaged on disk (it is kept anew by the next build)"
                    .to_string(),
            );
        }
        String::from_utf8(bytes)
            .map(Arc::from)
            .map_err(|_| "the build's text store gave back text that is not UTF-8".to_string())
    }
}

#[cfg(unix)]
fn write_all_at(file: &File, bytes: &[u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, bytes, offset)
}

/// Reads `bytes.len()` bytes of `file` at `offset`, without moving its cursor.
#[cfg(unix)]
pub(crate) fn read_exact_at(file: &File, bytes: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, bytes, offset)
}

#[cfg(not(unix))]
fn write_all_at(_: &File, _: &[u8], _: u64) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "positioned writes",
    ))
}

#[cfg(not(unix))]
pub(crate) fn read_exact_at(_: &File, _: &mut [u8], _: u64) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "positioned reads",
    ))
}

impl From<&str> for Text {
    fn from(text: &str) -> Text {
        Text::from(Arc::<str>::from(text))
    }
}

impl From<String> for Text {
    fn from(text: String) -> Text {
        Text::from(Arc::<str>::from(text))
    }
}

impl From<Arc<str>> for Text {
    fn from(text: Arc<str>) -> Text {
        Text {
            hash: crate::hash::content_hash(text.as_bytes()),
            tex: crate::tex::has_tex(&text),
            repr: Repr::Held(text),
        }
    }
}

impl fmt::Debug for TextStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let place = if self.on_disk() { "file" } else { "memory" };
        write!(f, "TextStore({place})")
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.same_as(other)
            || self.hash == other.hash && self.len() == other.len() && self.load() == other.load()
    }
}

impl Eq for Text {}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.load(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_text_reads_back_as_it_was_put() {
        let dir = tempfile::tempdir().unwrap();
        let store = TextStore::in_dir(&dir.path().join("cache"));
        assert!(store.on_disk());
        let texts = [
            "",
            "Plain words.",
            "Łukasz and Zoë: $\\alpha$ ≤ 2.\n\nMore.",
        ];
        let stored: Vec<Text> = texts.iter().map(|t| store.put(t)).collect();
        for (text, stored) in texts.iter().zip(&stored) {
            assert_eq!(&*stored.load(), *text);
            assert_eq!(stored.len(), text.len());
        }
        assert!(matches!(stored[2].repr, Repr::Stored { .. }));
        assert_eq!(store.failure(), None);
    }

    #[test]
    fn texts_put_from_many_threads_each_read_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let store = TextStore::in_dir(dir.path());
        let stored: Vec<(String, Text)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..4)
                .map(|thread| {
                    let store = &store;
                    scope.spawn(move || {
                        (0..200)
                            .map(|i| {
                                let text = format!("thread {thread} text {i} ").repeat(i % 7 + 1);
                                let stored = store.put(&text);
                                (text, stored)
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap())
                .collect()
        });
        for (text, stored) in &stored {
            assert_eq!(&*stored.load(), text.as_str());
        }
    }

    #[test]
    fn texts_kept_together_each_read_back_and_stored_ones_stay() {
        let dir = tempfile::tempdir().unwrap();
        let store = TextStore::in_dir(dir.path());
        let already = store.put("stored before");
        let mut texts = [
            Text::from("first"),
            already.clone(),
            Text::from(""),
            Text::from("Łukasz, third"),
        ];
        store.keep_all(texts.iter_mut());
        assert!(texts.iter().all(|t| matches!(t.repr, Repr::Stored { .. })));
        assert!(texts[1].same_as(&already));
        let loaded: Vec<String> = texts.iter().map(|t| t.load().to_string()).collect();
        assert_eq!(loaded, ["first", "stored before", "", "Łukasz, third"]);
        let mut in_memory = [Text::from("stays")];
        TextStore::default().keep_all(in_memory.iter_mut());
        assert!(matches!(in_memory[0].repr, Repr::Held(_)));
    }

    #[test]
    fn a_text_knows_whether_it_has_tex_without_being_read() {
        let dir = tempfile::tempdir().unwrap();
        let store = TextStore::in_dir(dir.path());
        for (content, tex) in [
            ("Plain words, 'quoted' & <tagged>.", false),
            ("Math: $x$.", true),
            (r"A \emph{word}.", true),
            ("A dash -- here.", true),
            ("", false),
        ] {
            let mut kept = [Text::from(content)];
            store.keep_all(kept.iter_mut());
            for text in [&Text::from(content), &store.put(content), &kept[0]] {
                assert_eq!(text.has_tex(), tex, "{content:?}");
            }
        }
        // Answered from what was found when the text was made: a text whose bytes
        // cannot be read back still answers.
        let text = store.put("$y$");
        let Repr::Stored { file, .. } = &text.repr else {
            panic!("stored");
        };
        let unreadable = Text {
            repr: Repr::Stored {
                file: Arc::clone(file),
                offset: 1 << 40,
                len: 3,
            },
            hash: text.content_hash(),
            tex: true,
        };
        assert!(unreadable.has_tex());
        assert_eq!(&*unreadable.load(), "");
    }

    #[test]
    fn a_text_knows_the_hash_of_its_content_wherever_it_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = TextStore::in_dir(dir.path());
        let content = "An abstract with $x^2$ and Łukasz.";
        let expected = crate::hash::content_hash(content.as_bytes());
        let held = Text::from(content);
        let put = store.put(content);
        let mut kept = [Text::from(content.to_string())];
        store.keep_all(kept.iter_mut());
        assert!(matches!(put.repr, Repr::Stored { .. }));
        assert!(matches!(kept[0].repr, Repr::Stored { .. }));
        // A text already made keeps its hash and TeX test when stored, and a stored
        // one stays the same text.
        let put_made = store.put_text(&held);
        assert!(matches!(put_made.repr, Repr::Stored { .. }));
        assert!(put_made.has_tex() && held.has_tex());
        assert_eq!(&*put_made.load(), content);
        assert!(store.put_text(&put).same_as(&put));
        for text in [&held, &put, &kept[0], &put_made] {
            assert_eq!(text.content_hash(), expected);
        }
        assert_ne!(Text::from("An abstract.").content_hash(), expected);
        assert_eq!(
            Text::from("").content_hash(),
            crate::hash::content_hash(b"")
        );
    }

    #[test]
    fn equality_is_by_content_wherever_a_text_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = TextStore::in_dir(dir.path());
        let held = Text::from("An abstract.");
        let mut stored = [held.clone()];
        store.keep_all(stored.iter_mut());
        let [stored] = stored;
        assert!(matches!(stored.repr, Repr::Stored { .. }));
        assert_eq!(held, stored);
        assert_ne!(stored, store.put("Another abstract."));
        assert!(stored.same_as(&stored.clone()));
        assert!(!stored.same_as(&store.put("An abstract.")));
        assert_eq!(format!("{stored:?}"), "\"An abstract.\"");
    }

    #[test]
    fn a_store_in_memory_keeps_texts_held() {
        let store = TextStore::default();
        assert!(!store.on_disk());
        let text = store.put("Kept in memory.");
        assert!(matches!(text.repr, Repr::Held(_)));
        assert_eq!(&*text.load(), "Kept in memory.");
        // A text already made stays the same text, not a copy.
        assert!(store.put_text(&text).same_as(&text));
        assert_eq!(store.failure(), None);
    }

    #[test]
    fn a_failed_read_is_an_empty_text_and_a_recorded_failure() {
        let dir = tempfile::tempdir().unwrap();
        let store = TextStore::in_dir(dir.path());
        let text = store.put("Twelve bytes");
        // A text said to run past the end of the file cannot be read back.
        let Repr::Stored { file, offset, .. } = &text.repr else {
            panic!("stored");
        };
        let broken = Text {
            repr: Repr::Stored {
                file: Arc::clone(file),
                offset: *offset + 6,
                len: 12,
            },
            hash: text.content_hash(),
            tex: false,
        };
        assert_eq!(&*broken.load(), "");
        let failure = store.failure().expect("a failure");
        assert!(failure.contains("text store"), "{failure}");
        assert_eq!(&*text.load(), "Twelve bytes");
    }
}
