//! Parsing author record files (the format described in the README's "Record format").
//!
//! A record file is a sequence of blocks separated by blank lines: a header
//! (banner, author name, attribution, declared count) and then records of
//! source-year, title, abstract paragraphs and subject. Boundaries are
//! positional; the parser is lenient about what real exports do (BOM, CRLF,
//! trailing spaces, runs of blank lines, missing abstracts, several
//! paragraphs) and reports everything else as a [`Diagnostic`] with file, line
//! and column, reading on past it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use crate::diagnostics::{Diagnostic, Location};
use crate::hash::ByHash;
use crate::normalize::text_key_hash;
use crate::text_store::{Text, TextStore};
use crate::threads::lock;

/// The arrow that ends a subject block (U+2197, the export's link to the source listing).
pub const SUBJECT_ARROW: char = '\u{2197}';

/// One author's record file, as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordFile {
    /// The file, as shown in diagnostics (relative to the site root when possible).
    pub path: PathBuf,
    /// The author's display name, from the name block.
    pub author_name: String,
    /// The number of records the header declares, if it could be read.
    pub declared_count: Option<usize>,
    /// The records present, in file order.
    pub records: Vec<Record>,
}

#[cfg(test)]
impl RecordFile {
    /// A record file for tests: `author`'s arXiv papers `titles`, all of `year` in
    /// `subject`, each with the abstract `abstract_of` gives its title.
    pub(crate) fn for_test(
        (path, author): (&str, &str),
        titles: &[&str],
        (year, subject): (u16, &str),
        abstract_of: impl Fn(&str) -> Option<String>,
    ) -> RecordFile {
        RecordFile {
            path: path.into(),
            author_name: author.into(),
            declared_count: None,
            records: (titles.iter().enumerate())
                .map(|(i, title)| {
                    Record::new(
                        "arXiv".into(),
                        year,
                        (*title).into(),
                        abstract_of(title).map(|text| text.as_str().into()),
                        vec![subject.into()],
                        9 + 6 * i,
                    )
                })
                .collect(),
        }
    }
}

/// One publication record in a record file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The source token, e.g. `arXiv`.
    pub source: String,
    /// The four-digit year.
    pub year: u16,
    /// The title, one line.
    pub title: String,
    /// The abstract: paragraphs separated by a blank line (`"\n\n"`), or `None` when the
    /// record has none. Shared (not copied) by the paper it becomes and by its
    /// converted text when conversion leaves it as it is.
    pub abstract_text: Option<Text>,
    /// The subject codes (usually exactly one), e.g. `cs.DC`. Empty when the record is
    /// missing its subject block.
    pub subjects: Vec<String>,
    /// The 1-based line of the record's source-year block.
    pub line: usize,
    /// [`Record::title_key`], once asked for.
    title_key: FoundOnce,
}

/// A value of a record found from its fields when first asked for and kept with it: a
/// long-running process reuses a record file it parsed before, and the value with it.
/// Not part of what the record is: records are equal whether or not it was found.
#[derive(Debug, Clone, Default)]
struct FoundOnce(OnceLock<u64>);

impl PartialEq for FoundOnce {
    fn eq(&self, _: &FoundOnce) -> bool {
        true
    }
}

impl Eq for FoundOnce {}

impl Record {
    /// The hash of the title's matching key ([`text_key_hash`]), by which linking groups
    /// the copies of a paper: found the first time it is asked for (a build that finds
    /// the site unchanged never asks), then kept with the record.
    pub fn title_key(&self) -> u64 {
        *self.title_key.0.get_or_init(|| text_key_hash(&self.title))
    }

    /// The record, with its [`Record::title_key`] known to be `key` (found by an
    /// earlier build from the same title).
    pub fn knowing_title_key(self, key: u64) -> Record {
        let _ = self.title_key.0.set(key);
        self
    }

    /// A record of these fields.
    pub fn new(
        source: String,
        year: u16,
        title: String,
        abstract_text: Option<Text>,
        subjects: Vec<String>,
        line: usize,
    ) -> Record {
        Record {
            title_key: FoundOnce::default(),
            source,
            year,
            title,
            abstract_text,
            subjects,
            line,
        }
    }
}

impl RecordFile {
    /// Makes each abstract the copy `pool` holds of the same text, when it holds one.
    pub fn share_texts(&mut self, pool: &TextPool) {
        for record in &mut self.records {
            if let Some(text) = &mut record.abstract_text {
                *text = pool.share(text);
            }
        }
    }
}

/// How many locks [`TextPool`] spreads its texts over.
const POOL_SHARDS: usize = 16;

/// One copy of each distinct abstract among the record files read in one build. A
/// paper listed in several author files has the same abstract in each, and the copies
/// would otherwise all be held until linking ends (they are most of a build's memory
/// before the outputs are planned). A pool made with [`TextPool::storing_from`] puts
/// the copies in a [`TextStore`], out of memory, once the distinct abstracts it has
/// seen total a number of bytes.
#[derive(Default)]
pub struct TextPool {
    /// By the text's hash, its one copy; a text whose hash another text has is not
    /// shared.
    shards: [Mutex<ByHash<Text>>; POOL_SHARDS],
    /// The length of the distinct texts seen so far, in bytes.
    bytes: AtomicUsize,
    /// From how many bytes of distinct texts on new ones go to the store, and where the
    /// store's file goes (`None`: never).
    store_from: Option<(usize, PathBuf)>,
    /// The store, made when the first text goes to it.
    store: OnceLock<TextStore>,
}

impl TextPool {
    /// A pool whose copies go to a text store in `dir` (see [`TextStore::in_dir`]) once
    /// the distinct texts seen total `min_bytes` or more: the texts seen until then
    /// stay in memory.
    pub fn storing_from(min_bytes: usize, dir: PathBuf) -> TextPool {
        TextPool {
            store_from: Some((min_bytes, dir)),
            ..TextPool::default()
        }
    }

    /// The pool's copy of `text`, which becomes the copy if it has none.
    pub fn share(&self, text: &Text) -> Text {
        let loaded = text.load();
        let hash = text.content_hash();
        let shard = &self.shards[(hash % POOL_SHARDS as u64) as usize];
        let copy = {
            let mut known = lock(shard);
            match known.get(&hash) {
                Some(copy) => copy.clone(),
                None => {
                    let copy = self.first_copy(text);
                    known.insert(hash, copy.clone());
                    return copy;
                }
            }
        };
        // Compared outside the lock: a stored copy is read back from its file.
        if copy.len() == loaded.len() && *copy.load() == *loaded {
            copy
        } else {
            text.clone()
        }
    }

