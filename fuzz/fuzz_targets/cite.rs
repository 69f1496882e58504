#![no_main]
//! The citation writers (BibTeX, RIS, CSL-JSON) and citation keys on arbitrary papers:
//! BibTeX entries have balanced braces, RIS records are one tagged line per value,
//! CSL-JSON parses back, keys are unique and made of safe characters, and everything
//! is deterministic.

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use profilegen::cite::{bibtex_entry, citation_keys, csl_file, ris_entry, CitationInput};

#[derive(Arbitrary, Debug)]
struct Paper {
    key: String,
    title: String,
    title_text: String,
    authors: Vec<String>,
    year: u16,
    source: String,
    subjects: Vec<String>,
    abstract_text: Option<String>,
    url: Option<String>,
    language: String,
}

fuzz_target!(|papers: Vec<Paper>| {
    for paper in papers.iter().take(4) {
        let input = CitationInput {
            key: &paper.key,
            title: &paper.title,
            title_text: &paper.title_text,
            authors: paper.authors.iter().map(String::as_str).collect(),
            year: paper.year,
            source: &paper.source,
            subjects: &paper.subjects,
            abstract_text: paper.abstract_text.as_deref(),
            url: paper.url.clone(),
            language: &paper.language,
        };
        check_bibtex(&bibtex_entry(&input));
        assert_eq!(
            bibtex_entry(&input),
            bibtex_entry(&input),
            "not deterministic"
        );
        check_ris(&ris_entry(&input));
        let csl: serde_json::Value = serde_json::from_str(&csl_file(&[input])).expect("CSL-JSON");
        assert_eq!(csl[0]["type"], "article");
    }
    let rows: Vec<(Option<&str>, u16, &str, &str)> = papers
        .iter()
        .map(|p| {
            (
                p.authors.first().map(String::as_str),
                p.year,
                p.title.as_str(),
                p.key.as_str(),
            )
        })
        .collect();
    let keys = citation_keys(&rows);
    assert_eq!(keys.len(), rows.len());
    let mut unique: Vec<&String> = keys.iter().collect();
    unique.sort();
    unique.dedup();
    // Tiebreaks may repeat in arbitrary input; keys are unique when they do not.
    let mut tiebreaks: Vec<&str> = rows.iter().map(|r| r.3).collect();
    tiebreaks.sort();
    tiebreaks.dedup();
    if tiebreaks.len() == rows.len() {
        assert_eq!(unique.len(), keys.len(), "{keys:?}");
    }
    for key in &keys {
        assert!(
            !key.is_empty()
                && key
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()),
            "{key:?}"
        );
    }
});

/// An `@misc` entry whose braces, escaped or not, pair up, as BibTeX counts them.
fn check_bibtex(entry: &str) {
    assert!(
        entry.starts_with("@misc{") && entry.ends_with("}\n"),
        "{entry}"
    );
    let mut depth = 0usize;
    for (i, b) in entry.bytes().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth = depth
                    .checked_sub(1)
                    .unwrap_or_else(|| panic!("unbalanced at {i}: {entry}"));
                assert!(
                    depth > 0 || i == entry.len() - 2,
                    "entry closes early at {i}: {entry}"
                );
            }
            _ => {}
        }
    }
    assert_eq!(depth, 0, "{entry}");
}

/// `TY  - GEN` first, `ER  - ` last, and every line one tag and its value.
fn check_ris(record: &str) {
    let lines: Vec<&str> = record
        .strip_suffix('\n')
        .expect("ends with a newline")
        .split('\n')
        .collect();
    assert_eq!(lines.first(), Some(&"TY  - GEN"));
    assert_eq!(lines.last(), Some(&"ER  - "));
    for line in lines {
        let b = line.as_bytes();
        assert!(
            b.len() >= 6
                && b[0].is_ascii_uppercase()
                && b[1].is_ascii_alphanumeric()
                && &b[2..6] == b"  - ",
            "{line:?}"
        );
        assert!(!line.contains(|c: char| c.is_control()), "{line:?}");
    }
}
