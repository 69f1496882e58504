//! The static search index behind `/search/`.
//!
//! Split so that a query loads only what it needs and no file is large:
//! * `search/meta.json`: the shard keys, the number of documents, the first paper's id
//!   (authors' ids are below it) and the stop words;
//! * `search/terms/<key>.json`: the terms starting with `key` (the hex of the UTF-8 of
//!   their first character, or of more characters when one would make a file over
//!   [`MAX_SHARD_BYTES`]; `<key>-` holds the terms that are exactly the split prefix),
//!   each with its postings `[doc, weight, doc, weight, …]`. Few, mid-sized shards keep
//!   the number of files that change when the site changes small;
//! * `search/docs-<n>.json`: the documents whose ids are `n·IDS_PER_CHUNK …`, by id:
//!   kind, title, link, and a line of detail.
//!
//! A document's id follows from its slug (see `doc_ids`), not from its place among the
//! others, so a new author or paper changes the files that hold its own terms and its
//! own chunk, not every file after it. For the same reason a long-running process's
//! rebuild takes the last build's postings of every term no changed document has, and
//! makes only the others again (`patch_postings`).
//!
//! Terms are lowercase words of author names, titles, subjects and abstracts, both as
//! written and transliterated to ASCII (`Łukasz` gives `łukasz` and `lukasz`), so either
//! spelling finds it. Weights rank name and title matches first. English stop words
//! ([`STOP_WORDS`]) are left out of titles, subjects and abstracts, not of names; the
//! list is in `meta.json`. In a query with other words a stop word is asked only of
//! authors, whose names hold every word: it ranks papers but does not filter them, as
//! their titles and abstracts may hold it unindexed.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::io::Write;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use rayon::prelude::*;
use serde::Serialize;
use serde_json::json;

use crate::hash::ByHash;
use crate::kept_file::{KeptFile, KeptWriter};
use crate::plan::paths::{subject_name, Linker};
use crate::plan::SiteIndex;
use crate::reuse::Reuse;
use crate::text_store::{words_from_bytes, words_to_bytes, ScratchBlock, ScratchFile, Text};
use crate::threads::lock;

/// Ids per `docs-<n>.json` file: with ids spread over four to eight times as many as
/// the documents (`ID_SPACE_PER_DOC`), 256 to 512 documents a file on average.
pub const IDS_PER_CHUNK: usize = 2048;
/// Each kind of document (authors, papers) has ids for at least this many times as many
/// documents as it has, rounded up to a power of two: sparse enough that a document's
/// id is almost always the slot its slug hashes to, so that ids stay put when documents
/// come and go.
const ID_SPACE_PER_DOC: usize = 4;
/// A shard bigger than this is split by one more character.
pub const MAX_SHARD_BYTES: usize = 300_000;
/// Abstract-only terms found in more than this share of the papers are left out (they
/// are like stop words and would make the index heavy).
const COMMON_TERM_SHARE: f64 = 0.2;

/// Words left out of a title, subject or abstract (not of a name: "An", "Will"): the
/// English stop words of Lucene's `EnglishAnalyzer`, sorted. In most titles, they made
/// the largest term files of a large site (4.6–5 MB each for "and", "the", "of", "in" at
/// 500,000 papers), which nearly every new paper changed and a reader typing "the"
/// loaded whole.
pub const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with",
];

/// Whether `word` (lowercase) is one of the [`STOP_WORDS`].
fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

/// A field of a document: its text, the weight of a match in it, and its kind.
type Field<'a> = (&'a str, u32, FieldKind);

/// What kind of text a field is, which decides whether its stop words are terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum FieldKind {
    /// A name: every word is a term.
    Name,
    /// Prose (a title, subject or abstract): stop words are left out.
    Prose,
}
use FieldKind::{Name, Prose};

/// Weight of a match in an author's name or a paper's title.
pub const WEIGHT_TITLE: u32 = 10;
/// Weight of a match in a subject.
pub const WEIGHT_SUBJECT: u32 = 3;
/// Weight of a match in an abstract or a paper's author names.
pub const WEIGHT_TEXT: u32 = 1;

/// One searchable document.
#[derive(Debug, Clone, Serialize)]
pub struct SearchDoc {
    /// `a`: author, `p`: paper.
    pub k: &'static str,
    /// Author name or paper title (clean text).
    pub t: String,
    /// Link from the site root (`authors/x/`).
    pub u: String,
    /// Detail line: number of papers, or authors and year.
    pub d: String,
}

/// The whole index, split into files. The bytes of a term shard are made when its file
/// is asked for, so that the index holds each posting in four bytes, once.
#[derive(Debug, Default)]
pub struct SearchIndex {
    /// `search/meta.json`.
    meta: Vec<u8>,
    /// The terms, sorted, with their postings.
    terms: TermTable,
    /// The key of each `search/terms/<key>.json`, sorted, with the range of
    /// [`SearchIndex::terms`] it holds.
    shards: Vec<(String, Range<usize>)>,
    /// Each document's id, with the document, sorted by id: `search/docs-<n>.json`
    /// files are made from the site's index when asked for, a chunk of
    /// [`IDS_PER_CHUNK`] ids at a time, rather than held.
    by_id: Vec<(u32, u32)>,
    /// When the postings were patched from the last build's (see [`patch_postings`]):
    /// how many documents were added, changed or removed.
    patched: Option<usize>,
}

/// Documents' numbered terms, kept on disk by one one-off build for the next (or for a
/// long-running process's first build), as a long-running process keeps them in its
/// memo: a document whose fields are the same
/// (by the memo's key) takes its terms from there instead of reading and splitting its
/// texts again. The file ([`KeptFile`]) has a blob for each document, its terms' numbers
/// and weights (four bytes a term, as `Numbered`), and one, under
/// `term_table_key`, with the term of each number (`TermNumbers::table`).
#[derive(Default)]
pub struct KeptTerms<'k> {
    /// The file an earlier build kept, if there is one this build may read.
    pub earlier: Option<&'k KeptFile>,
    /// Where to write this build's file, and the identity to write in it. It is
    /// written as the postings are placed.
    pub keep: Option<(&'k mut (dyn Write + Send), &'k str)>,
    /// Set by [`SearchIndex::build`]: what became of the file to keep.
    pub outcome: TermsKept,
}

/// What a build did about the search terms' file it was to keep ([`KeptTerms`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TermsKept {
    /// `keep` got no whole file worth keeping: writing failed, or the term table holds
    /// more terms no document uses than terms in use (the next build then starts a
    /// table anew, as [`SearchMemo::finish_build`] renumbers), or nothing was to be kept.
    #[default]
    Nothing,
    /// `keep` got a whole file.
    Written,
    /// `earlier` still holds nearly every document's terms
    /// ([`KeptFile::still_serves`]): it stays as it is, and `keep` got nothing.
    EarlierServes,
}

/// The key of the term table's blob in a kept file of documents' terms.
fn term_table_key() -> u64 {
    crate::hash::key("search index term table", &1u32)
}

/// The terms a kept blob gives a document: `None` if it is not a whole number of terms,
/// or names a term the table (of `terms` terms) does not have.
fn kept_terms_of(blob: &[u8], terms: usize) -> Option<NumberedTerms> {
    let known = |term: &Numbered| (term.number() as usize) < terms && term.0 & 3 != 0;
    let numbered = words_from_bytes(blob)?.into_iter().map(Numbered);
    numbered.map(|term| known(&term).then_some(term)).collect()
}

/// A kept document's terms as words and weights.
#[cfg(test)]
pub(crate) type KeptWords = Vec<(String, u32)>;

/// Each document's terms in a kept file, as words and weights in the order they were
/// found, by key: what the file says whatever numbers its build gave the terms (which
/// follow the order threads first saw them). `None` if the file has no whole term table.
#[cfg(test)]
pub(crate) fn kept_words_by_key(file: &KeptFile) -> Option<Vec<(u64, KeptWords)>> {
    let table = TermNumbers::from_table(&file.get(term_table_key())?)?;
    (file.keys().filter(|&key| key != term_table_key()))
        .map(|key| {
            let terms = kept_terms_of(&file.get(key)?, table.terms.len())?;
            let words = terms
                .iter()
                .map(|t| (table.terms[t.number() as usize].to_string(), t.weight()));
            Some((key, words.collect()))
        })
        .collect()
}

/// The terms `document` of `ix` is found by, as words and weights (in the order they
/// were made).
#[cfg(test)]
pub(crate) fn document_words(ix: &SiteIndex, document: Document) -> KeptWords {
    let numbers = std::sync::Mutex::new(TermNumbers::default());
    let terms = make_doc_terms(ix, document.number(ix), &numbers);
    let numbers = lock(&numbers);
    let words = terms
        .iter()
        .map(|t| (numbers.terms[t.number() as usize].to_string(), t.weight()));
    words.collect()
}

/// Rank in the two low bits of a [`Numbered`] -> weight (0 only in tests).
const WEIGHTS: [u32; 4] = [0, WEIGHT_TEXT, WEIGHT_SUBJECT, WEIGHT_TITLE];

/// A number (of a term, or of a document) and a weight, in four bytes: the number in
/// the high 30 bits, the weight's rank in [`WEIGHTS`] in the low two. A site has far
/// fewer than 2^30 documents or terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Numbered(u32);

impl Numbered {
    fn new(number: u32, weight: u32) -> Numbered {
        let rank = WEIGHTS.iter().position(|&w| w == weight);
        debug_assert!(rank.is_some() && number < 1 << 30, "{number} {weight}");
        Numbered(number << 2 | rank.unwrap_or(0) as u32)
    }

    fn number(self) -> u32 {
        self.0 >> 2
    }

    fn weight(self) -> u32 {
        WEIGHTS[(self.0 & 3) as usize]
    }

    /// The same weight, with another number.
    fn renumbered(self, number: u32) -> Numbered {
        Numbered(number << 2 | self.0 & 3)
    }
}

/// Terms, sorted, each with its postings `(doc, weight)`, best weight first: one
/// string for them all, and their postings as ranges of one flat list (in term number
/// order, not copied into term order: at 500,000 papers a copy is a few hundred MB).
#[derive(Debug, Default)]
struct TermTable {
    /// The terms, one after the other.
    text: String,
    /// Where each term ends in `text`.
    ends: Vec<usize>,
    /// Each term's postings in `postings`.
    ranges: Vec<Range<usize>>,
    postings: Arc<Vec<Numbered>>,
}

impl TermTable {
    /// The table of `terms` (sorted), whose postings are ranges of `flat`.
    fn new(terms: &[TermPostings], flat: Arc<Vec<Numbered>>) -> TermTable {
        let mut table = TermTable {
            text: String::with_capacity(terms.iter().map(|(t, _)| t.len()).sum()),
            ends: Vec::with_capacity(terms.len()),
            ranges: Vec::with_capacity(terms.len()),
            postings: flat,
        };
        for (term, range) in terms {
            table.text.push_str(term);
            table.ends.push(table.text.len());
            table.ranges.push(range.clone());
        }
        table
    }

    /// Term `i` with its postings.
    fn entry(&self, i: usize) -> TermEntry<'_> {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        (
            &self.text[start..self.ends[i]],
            &self.postings[self.ranges[i].clone()],
        )
    }

    /// Every term with its postings, in order.
    fn entries(&self) -> Vec<TermEntry<'_>> {
        (0..self.ends.len()).map(|i| self.entry(i)).collect()
    }
}

/// Lowercase words of `text` (letters and digits, at least two characters), as written
/// and, when different, transliterated to ASCII; each once, sorted.
#[cfg(test)]
fn terms(text: &str) -> Vec<String> {
    let mut terms: Vec<String> = weighted(&[(text, 0, Name)])
        .iter()
        .map(|(term, _)| term.to_string())
        .collect();
    terms.sort_unstable();
    terms
}

/// Appends the lowercase of `field` to `text`, then the transliteration to lowercase
/// ASCII of each of its words that is not ASCII.
fn push_searchable(text: &mut String, field: &str) {
    if field.is_ascii() {
        let start = text.len();
        text.push_str(field);
        text[start..].make_ascii_lowercase();
        return;
    }
    let lower = field.to_lowercase();
    text.push_str(&lower);
    for word in lower.split(|c: char| !c.is_alphanumeric()) {
        if !word.is_ascii() {
            text.push(' ');
            text.push_str(&deunicode::deunicode(word).to_lowercase());
        }
    }
}

/// The words of a lowercase text, in order, each handed to `word`: runs of letters and
/// digits of two characters or more.
fn words_of<'t>(text: &'t str, mut word: impl FnMut(&'t str)) {
    if text.is_ascii() {
        // The same words, found byte by byte without decoding characters.
        let bytes = text.as_bytes();
        let mut end = 0;
        while end < bytes.len() {
            let start = end;
            while end < bytes.len() && bytes[end].is_ascii_alphanumeric() {
                end += 1;
            }
            if end - start >= 2 {
                word(&text[start..end]);
            }
            end += 1;
        }
        return;
    }
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= 2 && (w.is_ascii() || w.chars().nth(1).is_some()))
        .for_each(word);
}

