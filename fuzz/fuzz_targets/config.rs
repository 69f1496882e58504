#![no_main]
//! The site configuration (`profilegen.yaml`) on arbitrary text: a usable configuration
//! has a normalized absolute base URL, and an unusable one a diagnostic that points
//! into the file and renders.

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use profilegen::config::parse_config;

fuzz_target!(|text: &str| {
    let path = Path::new("profilegen.yaml");
    let result = parse_config(path, text);
    assert_eq!(result, parse_config(path, text), "not deterministic");
    match result {
        Ok(config) => {
            if let Some(base_url) = &config.base_url {
                assert!(base_url.starts_with("http://") || base_url.starts_with("https://"));
                assert!(
                    base_url.ends_with('/') && !base_url.ends_with("//"),
                    "{base_url:?}"
                );
                assert!(!base_url.contains(char::is_whitespace), "{base_url:?}");
            }
        }
        Err(diagnostic) => {
            if let Some(location) = &diagnostic.location {
                assert!(location.line >= 1 && location.line <= text.split('\n').count());
            }
            assert!(!diagnostic.render().is_empty());
        }
    }
});