    /// The copy of a text seen for the first time: `text` itself, or the text put in
    /// the store once the distinct texts total enough.
    fn first_copy(&self, text: &Text) -> Text {
        let total = self.bytes.fetch_add(text.len(), Ordering::Relaxed) + text.len();
        match &self.store_from {
            Some((min_bytes, dir)) if total >= *min_bytes => self
                .store
                .get_or_init(|| TextStore::in_dir(dir))
                .put_text(text),
            _ => text.clone(),
        }
    }

    /// Whether the distinct texts seen total enough for the pool to store them (always
    /// `false` for a pool that never stores).
    #[cfg(test)]
    pub fn stores(&self) -> bool {
        self.store.get().is_some()
    }

    /// The store the pool's copies went to, if it made one.
    pub fn into_store(self) -> Option<TextStore> {
        self.store.into_inner()
    }
}

/// A run of non-blank lines.
struct Block<'a> {
    /// `(1-based line number, trimmed line text)` for each line.
    lines: Vec<(usize, &'a str)>,
}

impl<'a> Block<'a> {
    fn first_line(&self) -> usize {
        self.lines[0].0
    }

    /// The block's lines joined by single spaces.
    fn text(&self) -> String {
        let mut text = String::new();
        for (i, (_, line)) in self.lines.iter().enumerate() {
            if i > 0 {
                text.push(' ');
            }
            text.push_str(line);
        }
        text
    }

    fn single_line(&self) -> Option<&'a str> {
        match self.lines.as_slice() {
            [(_, line)] => Some(line),
            _ => None,
        }
    }
}

/// Parses the bytes of one record file. `path` is used in diagnostics only.
///
/// Returns the file (or `None` when nothing attributable could be read) and every
/// diagnostic found. Never panics, whatever the bytes.
pub fn parse_record_file(path: &Path, bytes: &[u8]) -> (Option<RecordFile>, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let text = decode(path, bytes, &mut diagnostics);
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
    let lines: Vec<&str> = text
        .split('\n')
        .map(|line| line.trim_end_matches('\r').trim())
        .collect();
    let raw_lines: Vec<&str> = text.split('\n').map(|l| l.trim_end_matches('\r')).collect();
    let blocks = split_blocks(&lines);
    let mut parser = Parser {
        path,
        raw_lines: &raw_lines,
        blocks: &blocks,
        diagnostics: &mut diagnostics,
        needs_cleaning: needs_cleaning(text.as_bytes()),
    };
    let file = parser.parse();
    (file, diagnostics)
}

/// Decodes UTF-8, reporting the first invalid sequence and replacing each with U+FFFD.
fn decode(path: &Path, bytes: &[u8], diagnostics: &mut Vec<Diagnostic>) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_string(),
        Err(err) => {
            let valid = &bytes[..err.valid_up_to()];
            // The valid prefix is UTF-8 by definition.
            let prefix = std::str::from_utf8(valid).unwrap_or_default();
            let lossy = String::from_utf8_lossy(bytes).into_owned();
            let invalid_count = lossy.matches('\u{FFFD}').count()
                - String::from_utf8_lossy(valid).matches('\u{FFFD}').count();
            let location = Location::in_text(path, &lossy, prefix.len(), 1);
            diagnostics.push(
                Diagnostic::error(
                    format!(
                        "file is not valid UTF-8 ({invalid_count} invalid byte sequence{})",
                        if invalid_count == 1 { "" } else { "s" }
                    ),
                    Some(location),
                )
                .with_note("invalid bytes are read as U+FFFD (�); re-export the file as UTF-8"),
            );
            lossy
        }
    }
}

fn split_blocks<'a>(lines: &[&'a str]) -> Vec<Block<'a>> {
    let mut blocks = Vec::new();
    let mut current: Vec<(usize, &'a str)> = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        if line.is_empty() {
            if !current.is_empty() {
                blocks.push(Block {
                    lines: std::mem::take(&mut current),
                });
            }
        } else {
            current.push((index + 1, line));
        }
    }
    if !current.is_empty() {
        blocks.push(Block { lines: current });
    }
    blocks
}

/// `arXiv2026` -> `("arXiv", 2026)`: one token, a source of letters (and digits, `-`, `.`,
/// `_` after the first letter) immediately followed by four digits.
pub fn parse_source_year(text: &str) -> Option<(&str, u16)> {
    if text.len() < 5 || !text.is_ascii() {
        return None;
    }
    let (source, year) = text.split_at(text.len() - 4);
    if !year.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut chars = source.chars();
    let first = chars.next()?;
    if !first.is_ascii_alphabetic()
        || !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
        || source.ends_with(|c: char| c.is_ascii_digit())
    {
        return None;
    }
    Some((source, year.parse().ok()?))
}

/// Whether `code` has the shape of an arXiv category code (`cs.DC`, `hep-ex`,
/// `physics.soc-ph`, `q-fin.GN`).
pub fn is_category_code(code: &str) -> bool {
    let mut parts = code.splitn(2, '.');
    let archive = parts.next().unwrap_or("");
    let archive_ok = !archive.is_empty()
        && archive.starts_with(|c: char| c.is_ascii_lowercase())
        && !archive.ends_with('-')
        && archive.chars().all(|c| c.is_ascii_lowercase() || c == '-');
    let sub_ok = match parts.next() {
        None => true,
        Some(sub) => {
            !sub.is_empty()
                && sub.starts_with(|c: char| c.is_ascii_alphabetic())
                && !sub.ends_with('-')
                && sub.chars().all(|c| c.is_ascii_alphabetic() || c == '-')
        }
    };
    archive_ok && sub_ok
}

struct Parser<'a, 'b> {
    path: &'a Path,
    raw_lines: &'a [&'a str],
    blocks: &'a [Block<'a>],
    diagnostics: &'b mut Vec<Diagnostic>,
    /// False when the file holds no character that [`Parser::clean`] replaces.
    needs_cleaning: bool,
}