/// Whether `path` (from the output folder) is one the search index may write:
/// `search/meta.json`, `search/terms/*.json` or `search/docs-<n>.json`.
pub fn is_search_index_path(path: &str) -> bool {
    path == "search/meta.json"
        || path
            .strip_prefix("search/terms/")
            .is_some_and(|rest| rest.ends_with(".json") && !rest.contains('/'))
        || path
            .strip_prefix("search/docs-")
            .and_then(|rest| rest.strip_suffix(".json"))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The shard key of a term: the hex of the UTF-8 of its first `chars` characters.
pub fn shard_key(term: &str, chars: usize) -> String {
    let prefix: String = term.chars().take(chars).collect();
    prefix.bytes().map(|b| format!("{b:02x}")).collect()
}

/// Work the search index can reuse from the previous build in the same process (see
/// [`crate::reuse`]): each document's numbered terms, the numbers given to terms, and
/// the postings, which a build patches where documents changed.
#[derive(Default)]
pub struct SearchMemo {
    search_terms: Reuse<NumberedTerms>,
    term_numbers: std::sync::Mutex<TermNumbers>,
    /// The last build's postings, which the next patches (see [`patch_postings`]).
    last: std::sync::Mutex<Option<LastPostings>>,
}

/// What a build in a long-running process leaves the next for its postings: each
/// document as it was (by its place in the site's order) and every term's postings,
/// sorted as in the index. The next build takes over the postings of the terms no
/// changed document has, and makes only the others again.
struct LastPostings {
    /// Each document's id.
    ids: Vec<u32>,
    /// A hash of each document's slug, which orders the documents.
    slug_hashes: Vec<u64>,
    /// Each document's terms, as the memo holds them: the same terms are the same
    /// allocation.
    terms: Vec<Arc<NumberedTerms>>,
    /// Every term's postings, by term number (ranges in `starts`), each naming its
    /// document by id, best weight first, then in the site's order.
    flat: Arc<Vec<Numbered>>,
    /// Where each term number's postings start in `flat`, and where the last ends.
    starts: Vec<usize>,
    /// Each term number's [`entry_size`] (0 for a term without postings).
    entry_sizes: Vec<usize>,
    /// Whether the build that is ending made them, until [`SearchMemo::finish_build`]
    /// reads it: then they hold the terms of every document the memo keeps.
    this_build: bool,
}

/// What a rebuild changed in the last build's postings it patched.
struct Patched {
    /// How many documents were added, changed or removed.
    documents: usize,
    /// The term numbers whose postings changed, in order.
    terms: Vec<usize>,
    /// The last build's [`LastPostings::entry_sizes`].
    entry_sizes: Vec<usize>,
}

/// A document's distinct terms, each its term number and weight (see [`TermNumbers`]):
/// four bytes a term, where the words themselves are kept once for the whole site.
type NumberedTerms = Vec<Numbered>;

impl SearchMemo {
    /// Starts keeping results for the next build (see [`Reuse::enable`]).
    pub fn enable(&mut self) {
        self.search_terms.enable();
    }

    /// Ends a build: see [`Reuse::finish_build`]. Terms that no kept document has any
    /// more are forgotten once they are as many as the terms in use, and the rest are
    /// renumbered: a long-running process sees ever new words come and go, and would
    /// otherwise keep them all. Waiting until half are unused makes the renumbering cost
    /// no more, over time, than numbering the terms in the first place.
    pub fn finish_build(&mut self) {
        self.search_terms.finish_build();
        if self.search_terms.is_empty() {
            return;
        }
        let numbers = self
            .term_numbers
            .get_mut()
            .unwrap_or_else(|e| e.into_inner());
        let last = self.last.get_mut().unwrap_or_else(|e| e.into_inner());
        let used = used_terms(numbers.terms.len(), last.as_mut(), &self.search_terms);
        let in_use = used.iter().filter(|&&u| u).count();
        if numbers.terms.len() - in_use <= in_use {
            return;
        }
        // The last postings name terms by their old numbers.
        *self.last.get_mut().unwrap_or_else(|e| e.into_inner()) = None;
        let renumbered = numbers.keep_only(&used);
        for doc in self.search_terms.values_mut() {
            for term in Arc::make_mut(doc).iter_mut() {
                *term = term.renumbered(renumbered[term.number() as usize]);
            }
        }
    }

    /// This build's postings, in index order (see [`in_index_order`]), from each
    /// document's `terms`, `ids` and `slug_hashes` (in the site's order): the last
    /// build's patched when few documents changed ([`patch_postings`]), with what
    /// changed, or else made anew.
    fn postings_of(
        &self,
        terms: &[Arc<NumberedTerms>],
        ids: &[u32],
        slug_hashes: &[u64],
    ) -> (Vec<Numbered>, Vec<usize>, Option<Patched>) {
        let last = lock(&self.last).take();
        let patched = last.and_then(|mut last| patch_postings(&mut last, ids, slug_hashes, terms));
        if let Some((flat, starts, patched)) = patched {
            return (flat, starts, Some(patched));
        }
        let all = |range: Range<usize>| terms[range].to_vec();
        let made = postings(terms.len(), all, BetweenPasses::AskAgain, None);
        let (flat, starts) = in_index_order(made, ids);
        (flat, starts, None)
    }
}

/// Which of `numbered` term numbers the documents `kept` holds have. Read from the
/// `last` postings when the build that is ending made them, as they hold every one of
/// its documents' terms (a term has postings exactly when a document has it): a look
/// at each term rather than at each document's terms, which took a quarter of a second
/// after every rebuild at 500,000 papers. Else read from the documents.
fn used_terms(
    numbered: usize,
    last: Option<&mut LastPostings>,
    kept: &Reuse<NumberedTerms>,
) -> Vec<bool> {
    let mut used = vec![false; numbered];
    match last.filter(|last| last.this_build) {
        Some(last) => {
            last.this_build = false;
            for (used, ends) in used.iter_mut().zip(last.starts.windows(2)) {
                *used = ends[1] > ends[0];
            }
        }
        None => {
            for doc in kept.values() {
                for term in doc.iter() {
                    used[term.number() as usize] = true;
                }
            }
        }
    }
    used
}

/// What search document `doc` (in the site's order: authors by slug, then papers by
/// slug) is made of, borrowed from the site's index: the one place that says what a
/// document reads for making it ([`DocSource::doc`]). Its fingerprint comes from the
/// entities those fields are read from ([`DocumentHashes`]).
struct DocSource<'a> {
    /// `a`: author, `p`: paper.
    kind: &'static str,
    /// The author's name or the paper's title.
    text: &'a str,
    /// The page's site path.
    path: &'a str,
    detail: DocDetail<'a>,
}

/// What the search documents read, by hash, as the caller has hashed the entities
/// their fields (`DocSource`) and terms (`make_doc_terms`) are read from: an index
/// file of documents is fingerprinted with these, and a document's terms are kept
/// under them (`terms_key`), rather than by hashing every document's fields again at
/// each build.
pub struct DocumentHashes<'h> {
    /// The site-wide part: the configuration, which documents' links and texts follow
    /// from.
    pub site: u64,
    /// What a document reads: for its listing and for its terms (a paper's abstract
    /// and subjects too).
    pub document: &'h (dyn Fn(Document) -> [u64; 2] + Sync),
}

/// What a document's detail line is made of.
enum DocDetail<'a> {
    /// An author's number of papers.
    Papers(usize),
    /// A paper's authors and year.
    Authors(&'a [crate::graph::AuthorId], u16),
}

/// A search document by what it shows: in the site's order (how documents are
/// numbered), every author comes first, then every paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Document {
    /// An author's document, by the author's id.
    Author(crate::graph::AuthorId),
    /// A paper's document, by the paper's id.
    Paper(crate::graph::PaperId),
}

impl Document {
    /// Document number `doc` of `ix`.
    fn of(ix: &SiteIndex, doc: usize) -> Document {
        match doc.checked_sub(ix.graph.authors.len()) {
            None => Document::Author(doc),
            Some(paper) => Document::Paper(paper),
        }
    }

    /// The document's number in `ix` (the inverse of [`Document::of`]).
    #[cfg(test)]
    fn number(self, ix: &SiteIndex) -> usize {
        match self {
            Document::Author(author) => author,
            Document::Paper(paper) => ix.graph.authors.len() + paper,
        }
    }
}

impl<'a> DocSource<'a> {
    fn of(ix: &'a SiteIndex, doc: usize) -> DocSource<'a> {
        let graph = ix.graph;
        match Document::of(ix, doc) {
            Document::Author(doc) => DocSource {
                kind: "a",
                text: &ix.profiles[doc].name,
                path: &ix.author_paths[doc],
                detail: DocDetail::Papers(graph.authors[doc].papers.len()),
            },
            Document::Paper(id) => DocSource {
                kind: "p",
                text: &ix.paper_texts[id].title_text,
                path: &ix.paper_paths[id],
                detail: DocDetail::Authors(&graph.papers[id].authors, graph.papers[id].year),
            },
        }
    }

    /// The document, its link made by `linker` (relative to the site root).
    fn doc(&self, ix: &SiteIndex, linker: &Linker) -> SearchDoc {
        let detail = match self.detail {
            DocDetail::Papers(n) => format!("{n} paper{}", if n == 1 { "" } else { "s" }),
            DocDetail::Authors(authors, year) => {
                let names: Vec<&str> = authors.iter().map(|&a| &*ix.profiles[a].name).collect();
                format!("{} · {year}", names.join(", "))
            }
        };
        SearchDoc {
            k: self.kind,
            t: self.text.to_string(),
            u: linker.href(self.path),
            d: detail,
        }
    }
}

/// The search documents numbered `docs` (in the site's order: authors by slug, then
/// papers by slug).
fn search_docs(ix: &SiteIndex, docs: impl Iterator<Item = usize>) -> Vec<SearchDoc> {
    let linker = Linker::for_path("", ix.pretty);
    docs.map(|doc| DocSource::of(ix, doc).doc(ix, &linker))
        .collect()
}

/// The bytes of a `search/docs-<n>.json` file: an object of the documents of `chunk`
/// (their ids and numbers, sorted by id), by id.
fn doc_chunk(ix: &SiteIndex, chunk: &[(u32, u32)]) -> Vec<u8> {
    let docs = search_docs(ix, chunk.iter().map(|&(_, doc)| doc as usize));
    let mut bytes = b"{".to_vec();
    for (i, (&(id, _), doc)) in chunk.iter().zip(&docs).enumerate() {
        if i > 0 {
            bytes.push(b',');
        }
        bytes.extend_from_slice(format!("\"{id}\":").as_bytes());
        bytes.extend_from_slice(&serde_json::to_vec(doc).unwrap_or_default());
    }
    bytes.push(b'}');
    bytes
}

/// Ids for search documents that stay put when other documents come and go: each kind
/// (authors, papers) has a range of ids, a power of two at least [`ID_SPACE_PER_DOC`]
/// times its number of documents (authors first); a document takes the slot its slug
/// hashes to, or, when an earlier one in slug order has it, the next free one. So a new
/// document moves only the few whose slots it takes, and the ids change all at once
/// only when a kind's range doubles or halves. Returns each document's id in the
/// site's order (authors by slug, then papers by slug), given the hashes of their slugs
/// in that order (see [`slug_hashes`]), the first `authors` of them authors'.
fn doc_ids(slug_hashes: &[u64], authors: usize) -> Vec<u32> {
    let (author_hashes, paper_hashes) = slug_hashes.split_at(authors);
    let mut ids = Vec::with_capacity(slug_hashes.len());
    let papers_from = first_paper_id(author_hashes.len());
    place_in_slots(author_hashes, 0, papers_from, &mut ids);
    let paper_space = id_space(paper_hashes.len());
    place_in_slots(paper_hashes, papers_from, paper_space, &mut ids);
    ids
}

/// The first id of the papers' range, given the number of authors: every author's id
/// is below it and no paper's (`meta.json` gives it as `papers_from`, for `search.js`).
fn first_paper_id(authors: usize) -> usize {
    id_space(authors)
}

/// The first free slot at or after `slot` in a table of "next free slot" links (see
/// [`place_in_slots`]), shortening the links it follows to point at it.
fn first_free(next: &mut [u32], slot: usize) -> usize {
    let mut free = slot;
    while next[free] as usize != free {
        free = next[free] as usize;
    }
    let mut walk = slot;
    while walk != free {
        let following = next[walk] as usize;
        next[walk] = free as u32;
        walk = following;
    }
    free
}

/// Every document's id and number, sorted by id.
fn by_id(doc_ids: &[u32]) -> Vec<(u32, u32)> {
    let ids = doc_ids.iter().enumerate();
    let mut by_id: Vec<(u32, u32)> = ids.map(|(doc, &id)| (id, doc as u32)).collect();
    by_id.sort_unstable();
    by_id
}

/// The ids a kind with `count` documents has.
fn id_space(count: usize) -> usize {
    (count.max(1) * ID_SPACE_PER_DOC).next_power_of_two()
}

/// Gives each slug, in order, the id `base + slot`: the slot its hash (in
/// `slug_hashes`) falls in among `space` (a power of two), or the next free one after
/// it (wrapping). Free slots are found through a table of "next free slot" links
/// shortened as they are followed, so slugs that hash alike cost no more than others.
fn place_in_slots(slug_hashes: &[u64], base: usize, space: usize, ids: &mut Vec<u32>) {
    // next[s] == s: slot s is free; otherwise a slot at or before the next free one.
    let mut next: Vec<u32> = (0..space as u32).collect();
    let mask = space - 1;
    for &hash in slug_hashes {
        let slot = first_free(&mut next, hash as usize & mask);
        next[slot] = ((slot + 1) & mask) as u32;
        ids.push((base + slot) as u32);
    }
}

/// An author's searchable fields, weighted: the displayed name.
fn author_fields<'i>(ix: &'i SiteIndex, author: usize) -> [Field<'i>; 1] {
    [(ix.profiles[author].name.as_str(), WEIGHT_TITLE, Name)]
}

/// The key document `doc` (authors first, then papers) keeps its terms under, in a
/// long-running process's memo and in a kept file: a hash of what its fields and terms
/// read, as `documents` has it, so that a document found as it was is not read again.
/// Taken from the entities' hashes the renderer has made anyway, rather than by
/// hashing each document's texts and its authors' names (reading every paper's texts
/// and its authors' profiles, scattered in memory, took 0.19 s of a rebuild at
/// 500,000 papers).
fn terms_key(ix: &SiteIndex, documents: &DocumentHashes, doc: usize) -> u64 {
    let document = Document::of(ix, doc);
    let reads = (documents.document)(document);
    let is_paper = matches!(document, Document::Paper(_));
    crate::hash::key("search terms", &(documents.site, is_paper, reads))
}

/// A hash of what makes document `doc`'s terms (a paper's subjects by their codes, its
/// abstract by its hash): what tests give as [`DocumentHashes`], in place of the
/// entities' hashes a build gives.
#[cfg(test)]
fn terms_source_key(ix: &SiteIndex, doc: usize) -> u64 {
    let Document::Paper(paper) = Document::of(ix, doc) else {
        return crate::hash::key("search terms", &author_fields(ix, doc));
    };
    let text = &ix.paper_texts[paper];
    let abstract_hash = text.abstract_text.as_ref().map(Text::content_hash);
    let parts = (
        &text.title_text,
        &ix.graph.papers[paper].subjects,
        &ix.paper_author_names(paper),
        abstract_hash,
    );
    crate::hash::key("search terms of a paper", &parts)
}

/// The terms of document `doc` (authors first, then papers), numbered in `numbers`: an
/// author's name; a paper's title, subjects (code and name), authors' names and
/// abstract, each weighted as the field it comes from.
fn make_doc_terms(
    ix: &SiteIndex,
    doc: usize,
    numbers: &std::sync::Mutex<TermNumbers>,
) -> NumberedTerms {
    let Document::Paper(id) = Document::of(ix, doc) else {
        return number_terms(&weighted(&author_fields(ix, doc)), numbers);
    };
    let text = &ix.paper_texts[id];
    let subjects: Vec<String> = (ix.graph.papers[id].subjects.iter())
        .map(|code| format!("{code} {}", subject_name(code)))
        .collect();
    let names = ix.paper_author_names(id).join(" ");
    let mut fields: Vec<Field> = vec![(&text.title_text, WEIGHT_TITLE, Prose)];
    fields.extend(subjects.iter().map(|s| (s.as_str(), WEIGHT_SUBJECT, Prose)));
    fields.push((&names, WEIGHT_TEXT, Name));
    let abstract_text = text.abstract_text.as_ref().map(Text::load);
    if let Some(abstract_text) = &abstract_text {
        fields.push((abstract_text, WEIGHT_TEXT, Prose));
    }
    number_terms(&weighted(&fields), numbers)
}

