//! Measures `check --authors` on a corpus where the truth is known: the record files of
//! a folder (less those whose authors it already suggests as duplicates), with some authors' files split in two under another spelling of the name
//! (each half keeping some of the papers, as a harvester that did not recognize the
//! spelling would leave them), and some new, different people who share a family name
//! and an initial with an author but nothing else.
//!
//! ```text
//! cargo run --release --example author_suggestions -- ../shared/corpora/arxiv-math [--every N]
//! ```
//!
//! Prints, per kind of spelling, how many true pairs there are and how many the
//! suggestions find (recall), and how many suggestions involving a generated file are
//! right (precision). Suggestions between two of the folder's own files are counted
//! apart: their truth is not known.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use profilegen::graph::{link, AuthorId};
use profilegen::records::{parse_record_file, Record, RecordFile};
use profilegen::suggest::suggest_duplicates;

/// How a generated file's name differs from the original's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Variant {
    /// German umlauts as `ae`/`oe`/`ue`, or accents dropped.
    Transliterated,
    /// The first given name as an initial, the others dropped.
    Initials,
    /// Hyphens in given names as spaces (or the reverse), or particles capitalized.
    Punctuation,
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(
        args.next()
            .expect("usage: author_suggestions RECORDS_DIR [--every N]"),
    );
    let every: usize = match (args.next().as_deref(), args.next()) {
        (Some("--every"), Some(n)) => n.parse().expect("a number"),
        _ => 4,
    };
    let (files, dropped) = without_likely_duplicates(read_folder(&dir));
    println!("{dropped} record files left out: their authors are likely duplicates already");
    let corpus = Corpus::generate(files, every);
    let graph = link(&corpus.files);
    let author_of: HashMap<&Path, AuthorId> = graph
        .authors
        .iter()
        .enumerate()
        .flat_map(|(id, a)| a.files.iter().map(move |f| (f.as_path(), id)))
        .collect();
    let truth: BTreeMap<(AuthorId, AuthorId), Variant> = corpus
        .pairs
        .iter()
        .filter_map(|(a, b, kind)| {
            let (x, y) = (author_of[a.as_path()], author_of[b.as_path()]);
            (x != y).then_some(((x.min(y), x.max(y)), *kind))
        })
        .collect();
    let generated_authors: HashSet<AuthorId> = corpus
        .generated
        .iter()
        .map(|f| author_of[f.as_path()])
        .collect();
    let suggestions = suggest_duplicates(&graph);
    let mut found: BTreeMap<Variant, usize> = BTreeMap::new();
    let (mut right, mut wrong, mut unknown) = (0, 0, 0);
    for s in &suggestions {
        let pair = (s.keep.min(s.join), s.keep.max(s.join));
        if let Some(kind) = truth.get(&pair) {
            right += 1;
            *found.entry(*kind).or_default() += 1;
        } else if generated_authors.contains(&s.keep) || generated_authors.contains(&s.join) {
            wrong += 1;
            println!(
                "wrong: {} ~ {}",
                graph.authors[s.keep].name, graph.authors[s.join].name
            );
        } else {
            unknown += 1;
        }
    }
    let mut by_kind: BTreeMap<Variant, usize> = BTreeMap::new();
    for kind in truth.values() {
        *by_kind.entry(*kind).or_default() += 1;
    }
    println!(
        "{} record files ({} generated: {} split off under another spelling, {} different people), {} authors",
        corpus.files.len(),
        corpus.generated.len(),
        corpus.pairs.len(),
        corpus.generated.len() - corpus.pairs.len(),
        graph.authors.len()
    );
    for (kind, total) in &by_kind {
        let hit = found.get(kind).copied().unwrap_or(0);
        println!(
            "{kind:?}: {hit} of {total} true pairs suggested ({:.1}%)",
            percent(hit, *total)
        );
    }
    let total: usize = by_kind.values().sum();
    println!(
        "recall {:.1}% ({right} of {total}); precision {:.1}% ({right} right, {wrong} wrong of the suggestions with a generated file)",
        percent(right, total),
        percent(right, right + wrong)
    );
    println!("{unknown} suggestions between the folder's own files (truth unknown)");
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        100.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// The files whose authors no suggestion names, so that the folder's own duplicates
/// (whose truth is not known) do not blur the measurement; and how many were left out.
fn without_likely_duplicates(files: Vec<RecordFile>) -> (Vec<RecordFile>, usize) {
    let graph = link(&files);
    let named: HashSet<&Path> = suggest_duplicates(&graph)
        .iter()
        .flat_map(|s| [s.keep, s.join])
        .flat_map(|id| graph.authors[id].files.iter().map(PathBuf::as_path))
        .collect();
    let named: HashSet<PathBuf> = named.into_iter().map(Path::to_path_buf).collect();
    let before = files.len();
    let kept: Vec<RecordFile> = files
        .into_iter()
        .filter(|f| !named.contains(&f.path))
        .collect();
    let dropped = before - kept.len();
    (kept, dropped)
}

