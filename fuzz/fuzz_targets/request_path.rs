#![no_main]
//! The server's request-path decoding on arbitrary paths: every name it gives is one
//! plain file name (joined to the output folder, the path stays inside it), hidden names
//! are refused, and encoding the names again and decoding gives the same names.

use std::path::{Component, Path};

use libfuzzer_sys::fuzz_target;
use profilegen::serve::request_path_names;

fuzz_target!(|raw: &str| {
    let result = request_path_names(raw);
    assert_eq!(result, request_path_names(raw), "not deterministic");
    let Ok(names) = result else { return };
    for name in &names {
        assert!(!name.is_empty() && name != "." && name != "..", "{name:?}");
        assert!(
            !name.contains(['/', '\\']) && !name.contains(char::is_control),
            "{name:?}"
        );
        assert!(!name.starts_with('.') || name == ".well-known", "{name:?}");
    }
    let joined = names
        .iter()
        .fold(Path::new("/site").to_path_buf(), |p, n| p.join(n));
    assert!(joined.starts_with("/site"));
    assert!(
        joined
            .components()
            .skip(1)
            .all(|c| matches!(c, Component::Normal(_))),
        "{joined:?}"
    );
    if !raw.contains('%') {
        let segments: Vec<&str> = raw.split('/').filter(|s| !s.is_empty()).collect();
        assert_eq!(names, segments);
    }
    let encoded: String = names.iter().map(|n| format!("/{}", encode(n))).collect();
    let encoded = if encoded.is_empty() {
        "/".to_owned()
    } else {
        encoded
    };
    assert_eq!(
        request_path_names(&encoded).as_ref(),
        Ok(&names),
        "{encoded}"
    );
});

/// Percent-encodes every byte but ASCII letters, digits and `-._~`.
fn encode(name: &str) -> String {
    name.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}