impl SearchIndex {
    /// Builds the index of `ix`, reusing the terms of documents that read the same
    /// (by `documents`) as in the previous build (`memo`), or, in a one-off build or a
    /// long-running process's first, as in the one that kept its terms (`kept`).
    pub fn build(
        ix: &SiteIndex,
        memo: &SearchMemo,
        kept: &mut KeptTerms,
        documents: &DocumentHashes,
    ) -> SearchIndex {
        let graph = ix.graph;
        let authors = graph.authors.len();
        let doc_count = authors + graph.papers.len();
        // Each document's terms, in parallel, numbered as soon as they are found (so that
        // only four bytes a term are kept); the previous build's where the fields are
        // the same, or the kept file's.
        let terms_memo = &memo.search_terms;
        let numbers = &memo.term_numbers;
        let KeptTerms {
            earlier,
            keep,
            outcome,
        } = kept;
        // Read only by a build whose term numbers start empty: a one-off build, or a
        // long-running process's first.
        let earlier = earlier.and_then(|file| Some((file, load_term_table(file, numbers)?)));
        // An earlier file that still holds nearly every document's terms stays as it is.
        let earlier_keys: Option<Vec<u64>> = earlier.filter(|_| keep.is_some()).map(|_| {
            let keys = (0..doc_count).into_par_iter();
            keys.map(|doc| terms_key(ix, documents, doc)).collect()
        });
        let earlier_serves = earlier
            .zip(earlier_keys.as_ref())
            .is_some_and(|((file, _), keys)| file.still_serves(keys));
        let to_keep = (keep.as_mut())
            .filter(|_| !earlier_serves)
            .map(|(out, identity)| TermsToKeep::new(&mut **out, identity, doc_count));
        // Documents whose terms were made rather than found in `earlier`.
        let made = AtomicUsize::new(0);
        let key_of = |doc: usize| {
            earlier_keys
                .as_ref()
                .map_or_else(|| terms_key(ix, documents, doc), |k| k[doc])
        };
        let terms_of = |doc: usize,
                        key: u64,
                        found: Option<NumberedTerms>,
                        make: &dyn Fn() -> NumberedTerms| {
            if let Some(to_keep) = &to_keep {
                to_keep.note_key(doc, key);
            }
            if earlier.is_none() {
                return terms_memo.get_or(|| key, make);
            }
            // The memo is empty then: what is found or made is kept for the next build.
            terms_memo.insert(
                key,
                found.unwrap_or_else(|| {
                    made.fetch_add(1, Ordering::Relaxed);
                    make()
                }),
            )
        };
        let doc_terms = |docs: Range<usize>| -> Vec<Arc<NumberedTerms>> {
            let keys: Vec<u64> = docs.clone().into_par_iter().map(key_of).collect();
            let found = kept_terms_in(earlier, &keys);
            (docs.into_par_iter().zip(keys).zip(found))
                .map(|((doc, key), found)| {
                    terms_of(doc, key, found, &|| make_doc_terms(ix, doc, numbers))
                })
                .collect()
        };
        // Before the postings, so that placing the ids (a table of four bytes an id)
        // does not add to the postings' peak.
        let slug_hashes = slug_hashes(ix);
        let doc_ids = doc_ids(&slug_hashes, authors);
        // What a long-running process keeps for the next build to patch these postings
        // with: every document's terms (it keeps them in the memo anyway, and they are
        // found once, not once for each pass over the postings, each time hashing every
        // field, abstracts included: half the stage's time in a rebuild) and slug hashes.
        // A one-off build frees the hashes here.
        let for_patch = (terms_memo.is_enabled()).then(|| (doc_terms(0..doc_count), slug_hashes));
        let mut keep_placed = |first: usize, words: &[u32]| {
            if let Some(to_keep) = &to_keep {
                to_keep.placed(first, words);
            }
        };
        let (flat, starts, changed) = match &for_patch {
            Some((all, hashes)) => memo.postings_of(all, &doc_ids, hashes),
            None => {
                let scratch = graph.texts.scratch_file();
                let made = earlier.is_some().then_some(&made);
                let between = BetweenPasses::Keep { scratch, made };
                let made = postings(doc_count, doc_terms, between, Some(&mut keep_placed));
                let (flat, starts) = in_index_order(made, &doc_ids);
                (flat, starts, None)
            }
        };
        let flat = Arc::new(flat);
        let numbers = lock(numbers);
        let written = to_keep.is_some_and(|to_keep| to_keep.finish(&numbers, &starts));
        *outcome = match (earlier_serves, written) {
            (true, _) => TermsKept::EarlierServes,
            (false, true) => TermsKept::Written,
            (false, false) => TermsKept::Nothing,
        };
        let carried = (changed.as_ref()).map(|p| (p.entry_sizes.as_slice(), p.terms.as_slice()));
        let postings = (Arc::clone(&flat), starts.as_slice());
        let (mut index, entry_sizes) =
            SearchIndex::from_postings(ix, &doc_ids, postings, &numbers, carried);
        index.patched = changed.map(|p| p.documents);
        if let Some((terms, slug_hashes)) = for_patch {
            *lock(&memo.last) = Some(LastPostings {
                ids: doc_ids,
                slug_hashes,
                terms,
                flat,
                starts,
                entry_sizes,
                this_build: true,
            });
        }
        index
    }

    /// The index of `ix` from its postings by term number in `numbers`, in index order
    /// (see [`in_index_order`]), whose documents have the ids `doc_ids` (in the site's
    /// order); with each term number's [`entry_size`], those of terms not `carried`
    /// over from the last build (its sizes, and the terms whose postings changed since)
    /// found from the postings.
    fn from_postings(
        ix: &SiteIndex,
        doc_ids: &[u32],
        (flat, starts): (Arc<Vec<Numbered>>, &[usize]),
        numbers: &TermNumbers,
        carried: Option<(&[usize], &[usize])>,
    ) -> (SearchIndex, Vec<usize>) {
        let graph = ix.graph;
        let doc_count = doc_ids.len();
        let mut terms = term_ranges(starts, numbers);
        let common = (graph.papers.len() as f64 * COMMON_TERM_SHARE).max(50.0) as usize;
        // Abstract-only terms in too many papers are like stop words: left out.
        terms.retain(|(_, (_, range))| {
            range.len() <= common || flat[range.clone()].iter().any(|p| p.weight() > WEIGHT_TEXT)
        });
        terms.par_sort_unstable_by(|a, b| a.1 .0.cmp(b.1 .0));
        let entry_sizes = entry_sizes(&flat, starts, numbers, carried);
        let sizes: Vec<usize> = terms.iter().map(|(n, _)| entry_sizes[*n]).collect();
        let terms: Vec<TermPostings> = terms.into_iter().map(|(_, term)| term).collect();
        let table = TermTable::new(&terms, flat);
        drop(terms);

        // Shards by first character, split by one more character while too big.
        let mut shards = Vec::new();
        let entries = table.entries();
        split_shards(&entries, &sizes, 0, 1, &mut shards);
        drop((entries, sizes));
        shards.sort_by(|a, b| a.0.cmp(&b.0));

        let meta = serde_json::to_vec(&json!({
            "version": 2,
            "docs": doc_count,
            "chunk": IDS_PER_CHUNK,
            "papers_from": first_paper_id(graph.authors.len()),
            "shards": shards.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
            "stop": STOP_WORDS,
        }))
        .unwrap_or_default();
        let index = SearchIndex {
            meta,
            terms: table,
            shards,
            by_id: by_id(doc_ids),
            patched: None,
        };
        (index, entry_sizes)
    }

    /// How many documents were added, changed or removed since the last build, when
    /// this build patched that build's postings rather than make them all again.
    pub fn patched(&self) -> Option<usize> {
        self.patched
    }

    /// The output paths of the index's files.
    pub fn files(&self) -> Vec<String> {
        let index = self;
        let mut files = vec!["search/meta.json".to_string()];
        files.extend(
            index
                .shards
                .iter()
                .map(|(k, _)| format!("search/terms/{k}.json")),
        );
        let mut chunks: Vec<usize> = (index.by_id.iter())
            .map(|&(id, _)| id as usize / IDS_PER_CHUNK)
            .collect();
        chunks.dedup();
        files.extend(chunks.iter().map(|n| format!("search/docs-{n}.json")));
        files
    }

    /// A hash of what makes the index file at `path` (terms and postings, or what its
    /// documents read, by `documents`), without making its bytes: the same fingerprint
    /// means the same bytes, so a build keeps a file whose fingerprint the last build
    /// left rather than make it again. `None` for a path the index has no file at.
    pub fn fingerprint(
        &self,
        ix: &SiteIndex,
        path: &str,
        documents: &DocumentHashes,
    ) -> Option<u64> {
        let mut hasher = BufferedHash::default();
        hasher.update(b"search index, version 2\0");
        hasher.update(path.as_bytes());
        hasher.update(b"\0");
        if path == "search/meta.json" {
            hasher.update(&self.meta);
        } else if let Some(range) = self.shard_range(path) {
            for (term, postings) in range.map(|t| self.terms.entry(t)) {
                hasher.update(term.as_bytes());
                hasher.update(&(postings.len() as u64).to_le_bytes());
                hash_postings(postings, &mut hasher);
            }
        } else {
            let chunk = chunk_number(path).and_then(|n| self.chunk_docs(n))?;
            // Links and texts follow from the configuration too.
            hasher.update(&documents.site.to_le_bytes());
            // By id, which stays a document's own, not by its number, which a new
            // author or paper before it in slug order moves.
            for &(id, doc) in chunk {
                hasher.update(&id.to_le_bytes());
                for word in (documents.document)(Document::of(ix, doc as usize)) {
                    hasher.update(&word.to_le_bytes());
                }
            }
        }
        Some(hasher.finish())
    }

    /// The range of the terms a `search/terms/<key>.json` path holds.
    fn shard_range(&self, path: &str) -> Option<Range<usize>> {
        let key = path.strip_prefix("search/terms/")?.strip_suffix(".json")?;
        let i = (self.shards.binary_search_by(|(k, _)| k.as_str().cmp(key))).ok()?;
        Some(self.shards[i].1.clone())
    }

    /// The ids and numbers of the documents of chunk `n` (none past the last id).
    fn chunk_docs(&self, n: usize) -> Option<&[(u32, u32)]> {
        let start = n.checked_mul(IDS_PER_CHUNK)?;
        let end = start.saturating_add(IDS_PER_CHUNK);
        let first = self.by_id.partition_point(|&(id, _)| (id as usize) < start);
        let last = self.by_id.partition_point(|&(id, _)| (id as usize) < end);
        Some(&self.by_id[first..last]).filter(|chunk| !chunk.is_empty())
    }

    /// The bytes of an index file, by its path under `search/`; `ix` is the site index
    /// the search index was built from, whose documents the `docs-<n>.json` files list.
    pub fn file(&self, ix: &SiteIndex, path: &str) -> Vec<u8> {
        if path == "search/meta.json" {
            return self.meta.clone();
        }
        if let Some(range) = self.shard_range(path) {
            let entries: Vec<TermEntry> = range.map(|t| self.terms.entry(t)).collect();
            return shard_bytes(&entries);
        }
        let chunk = chunk_number(path).and_then(|n| self.chunk_docs(n));
        chunk.map_or_else(Vec::new, |chunk| doc_chunk(ix, chunk))
    }
}

/// Feeds `postings` to `hasher` as their little-endian bytes, a buffer at a time: the
/// same hash as one update a posting, without a call for every four bytes (a rebuild
/// hashes every posting of the site).
fn hash_postings(postings: &[Numbered], hasher: &mut BufferedHash) {
    for posting in postings {
        hasher.update(&posting.0.to_le_bytes());
    }
}

/// An xxh3 hasher fed through a buffer, so that the many small pieces of an index
/// file's fingerprint (each term and its length, each posting, each document's id and
/// words) cost as a few large updates: updated a piece at a time, the files of
/// documents took 0.13 s of processor time at 500,000 papers. The hash is that of the
/// bytes fed, in order, however they were split.
struct BufferedHash {
    hasher: xxhash_rust::xxh3::Xxh3,
    buffer: Vec<u8>,
}

impl BufferedHash {
    /// How many bytes are gathered before the hasher takes them.
    const BUFFER: usize = 16 * 1024;

    fn update(&mut self, bytes: &[u8]) {
        if self.buffer.len() + bytes.len() > Self::BUFFER {
            self.hasher.update(&self.buffer);
            self.buffer.clear();
        }
        if bytes.len() > Self::BUFFER {
            self.hasher.update(bytes);
        } else {
            self.buffer.extend_from_slice(bytes);
        }
    }

    fn finish(mut self) -> u64 {
        self.hasher.update(&self.buffer);
        self.hasher.digest()
    }
}

impl Default for BufferedHash {
    fn default() -> Self {
        BufferedHash {
            hasher: xxhash_rust::xxh3::Xxh3::new(),
            buffer: Vec::with_capacity(Self::BUFFER),
        }
    }
}

/// The chunk number of a `search/docs-<n>.json` path.
fn chunk_number(path: &str) -> Option<usize> {
    let n = path.strip_prefix("search/docs-")?.strip_suffix(".json")?;
    n.parse().ok()
}

/// The distinct terms of one document, each with the highest weight it has in the
/// document's fields. Held as one string and spans into it, so that a document costs a
/// few allocations rather than one per word.
#[derive(Debug, Default)]
pub struct DocTerms {
    /// The lowercase fields (and their transliterations), one after the other.
    text: String,
    /// Each distinct term: the hash of its text, and where it is in `text`.
    spans: Vec<TermSpan>,
}

/// One term of a document.
#[derive(Debug, Clone, Copy)]
struct TermSpan {
    /// xxh3 of the term's text.
    hash: u64,
    start: u32,
    end: u32,
    weight: u32,
}

impl DocTerms {
    /// Each term with its weight, in no particular order.
    #[cfg(test)]
    fn iter(&self) -> impl Iterator<Item = (&str, u32)> + '_ {
        self.spans.iter().map(|span| (self.term(span), span.weight))
    }

    fn term(&self, span: &TermSpan) -> &str {
        &self.text[span.start as usize..span.end as usize]
    }
}

/// Each term of the fields once, with the highest weight it has in them.
fn weighted(fields: &[Field]) -> DocTerms {
    let mut text = String::with_capacity(fields.iter().map(|(f, _, _)| f.len() + 1).sum());
    let mut spans: Vec<TermSpan> = Vec::new();
    for &(field, weight, kind) in fields {
        if !text.is_empty() {
            text.push(' ');
        }
        let start = text.len();
        push_searchable(&mut text, field);
        let base = text.as_ptr() as usize;
        words_of(&text[start..], |word| {
            if kind == Prose && is_stop_word(word) {
                return;
            }
            let offset = word.as_ptr() as usize - base;
            spans.push(TermSpan {
                hash: xxhash_rust::xxh3::xxh3_64(word.as_bytes()),
                start: offset as u32,
                end: (offset + word.len()) as u32,
                weight,
            });
        });
    }
    keep_distinct(&text, &mut spans);
    DocTerms { text, spans }
}

