#![no_main]
//! The record parser on arbitrary bytes: it never panics, gives the same result twice,
//! points every diagnostic at a line of the file, and every record it returns is
//! well-formed (a four-digit year, one-line title, subject codes without spaces, no
//! control characters in any text).

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use profilegen::records::{parse_record_file, parse_source_year, RecordFile};

fuzz_target!(|data: &[u8]| {
    let path = Path::new("records/r.txt");
    let (file, diagnostics) = parse_record_file(path, data);
    let again = parse_record_file(path, data);
    assert!(
        again.0 == file && again.1 == diagnostics,
        "not deterministic"
    );

    let lines = data.split(|&b| b == b'\n').count();
    for diagnostic in &diagnostics {
        if let Some(location) = &diagnostic.location {
            assert_eq!(location.path, path);
            assert!((1..=lines).contains(&location.line), "{location:?}");
            assert!(location.column >= 1 && location.width >= 1, "{location:?}");
        }
    }
    // The renderer runs on what the parser reports; a few are enough to exercise it.
    for diagnostic in diagnostics.iter().take(3) {
        let rendered = diagnostic.render();
        assert!(
            diagnostic.location.is_none() || rendered.contains("records/r.txt:"),
            "{rendered}"
        );
    }
    if let Some(file) = file {
        check_file(&file, lines);
    }
});

fn check_file(file: &RecordFile, lines: usize) {
    assert!(!file.author_name.trim().is_empty());
    assert!(clean(&file.author_name), "{:?}", file.author_name);
    for record in &file.records {
        assert!((1..=lines).contains(&record.line));
        let source_year = format!("{}{:04}", record.source, record.year);
        assert_eq!(
            parse_source_year(&source_year),
            Some((record.source.as_str(), record.year))
        );
        assert!(!record.title.is_empty() && !record.title.contains('\n'));
        assert!(clean(&record.title), "{:?}", record.title);
        if let Some(abstract_text) = record.abstract_text.as_ref().map(|a| a.load()) {
            assert!(!abstract_text.is_empty() && clean(&abstract_text));
            assert!(!abstract_text.contains("\n\n\n"));
        }
        for code in &record.subjects {
            assert!(
                !code.is_empty() && !code.contains(char::is_whitespace),
                "{code:?}"
            );
            assert!(clean(code), "{code:?}");
        }
    }
}

/// No control character other than tab and line feed, no noncharacter.
fn clean(text: &str) -> bool {
    !text.chars().any(|c| {
        (c.is_control() && c != '\t' && c != '\n')
            || matches!(c as u32, 0xFDD0..=0xFDEF)
            || (c as u32 & 0xFFFE) == 0xFFFE
    })
}