/// Whether the UTF-8 text `bytes` holds a character that [`is_unwanted_char`] finds: a
/// control character other than tab and line feed (a carriage return counts unless a line
/// feed follows it: CRLF line ends are not text), or a noncharacter.
///
/// A branch-free pass at vector speed first looks for the bytes such a character's
/// encoding starts with (C0 controls, DEL, 0xC2, 0xEF, 0xF0-0xF4); real files seldom
/// hold any, and then their texts are not looked at again. Only otherwise are the bytes
/// after each such lead byte checked, and in a file with some, each text is checked the
/// same way before it is copied.
fn needs_cleaning(bytes: &[u8]) -> bool {
    let may_hold = bytes.chunks(4096).any(|chunk| {
        chunk.iter().fold(false, |found, &b| {
            found
                | ((b < 0x20) & (b != b'\t') & (b != b'\n'))
                | (b == 0x7f)
                | (b == 0xc2)
                | (b >= 0xef)
        })
    });
    may_hold && holds_unwanted(bytes)
}

/// [`needs_cleaning`] after its first pass: one table look-up per byte, and a look at the
/// next bytes after a lead byte.
fn holds_unwanted(bytes: &[u8]) -> bool {
    const LEADS: [bool; 256] = {
        let mut leads = [false; 256];
        let mut b = 0;
        while b < 0x20 {
            leads[b] = b != 0x09 && b != 0x0a;
            b += 1;
        }
        leads[0x7f] = true;
        leads[0xc2] = true;
        leads[0xef] = true;
        let mut b = 0xf0;
        while b <= 0xf4 {
            leads[b] = true;
            b += 1;
        }
        leads
    };
    let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
    bytes.iter().enumerate().any(|(i, &b)| {
        LEADS[usize::from(b)]
            && match b {
                b'\r' => at(i + 1) != b'\n',
                // C1 controls: U+0080-U+009F.
                0xc2 => at(i + 1) <= 0x9f,
                // U+FDD0-U+FDEF, U+FFFE, U+FFFF.
                0xef => {
                    (at(i + 1) == 0xb7 && (0x90..=0xaf).contains(&at(i + 2)))
                        || (at(i + 1) == 0xbf && at(i + 2) >= 0xbe)
                }
                // U+nFFFE and U+nFFFF of the supplementary planes.
                0xf0..=0xf4 => at(i + 1) & 0x0f == 0x0f && at(i + 2) == 0xbf && at(i + 3) >= 0xbe,
                _ => true,
            }
    })
}