/// Leaves one span of each term of `text` in `spans`, with its best weight, in the order
/// the terms first appear.
fn keep_distinct(text: &str, spans: &mut Vec<TermSpan>) {
    let term = |span: &TermSpan| &text[span.start as usize..span.end as usize];
    // Where each hash was first seen among the kept spans.
    let mut first: ByHash<usize> =
        HashMap::with_capacity_and_hasher(spans.len(), Default::default());
    let mut kept: Vec<TermSpan> = Vec::with_capacity(spans.len());
    for span in spans.drain(..) {
        let same_term = match first.get(&span.hash) {
            None => None,
            Some(&at) if term(&kept[at]) == term(&span) => Some(at),
            // Another term with the same hash (a true collision): looked for one by one.
            Some(_) => kept
                .iter()
                .position(|k| k.hash == span.hash && term(k) == term(&span)),
        };
        match same_term {
            Some(at) => kept[at].weight = kept[at].weight.max(span.weight),
            None => {
                first.entry(span.hash).or_insert(kept.len());
                kept.push(span);
            }
        }
    }
    *spans = kept;
}

/// Numbers for terms, so that postings are gathered by counting rather than by hashing
/// every term of every document. Kept (in the search memo) from one build to the next in
/// a long-running process: a document numbered once keeps its numbers, and only new
/// documents are looked up. Terms no document uses any more are forgotten now and then
/// (see [`SearchMemo::finish_build`]).
#[derive(Default)]
pub struct TermNumbers {
    /// By term hash, the number of the first term seen with that hash.
    first: ByHash<u32>,
    /// By term hash, the numbers of the other terms with that hash: a true collision
    /// of 64-bit hashes, which almost never happens. (A list for every hash cost an
    /// allocation a term and a second lookup a word.)
    others: ByHash<Vec<u32>>,
    /// Each term, by number.
    terms: Vec<Box<str>>,
    /// Each term's hash, by number.
    hashes: Vec<u64>,
}

impl TermNumbers {
    /// The number of `term` (whose xxh3 is `hash`), given on first sight.
    fn number(&mut self, hash: u64, term: &str) -> u32 {
        let TermNumbers {
            first,
            others,
            terms,
            hashes,
        } = self;
        let next = terms.len() as u32;
        let first = *first.entry(hash).or_insert(next);
        if first != next {
            if *terms[first as usize] == *term {
                return first;
            }
            let others = others.entry(hash).or_default();
            if let Some(&n) = others.iter().find(|&&n| *terms[n as usize] == *term) {
                return n;
            }
            others.push(next);
        }
        terms.push(term.into());
        hashes.push(hash);
        next
    }

    /// Every term, in number order, each its length (u32, little-endian) and bytes: what
    /// [`TermNumbers::from_table`] numbers the same again.
    fn table(&self) -> Vec<u8> {
        let bytes = self.terms.iter().map(|t| 4 + t.len()).sum();
        let mut table = Vec::with_capacity(bytes);
        for term in &self.terms {
            table.extend_from_slice(&(term.len() as u32).to_le_bytes());
            table.extend_from_slice(term.as_bytes());
        }
        table
    }

    /// The terms of a [`TermNumbers::table`], numbered as they were; `None` if the
    /// bytes are not such a table (cut short, not UTF-8, or a term twice).
    fn from_table(mut table: &[u8]) -> Option<TermNumbers> {
        let mut numbers = TermNumbers::default();
        while !table.is_empty() {
            let (len, rest) = table.split_first_chunk::<4>()?;
            let (term, rest) = rest.split_at_checked(u32::from_le_bytes(*len) as usize)?;
            let term = std::str::from_utf8(term).ok()?;
            let next = numbers.terms.len() as u32;
            if numbers.number(xxhash_rust::xxh3::xxh3_64(term.as_bytes()), term) != next {
                return None;
            }
            table = rest;
        }
        Some(numbers)
    }

    /// Keeps only the terms whose number is `true` in `used`, numbered anew in the same
    /// order; for each old number, the new one (`u32::MAX` for a forgotten term).
    fn keep_only(&mut self, used: &[bool]) -> Vec<u32> {
        let mut renumbered = vec![u32::MAX; self.terms.len()];
        let in_use = used.iter().filter(|&&u| u).count();
        let mut terms = Vec::with_capacity(in_use);
        let mut hashes = Vec::with_capacity(in_use);
        let old = std::mem::take(&mut self.terms).into_iter();
        for ((n, term), hash) in old.enumerate().zip(std::mem::take(&mut self.hashes)) {
            if used[n] {
                renumbered[n] = terms.len() as u32;
                terms.push(term);
                hashes.push(hash);
            }
        }
        // The kept terms are distinct: indexed again in number order, each hash's
        // first term stays first.
        self.first = HashMap::with_capacity_and_hasher(in_use, Default::default());
        self.others = ByHash::default();
        for (n, &hash) in hashes.iter().enumerate() {
            match self.first.entry(hash) {
                Entry::Vacant(slot) => {
                    slot.insert(n as u32);
                }
                Entry::Occupied(_) => {
                    self.others.entry(hash).or_default().push(n as u32);
                }
            }
        }
        self.terms = terms;
        self.hashes = hashes;
        renumbered
    }
}

/// The terms the kept file of an earlier build (with its number of terms) gives each
/// document of `keys`, read a few hundred documents at a time ([`KeptFile::get_many`]).
fn kept_terms_in(earlier: Option<(&KeptFile, usize)>, keys: &[u64]) -> Vec<Option<NumberedTerms>> {
    let Some((file, terms)) = earlier else {
        return keys.iter().map(|_| None).collect();
    };
    keys.par_chunks(DOCS_PER_KEPT_READ)
        .flat_map_iter(|keys| file.get_many(keys))
        .map(|blob| kept_terms_of(&blob?, terms))
        .collect()
}

/// Documents whose kept terms are read at once (see [`kept_terms_in`]).
const DOCS_PER_KEPT_READ: usize = 512;

/// Makes `numbers` (empty, as in a one-off build) the term table of a kept file, so
/// that the numbers in its documents' blobs are this build's; returns the number of
/// terms, or `None` (and leaves `numbers` as it was) if there is no table or it is not
/// a whole one.
fn load_term_table(file: &KeptFile, numbers: &std::sync::Mutex<TermNumbers>) -> Option<usize> {
    let mut numbers = lock(numbers);
    if !numbers.terms.is_empty() {
        return None;
    }
    *numbers = TermNumbers::from_table(&file.get(term_table_key())?)?;
    Some(numbers.terms.len())
}

/// A build's documents' terms on their way to a kept file (see [`KeptTerms`]): each
/// document's key, noted as its terms are found, and the file, to which each chunk of
/// documents' terms goes once placed.
struct TermsToKeep<'w> {
    keys: Vec<AtomicU64>,
    /// The file being written, or why it could not be.
    writer: std::sync::Mutex<std::io::Result<KeptWriter<&'w mut (dyn Write + Send)>>>,
}

impl<'w> TermsToKeep<'w> {
    /// Starts a kept file of `identity` in `out` for `docs` documents.
    fn new(out: &'w mut (dyn Write + Send), identity: &str, docs: usize) -> TermsToKeep<'w> {
        TermsToKeep {
            keys: (0..docs).map(|_| AtomicU64::new(0)).collect(),
            writer: std::sync::Mutex::new(KeptWriter::new(out, identity)),
        }
    }

    /// Notes the key of document `doc`'s terms.
    fn note_key(&self, doc: usize, key: u64) {
        self.keys[doc].store(key, Ordering::Relaxed);
    }

    /// Writes the terms of a chunk of documents placed in the postings, the first
    /// numbered `first` (`words` as [`kept_docs`] reads them), each under its key.
    fn placed(&self, first: usize, words: &[u32]) {
        let mut writer = lock(&self.writer);
        for (i, doc) in kept_docs(words).enumerate() {
            let Ok(file) = &mut *writer else {
                return;
            };
            let blob = words_to_bytes(doc);
            if let Err(err) = file.add(self.keys[first + i].load(Ordering::Relaxed), &blob) {
                *writer = Err(err);
            }
        }
    }

    /// Ends the file: adds the term table, unless more of its terms are unused than
    /// used (those with postings, by `starts`: see [`postings`]), and writes the index.
    /// Whether the file is whole and worth keeping.
    fn finish(self, numbers: &TermNumbers, starts: &[usize]) -> bool {
        let used = starts.windows(2).filter(|w| w[1] > w[0]).count();
        let Ok(mut writer) = self.writer.into_inner().unwrap_or_else(|e| e.into_inner()) else {
            return false;
        };
        numbers.terms.len() - used <= used
            && writer.add(term_table_key(), &numbers.table()).is_ok()
            && writer.finish().is_ok()
    }
}

/// A document's terms with their numbers (given by `numbers` on first sight).
fn number_terms(doc: &DocTerms, numbers: &std::sync::Mutex<TermNumbers>) -> NumberedTerms {
    let mut numbers = lock(numbers);
    doc.spans
        .iter()
        .map(|span| Numbered::new(numbers.number(span.hash, doc.term(span)), span.weight))
        .collect()
}

/// Documents whose terms are found at once while postings are gathered: the terms of
/// all documents are never held together.
const DOCS_PER_PASS_CHUNK: usize = 4096;

/// What the postings' counting pass does with each chunk of documents' terms, for the
/// placing pass.
enum BetweenPasses<'m> {
    /// Nothing: the placing pass asks for them again (a long-running process keeps
    /// every document's terms in its memo anyway, so asking again is looking them up).
    AskAgain,
    /// Keeps them, four bytes a term (as many bytes as the postings): in the scratch
    /// file when there is one, as there is for a site whose texts are stored on disk,
    /// else in memory. Finding them again would mean reading and splitting every text
    /// again: over a third of the stage's time in a one-off build. With `made` (which
    /// counts the documents whose terms were made rather than found in a kept file),
    /// only the chunks with terms made are kept; the others are asked for again, which
    /// finds them in the kept file for less than writing them to the scratch file and
    /// reading them back (a fifth of the stage's time at 500,000 papers, by `perf`).
    Keep {
        scratch: Option<ScratchFile>,
        made: Option<&'m AtomicUsize>,
    },
}

/// One chunk of documents' numbered terms, kept between the postings' passes: for each
/// document its number of terms, then the terms.
enum KeptChunk {
    Held(Vec<u32>),
    Written(ScratchBlock),
    /// Not kept (the scratch file could not be written, or the terms were all found in
    /// a kept file): asked for again.
    Lost,
}

/// The words of a chunk of documents' terms: for each document its number of terms,
/// then the terms (see [`kept_docs`]).
fn chunk_words(terms: &[Arc<NumberedTerms>]) -> Vec<u32> {
    let mut words = Vec::with_capacity(terms.iter().map(|t| t.len() + 1).sum());
    for doc in terms {
        words.push(doc.len() as u32);
        words.extend(doc.iter().map(|term| term.0));
    }
    words
}

impl KeptChunk {
    fn new(terms: &[Arc<NumberedTerms>], scratch: Option<&mut ScratchFile>) -> KeptChunk {
        let words = chunk_words(terms);
        match scratch {
            None => KeptChunk::Held(words),
            Some(file) => file
                .append(&words)
                .map_or(KeptChunk::Lost, KeptChunk::Written),
        }
    }

    /// The chunk's words, read back if written; `None` if lost.
    fn words(self, scratch: Option<&ScratchFile>) -> Option<Vec<u32>> {
        match self {
            KeptChunk::Held(words) => Some(words),
            KeptChunk::Written(block) => scratch?.read(block),
            KeptChunk::Lost => None,
        }
    }
}

/// The documents' terms of a kept chunk's words, one slice a document.
fn kept_docs(words: &[u32]) -> impl Iterator<Item = &[u32]> {
    let mut rest = words;
    std::iter::from_fn(move || {
        let (&len, after) = rest.split_first()?;
        let (doc, after) = after.split_at_checked(len as usize)?;
        rest = after;
        Some(doc)
    })
}

/// What is handed a chunk of documents' terms once they are placed (see [`postings`]).
type Placed<'p> = dyn FnMut(usize, &[u32]) + 'p;

