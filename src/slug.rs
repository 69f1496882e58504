//! Readable ASCII slugs for URLs.
//!
//! Transliteration is done by `deunicode` through the `slug` crate
//! (`Łukasz` -> `lukasz`, `王伟` -> `wang-wei`). A slug is lowercase ASCII
//! letters, digits and single hyphens: it can never contain `/`, `.` or `..`.

use std::collections::HashSet;

/// The longest slug produced from a title, in bytes, before disambiguating suffixes.
pub const MAX_SLUG_LEN: usize = 72;

/// Slugifies `text`, cut at a word boundary to at most [`MAX_SLUG_LEN`] bytes. Returns
/// `fallback` when nothing slug-worthy is left (e.g. a title made only of symbols).
pub fn slugify(text: &str, fallback: &str) -> String {
    let full = slug::slugify(text);
    let mut slug = if full.len() <= MAX_SLUG_LEN {
        full
    } else {
        let cut = &full[..MAX_SLUG_LEN];
        match cut.rfind('-') {
            Some(i) if i > MAX_SLUG_LEN / 2 => cut[..i].to_string(),
            _ => cut.trim_end_matches('-').to_string(),
        }
    };
    if slug.is_empty() {
        slug = fallback.to_string();
    }
    slug
}

/// Whether `s` is a well-formed slug: non-empty lowercase ASCII letters, digits and inner
/// single hyphens.
pub fn is_slug(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('-')
        && !s.ends_with('-')
        && !s.contains("--")
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// A URL path segment for an arXiv subject code: the code itself when it is a safe
/// segment (`cs.DC`, `physics.soc-ph`), a slug otherwise. Never empty, never `.` or `..`,
/// never contains `/`.
pub fn subject_segment(code: &str) -> String {
    let safe = !code.is_empty()
        && code.len() <= 40
        && code.starts_with(|c: char| c.is_ascii_alphabetic())
        && !code.contains("..")
        && code
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
    if safe {
        code.to_string()
    } else {
        slugify(code, "unknown")
    }
}

/// Makes slugs unique. Input: each item's base slug, and its identity key (asked for
/// only when its base is shared). Items sharing a base are ordered by identity key; the
/// first keeps the base, the others get a suffix from a stable hash of their key (and, in
/// the unlikely case that collides too, a counter). The result depends only on the set
/// of items, never on their order.
pub fn unique_slugs(bases: Vec<String>, key_of: impl Fn(usize) -> String) -> Vec<String> {
    let order = order_by_key(&bases);
    // Every base (made at the first base several items share: most have none) and the
    // suffixed slugs handed out, which a suffixed slug may be neither of.
    let mut base_slugs: Option<HashSet<&str>> = None;
    let mut suffixed: HashSet<String> = HashSet::new();
    let mut slugs: Vec<Option<String>> = vec![None; bases.len()];
    for sharing in order.chunk_by(|&a, &b| bases[a] == bases[b]) {
        if sharing.len() == 1 {
            continue;
        }
        let base = bases[sharing[0]].as_str();
        let base_slugs =
            base_slugs.get_or_insert_with(|| bases.iter().map(String::as_str).collect());
        let mut keyed: Vec<(String, usize)> = sharing.iter().map(|&m| (key_of(m), m)).collect();
        keyed.sort();
        slugs[keyed[0].1] = Some(base.to_string());
        for (key, m) in &keyed[1..] {
            let hash = crate::normalize::stable_hash(key) >> 40;
            let mut candidate = format!("{base}-{hash:06x}");
            let mut n = 2;
            while base_slugs.contains(candidate.as_str()) || suffixed.contains(&candidate) {
                candidate = format!("{base}-{hash:06x}-{n}");
                n += 1;
            }
            suffixed.insert(candidate.clone());
            slugs[*m] = Some(candidate);
        }
    }
    slugs
        .into_iter()
        .zip(bases)
        .map(|(slug, base)| slug.unwrap_or(base))
        .collect()
}

/// The indices of `keys` in the order of the keys (equal keys in index order), sorted
/// on every thread.
pub fn order_by_key(keys: &[String]) -> Vec<usize> {
    use rayon::prelude::*;
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.par_sort_unstable_by(|&a, &b| keys[a].cmp(&keys[b]).then(a.cmp(&b)));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transliterates_to_readable_ascii() {
        assert_eq!(slugify("Łukasz", "x"), "lukasz");
        assert_eq!(slugify("Staša Milojević", "x"), "stasa-milojevic");
        assert_eq!(slugify("Zoë O'Brien", "x"), "zoe-o-brien");
        assert_eq!(slugify("王伟", "x"), "wang-wei");
        assert_eq!(slugify("Bor-Yiing Su", "x"), "bor-yiing-su");
    }

    #[test]
    fn never_contains_path_separators_or_dots() {
        for hostile in [
            "../../etc/passwd",
            "a/b\\c",
            "..",
            ".",
            "<script>x</script>",
            "C:\\x",
            "%2e%2e%2f",
        ] {
            let s = slugify(hostile, "fallback");
            assert!(is_slug(&s), "{hostile:?} -> {s:?}");
            assert!(!s.contains('/') && !s.contains('.') && !s.contains('\\'));
        }
    }

    #[test]
    fn empty_result_uses_fallback() {
        assert_eq!(slugify("!!! ??? --- ...", "paper"), "paper");
        assert_eq!(slugify("∑ → ∞", "paper"), "s-inf");
        assert_eq!(slugify("", "author"), "author");
    }

    #[test]
    fn long_text_is_cut_at_a_word_boundary() {
        let title = "Scalable Training of Mixture-of-Experts Models with Megatron Core and Many More Words Beyond the Limit";
        let s = slugify(title, "x");
        assert!(s.len() <= MAX_SLUG_LEN, "{s}");
        assert!(!s.ends_with('-'));
        assert!(
            title.to_lowercase().replace(' ', "-").starts_with(&s),
            "{s}"
        );
    }

    #[test]
    fn subject_segments_are_safe() {
        assert_eq!(subject_segment("cs.DC"), "cs.DC");
        assert_eq!(subject_segment("physics.soc-ph"), "physics.soc-ph");
        assert_eq!(subject_segment("../x"), "x");
        assert_eq!(subject_segment(".."), "unknown");
        assert_eq!(subject_segment("a/b"), "a-b");
        assert_eq!(subject_segment("<script>"), "script");
    }
}