impl<'a> Parser<'a, '_> {
    fn location(&self, line: usize) -> Location {
        let raw = self.raw_lines.get(line - 1).copied().unwrap_or("");
        let raw = raw.strip_prefix('\u{FEFF}').unwrap_or(raw);
        let column = raw.chars().take_while(|c| c.is_whitespace()).count() + 1;
        let width = raw.trim().chars().count();
        Location::at_line(self.path, line, column, raw, width)
    }

    fn block_location(&self, block: &Block) -> Location {
        self.location(block.first_line())
    }

    fn warn(&mut self, message: String, location: Location) -> &mut Diagnostic {
        self.diagnostics
            .push(Diagnostic::warning(message, Some(location)));
        self.diagnostics.last_mut().expect("just pushed")
    }

    fn error(&mut self, message: String, location: Location) -> &mut Diagnostic {
        self.diagnostics
            .push(Diagnostic::error(message, Some(location)));
        self.diagnostics.last_mut().expect("just pushed")
    }

    fn parse(&mut self) -> Option<RecordFile> {
        if self.blocks.is_empty() {
            let location = Location::at_line(self.path, 1, 1, "", 1);
            self.error("file is empty".into(), location).note = Some(
                "a record file starts with the header blocks: banner, name, attribution, count"
                    .into(),
            );
            return None;
        }
        let (author_name, declared_count, first_record) = self.parse_header()?;
        let records = self.parse_records(first_record);
        if let Some(declared) = declared_count {
            if declared != records.len() {
                let block = self
                    .blocks
                    .iter()
                    .take(first_record)
                    .find(|b| parse_count(&b.text()).is_some());
                if let Some(block) = block {
                    let location = self.block_location(block);
                    self.warn(
                        format!(
                            "header declares {declared} record{}, but the file has {}",
                            plural(declared),
                            records.len()
                        ),
                        location,
                    )
                    .note = Some("the records present are used".into());
                }
            }
        }
        if records.is_empty() {
            let location =
                self.location(self.blocks[first_record.min(self.blocks.len() - 1)].first_line());
            self.warn(format!("no readable record for {author_name}"), location);
        }
        Some(RecordFile {
            path: self.path.to_path_buf(),
            author_name,
            declared_count,
            records,
        })
    }

    /// Reads banner, name, attribution and count. Returns the name, the declared count and
    /// the index of the first record block.
    fn parse_header(&mut self) -> Option<(String, Option<usize>, usize)> {
        let blocks = self.blocks;
        let mut index = 0;
        let first = blocks[0].text();
        if first.eq_ignore_ascii_case("arXiv subjects") {
            index = 1;
        } else if is_header_like(&first) || parse_source_year(&first).is_some() {
            let location = self.block_location(&blocks[0]);
            self.warn("missing banner block (`arXiv subjects`)".into(), location);
        } else if blocks.len() > 1 && attribution_name(&blocks[1].text()).is_some() {
            // The first block is the name: the banner is missing.
            let location = self.block_location(&blocks[0]);
            self.warn("missing banner block (`arXiv subjects`)".into(), location);
        } else {
            // An unknown banner carries no data either; accept it quietly.
            index = 1;
        }

        let mut name = None;
        if let Some(block) = blocks.get(index) {
            let text = block.text();
            if !is_header_like(&text) && parse_source_year(&text).is_none() {
                // A name made only of control characters is no name once they are dropped.
                let cleaned = self.clean(&text, block.first_line());
                name = (!cleaned.trim().is_empty()).then_some(cleaned);
                index += 1;
            }
        }
        if let Some(block) = blocks.get(index) {
            if let Some(attributed) = attribution_name(&block.text()) {
                let attributed = self.clean(attributed, block.first_line());
                match &name {
                    None if attributed.trim().is_empty() => {}
                    None => {
                        let location = self.block_location(block);
                        self.warn(
                            "missing name block; the name is taken from the attribution".into(),
                            location,
                        );
                        name = Some(attributed);
                    }
                    Some(name)
                        if crate::normalize::name_key(name)
                            != crate::normalize::name_key(&attributed) =>
                    {
                        let location = self.block_location(block);
                        self.warn(
                            format!("attribution names `{attributed}`, but the name block says `{name}`"),
                            location,
                        )
                        .note = Some("the name block is used".into());
                    }
                    Some(_) => {}
                }
                index += 1;
            }
        }
        let mut declared = None;
        if let Some(block) = blocks.get(index) {
            if let Some(count) = parse_count(&block.text()) {
                declared = count;
                if count.is_none() {
                    let location = self.block_location(block);
                    self.warn("declared record count is not a number".into(), location);
                }
                index += 1;
            }
        }
        let Some(name) = name else {
            let location = self.block_location(&blocks[index.min(blocks.len() - 1)]);
            self.error(
                "file lacks the header blocks (banner, author name, attribution, count)".into(),
                location,
            )
            .note = Some("without an author name the file's records cannot be attributed; the file is skipped".into());
            return None;
        };
        if declared.is_none()
            && index < blocks.len()
            && parse_source_year(&blocks[index].text()).is_some()
        {
            // Count block simply missing; tolerate it.
            let location = self.block_location(&blocks[index]);
            self.warn("missing record count block".into(), location);
        }
        Some((name, declared, index))
    }

    /// Reads the abstract's paragraphs and the subject block that ends a record, from
    /// block `index` on (left after them); the subjects are `None` when the record has no
    /// subject block.
    fn read_abstract_and_subjects(
        &mut self,
        index: &mut usize,
    ) -> (Vec<String>, Option<Vec<String>>) {
        let blocks = self.blocks;
        let mut paragraphs = Vec::new();
        let mut subjects = None;
        while *index < blocks.len() {
            let candidate = &blocks[*index];
            let text = candidate.text();
            if let Some(codes) = subject_codes(&text) {
                subjects = Some(codes);
                *index += 1;
                break;
            }
            if candidate
                .single_line()
                .and_then(parse_source_year)
                .is_some()
            {
                break;
            }
            let next_starts_record = blocks
                .get(*index + 1)
                .is_none_or(|b| b.single_line().and_then(parse_source_year).is_some());
            if next_starts_record && is_category_code(&text) {
                let location = self.block_location(candidate);
                self.warn(
                    format!("subject `{text}` lacks the trailing `{SUBJECT_ARROW}`"),
                    location,
                );
                subjects = Some(vec![text]);
                *index += 1;
                break;
            }
            // A paragraph made only of control characters is none once they are dropped.
            let paragraph = self.clean(&text, candidate.first_line());
            if !paragraph.trim().is_empty() {
                paragraphs.push(paragraph);
            }
            *index += 1;
        }
        (paragraphs, subjects)
    }

    /// The record's subjects, each code checked, or none (reported) when the record has
    /// no subject block; `index` is the block after the record.
    fn checked_subjects(
        &mut self,
        subjects: Option<Vec<String>>,
        index: usize,
        record_line: usize,
        title: &str,
    ) -> Vec<String> {
        let blocks = self.blocks;
        match subjects {
            Some(codes) => {
                for code in &codes {
                    if !is_category_code(code) {
                        let line = blocks[index - 1].first_line();
                        let location = self.location(line);
                        self.warn(format!("`{code}` is not an arXiv category code"), location);
                    }
                }
                // A code made only of control characters is empty once they are dropped.
                codes
                    .into_iter()
                    .map(|code| self.clean(&code, record_line))
                    .filter(|code| !code.is_empty())
                    .collect()
            }
            None => {
                let location = self.location(record_line);
                let truncated = index >= blocks.len();
                let message = if truncated {
                    format!("record `{title}` ends without its subject block (truncated file?)")
                } else {
                    format!("record `{title}` has no subject block")
                };
                self.error(message, location).note =
                    Some("the record is kept without a subject".into());
                Vec::new()
            }
        }
    }

    fn parse_records(&mut self, mut index: usize) -> Vec<Record> {
        let blocks = self.blocks;
        let mut records = Vec::new();
        while index < blocks.len() {
            let block = &blocks[index];
            let Some((source, year)) = block.single_line().and_then(parse_source_year) else {
                let location = self.block_location(block);
                self.error(
                    "expected a source-year block such as `arXiv2026`".into(),
                    location,
                )
                .note = Some("skipping to the next source-year block".into());
                index += 1;
                while index < blocks.len()
                    && blocks[index]
                        .single_line()
                        .and_then(parse_source_year)
                        .is_none()
                {
                    index += 1;
                }
                continue;
            };
            let record_line = block.first_line();
            index += 1;
            let Some(title_block) = blocks.get(index) else {
                let location = self.block_location(block);
                self.error(
                    "record ends after its source-year block (truncated file?)".into(),
                    location,
                );
                break;
            };
            let title_text = title_block.text();
            if subject_codes(&title_text).is_some() {
                let location = self.block_location(title_block);
                self.error("record has no title".into(), location).note =
                    Some("the record is skipped".into());
                index += 1;
                continue;
            }
            if title_block.lines.len() > 1 {
                let location = self.block_location(title_block);
                self.warn(
                    "title runs over several lines; they are joined".into(),
                    location,
                );
            }
            let title = self.clean(&title_text, title_block.first_line());
            index += 1;

            let (paragraphs, subjects) = self.read_abstract_and_subjects(&mut index);
            if title.trim().is_empty() {
                // Made only of control characters.
                let location = self.block_location(title_block);
                self.error("record has no title".into(), location).note =
                    Some("the record is skipped".into());
                continue;
            }
            let subjects = self.checked_subjects(subjects, index, record_line, &title);
            let abstract_text =
                (!paragraphs.is_empty()).then(|| Text::from(paragraphs.join("\n\n")));
            records.push(Record::new(
                source.to_string(),
                year,
                title,
                abstract_text,
                subjects,
                record_line,
            ));
        }
        records
    }

    /// Drops characters that have no place in text (controls, noncharacters: valid
    /// UTF-8 that no export means to show, such as a stray DEL), warning once per
    /// occurrence site at the first of them. U+FFFD is kept for bytes that are not UTF-8.
    fn clean(&mut self, text: &str, line: usize) -> String {
        if !self.needs_cleaning || !needs_cleaning(text.as_bytes()) {
            return text.to_string();
        }
        let count = text.chars().filter(|&c| is_unwanted_char(c)).count();
        let location = self.unwanted_char_location(line);
        self.warn(
            format!(
                "text contains {count} control character{}; dropped",
                plural(count)
            ),
            location,
        );
        text.chars().filter(|&c| !is_unwanted_char(c)).collect()
    }

    /// The location of the first unwanted character on or after `line` (a block's text
    /// may span several lines), or the line itself.
    fn unwanted_char_location(&self, line: usize) -> Location {
        for (index, raw) in self.raw_lines.iter().enumerate().skip(line - 1) {
            let raw = raw.strip_suffix('\r').unwrap_or(raw);
            if let Some(at) = raw.chars().position(is_unwanted_char) {
                let shown: String = raw
                    .chars()
                    .map(|c| if is_unwanted_char(c) { '\u{FFFD}' } else { c })
                    .collect();
                return Location::at_line(self.path, index + 1, at + 1, &shown, 1);
            }
            if raw.trim().is_empty() {
                break;
            }
        }
        self.location(line)
    }
}