/// The postings `(doc, weight)` of every term of documents `0..docs`, in one flat list
/// by term number (each term's in doc order), and where each term number's postings
/// start there (`starts[n]..starts[n + 1]`). `doc_terms` gives the numbered terms of a
/// range of documents, a chunk at a time, which the first pass counts and keeps as
/// `between` says and the second places. So a build holds in memory the postings and
/// one chunk of documents' terms, not every document's terms beside the postings, but
/// for a site small enough to keep its texts in memory (`Keep(None)`), which keeps the
/// terms there too: four bytes a term more. `placed`, if given, is handed each chunk's
/// terms once they are placed: the first document's number and the chunk's words (see
/// [`kept_docs`]).
fn postings(
    docs: usize,
    doc_terms: impl Fn(Range<usize>) -> Vec<Arc<NumberedTerms>>,
    mut between: BetweenPasses,
    mut placed: Option<&mut Placed>,
) -> (Vec<Numbered>, Vec<usize>) {
    let chunks = || {
        (0..docs)
            .step_by(DOCS_PER_PASS_CHUNK)
            .map(|start| start..docs.min(start + DOCS_PER_PASS_CHUNK))
    };
    let mut starts = vec![0usize; 1];
    let mut kept = Vec::new();
    let made_so_far = |between: &BetweenPasses| match between {
        BetweenPasses::Keep {
            made: Some(made), ..
        } => Some(made.load(Ordering::Relaxed)),
        _ => None,
    };
    for range in chunks() {
        let made_before = made_so_far(&between);
        let terms = doc_terms(range);
        for term in terms.iter().flat_map(|doc| doc.iter()) {
            let n = term.number() as usize + 1;
            if n >= starts.len() {
                starts.resize(n + 1, 0);
            }
            starts[n] += 1;
        }
        let all_found = made_before.is_some() && made_so_far(&between) == made_before;
        if let BetweenPasses::Keep { scratch, .. } = &mut between {
            kept.push(match all_found {
                true => KeptChunk::Lost,
                false => KeptChunk::new(&terms, scratch.as_mut()),
            });
        }
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut flat = vec![Numbered(0); starts[starts.len() - 1]];
    let mut next = starts.clone();
    let mut place = |doc: usize, terms: &mut dyn Iterator<Item = Numbered>| {
        for term in terms {
            let n = term.number() as usize;
            // Both passes see the same terms; should a text read back differently
            // (see `TextStore::failure`), a term not counted is left out.
            if n + 1 < starts.len() && next[n] < starts[n + 1] {
                flat[next[n]] = term.renumbered(doc as u32);
                next[n] += 1;
            }
        }
    };
    let scratch = match &between {
        BetweenPasses::Keep { scratch, .. } => scratch.as_ref(),
        BetweenPasses::AskAgain => None,
    };
    let mut kept = kept.into_iter();
    for range in chunks() {
        let first = range.start;
        match kept.next().and_then(|chunk| chunk.words(scratch)) {
            Some(words) => {
                for (i, doc) in kept_docs(&words).enumerate() {
                    place(first + i, &mut doc.iter().map(|&w| Numbered(w)));
                }
                if let Some(placed) = placed.as_mut() {
                    placed(first, &words);
                }
            }
            None => {
                let terms = doc_terms(range);
                for (i, doc) in terms.iter().enumerate() {
                    place(first + i, &mut doc.iter().copied());
                }
                if let Some(placed) = placed.as_mut() {
                    placed(first, &chunk_words(&terms));
                }
            }
        }
    }
    (flat, starts)
}

/// Postings made by [`postings`], which name documents by their place in the site's
/// order, as the index holds them: each naming its document by id, and each term's
/// best weight first, then in the site's order (the order they are in).
fn in_index_order(
    (mut flat, starts): (Vec<Numbered>, Vec<usize>),
    doc_ids: &[u32],
) -> (Vec<Numbered>, Vec<usize>) {
    flat.par_iter_mut()
        .for_each(|p| *p = p.renumbered(doc_ids[p.number() as usize]));
    let ranges = starts.windows(2).map(|w| w[0]..w[1]);
    term_postings(&mut flat, ranges)
        .into_par_iter()
        .for_each(|postings| postings.sort_by_key(|p| std::cmp::Reverse(p.weight())));
    (flat, starts)
}

/// A hash of each document's slug, in the site's order (authors, then papers): what
/// places it among the ids (see [`doc_ids`]), and tells a document from another that
/// takes its id in a later build.
fn slug_hashes(ix: &SiteIndex) -> Vec<u64> {
    let graph = ix.graph;
    let authors = graph.authors.par_iter().map(|a| a.slug.as_str());
    let slugs = authors.chain(graph.papers.par_iter().map(|p| p.slug.as_str()));
    slugs
        .map(|slug| crate::hash::content_hash(slug.as_bytes()))
        .collect()
}

/// At most one document in this many may have changed for a build to patch the last
/// build's postings rather than make them all again.
const PATCH_WHEN_ONE_IN: usize = 16;

/// This build's postings, in index order (see [`in_index_order`]), made from the
/// `last` build's: a document is unchanged when it has the same id, slug and terms
/// (the memo's allocation). The postings of terms that no changed document has (before
/// or now) are taken as they were; in the others, the changed documents' old postings
/// are cut out and their new ones put in, each found by bisection, and the runs
/// between copied whole; with what changed (the last build's entry sizes taken from
/// it). `None` when too many documents changed, or the kept ones are not in the last
/// build's order, or a removed document's posting is not where its key says: then
/// they are all made again.
fn patch_postings(
    last: &mut LastPostings,
    ids: &[u32],
    slug_hashes: &[u64],
    terms: &[Arc<NumberedTerms>],
) -> Option<(Vec<Numbered>, Vec<usize>, Patched)> {
    let id_end = (ids.iter().chain(&last.ids))
        .max()
        .map_or(0, |&id| id as usize + 1);
    let places_of = |ids: &[u32]| {
        let mut place_of = vec![u32::MAX; id_end];
        for (place, &id) in ids.iter().enumerate() {
            place_of[id as usize] = place as u32;
        }
        place_of
    };
    let old_place_of = places_of(&last.ids);
    let was = |place: usize| -> Option<usize> {
        let old = old_place_of[ids[place] as usize];
        let old = (old != u32::MAX).then_some(old as usize)?;
        let same = last.slug_hashes[old] == slug_hashes[place]
            && Arc::ptr_eq(&last.terms[old], &terms[place]);
        same.then_some(old)
    };
    let kept: Vec<Option<usize>> = (0..ids.len()).into_par_iter().map(was).collect();
    let mut still_there = vec![false; last.ids.len()];
    for &old in kept.iter().flatten() {
        still_there[old] = true;
    }
    let added: Vec<usize> = (0..ids.len()).filter(|&p| kept[p].is_none()).collect();
    let removed: Vec<usize> = (0..last.ids.len()).filter(|&q| !still_there[q]).collect();
    if (added.len() + removed.len()) * PATCH_WHEN_ONE_IN > ids.len().max(1) {
        return None;
    }
    // Where each changed document's postings go among the last build's, which are in
    // the order of the last build's places: a kept document keeps its place among the
    // kept ones (the documents are in slug order, and a kept one has the same slug), so
    // an added one goes just after the kept one before it. Slot `2q + 1` is the last
    // build's place `q`, `2q + 2` just after it, and 0 before every place.
    let mut after_kept = Vec::with_capacity(added.len());
    let mut kept_before: Option<usize> = None;
    for old in &kept {
        match *old {
            Some(old) if kept_before.is_some_and(|before| before >= old) => return None,
            Some(old) => kept_before = Some(old),
            None => after_kept.push(kept_before.map_or(0, |before| slot_of_old(before) + 1)),
        }
    }
    let changes = ChangedPostings::of(last, &added, &removed, &after_kept, ids, terms);
    let old_terms = last.starts.len() - 1;
    let term_count = (changes.terms.last()).map_or(old_terms, |&t| old_terms.max(t + 1));
    // Where term `t`'s postings start in the last build's (its end, for terms it had not).
    let old_start = |t: usize| last.starts[t.min(old_terms)];
    let key = |p: &Numbered| {
        let place = old_place_of[p.number() as usize] as usize;
        (std::cmp::Reverse(p.weight()), slot_of_old(place))
    };
    let mut flat = Vec::with_capacity(last.flat.len() + changes.added.len());
    let mut starts = Vec::with_capacity(term_count + 1);
    starts.push(0);
    let (mut added_postings, mut gone) = (changes.added.as_slice(), changes.gone.as_slice());
    let mut next = 0;
    for &term in changes.terms.iter().chain([&term_count]) {
        // The terms before this one that did not change: one run of the last postings.
        let (from, to) = (old_start(next), old_start(term));
        let placed = flat.len();
        flat.extend_from_slice(&last.flat[from..to]);
        starts.extend((next..term).map(|t| old_start(t + 1) - from + placed));
        if term == term_count {
            break;
        }
        let this_added = take_term(&mut added_postings, term);
        let this_gone = take_term(&mut gone, term);
        // Each posting of the term by its index among the last build's, found by
        // bisection: a few changes to lists that can hold every document.
        let old = &last.flat[old_start(term)..old_start(term + 1)];
        let index_of = |at: &PostingAt| old.partition_point(|p| key(p) < at.key());
        let mut skip = Vec::with_capacity(this_gone.len());
        for (_, at) in this_gone {
            let index = index_of(at);
            if old.get(index).is_none_or(|p| key(p) != at.key()) {
                return None;
            }
            skip.push(index);
        }
        let insert = this_added.iter().map(|(_, at)| (index_of(at), at.posting));
        splice_postings(old, &skip, insert, &mut flat);
        starts.push(flat.len());
        next = term + 1;
    }
    let patched = Patched {
        documents: added.len() + removed.len(),
        terms: changes.terms,
        entry_sizes: std::mem::take(&mut last.entry_sizes),
    };
    Some((flat, starts, patched))
}

/// The slot of the last build's place `old` among those a rebuild's changed postings
/// go in (see [`patch_postings`]).
fn slot_of_old(old: usize) -> u64 {
    2 * old as u64 + 1
}

/// A posting of a changed document with where it goes in its term's list: its slot
/// among the last build's places (see [`patch_postings`]), then its place in this
/// build's order among documents in the same slot.
#[derive(Clone, Copy)]
struct PostingAt {
    posting: Numbered,
    slot: u64,
    place: usize,
}

impl PostingAt {
    /// What orders it among a term's postings (the weight first, heaviest first), as
    /// the last build's postings are ordered by their slots.
    fn key(&self) -> (std::cmp::Reverse<u32>, u64) {
        (std::cmp::Reverse(self.posting.weight()), self.slot)
    }
}

/// The postings a rebuild adds to and removes from the last build's, by term number.
struct ChangedPostings {
    /// The added documents' postings, by term, each term's in index order.
    added: Vec<(u32, PostingAt)>,
    /// The removed documents' postings as the last build had them, by term and key.
    gone: Vec<(u32, PostingAt)>,
    /// The terms of both, in order, each once.
    terms: Vec<usize>,
}

impl ChangedPostings {
    /// The postings of the documents at this build's places `added` (which go after the
    /// last build's slots `after_kept`) and at the last build's places `removed`.
    fn of(
        last: &LastPostings,
        added: &[usize],
        removed: &[usize],
        after_kept: &[u64],
        ids: &[u32],
        terms: &[Arc<NumberedTerms>],
    ) -> ChangedPostings {
        let order = |(term, at): &(u32, PostingAt)| (*term, at.key(), at.place);
        // Each posting of a document's terms, by term, with where it goes.
        let postings_at = |docs: Vec<(&NumberedTerms, u32, u64, usize)>| {
            let mut all: Vec<(u32, PostingAt)> = (docs.into_iter())
                .flat_map(|(doc_terms, id, slot, place)| {
                    doc_terms.iter().map(move |t| {
                        let posting = t.renumbered(id);
                        (
                            t.number(),
                            PostingAt {
                                posting,
                                slot,
                                place,
                            },
                        )
                    })
                })
                .collect();
            all.sort_unstable_by_key(order);
            all
        };
        let new = postings_at(
            (added.iter().zip(after_kept))
                .map(|(&place, &slot)| (&*terms[place], ids[place], slot, place))
                .collect(),
        );
        let gone = postings_at(
            (removed.iter())
                .map(|&old| (&*last.terms[old], last.ids[old], slot_of_old(old), old))
                .collect(),
        );
        let mut terms: Vec<usize> = (new.iter().chain(&gone))
            .map(|(t, _)| *t as usize)
            .collect();
        terms.sort_unstable();
        terms.dedup();
        ChangedPostings {
            added: new,
            gone,
            terms,
        }
    }
}

/// The postings of `term` at the start of `list` (by term), taken off it.
fn take_term<'p>(list: &mut &'p [(u32, PostingAt)], term: usize) -> &'p [(u32, PostingAt)] {
    let all = *list;
    let (this, rest) = all.split_at(all.partition_point(|(t, _)| *t as usize == term));
    *list = rest;
    this
}

/// Appends to `out` the postings `old` without those at the indices `skip` (in
/// order) and with each of `insert` put before the posting at its index (indices in
/// order; those at the same index in their order): runs of the old list are copied
/// whole, as a change touches few of a common term's postings.
fn splice_postings<T: Copy>(
    old: &[T],
    skip: &[usize],
    insert: impl Iterator<Item = (usize, T)>,
    out: &mut Vec<T>,
) {
    let mut skip = skip.iter().copied().peekable();
    let mut from = 0;
    let mut copy_up_to = |to: usize, out: &mut Vec<T>| {
        while let Some(index) = skip.next_if(|&index| index < to) {
            out.extend_from_slice(&old[from..index]);
            from = index + 1;
        }
        out.extend_from_slice(&old[from..to]);
        from = to;
    };
    for (index, item) in insert {
        copy_up_to(index, out);
        out.push(item);
    }
    copy_up_to(old.len(), out);
}

/// Each term number that has postings, with its term and the range of its postings
/// (see [`postings`]); in number order.
fn term_ranges<'t>(starts: &[usize], numbers: &'t TermNumbers) -> Vec<(usize, TermPostings<'t>)> {
    (0..starts.len() - 1)
        .filter(|&n| starts[n + 1] > starts[n])
        .map(|n| (n, (&*numbers.terms[n], starts[n]..starts[n + 1])))
        .collect()
}

/// Each term number's [`entry_size`] (0 for a term without postings), from its
/// postings (`flat`, ranges in `starts`); when `carried`, the last build's sizes for
/// the terms whose postings did not change since, as a rebuild changes the postings
/// of a few terms and finding a size reads every posting of the term.
fn entry_sizes(
    flat: &[Numbered],
    starts: &[usize],
    numbers: &TermNumbers,
    carried: Option<(&[usize], &[usize])>,
) -> Vec<usize> {
    let term_count = starts.len() - 1;
    let size_of = |n: usize| {
        let postings = &flat[starts[n]..starts[n + 1]];
        match postings {
            [] => 0,
            _ => entry_size(&(&*numbers.terms[n], postings)),
        }
    };
    let Some((last, changed)) = carried else {
        return (0..term_count).into_par_iter().map(size_of).collect();
    };
    let mut sizes = last.to_vec();
    sizes.resize(term_count, 0);
    for &n in changed.iter().filter(|&&n| n < term_count) {
        sizes[n] = size_of(n);
    }
    sizes
}

/// A term with the range of its postings in a flat list of them (see [`postings`]).
type TermPostings<'t> = (&'t str, std::ops::Range<usize>);

/// The postings in each of `ranges` (in order and apart) of `flat`.
fn term_postings(
    flat: &mut [Numbered],
    ranges: impl ExactSizeIterator<Item = Range<usize>>,
) -> Vec<&mut [Numbered]> {
    let mut each = Vec::with_capacity(ranges.len());
    let (mut rest, mut offset) = (flat, 0);
    for range in ranges {
        let (_, from_start) = rest.split_at_mut(range.start - offset);
        let (postings, after) = from_start.split_at_mut(range.len());
        each.push(postings);
        (rest, offset) = (after, range.end);
    }
    each
}

/// A term with its postings `(doc, weight)`.
type TermEntry<'t> = (&'t str, &'t [Numbered]);

/// The first `chars` characters of `term` (all of it when shorter).
fn prefix(term: &str, chars: usize) -> &str {
    term.char_indices()
        .nth(chars)
        .map_or(term, |(end, _)| &term[..end])
}

