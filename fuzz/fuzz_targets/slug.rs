#![no_main]
//! Slugs on arbitrary text: a slug is lowercase ASCII letters, digits and single inner
//! hyphens, at most `MAX_SLUG_LEN` bytes, or the fallback; a subject's URL segment is
//! never empty, `.` or `..` and holds only URL-safe characters.

use libfuzzer_sys::fuzz_target;
use profilegen::slug::{is_slug, slugify, subject_segment, MAX_SLUG_LEN};

fuzz_target!(|text: &str| {
    let slug = slugify(text, "untitled");
    assert!(
        slug == "untitled" || (is_slug(&slug) && slug.len() <= MAX_SLUG_LEN),
        "{slug:?}"
    );
    assert_eq!(slug, slugify(text, "untitled"), "not deterministic");

    let segment = subject_segment(text);
    assert!(
        !segment.is_empty() && segment != "." && segment != "..",
        "{segment:?}"
    );
    assert!(
        segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-'),
        "{segment:?}"
    );
    assert!(!segment.contains(".."), "{segment:?}");
});