fn is_unwanted_char(c: char) -> bool {
    (c.is_control() && c != '\t' && c != '\n')
        || matches!(c as u32, 0xFDD0..=0xFDEF)
        || (c as u32 & 0xFFFE) == 0xFFFE
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The subject codes of a subject block (`cs.DC↗`), or `None` when the block is not one.
fn subject_codes(text: &str) -> Option<Vec<String>> {
    if !text.ends_with(SUBJECT_ARROW) {
        return None;
    }
    let codes: Vec<String> = text
        .split(SUBJECT_ARROW)
        .map(str::trim)
        .filter(|code| !code.is_empty())
        .map(str::to_string)
        .collect();
    if codes.is_empty() || codes.iter().any(|c| c.contains(char::is_whitespace)) {
        return None;
    }
    Some(codes)
}

/// `Publications and source records attributed to NAME.` -> `NAME`.
fn attribution_name(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("Publications and source records attributed to ")?;
    let name = rest.strip_suffix('.').unwrap_or(rest).trim();
    (!name.is_empty()).then_some(name)
}

/// `3 recordsLinked to original sources` -> `Some(Some(3))`; `Some(None)` when the block is
/// a count block whose number cannot be read; `None` when it is not a count block.
fn parse_count(text: &str) -> Option<Option<usize>> {
    let lower = text.to_ascii_lowercase();
    let rest = lower.strip_suffix("linked to original sources")?.trim_end();
    let digits = rest
        .strip_suffix("records")
        .or_else(|| rest.strip_suffix("record"))?
        .trim_end();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Some(None);
    }
    Some(digits.parse().ok())
}