/// Groups `entries` (sorted by term, the first at `offset` in the whole list) by their
/// first `chars` characters, each group a run of them; a group whose file would be over
/// [`MAX_SHARD_BYTES`] is split by one more character (up to four). `sizes` holds each
/// entry's [`entry_size`], so that a group's size is found without walking its postings
/// again at each length of prefix. Each group is its shard key and the range of the
/// whole list it holds.
fn split_shards(
    entries: &[TermEntry],
    sizes: &[usize],
    offset: usize,
    chars: usize,
    out: &mut Vec<(String, Range<usize>)>,
) {
    let mut start = 0;
    while start < entries.len() {
        let first = prefix(entries[start].0, chars);
        let run = entries[start..]
            .iter()
            .take_while(|(t, _)| prefix(t, chars) == first)
            .count();
        let (group, group_sizes) = (&entries[start..start + run], &sizes[start..start + run]);
        let key = shard_key(first, chars);
        let longer = group.iter().any(|(t, _)| t.chars().count() > chars);
        let at = offset + start;
        let size = shard_size_of(group_sizes.iter().copied());
        if size > MAX_SHARD_BYTES && chars < 4 && longer {
            // The term exactly `chars` long (which sorts first) stays in a shard of its
            // own key.
            let exact = group
                .iter()
                .take_while(|(t, _)| t.chars().count() <= chars)
                .count();
            if exact > 0 {
                out.push((format!("{key}-"), at..at + exact));
            }
            let rest = (&group[exact..], &group_sizes[exact..]);
            split_shards(rest.0, rest.1, at + exact, chars + 1, out);
        } else {
            out.push((key, at..at + run));
        }
        start += run;
    }
}

/// Number of decimal digits of `n`.
fn digits(n: u32) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// The exact length of one entry, `"term":[…]`, in [`shard_bytes`] (ASCII terms; an
/// estimate otherwise), without the comma between entries.
fn entry_size((term, list): &TermEntry) -> usize {
    let numbers: usize = list
        .iter()
        .map(|p| digits(p.number()) + digits(p.weight()) + 2)
        .sum();
    // Quotes, colon, brackets, and one comma fewer than the numbers.
    term.len() + 5 + numbers.saturating_sub(1)
}

/// The length of a shard of entries of these [`entry_size`]s: theirs, the commas
/// between them and the braces.
fn shard_size_of(sizes: impl ExactSizeIterator<Item = usize>) -> usize {
    let commas = sizes.len().saturating_sub(1);
    sizes.sum::<usize>() + commas + 2
}

/// The exact length of [`shard_bytes`] for these entries (ASCII terms; an estimate
/// otherwise), without building it.
fn shard_size(entries: &[TermEntry]) -> usize {
    shard_size_of(entries.iter().map(entry_size))
}

