#![no_main]
//! Author bios and extra pages (YAML front matter and Markdown) on arbitrary text: the
//! HTML never holds markup that runs script, every link and image points at a safe URL,
//! and a diagnostic points at a line of the file.

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use profilegen::content::{is_safe_url, parse_bio, parse_page, split_front_matter};
use profilegen::diagnostics::Diagnostic;
use profilegen_fuzz::unescape_attribute;

fuzz_target!(|text: &str| {
    let (_, _, body) = split_front_matter(text);
    assert!(text.ends_with(body));
    let lines = text.split('\n').count();
    match parse_bio(Path::new("content/authors/a.md"), "a", text) {
        Ok(bio) => check_html(&bio.body_html),
        Err(diagnostic) => check_diagnostic(&diagnostic, lines),
    }
    match parse_page(Path::new("content/pages/about.md"), "about", text) {
        Ok(page) => check_html(&page.body_html),
        Err(diagnostic) => check_diagnostic(&diagnostic, lines),
    }
});

fn check_html(html: &str) {
    let lower = html.to_ascii_lowercase();
    for element in [
        "<script", "<iframe", "<object", "<embed", "<style", "<form", "<svg",
    ] {
        assert!(!lower.contains(element), "{element} in {html}");
    }
    for attribute in [" href=\"", " src=\""] {
        for value in html.split(attribute).skip(1) {
            let value = unescape_attribute(value.split('"').next().unwrap_or(""));
            assert!(is_safe_url(&value), "unsafe URL {value:?} in {html}");
        }
    }
}

fn check_diagnostic(diagnostic: &Diagnostic, lines: usize) {
    if let Some(location) = &diagnostic.location {
        assert!((1..=lines).contains(&location.line), "{location:?}");
    }
    assert!(!diagnostic.render().is_empty());
}