fn is_header_like(text: &str) -> bool {
    attribution_name(text).is_some() || parse_count(text).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Severity;

    fn abstract_of(record: &Record) -> Option<String> {
        record.abstract_text.as_ref().map(|a| a.load().to_string())
    }

    fn parse(text: &str) -> (Option<RecordFile>, Vec<Diagnostic>) {
        parse_record_file(Path::new("test.txt"), text.as_bytes())
    }

    const GOOD: &str = "arXiv subjects\n\nZoë Łukasz\n\nPublications and source records attributed to Zoë Łukasz.\n\n2 recordsLinked to original sources\n\narXiv2026\n\nA Title\n\nAn abstract with $P_Z$ & <b>.\n\ncs.DC\u{2197}\n\nbioRxiv2019\n\nProceedings of the Workshop 2019\n\nSecond abstract.\n\nq-bio.NC\u{2197}";

    #[test]
    fn parses_a_clean_file() {
        let (file, diags) = parse(GOOD);
        assert!(diags.is_empty(), "{diags:?}");
        let file = file.unwrap();
        assert_eq!(file.author_name, "Zoë Łukasz");
        assert_eq!(file.declared_count, Some(2));
        assert_eq!(file.records.len(), 2);
        let first = &file.records[0];
        assert_eq!((first.source.as_str(), first.year), ("arXiv", 2026));
        assert_eq!(first.title, "A Title");
        assert_eq!(
            abstract_of(first).as_deref(),
            Some("An abstract with $P_Z$ & <b>.")
        );
        assert_eq!(first.subjects, vec!["cs.DC"]);
        assert_eq!(first.line, 9);
        let second = &file.records[1];
        assert_eq!(second.source, "bioRxiv");
        assert_eq!(second.title, "Proceedings of the Workshop 2019");
        assert_eq!(second.subjects, vec!["q-bio.NC"]);
    }

    #[test]
    fn a_record_finds_its_title_key_once_whether_read_or_made() {
        let variant = GOOD.replace("\nA Title\n", "\n  a   TITLE:\n");
        let (read, (variant, _)) = (parse(GOOD).0.unwrap(), parse(&variant));
        let variant = variant.unwrap();
        assert_ne!(variant.records[0].title, read.records[0].title);
        // Titles that differ in case, spacing and punctuation have one key; others not.
        let key = |file: &RecordFile, i: usize| file.records[i].title_key();
        assert_eq!(key(&read, 0), key(&variant, 0));
        assert_eq!(key(&read, 0), text_key_hash("A Title"));
        assert_ne!(key(&read, 0), key(&read, 1));
        // Found once, the key is kept; a record is equal to one whose key was not found.
        assert_eq!(read.records[0].title_key.0.get(), Some(&key(&read, 0)));
        assert_eq!(read, parse(GOOD).0.unwrap());
        // A record made in code gets the same key as one read.
        let made = Record::new("arXiv".into(), 2026, "A title".into(), None, vec![], 9);
        assert_eq!(made.title_key(), key(&read, 0));
    }

    #[test]
    fn files_listing_the_same_abstract_share_one_copy_of_it() {
        let pool = TextPool::default();
        let mut first = parse(GOOD).0.unwrap();
        let mut second = parse(&GOOD.replace("Second abstract.", "Another abstract."))
            .0
            .unwrap();
        first.share_texts(&pool);
        second.share_texts(&pool);
        let text = |file: &RecordFile, i: usize| file.records[i].abstract_text.clone().unwrap();
        assert!(text(&first, 0).same_as(&text(&second, 0)));
        assert!(!text(&first, 1).same_as(&text(&second, 1)));
        assert_eq!(&*text(&first, 1).load(), "Second abstract.");
        assert_eq!(&*text(&second, 1).load(), "Another abstract.");
        // Sharing is by content: a file parsed again gets the copy already held.
        let mut again = parse(GOOD).0.unwrap();
        again.share_texts(&pool);
        assert!(text(&again, 1).same_as(&text(&first, 1)));
        assert_eq!(again, first);
        assert!(!pool.stores());
        assert!(pool.into_store().is_none(), "a default pool never stores");
    }

    #[test]
    fn a_storing_pool_stores_the_texts_from_its_threshold_on_and_shares_them() {
        let dir = tempfile::tempdir().unwrap();
        let first = "An abstract with $P_Z$ & <b>.";
        // The first abstract stays in memory, and the second reaches the threshold.
        let min_bytes = first.len() + 1;
        let pool = TextPool::storing_from(min_bytes, dir.path().to_path_buf());
        let mut files: Vec<RecordFile> = (0..2).map(|_| parse(GOOD).0.unwrap()).collect();
        files[0].share_texts(&pool);
        assert!(pool.stores(), "{min_bytes} bytes reached");
        files[1].share_texts(&pool);
        let text = |file: usize, i: usize| files[file].records[i].abstract_text.clone().unwrap();
        let store = pool.into_store().expect("a store");
        assert!(store.on_disk());
        assert!(text(0, 0).same_as(&text(1, 0)));
        assert!(text(0, 1).same_as(&text(1, 1)));
        assert_eq!(&*text(1, 1).load(), "Second abstract.");
        assert_eq!(files[0], parse(GOOD).0.unwrap());
        // A store made later keeps the held one, and not the stored one again.
        let mut texts = [text(0, 0), text(0, 1)];
        store.keep_all(texts.iter_mut());
        assert!(
            !texts[0].same_as(&text(0, 0)),
            "the held text is now stored"
        );
        assert!(
            texts[1].same_as(&text(0, 1)),
            "the stored text stays as it is"
        );
        assert_eq!(&*texts[0].load(), first);
    }

    #[test]
    fn a_pool_stores_from_the_text_that_reaches_its_threshold_on() {
        let dir = tempfile::tempdir().unwrap();
        // The two distinct abstracts of `GOOD`, each read twice.
        let total = "An abstract with $P_Z$ & <b>.".len() + "Second abstract.".len();
        let stores = |min_bytes: usize| {
            let pool = TextPool::storing_from(min_bytes, dir.path().to_path_buf());
            for _ in 0..2 {
                parse(GOOD).0.unwrap().share_texts(&pool);
            }
            let stored = pool.stores();
            assert_eq!(stored, pool.into_store().is_some());
            stored
        };
        assert!(stores(total), "at the threshold");
        assert!(
            !stores(total + 1),
            "under it: a copy seen again does not count"
        );
        assert!(stores(0));
        assert!(!stores(1 << 20));
    }

    #[test]
    fn crlf_bom_trailing_spaces_and_blank_runs_parse_the_same() {
        let messy = format!(
            "\u{FEFF}{}",
            GOOD.replace("\n\n", "  \r\n\r\n\r\n   \r\n")
                .replace('\n', "\r\n")
        );
        let (file, diags) = parse(&messy);
        assert!(diags.is_empty(), "{diags:?}");
        let (clean, _) = parse(GOOD);
        let mut file = file.unwrap();
        let clean = clean.unwrap();
        assert_eq!(file.author_name, clean.author_name);
        for r in &mut file.records {
            r.line = 0;
        }
        let mut clean_records = clean.records.clone();
        for r in &mut clean_records {
            r.line = 0;
        }
        assert_eq!(file.records, clean_records);
    }

    #[test]
    fn singular_count_is_read() {
        let text = "arXiv subjects\n\nA B\n\nPublications and source records attributed to A B.\n\n1 recordLinked to original sources\n\narXiv2020\n\nT\n\nAbs\n\ncs.LG\u{2197}";
        let (file, diags) = parse(text);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(file.unwrap().declared_count, Some(1));
    }

    #[test]
    fn count_mismatch_is_reported_and_records_present_win() {
        let text = GOOD.replace("2 recordsLinked", "5 recordsLinked");
        let (file, diags) = parse(&text);
        assert_eq!(file.unwrap().records.len(), 2);
        assert_eq!(diags.len(), 1);
        let d = &diags[0];
        assert_eq!(d.severity, Severity::Warning);
        assert!(d.message.contains("declares 5 records, but the file has 2"));
        let loc = d.location.as_ref().unwrap();
        assert_eq!((loc.line, loc.column), (7, 1));
        assert_eq!(loc.line_text, "5 recordsLinked to original sources");
    }

    #[test]
    fn record_without_abstract() {
        let text = GOOD.replace("\n\nAn abstract with $P_Z$ & <b>.", "");
        let (file, diags) = parse(&text);
        assert!(diags.is_empty(), "{diags:?}");
        let file = file.unwrap();
        assert_eq!(file.records[0].abstract_text, None);
        assert_eq!(file.records[0].subjects, vec!["cs.DC"]);
        assert_eq!(file.records.len(), 2);
    }

    #[test]
    fn abstract_of_several_paragraphs() {
        let text = GOOD.replace("<b>.", "<b>.\n\nSecond paragraph.\n\n\nThird.");
        let (file, diags) = parse(&text);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(
            abstract_of(&file.unwrap().records[0]).as_deref(),
            Some("An abstract with $P_Z$ & <b>.\n\nSecond paragraph.\n\nThird.")
        );
    }

    #[test]
    fn title_ending_in_a_year_is_a_title() {
        let (file, _) = parse(GOOD);
        assert_eq!(
            file.unwrap().records[1].title,
            "Proceedings of the Workshop 2019"
        );
        // An abstract that is one token ending in four digits is still an abstract when a
        // subject follows.
        let text = GOOD.replace("Second abstract.", "Workshop2019");
        let (file, diags) = parse(&text);
        let file = file.unwrap();
        assert_eq!(file.records.len(), 2, "{diags:?}");
    }

    #[test]
    fn same_title_twice_in_one_file_is_two_records() {
        let text = GOOD.replace("Proceedings of the Workshop 2019", "A Title");
        let (file, _) = parse(&text);
        let file = file.unwrap();
        assert_eq!(file.records.len(), 2);
        assert_eq!(file.records[0].title, file.records[1].title);
    }

    #[test]
    fn invalid_utf8_is_reported_with_line_and_column_and_the_rest_is_read() {
        let mut bytes = GOOD.as_bytes().to_vec();
        let at = GOOD.find("A Title").unwrap() + 2;
        bytes.insert(at, 0xFF);
        let (file, diags) = parse_record_file(Path::new("bad.txt"), &bytes);
        let file = file.unwrap();
        assert_eq!(file.records.len(), 2);
        assert_eq!(file.records[0].title, "A \u{FFFD}Title");
        let d = diags.iter().find(|d| d.message.contains("UTF-8")).unwrap();
        assert_eq!(d.severity, Severity::Error);
        let loc = d.location.as_ref().unwrap();
        assert_eq!((loc.line, loc.column), (11, 3));
        assert!(d.render().contains("bad.txt:11:3"));
    }

    #[test]
    fn empty_file_is_an_error() {
        for text in ["", "\n\n  \r\n"] {
            let (file, diags) = parse(text);
            assert!(file.is_none());
            assert_eq!(diags.len(), 1);
            assert_eq!(diags[0].severity, Severity::Error);
            assert!(diags[0].message.contains("empty"));
        }
    }

    #[test]
    fn file_without_header_is_an_error() {
        let (file, diags) = parse("arXiv2026\n\nT\n\nA\n\ncs.LG\u{2197}");
        assert!(file.is_none());
        assert!(diags
            .iter()
            .any(|d| d.severity == Severity::Error && d.message.contains("lacks the header")));
    }

    #[test]
    fn truncated_record_at_end_keeps_earlier_records() {
        let cut = GOOD.find("Second abstract.").unwrap() + 6;
        let (file, diags) = parse(&GOOD[..cut]);
        let file = file.unwrap();
        assert_eq!(file.records.len(), 2);
        assert_eq!(file.records[1].subjects, Vec::<String>::new());
        let d = diags
            .iter()
            .find(|d| d.message.contains("truncated"))
            .unwrap();
        assert_eq!(d.severity, Severity::Error);
        assert_eq!(d.location.as_ref().unwrap().line, 17);
    }

    #[test]
    fn truncated_after_source_year() {
        let cut = GOOD.find("bioRxiv2019").unwrap() + 11;
        let (file, diags) = parse(&GOOD[..cut]);
        assert_eq!(file.unwrap().records.len(), 1);
        assert!(diags
            .iter()
            .any(|d| d.message.contains("ends after its source-year")));
    }

    #[test]
    fn garbage_block_is_skipped_with_an_error_and_parsing_resumes() {
        let text = GOOD.replace("bioRxiv2019", "not a source year\n\nbioRxiv2019");
        let (file, diags) = parse(&text);
        // The garbage lands in record 1's abstract? No: it follows the subject block.
        let file = file.unwrap();
        assert_eq!(file.records.len(), 2);
        let d = diags
            .iter()
            .find(|d| d.message.contains("expected a source-year"))
            .unwrap();
        assert_eq!(d.location.as_ref().unwrap().line, 17);
        assert_eq!(d.location.as_ref().unwrap().line_text, "not a source year");
    }

    #[test]
    fn record_missing_subject_before_next_record() {
        let text = GOOD.replace("\n\ncs.DC\u{2197}", "");
        let (file, diags) = parse(&text);
        let file = file.unwrap();
        assert_eq!(file.records.len(), 2);
        assert!(file.records[0].subjects.is_empty());
        assert_eq!(file.records[1].subjects, vec!["q-bio.NC"]);
        assert!(diags
            .iter()
            .any(|d| d.message.contains("has no subject block")));
    }

    #[test]
    fn a_name_of_control_characters_only_is_no_name() {
        let text = GOOD.replace("\n\nZoë Łukasz\n\n", "\n\n\u{1}\u{0}\u{f}\n\n");
        let (file, diags) = parse(&text);
        assert_eq!(
            file.unwrap().author_name,
            "Zoë Łukasz",
            "from the attribution"
        );
        assert!(diags
            .iter()
            .any(|d| d.message.contains("missing name block")));
        let text = text.replace("attributed to Zoë Łukasz.", "attributed to \u{7f}.");
        let (file, diags) = parse(&text);
        assert!(file.is_none());
        assert!(diags
            .iter()
            .any(|d| d.message.contains("lacks the header blocks")));
        let bytes = b"Ai Gua\xd3n\n\n\x01\x00\x00\x0f\n\nK ";
        let (file, _) = parse_record_file(Path::new("test.txt"), bytes);
        assert!(file.is_none_or(|f| !f.author_name.trim().is_empty()));
    }

    #[test]
    fn a_title_or_paragraph_of_control_characters_only_is_none() {
        let text = GOOD.replace(
            "An abstract with $P_Z$ & <b>.",
            "\u{1}\u{0}\n\nAn abstract with $P_Z$ & <b>.\n\n\u{7f}",
        );
        let (file, _) = parse(&text);
        let abstract_text = abstract_of(&file.unwrap().records[0]);
        assert_eq!(
            abstract_text.as_deref(),
            Some("An abstract with $P_Z$ & <b>.")
        );
        let text = GOOD.replace("An abstract with $P_Z$ & <b>.", "\u{1}");
        let (file, _) = parse(&text);
        assert_eq!(file.unwrap().records[0].abstract_text, None);
        let text = GOOD.replace("A Title", "\u{7f}\u{7f}");
        let (file, diags) = parse(&text);
        let file = file.unwrap();
        assert_eq!(
            file.records.len(),
            1,
            "the record without a title is skipped"
        );
        assert_eq!(file.records[0].title, "Proceedings of the Workshop 2019");
        let error = diags
            .iter()
            .find(|d| d.message == "record has no title")
            .unwrap();
        assert_eq!(error.location.as_ref().unwrap().line, 11);
    }

    #[test]
    fn a_subject_of_control_characters_only_is_no_subject() {
        let text = GOOD.replace(
            "cs.DC\u{2197}",
            "\u{7f}\u{7f}\u{7f}\u{2197}cs.DC\u{7f}\u{2197}",
        );
        let (file, diags) = parse(&text);
        let file = file.unwrap();
        assert_eq!(file.records[0].subjects, vec!["cs.DC"]);
        let text = GOOD.replace("cs.DC\u{2197}", "\u{7f}\u{7f}\u{2197}");
        let (file, diags_only) = parse(&text);
        assert!(file.unwrap().records[0].subjects.is_empty());
        for diags in [&diags, &diags_only] {
            assert!(
                diags
                    .iter()
                    .any(|d| d.message.contains("is not an arXiv category code")),
                "{diags:?}"
            );
        }
    }

    #[test]
    fn subject_without_arrow_is_accepted_with_a_warning() {
        let text = GOOD.replace("cs.DC\u{2197}", "cs.DC");
        let (file, diags) = parse(&text);
        assert_eq!(file.unwrap().records[0].subjects, vec!["cs.DC"]);
        assert_eq!(diags.len(), 1);
        assert!(diags[0].message.contains("lacks the trailing"));
    }

    #[test]
    fn control_characters_are_dropped_and_reported_at_their_column() {
        let text = GOOD.replace("A Title", "A\u{1b}[2J Title\u{0}");
        let (file, diags) = parse(&text);
        assert_eq!(file.unwrap().records[0].title, "A[2J Title");
        assert_eq!(diags.len(), 1);
        assert!(diags[0].message.contains("2 control characters; dropped"));
        let loc = diags[0].location.as_ref().unwrap();
        assert_eq!(loc.column, 2);
        assert_eq!(loc.line_text, "A\u{FFFD}[2J Title\u{FFFD}");
    }

    #[test]
    fn a_stray_del_in_a_name_is_dropped() {
        let text = GOOD
            .replacen("Zoë Łukasz", "J\u{7f}\u{fc}rgen Kurths", 1)
            .replace("Zoë Łukasz", "Jürgen Kurths");
        let (file, diags) = parse(&text);
        assert_eq!(file.unwrap().author_name, "J\u{fc}rgen Kurths");
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert!(diags[0].message.contains("1 control character; dropped"));
        let loc = diags[0].location.as_ref().unwrap();
        assert_eq!((loc.line, loc.column), (3, 2));
    }

    #[test]
    fn carriage_returns_inside_a_line_are_dropped_too() {
        // CRLF line ends are line ends; a CR elsewhere is a control character, even when
        // it is the only one in the file.
        let text = GOOD.replace("A Title", "A\r\rTitle");
        let (file, diags) = parse(&text);
        assert_eq!(file.unwrap().records[0].title, "ATitle");
        let reports: Vec<&Diagnostic> = diags
            .iter()
            .filter(|d| d.message.contains("control characters"))
            .collect();
        assert_eq!(reports.len(), 1, "{diags:?}");
        let (file, diags) = parse(&GOOD.replace('\n', "\r\n"));
        assert_eq!(file.unwrap().records[0].title, "A Title");
        assert!(diags.is_empty(), "{diags:?}");
    }

    #[test]
    fn the_quick_check_finds_every_character_that_is_dropped() {
        for c in (0..=0x10_FFFF).filter_map(char::from_u32) {
            let text = format!("a{c}b");
            assert_eq!(
                needs_cleaning(text.as_bytes()),
                is_unwanted_char(c),
                "U+{:04X}",
                c as u32
            );
        }
        assert!(!needs_cleaning(b"a\r\nb\r\n"));
        assert!(needs_cleaning(b"a\r"));
    }

    #[test]
    fn c1_controls_and_noncharacters_are_dropped_too() {
        let text = GOOD.replace("A Title", "A\u{85}B\u{FFFE}C\u{FDD0}D\u{10FFFF}");
        let (file, diags) = parse(&text);
        assert_eq!(file.unwrap().records[0].title, "ABCD");
        assert_eq!(diags.len(), 1);
        // Ordinary non-ASCII text needs no cleaning.
        let (file, diags) = parse(&GOOD.replace("A Title", "Ünïcödé · 45° ½ 王伟 𝔸"));
        assert_eq!(file.unwrap().records[0].title, "Ünïcödé · 45° ½ 王伟 𝔸");
        assert!(diags.is_empty());
    }

    #[test]
    fn source_year_shapes() {
        assert_eq!(parse_source_year("arXiv2026"), Some(("arXiv", 2026)));
        assert_eq!(parse_source_year("bioRxiv1999"), Some(("bioRxiv", 1999)));
        assert_eq!(parse_source_year("2026"), None);
        assert_eq!(parse_source_year("arXiv 2026"), None);
        assert_eq!(parse_source_year("arXiv202"), None);
        assert_eq!(parse_source_year("arXiv12026"), None);
        assert_eq!(parse_source_year("Workshop 2019"), None);
        assert_eq!(parse_source_year("ü2019x"), None);
    }

    #[test]
    fn category_code_shapes() {
        for good in [
            "cs.DC",
            "eess.SY",
            "physics.soc-ph",
            "hep-ex",
            "q-fin.GN",
            "astro-ph.IM",
            "cond-mat.str-el",
        ] {
            assert!(is_category_code(good), "{good}");
        }
        for bad in [
            "", "CS.DC", "cs.", ".DC", "cs DC", "../etc", "cs.DC/x", "<script>", "cs-.x",
        ] {
            assert!(!is_category_code(bad), "{bad}");
        }
    }

    #[test]
    fn no_panic_on_arbitrary_bytes() {
        // A deterministic sweep of odd inputs: every prefix of a messy file, and bytes.
        let messy = format!("{GOOD}\r\n\u{FEFF}\u{2197}\u{2197}\n\narXiv0000\n\n\u{2197}");
        for end in 0..=messy.len() {
            let _ = parse_record_file(Path::new("p.txt"), &messy.as_bytes()[..end]);
        }
        let mut state: u64 = 0x9E3779B97F4A7C15;
        for _ in 0..2000 {
            let len = (state % 200) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    [b'\n', b'\r', b' ', b'a', b'2', 0xE2, 0x86, 0x97, 0xFF, b'.']
                        [(state % 10) as usize]
                })
                .collect();
            let _ = parse_record_file(Path::new("r.txt"), &bytes);
        }
    }
}