/// Appends `n` in decimal (a million postings go through here: no formatting machinery).
fn push_decimal(out: &mut Vec<u8>, n: u32) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// A shard as JSON, `{"term":[doc,weight,…],…}`, terms in the order given (sorted).
fn shard_bytes(entries: &[TermEntry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(shard_size(entries));
    out.push(b'{');
    for (i, (term, list)) in entries.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let _ = serde_json::to_writer(&mut out, term);
        out.extend_from_slice(b":[");
        for (j, posting) in list.iter().enumerate() {
            if j > 0 {
                out.push(b',');
            }
            push_decimal(&mut out, posting.number());
            out.push(b',');
            push_decimal(&mut out, posting.weight());
        }
        out.push(b']');
    }
    out.push(b'}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn each_terms_postings_are_its_range_of_the_flat_list() {
        let mut flat: Vec<Numbered> = (0..10).map(|n| Numbered::new(n, 1)).collect();
        let terms: Vec<TermPostings> = vec![("a", 0..2), ("b", 3..6), ("c", 6..7), ("d", 9..10)];
        let numbers =
            |postings: &[Numbered]| -> Vec<u32> { postings.iter().map(|p| p.number()).collect() };
        let each: Vec<Vec<u32>> = (term_postings(&mut flat, terms.iter().map(|(_, r)| r.clone()))
            .iter())
        .map(|p| numbers(p))
        .collect();
        assert_eq!(each, vec![vec![0, 1], vec![3, 4, 5], vec![6], vec![9]]);
    }

    #[test]
    fn document_ids_are_distinct_authors_first_and_stay_put_when_one_is_added() {
        let slugs = |prefix: &str, n: usize| -> Vec<String> {
            (0..n).map(|i| format!("{prefix}-{i:05}")).collect()
        };
        let authors = slugs("author", 300);
        let papers = slugs("paper", 1000);
        let ids_of = |authors: &[String], papers: &[String]| {
            let slugs = authors.iter().chain(papers);
            let hashes: Vec<u64> = slugs
                .map(|s| crate::hash::content_hash(s.as_bytes()))
                .collect();
            doc_ids(&hashes, authors.len())
        };
        let ids = ids_of(&authors, &papers);
        assert_eq!(ids.len(), 1300);
        // Authors' ids are below 300 · 4 rounded up to 2048; papers' from there.
        assert!(ids[..300].iter().all(|&id| id < 2048));
        assert!(ids[300..]
            .iter()
            .all(|&id| (2048..2048 + 4096).contains(&id)));
        let mut distinct = ids.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 1300);
        assert_eq!(
            ids,
            ids_of(&authors, &papers),
            "the same slugs, the same ids"
        );

        // One more paper, in the middle of the slug order.
        let mut more = papers.clone();
        more.insert(500, "paper-00499a".to_string());
        let grown = ids_of(&authors, &more);
        let kept = (grown[..800].iter().chain(&grown[801..]))
            .zip(&ids)
            .filter(|(a, b)| a == b)
            .count();
        assert!(kept >= 1298, "only {kept} of 1300 ids stayed");
    }

    #[test]
    fn a_taken_slot_leads_to_the_next_free_one_wrapping() {
        // Slots 1, 2, 3 and 7 of 8 are taken, as placing does it: each links to the
        // slot after it.
        let mut next: Vec<u32> = vec![0, 2, 3, 4, 4, 5, 6, 0];
        assert_eq!(first_free(&mut next, 1), 4);
        // The links followed now lead straight to the free slot.
        assert_eq!(&next[1..4], &[4, 4, 4]);
        assert_eq!(first_free(&mut next, 7), 0, "past the end: the first slot");
        assert_eq!(first_free(&mut next, 5), 5);
        // Fifty documents hashing to slot 60 of 64 take the slots from it on, one
        // each, wrapping past the end.
        let mut next: Vec<u32> = (0..64).collect();
        let taken: Vec<usize> = (0..50)
            .map(|_| {
                let slot = first_free(&mut next, 60);
                next[slot] = ((slot + 1) % 64) as u32;
                slot
            })
            .collect();
        let expected: Vec<usize> = (60..64).chain(0..46).collect();
        assert_eq!(taken, expected);
    }

    #[test]
    fn colliding_hashes_keep_each_term_once() {
        // "aa bb aa cc bb", with "aa" and "bb" given the same hash.
        let text = "aa bb aa cc bb";
        let span = |start: u32, hash: u64, weight: u32| TermSpan {
            hash,
            start,
            end: start + 2,
            weight,
        };
        let mut spans = vec![
            span(0, 7, 1),
            span(3, 7, 2),
            span(6, 7, 5),
            span(9, 3, 1),
            span(12, 7, 4),
        ];
        keep_distinct(text, &mut spans);
        let kept: Vec<(&str, u32)> = spans
            .iter()
            .map(|s| (&text[s.start as usize..s.end as usize], s.weight))
            .collect();
        assert_eq!(kept, [("aa", 5), ("bb", 4), ("cc", 1)]);
    }

    #[test]
    fn ascii_and_unicode_words_split_alike() {
        let words = |text| {
            let mut found = Vec::new();
            words_of(text, |word| found.push(word));
            found
        };
        assert_eq!(words("a bc-def x9 42 _gh"), ["bc", "def", "x9", "42", "gh"]);
        assert_eq!(words("a bc-déf ł x9"), ["bc", "déf", "x9"]);
        // Separators at either end, in runs, and one-character words between them.
        assert_eq!(words("--ab  c,,de9--"), ["ab", "de9"]);
        assert_eq!(words(""), Vec::<&str>::new());
        assert_eq!(words("xy"), ["xy"]);
    }

    #[test]
    fn terms_are_lowercase_words_as_written_and_transliterated() {
        assert_eq!(
            terms("Scalable Training, of MoE of"),
            ["moe", "of", "scalable", "training"]
        );
        assert_eq!(
            terms("Łukasz Wiśniewski"),
            ["lukasz", "wisniewski", "wiśniewski", "łukasz"]
        );
        assert!(terms("王伟").contains(&"wang".to_string()));
        assert!(terms("a I x").is_empty(), "single characters are not terms");
    }

    #[test]
    fn stop_words_are_left_out_of_prose_and_kept_in_names() {
        let doc = weighted(&[
            (
                "The Theory of Everything, and THE rest",
                WEIGHT_TITLE,
                Prose,
            ),
            ("An Li and Will Smith", WEIGHT_TEXT, Name),
            ("It is in there: a theory", WEIGHT_TEXT, Prose),
        ]);
        let mut found: Vec<(&str, u32)> = doc.iter().collect();
        found.sort_unstable();
        assert_eq!(
            found,
            [
                ("an", WEIGHT_TEXT),
                ("and", WEIGHT_TEXT),
                ("everything", WEIGHT_TITLE),
                ("li", WEIGHT_TEXT),
                ("rest", WEIGHT_TITLE),
                ("smith", WEIGHT_TEXT),
                ("theory", WEIGHT_TITLE),
                ("will", WEIGHT_TEXT),
            ]
        );
        assert!(
            STOP_WORDS.windows(2).all(|w| w[0] < w[1]),
            "sorted, for bisection"
        );
        assert!(STOP_WORDS.iter().all(|w| is_stop_word(w)));
        assert!(!is_stop_word("theory") && !is_stop_word("th"));
    }

    #[test]
    fn shard_keys_are_hex_of_the_first_characters() {
        assert_eq!(shard_key("megatron", 2), "6d65");
        assert_eq!(shard_key("megatron", 3), "6d6567");
        assert_eq!(shard_key("łu", 2), "c582".to_string() + "75");
    }

    #[test]
    fn index_paths() {
        for yes in [
            "search/meta.json",
            "search/terms/6d65.json",
            "search/docs-12.json",
        ] {
            assert!(is_search_index_path(yes), "{yes}");
        }
        for no in [
            "search/index.html",
            "search/terms/a/b.json",
            "search/docs-.json",
            "search/docs-x.json",
            "meta.json",
        ] {
            assert!(!is_search_index_path(no), "{no}");
        }
    }

    #[test]
    fn decimals() {
        for n in [0, 7, 10, 99, 100, 4_294_967_295, 1_234_567] {
            let mut out = b"x".to_vec();
            push_decimal(&mut out, n);
            assert_eq!(out, format!("x{n}").into_bytes());
        }
    }

    #[test]
    fn shards_are_json_of_the_size_computed() {
        let a = vec![Numbered::new(1, 10), Numbered::new(23, 1)];
        let b = vec![Numbered::new(456, 3)];
        let entries: Vec<TermEntry> = vec![("alpha", &a), ("be\"ta", &b)];
        let bytes = shard_bytes(&entries);
        let value: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(value, json!({"alpha": [1, 10, 23, 1], "be\"ta": [456, 3]}));
        assert_eq!(shard_size(&entries[..1]), shard_bytes(&entries[..1]).len());
        assert_eq!(shard_size(&entries), bytes.len() - 1, "one escaped quote");
    }

    #[test]
    fn a_number_and_a_weight_fit_in_four_bytes() {
        for weight in [WEIGHT_TEXT, WEIGHT_SUBJECT, WEIGHT_TITLE] {
            for number in [0, 1, 12_345, (1 << 30) - 1] {
                let packed = Numbered::new(number, weight);
                assert_eq!((packed.number(), packed.weight()), (number, weight));
                let moved = packed.renumbered(7);
                assert_eq!((moved.number(), moved.weight()), (7, weight));
            }
        }
        assert_eq!(std::mem::size_of::<Numbered>(), 4);
    }

    #[test]
    fn big_shards_split_by_one_more_character_and_keep_the_exact_term_apart() {
        let big: Vec<Numbered> = (0..40_000).map(|d| Numbered::new(d, 1)).collect();
        let one = [Numbered::new(3, 10)];
        let entries: Vec<TermEntry> = vec![
            ("ab", &one),
            ("abc", &big),
            ("abd", &one),
            ("b1", &one),
            ("éa", &one),
            ("éb", &one),
        ];
        let mut shards = Vec::new();
        let sizes: Vec<usize> = entries.iter().map(entry_size).collect();
        split_shards(&entries, &sizes, 10, 1, &mut shards);
        let expected = [
            ("6162-", 10..11),
            ("616263", 11..12),
            ("616264", 12..13),
            ("62", 13..14),
            ("c3a9", 14..16),
        ];
        let expected: Vec<(String, Range<usize>)> = expected
            .into_iter()
            .map(|(k, r)| (k.to_string(), r))
            .collect();
        assert_eq!(shards, expected);
        assert!(
            shard_size(&entries[1..2]) > MAX_SHARD_BYTES,
            "abc alone is big"
        );
    }

    /// The postings of `docs` as `(term, [(doc, weight)])`, sorted by term.
    fn postings_of<'t>(
        docs: &[Arc<NumberedTerms>],
        numbers: &'t TermNumbers,
    ) -> Vec<(&'t str, Vec<(u32, u32)>)> {
        let ask_again = BetweenPasses::AskAgain;
        let (flat, starts) = postings(docs.len(), |range| docs[range].to_vec(), ask_again, None);
        let terms = term_ranges(&starts, numbers);
        let mut found: Vec<(&str, Vec<(u32, u32)>)> = terms
            .into_iter()
            .map(|(_, (t, range))| {
                let list = flat[range].iter().map(|p| (p.number(), p.weight()));
                (t, list.collect())
            })
            .collect();
        found.sort();
        found
    }

    #[test]
    fn postings_gathered_a_chunk_at_a_time_are_in_doc_order_across_chunks() {
        let numbers = std::sync::Mutex::new(TermNumbers::default());
        let docs: Vec<Arc<NumberedTerms>> = (0..2 * DOCS_PER_PASS_CHUNK + 100)
            .map(|i| {
                let text = match i % 5 {
                    // A document without terms keeps its place among the kept ones.
                    4 => String::new(),
                    _ => format!("all mod{}", i % 3),
                };
                Arc::new(number_terms(
                    &weighted(&[(&text, WEIGHT_TEXT, Prose)]),
                    &numbers,
                ))
            })
            .collect();
        let chunks = [
            0..DOCS_PER_PASS_CHUNK,
            DOCS_PER_PASS_CHUNK..2 * DOCS_PER_PASS_CHUNK,
            2 * DOCS_PER_PASS_CHUNK..docs.len(),
        ];
        let twice: Vec<Range<usize>> = chunks.iter().chain(&chunks).cloned().collect();
        let scratch_dir = tempfile::tempdir().unwrap();
        let store = crate::text_store::TextStore::in_dir(scratch_dir.path());
        // The middle chunk's terms are made, the others' found (in a kept file).
        let made = AtomicUsize::new(0);
        let keep = |scratch, made| BetweenPasses::Keep { scratch, made };
        let mut made_kept = chunks.to_vec();
        made_kept.extend([chunks[0].clone(), chunks[2].clone()]);
        // Asked again, kept in memory, kept in a scratch file, kept only when made: each
        // chunk is asked for twice (to count, then to place) or once, and the postings
        // are the same.
        let ways = [
            (BetweenPasses::AskAgain, twice.clone()),
            (keep(None, None), chunks.to_vec()),
            (keep(store.scratch_file(), None), chunks.to_vec()),
            (keep(store.scratch_file(), Some(&made)), made_kept),
        ];
        let mut found = Vec::new();
        for (between, expected_asks) in ways {
            let asked = std::sync::Mutex::new(Vec::new());
            // Each chunk is handed on once placed, in order, with every document's terms.
            let mut handed_on: Vec<NumberedTerms> = Vec::new();
            let mut placed = |first: usize, words: &[u32]| {
                assert_eq!(first, handed_on.len());
                let chunk = kept_docs(words).map(|doc| doc.iter().map(|&w| Numbered(w)));
                handed_on.extend(chunk.map(Iterator::collect));
            };
            let gathered = postings(
                docs.len(),
                |range| {
                    asked.lock().unwrap().push(range.clone());
                    if range == chunks[1] {
                        made.fetch_add(1, Ordering::Relaxed);
                    }
                    docs[range].to_vec()
                },
                between,
                Some(&mut placed),
            );
            assert_eq!(*asked.lock().unwrap(), expected_asks);
            assert!(handed_on.iter().eq(docs.iter().map(|d| &**d)));
            found.push(gathered);
        }
        assert!(found.windows(2).all(|w| w[0] == w[1]));
        let (flat, starts) = &found[0];
        let numbers = numbers.lock().unwrap();
        let terms = term_ranges(starts, &numbers);
        let docs_of = |term: &str| -> Vec<u32> {
            let (_, (_, range)) = terms.iter().find(|(_, (t, _))| *t == term).unwrap();
            flat[range.clone()].iter().map(|p| p.number()).collect()
        };
        let with_terms = |d: &u32| d % 5 != 4;
        let all: Vec<u32> = (0..docs.len() as u32).filter(with_terms).collect();
        assert_eq!(docs_of("all"), all);
        let thirds: Vec<u32> = all.iter().copied().filter(|d| d % 3 == 1).collect();
        assert_eq!(docs_of("mod1"), thirds);
        assert_eq!(terms.len(), 4);
    }

    #[test]
    fn a_chunk_kept_between_the_passes_reads_back_its_documents_or_asks_again() {
        let docs: Vec<Arc<NumberedTerms>> = vec![
            Arc::new(vec![
                Numbered::new(3, WEIGHT_TITLE),
                Numbered::new(1, WEIGHT_TEXT),
            ]),
            Arc::new(Vec::new()),
            Arc::new(vec![Numbered::new(7, WEIGHT_SUBJECT)]),
        ];
        let words_of = |docs: &[Arc<NumberedTerms>]| -> Vec<Vec<u32>> {
            let words = docs.iter().map(|d| d.iter().map(|t| t.0).collect());
            words.collect()
        };
        let scratch_dir = tempfile::tempdir().unwrap();
        let store = crate::text_store::TextStore::in_dir(scratch_dir.path());
        let mut scratch = store
            .scratch_file()
            .expect("a store on disk has scratch files");
        // Something before, so that the chunk is read from its own offset.
        scratch.append(&[9, 9, 9]).unwrap();
        let written = KeptChunk::new(&docs, Some(&mut scratch));
        assert!(matches!(written, KeptChunk::Written(_)));
        let held = KeptChunk::new(&docs, None);
        for chunk in [written, held] {
            let words = chunk.words(Some(&scratch)).unwrap();
            let read: Vec<Vec<u32>> = kept_docs(&words).map(<[u32]>::to_vec).collect();
            assert_eq!(read, words_of(&docs));
        }
        assert!(KeptChunk::Lost.words(Some(&scratch)).is_none());
        // A store in memory has no scratch file.
        assert!(crate::text_store::TextStore::default()
            .scratch_file()
            .is_none());
        // Words cut short give the documents that are whole.
        let cut: Vec<&[u32]> = kept_docs(&[1, 5, 2, 6]).collect();
        assert_eq!(cut, [&[5][..]]);
    }

    #[test]
    fn postings_keep_terms_with_the_same_hash_apart() {
        let mut one = weighted(&[("alpha beta", WEIGHT_TITLE, Prose)]);
        let mut two = weighted(&[("beta gamma", WEIGHT_TEXT, Prose)]);
        // Pretend every term hashes alike.
        for span in one.spans.iter_mut().chain(two.spans.iter_mut()) {
            span.hash = 7;
        }
        let numbers = std::sync::Mutex::new(TermNumbers::default());
        let docs = [
            Arc::new(number_terms(&one, &numbers)),
            Arc::new(number_terms(&two, &numbers)),
        ];
        let expected = [
            ("alpha", vec![(0, WEIGHT_TITLE)]),
            ("beta", vec![(0, WEIGHT_TITLE), (1, WEIGHT_TEXT)]),
            ("gamma", vec![(1, WEIGHT_TEXT)]),
        ];
        assert_eq!(postings_of(&docs, &numbers.lock().unwrap()), expected);

        // A later build: the documents keep their numbers, a new one gets looked up.
        let mut three = weighted(&[("delta alpha", WEIGHT_TEXT, Prose)]);
        three.spans.iter_mut().for_each(|span| span.hash = 7);
        let three = Arc::new(number_terms(&three, &numbers));
        let docs = [Arc::clone(&docs[1]), three, Arc::clone(&docs[0])];
        let numbers = numbers.into_inner().unwrap();
        assert_eq!(
            postings_of(&docs, &numbers),
            [
                ("alpha", vec![(1, WEIGHT_TEXT), (2, WEIGHT_TITLE)]),
                ("beta", vec![(0, WEIGHT_TEXT), (2, WEIGHT_TITLE)]),
                ("delta", vec![(1, WEIGHT_TEXT)]),
                ("gamma", vec![(0, WEIGHT_TEXT)]),
            ]
        );
        assert_eq!(numbers.terms.len(), 4, "alpha is numbered once");
    }

    /// A site of two record files, planned, and the files of its search index built
    /// with `kept` (and a fresh memo, as in a one-off build), by path.
    fn index_files(titles: &[&str], kept: &mut KeptTerms) -> Vec<(String, Vec<u8>)> {
        index_files_with(titles, kept, &SearchMemo::default())
    }

    /// [`index_files`] with `memo`.
    fn index_files_with(
        titles: &[&str],
        kept: &mut KeptTerms,
        memo: &SearchMemo,
    ) -> Vec<(String, Vec<u8>)> {
        let files = [
            test_file("ada.txt", "Ada Lovelace", titles, 2024),
            test_file("mary.txt", "Mary Somerville", &titles[..1], 2024),
        ];
        let config = Default::default();
        let outputs = index_outputs(&files, &config, kept, memo).into_iter();
        outputs.map(|(path, bytes, _)| (path, bytes)).collect()
    }

    /// A record file of `author`'s papers `titles` of `year`.
    fn test_file(
        path: &str,
        author: &str,
        titles: &[&str],
        year: u16,
    ) -> crate::records::RecordFile {
        let abstract_of = |title: &str| Some(format!("Quantum {title} abstract."));
        crate::records::RecordFile::for_test(
            (path, author),
            titles,
            (year, "quant-ph"),
            abstract_of,
        )
    }

    /// The site of `files` with `config`, planned, and the files of its search index
    /// built with `kept` and `memo`: each path with its bytes and fingerprint.
    fn index_outputs(
        files: &[crate::records::RecordFile],
        config: &crate::config::SiteConfig,
        kept: &mut KeptTerms,
        memo: &SearchMemo,
    ) -> Vec<IndexOutput> {
        index_outputs_patched(files, config, kept, memo).0
    }

    /// An index file's path, bytes and fingerprint.
    type IndexOutput = (String, Vec<u8>, u64);

    /// [`index_outputs`], and whether (and for how many documents) the index was
    /// patched from the last build's.
    fn index_outputs_patched(
        files: &[crate::records::RecordFile],
        config: &crate::config::SiteConfig,
        kept: &mut KeptTerms,
        memo: &SearchMemo,
    ) -> (Vec<IndexOutput>, Option<usize>) {
        let graph = crate::graph::link(files);
        let plan_memo = Default::default();
        let plan = crate::plan::plan_site(&crate::plan::PlanInput {
            graph: &graph,
            config,
            bios: &[],
            pages: &[],
            memo: &plan_memo,
            history: &Default::default(),
            earlier_texts: None,
        });
        // Each document by the hash of its bytes and of what makes its terms: the
        // site's renderer hashes the entities a document reads instead, which its own
        // tests check.
        let document = |doc: Document| {
            let doc = doc.number(&plan.index);
            let made = search_docs(&plan.index, std::iter::once(doc));
            let bytes = serde_json::to_vec(&made).unwrap();
            let terms = terms_source_key(&plan.index, doc);
            [crate::hash::content_hash(&bytes), terms]
        };
        let documents = DocumentHashes {
            site: u64::from(plan.index.pretty),
            document: &document,
        };
        let index = SearchIndex::build(&plan.index, memo, kept, &documents);
        let fingerprint = |path: &str| index.fingerprint(&plan.index, path, &documents).unwrap();
        let files = (index.files().into_iter())
            .map(|path| (index.file(&plan.index, &path), fingerprint(&path), path))
            .map(|(bytes, fingerprint, path)| (path, bytes, fingerprint))
            .collect();
        (files, index.patched())
    }

    /// `meta.json`'s `papers_from` parts the documents by kind, as `search.js` reads it
    /// to ask a query's stop words of authors only: every author's id is below it, and
    /// no paper's.
    #[test]
    fn the_first_paper_id_is_above_every_author_id() {
        let files = index_files(&["Qubits", "Gates", "Noise"], &mut KeptTerms::default());
        let json_of = |path: &str| -> Value {
            let (_, bytes) = files.iter().find(|(p, _)| p == path).expect(path);
            serde_json::from_slice(bytes).unwrap()
        };
        let papers_from = json_of("search/meta.json")["papers_from"].as_u64().unwrap();
        let docs = json_of("search/docs-0.json");
        let kinds: Vec<(u64, &str)> = (docs.as_object().unwrap().iter())
            .map(|(id, doc)| (id.parse().unwrap(), doc["k"].as_str().unwrap()))
            .collect();
        assert_eq!(kinds.len(), 5, "two authors and three papers: {kinds:?}");
        for (id, kind) in kinds {
            assert_eq!(
                kind == "a",
                id < papers_from,
                "{kind} {id}, papers from {papers_from}"
            );
        }
    }

    /// Every search index file whose bytes change with the site gets another
    /// fingerprint, and the same site gives the same fingerprints.
    #[test]
    fn an_index_file_that_changes_gets_another_fingerprint() {
        let titles = ["Qubits", "Gates", "Noise"];
        let site = |ada: &str, mary: &[&str], year: u16, pretty: bool| {
            let files = [
                test_file("ada.txt", ada, &titles, 2024),
                test_file("mary.txt", "Mary Somerville", mary, year),
            ];
            let config = crate::config::SiteConfig {
                pretty_urls: Some(pretty),
                ..Default::default()
            };
            let memo = SearchMemo::default();
            index_outputs(&files, &config, &mut KeptTerms::default(), &memo)
        };
        let base = site("Ada Lovelace", &["Qubits"], 2024, false);
        assert!(base.iter().any(|(p, ..)| p.starts_with("search/docs-")));
        assert_eq!(base, site("Ada Lovelace", &["Qubits"], 2024, false));
        let changes = [
            (
                "an author's name",
                site("Ada King", &["Qubits"], 2024, false),
            ),
            (
                "a paper's authors",
                site("Ada Lovelace", &["Gates"], 2024, false),
            ),
            ("a paper's count", site("Ada Lovelace", &[], 2024, false)),
            (
                "a year",
                site("Ada Lovelace", &["Qubits", "Spin"], 2023, false),
            ),
            ("links", site("Ada Lovelace", &["Qubits"], 2024, true)),
        ];
        for (what, changed) in changes {
            let mut differ = 0;
            for (path, bytes, fingerprint) in &changed {
                let before = base.iter().find(|(p, ..)| p == path);
                if let Some((_, old_bytes, old_fingerprint)) = before {
                    if old_bytes != bytes {
                        differ += 1;
                        assert_ne!(old_fingerprint, fingerprint, "{what}: {path}");
                    }
                }
            }
            assert!(differ > 0, "changing {what} changed no file");
        }
    }

    /// A file of documents whose documents stay the same keeps its fingerprint when a
    /// new author comes first in slug order (and so moves every document's number),
    /// so that a build does not make it again.
    #[test]
    fn a_file_of_the_same_documents_keeps_its_fingerprint() {
        let titles: Vec<String> = (0..3000).map(|i| format!("Paper {i}")).collect();
        let titles: Vec<&str> = titles.iter().map(String::as_str).collect();
        // Three authors, then four: the authors' range of ids stays as large.
        let mut files = vec![
            test_file("bo.txt", "Bo Chen", &["Gates"], 2024),
            test_file("cy.txt", "Cy Young", &["Spin"], 2024),
            test_file("many.txt", "Mary Somerville", &titles, 2024),
        ];
        let config = crate::config::SiteConfig::default();
        let outputs = |files: &[crate::records::RecordFile]| {
            index_outputs(
                files,
                &config,
                &mut KeptTerms::default(),
                &SearchMemo::default(),
            )
        };
        let before = outputs(&files);
        files.push(test_file("aaron.txt", "Aaron Abel", &["Paper 1"], 2024));
        let after = outputs(&files);
        let mut kept = 0;
        for (path, bytes, fingerprint) in &after {
            let before = before.iter().find(|(p, ..)| p == path);
            if let Some((_, old_bytes, old_fingerprint)) = before {
                if old_bytes == bytes {
                    assert_eq!(old_fingerprint, fingerprint, "{path}");
                    kept += usize::from(path.starts_with("search/docs-"));
                }
            }
        }
        assert!(kept > 0, "no file of documents stayed the same");
    }

    #[test]
    fn splicing_skips_and_inserts_at_indices_and_copies_the_rest() {
        let spliced = |skip: &[usize], insert: &[(usize, char)]| {
            let mut out = Vec::new();
            splice_postings(
                &['a', 'b', 'c', 'd'],
                skip,
                insert.iter().copied(),
                &mut out,
            );
            out.into_iter().collect::<String>()
        };
        assert_eq!(spliced(&[], &[]), "abcd");
        assert_eq!(spliced(&[0, 3], &[]), "bc");
        assert_eq!(
            spliced(&[], &[(0, 'Z'), (2, 'X'), (2, 'Y'), (4, 'E')]),
            "ZabXYcdE"
        );
        // An item put before one that is skipped, at its index and at the next.
        assert_eq!(spliced(&[1], &[(1, 'X'), (2, 'Y')]), "aXYcd");
        assert_eq!(spliced(&[0, 1, 2, 3], &[(2, 'X')]), "X");
    }

    /// Pieces hashed through the buffer hash as the hasher fed each piece alone would,
    /// with the buffer's size reached, passed and exceeded by one piece.
    #[test]
    fn pieces_hashed_through_the_buffer_hash_as_each_piece_fed_alone() {
        let size = BufferedHash::BUFFER;
        let postings = |len: u32| -> Vec<Numbered> {
            (0..len)
                .map(|i| Numbered(i.wrapping_mul(2_654_435_761)))
                .collect()
        };
        let big: Vec<u8> = (0..size * 2 + 3).map(|i| (i % 251) as u8).collect();
        let cases: Vec<Vec<Vec<u8>>> = vec![
            vec![],
            vec![b"term".to_vec()],
            vec![vec![7; size - 1], vec![1, 2], vec![3]],
            vec![vec![7; size], vec![]],
            vec![b"head".to_vec(), big.clone(), b"tail".to_vec()],
            vec![big],
        ];
        for (case, pieces) in cases.iter().enumerate() {
            let mut one_by_one = xxhash_rust::xxh3::Xxh3::new();
            let mut buffered = BufferedHash::default();
            for piece in pieces {
                one_by_one.update(piece);
                buffered.update(piece);
            }
            assert_eq!(buffered.finish(), one_by_one.digest(), "case {case}");
        }
        for len in [0, 1, 4095, 4096, 4097, 10_000] {
            let postings = postings(len);
            let mut one_by_one = xxhash_rust::xxh3::Xxh3::new();
            for posting in &postings {
                one_by_one.update(&posting.0.to_le_bytes());
            }
            let mut buffered = BufferedHash::default();
            hash_postings(&postings, &mut buffered);
            assert_eq!(buffered.finish(), one_by_one.digest(), "{len} postings");
        }
    }

    /// A long-running process's rebuild patches the last build's postings and gives the
    /// files (bytes and fingerprints) a build from scratch gives, as papers and authors
    /// come and go, a title changes and a paper is shared by another author.
    #[test]
    fn patched_postings_give_the_index_a_build_from_scratch_gives() {
        let titles: Vec<String> = (0..120).map(|i| format!("Qubit gate {i} noise")).collect();
        let author = |i: usize| format!("Author Number{i}");
        let site = |change: usize| -> Vec<crate::records::RecordFile> {
            let mut files = Vec::new();
            for a in 0..40 {
                let mut own: Vec<String> = titles[a * 3..a * 3 + 3].to_vec();
                match (change, a) {
                    (1, 0) => own.push("Brand new spin chains".into()),
                    (2, 0) => own[0] = "A title changed to lattice".into(),
                    (3, 1) => own.push(titles[0].clone()),
                    (4, 2) => own.clear(),
                    _ => {}
                }
                let own: Vec<&str> = own.iter().map(String::as_str).collect();
                files.push(test_file(&format!("a{a:02}.txt"), &author(a), &own, 2024));
            }
            if change == 5 {
                files.push(test_file(
                    "new.txt",
                    "Newcomer Person",
                    &["Fresh lattice"],
                    2023,
                ));
            }
            files
        };
        let config = crate::config::SiteConfig::default();
        let mut memo = SearchMemo::default();
        memo.enable();
        let mut patched = Vec::new();
        for change in [0, 1, 0, 2, 3, 0, 4, 5, 5, 1, 0] {
            let files = site(change);
            let (rebuilt, changed) =
                index_outputs_patched(&files, &config, &mut KeptTerms::default(), &memo);
            patched.push(changed);
            // The entries' sizes, which split the shards, as found from all the postings.
            {
                let numbers = memo.term_numbers.lock().unwrap();
                let last = memo.last.lock().unwrap();
                let last = last.as_ref().unwrap();
                let all_found = entry_sizes(&last.flat, &last.starts, &numbers, None);
                assert_eq!(last.entry_sizes, all_found, "site {change}");
            }
            // The terms in use, read from the postings as a finishing build reads them,
            // are those the kept documents have.
            let numbered = memo.term_numbers.lock().unwrap().terms.len();
            memo.search_terms.finish_build();
            let from_documents = used_terms(numbered, None, &memo.search_terms);
            let last = memo.last.get_mut().unwrap().as_mut();
            assert!(last.as_ref().is_some_and(|last| last.this_build));
            let from_postings = used_terms(numbered, last, &memo.search_terms);
            assert_eq!(from_postings, from_documents, "site {change}");
            memo.finish_build();
            let fresh = SearchMemo::default();
            let anew = index_outputs(&files, &config, &mut KeptTerms::default(), &fresh);
            assert_eq!(rebuilt, anew, "site {change}");
        }
        // The first build has nothing to patch; an unchanged site changes no document.
        assert_eq!(patched[0], None);
        assert!(patched[1..].iter().all(Option::is_some), "{patched:?}");
        assert_eq!(patched[8], Some(0), "the same site again");
    }

    /// Builds the index of `titles` keeping its terms; the kept file.
    fn kept_terms_of_site(titles: &[&str], dir: &std::path::Path) -> KeptFile {
        let mut bytes = Vec::new();
        let mut kept = KeptTerms {
            keep: Some((&mut bytes, "test")),
            ..KeptTerms::default()
        };
        index_files(titles, &mut kept);
        assert_eq!(kept.outcome, TermsKept::Written);
        let path = dir.join(format!("kept-{}", titles.len()));
        std::fs::write(&path, bytes).unwrap();
        KeptFile::open(&path, "test").unwrap()
    }

    #[test]
    fn a_one_off_build_reuses_the_terms_an_earlier_one_kept_and_builds_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let titles = ["Entangled Photons", "Cold Atoms", "Spin Chains"];
        let earlier = kept_terms_of_site(&titles[..2], dir.path());
        // Authors and papers, and the term table.
        assert_eq!(earlier.keys().count(), 2 + 2 + 1);
        let clean = index_files(&titles, &mut KeptTerms::default());
        let mut kept = KeptTerms {
            earlier: Some(&earlier),
            ..KeptTerms::default()
        };
        assert!(
            index_files(&titles, &mut kept) == clean,
            "a new paper among kept ones"
        );

        // The terms do come from the kept file: with one of its terms spelled otherwise
        // in its table, the papers found there are indexed under that spelling, and the
        // new one, made afresh, under the right one.
        let table = TermNumbers::from_table(&earlier.get(term_table_key()).unwrap()).unwrap();
        let mut renamed = TermNumbers::default();
        for term in &table.terms {
            let term = if &**term == "quantum" {
                "kwantum"
            } else {
                term
            };
            renamed.number(xxhash_rust::xxh3::xxh3_64(term.as_bytes()), term);
        }
        let blobs = earlier.keys().map(|key| match key == term_table_key() {
            true => (key, renamed.table()),
            false => (key, earlier.get(key).unwrap()),
        });
        let mut forged = Vec::new();
        KeptFile::write_to(&mut forged, "test", blobs.collect::<Vec<_>>()).unwrap();
        std::fs::write(dir.path().join("forged"), forged).unwrap();
        let forged = KeptFile::open(&dir.path().join("forged"), "test").unwrap();
        let mut kept = KeptTerms {
            earlier: Some(&forged),
            ..KeptTerms::default()
        };
        let files = index_files(&titles, &mut kept);
        let shard = |files: &[(String, Vec<u8>)], key: &str| -> String {
            let path = format!("search/terms/{key}.json");
            let found = files.iter().find(|(p, _)| *p == path);
            found.map_or(String::new(), |(_, b)| {
                String::from_utf8(b.clone()).unwrap()
            })
        };
        let (k, q) = (shard_key("kwantum", 1), shard_key("quantum", 1));
        assert!(
            shard(&files, &k).contains("\"kwantum\""),
            "{}",
            shard(&files, &k)
        );
        assert!(
            shard(&files, &q).contains("\"quantum\""),
            "{}",
            shard(&files, &q)
        );
        assert!(!shard(&clean, &k).contains("kwantum"));

        // A long-running process's first build reads the file too, and its memo keeps
        // what it found there for the builds after it, which read no file.
        let mut memo = SearchMemo::default();
        memo.enable();
        let mut kept = KeptTerms {
            earlier: Some(&forged),
            ..KeptTerms::default()
        };
        assert!(index_files_with(&titles, &mut kept, &memo) == files);
        memo.finish_build();
        let mut kept = KeptTerms {
            earlier: Some(&earlier),
            ..KeptTerms::default()
        };
        let again = index_files_with(&titles, &mut kept, &memo);
        assert!(again == files, "the memo's terms, not the file's");
    }

    #[test]
    fn a_kept_blob_is_used_only_if_it_is_whole_and_names_known_terms() {
        let blob = words_to_bytes;
        let title = Numbered::new(2, WEIGHT_TITLE);
        let text = Numbered::new(0, WEIGHT_TEXT);
        assert_eq!(
            kept_terms_of(&blob(&[title.0, text.0]), 3),
            Some(vec![title, text])
        );
        assert_eq!(kept_terms_of(&[], 0), Some(vec![]));
        assert_eq!(kept_terms_of(&blob(&[title.0]), 2), None, "term 2 of 2");
        assert_eq!(kept_terms_of(&blob(&[title.0])[..3], 3), None, "cut short");
        assert_eq!(kept_terms_of(&blob(&[8]), 3), None, "no weight");
    }

    #[test]
    fn a_term_table_numbers_its_terms_as_they_were_and_is_kept_while_mostly_used() {
        let mut numbers = TermNumbers::default();
        for term in ["alpha", "beta", "łódź", "gamma"] {
            numbers.number(xxhash_rust::xxh3::xxh3_64(term.as_bytes()), term);
        }
        let again = TermNumbers::from_table(&numbers.table()).unwrap();
        assert_eq!(again.terms, numbers.terms);
        assert_eq!(again.hashes, numbers.hashes);
        let table = numbers.table();
        assert!(TermNumbers::from_table(&table[..table.len() - 1]).is_none());
        let twice = [table.clone(), table[..9].to_vec()].concat();
        assert!(TermNumbers::from_table(&twice).is_none(), "alpha twice");
        // Kept while at least half the terms have postings (`starts` of four terms).
        let finish = |starts: &[usize]| {
            let mut out = Vec::new();
            TermsToKeep::new(&mut out, "test", 0).finish(&numbers, starts)
        };
        assert!(finish(&[0, 1, 1, 3, 3]), "two of four used");
        assert!(!finish(&[0, 1, 1, 1, 1]), "one of four used");
    }

    #[test]
    fn terms_no_kept_document_has_are_forgotten_and_the_rest_renumbered() {
        let mut memo = SearchMemo::default();
        memo.enable();
        let doc = |memo: &SearchMemo, key: u64, text: &str| {
            memo.search_terms.get_or(
                || key,
                || number_terms(&weighted(&[(text, WEIGHT_TEXT, Prose)]), &memo.term_numbers),
            )
        };
        let words = |memo: &SearchMemo, doc: &NumberedTerms| -> Vec<String> {
            let numbers = memo.term_numbers.lock().unwrap();
            let mut words: Vec<String> = doc
                .iter()
                .map(|term| numbers.terms[term.number() as usize].to_string())
                .collect();
            words.sort();
            words
        };
        let known = |memo: &mut SearchMemo| memo.term_numbers.get_mut().unwrap().terms.len();
        doc(&memo, 1, "alpha beta");
        doc(&memo, 2, "gamma delta");
        memo.finish_build();
        // Two of five terms unused: kept.
        doc(&memo, 1, "alpha beta");
        doc(&memo, 3, "epsilon");
        memo.finish_build();
        assert_eq!(known(&mut memo), 5);
        // Four of five unused: forgotten, and epsilon is renumbered in its document.
        doc(&memo, 3, "epsilon");
        memo.finish_build();
        assert_eq!(known(&mut memo), 1);
        let kept = doc(&memo, 3, "never made: the previous build's is reused");
        assert_eq!(words(&memo, &kept), ["epsilon"]);
        let new = doc(&memo, 4, "zeta epsilon alpha");
        assert_eq!(words(&memo, &new), ["alpha", "epsilon", "zeta"]);
        assert_eq!(known(&mut memo), 3, "epsilon is found under its new number");
        assert!(new.contains(&Numbered::new(0, WEIGHT_TEXT)), "{new:?}");
    }

    #[test]
    fn term_numbers_tell_terms_of_one_hash_apart_before_and_after_forgetting() {
        let mut numbers = TermNumbers::default();
        // "a", "b" and "c" share a hash; "d" has its own.
        assert_eq!(numbers.number(7, "a"), 0);
        assert_eq!(numbers.number(7, "b"), 1);
        assert_eq!(numbers.number(9, "d"), 2);
        assert_eq!(numbers.number(7, "c"), 3);
        assert_eq!(
            [("b", 7), ("a", 7), ("c", 7), ("d", 9)].map(|(t, h)| numbers.number(h, t)),
            [1, 0, 3, 2]
        );
        // The first term of the shared hash is forgotten: the others keep theirs apart.
        let renumbered = numbers.keep_only(&[false, true, true, true]);
        assert_eq!(renumbered, [u32::MAX, 0, 1, 2]);
        assert_eq!(
            [("c", 7), ("b", 7), ("d", 9)].map(|(t, h)| numbers.number(h, t)),
            [2, 0, 1]
        );
        assert_eq!(numbers.terms.len(), 3, "nothing numbered twice");
        // A forgotten term seen again is new.
        assert_eq!(numbers.number(7, "a"), 3);
        assert_eq!(numbers.number(7, "b"), 0);
        assert_eq!(&*numbers.terms[3], "a");
    }

    #[test]
    fn weights_keep_the_best_field() {
        let w = weighted(&[
            ("Deep Nets", WEIGHT_TITLE, Prose),
            ("deep learning nets", WEIGHT_TEXT, Prose),
        ]);
        let sorted = |terms: DocTerms| {
            let mut list: Vec<(String, u32)> =
                terms.iter().map(|(t, w)| (t.to_string(), w)).collect();
            list.sort();
            list
        };
        let expect = |list: &[(&str, u32)]| -> Vec<(String, u32)> {
            list.iter().map(|(t, w)| (t.to_string(), *w)).collect()
        };
        assert_eq!(
            sorted(w),
            expect(&[("deep", 10), ("learning", 1), ("nets", 10)])
        );
        let names = weighted(&[
            ("ŁUKASZ", WEIGHT_TEXT, Name),
            ("Łukasz Öz", WEIGHT_TITLE, Name),
        ]);
        assert_eq!(
            sorted(names),
            expect(&[("lukasz", 10), ("oz", 10), ("öz", 10), ("łukasz", 10)])
        );
    }
}