/// Every readable record file of a folder, in path order.
fn read_folder(dir: &Path) -> Vec<RecordFile> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("a folder of record files")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    paths.sort();
    paths
        .iter()
        .filter_map(|p| parse_record_file(p, &std::fs::read(p).ok()?).0)
        .collect()
}

/// The corpus with its generated files and the truth about them.
struct Corpus {
    files: Vec<RecordFile>,
    /// `(original file, file split off from it, how its name differs)`.
    pairs: Vec<(PathBuf, PathBuf, Variant)>,
    /// Every generated file.
    generated: Vec<PathBuf>,
}

impl Corpus {
    /// Splits every `every`-th author with two or more records and a name of two or more
    /// words, and adds a different person beside every `every`-th other one.
    fn generate(originals: Vec<RecordFile>, every: usize) -> Corpus {
        let mut corpus = Corpus {
            files: Vec::new(),
            pairs: Vec::new(),
            generated: Vec::new(),
        };
        let mut turn = 0usize;
        for (i, mut file) in originals.into_iter().enumerate() {
            let words = file.author_name.split_whitespace().count();
            let splittable = file.records.len() >= 2 && words >= 2;
            if splittable && i % every == 0 {
                let kind = [
                    Variant::Transliterated,
                    Variant::Initials,
                    Variant::Punctuation,
                ][turn % 3];
                turn += 1;
                if let Some(name) = variant_name(&file.author_name, kind) {
                    let half = file.records.split_off(file.records.len().div_ceil(2));
                    let path = generated_path(&file.path, "split");
                    corpus.pairs.push((file.path.clone(), path.clone(), kind));
                    corpus.generated.push(path.clone());
                    corpus.files.push(RecordFile {
                        path,
                        author_name: name,
                        declared_count: Some(half.len()),
                        records: half,
                    });
                }
            } else if words >= 2 && i % every == every / 2 {
                let path = generated_path(&file.path, "other");
                corpus.generated.push(path.clone());
                corpus.files.push(other_person(&file, path));
            }
            corpus.files.push(file);
        }
        corpus.files.sort_by(|a, b| a.path.cmp(&b.path));
        corpus
    }
}

fn generated_path(original: &Path, what: &str) -> PathBuf {
    let stem = original.file_stem().unwrap_or_default().to_string_lossy();
    original.with_file_name(format!("{stem}-{what}.txt"))
}

/// Another spelling of `name` of the given kind, if the name has one.
fn variant_name(name: &str, kind: Variant) -> Option<String> {
    let words: Vec<&str> = name.split_whitespace().collect();
    let variant = match kind {
        Variant::Transliterated if name.contains(['ä', 'ö', 'ü']) => name
            .replace('ä', "ae")
            .replace('ö', "oe")
            .replace('ü', "ue"),
        Variant::Transliterated if !name.is_ascii() => deunicode::deunicode(name),
        Variant::Transliterated => return None,
        Variant::Initials => {
            let initial = words[0].chars().next()?;
            format!("{initial}. {}", words[words.len() - 1])
        }
        Variant::Punctuation if name.contains('-') => name.replace('-', " "),
        Variant::Punctuation if words.len() >= 3 => {
            // Given names run together, or a particle capitalized.
            let mut joined = words.clone();
            let last = joined.pop()?;
            let given = joined.join("-");
            format!("{given} {last}")
        }
        Variant::Punctuation => name.to_uppercase(),
    };
    (profilegen::normalize::name_key(&variant) != profilegen::normalize::name_key(name))
        .then_some(variant)
}

/// A different person: the same family name and initial, another given name, papers of
/// their own.
fn other_person(file: &RecordFile, path: PathBuf) -> RecordFile {
    let words: Vec<&str> = file.author_name.split_whitespace().collect();
    let initial = words[0].chars().next().unwrap_or('X');
    let name = format!("{initial}alvador {}", words[words.len() - 1]);
    let title = format!("Unrelated Results of {name}");
    RecordFile {
        path,
        author_name: name,
        declared_count: Some(1),
        records: vec![Record::new(
            "arXiv".into(),
            2020,
            title,
            Some("Results that no one else wrote.".into()),
            vec!["math.GM".into()],
            9,
        )],
    }
}
