//! Normalization of names and texts for identity, and stable hashing.
//!
//! Two author names are the same author when their [`name_key`]s are equal
//! (Unicode NFKC, case-folded, spacing collapsed). Two titles or abstracts
//! are the same text when their [`text_key`]s are equal (the same, and
//! punctuation ignored).

use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

/// The identity key of an author name: NFKC, lowercase, runs of whitespace collapsed.
pub fn name_key(name: &str) -> String {
    let mut key = String::with_capacity(name.len());
    for word in nfkc(name).split_whitespace() {
        if !key.is_empty() {
            key.push(' ');
        }
        key.extend(word.chars().flat_map(char::to_lowercase));
    }
    key
}

/// The identity key of a title or abstract: NFKC, lowercase, every run of characters that
/// are not letters or digits becomes one space, trimmed.
pub fn text_key(text: &str) -> String {
    let normalized = nfkc(text);
    let mut key = String::with_capacity(normalized.len());
    let mut pending_space = false;
    for c in normalized.chars() {
        if c.is_alphanumeric() {
            if pending_space && !key.is_empty() {
                key.push(' ');
            }
            pending_space = false;
            key.extend(c.to_lowercase());
        } else {
            pending_space = true;
        }
    }
    key
}

/// A stable 64-bit hash of `text_key(text)`, computed without building the key.
/// Two texts with equal keys have equal hashes.
pub fn text_key_hash(text: &str) -> u64 {
    let mut hasher = Fnv::new();
    let mut pending_space = false;
    let mut started = false;
    let mut feed = |c: char, hasher: &mut Fnv| {
        if c.is_alphanumeric() {
            if pending_space && started {
                hasher.write(b" ");
            }
            pending_space = false;
            started = true;
            let mut buf = [0u8; 4];
            for lower in c.to_lowercase() {
                hasher.write(lower.encode_utf8(&mut buf).as_bytes());
            }
        } else {
            pending_space = true;
        }
    };
    if text.is_ascii() {
        for &b in text.as_bytes() {
            if b.is_ascii_alphanumeric() {
                if pending_space && started {
                    hasher.write(b" ");
                }
                pending_space = false;
                started = true;
                hasher.write(&[b.to_ascii_lowercase()]);
            } else {
                pending_space = true;
            }
        }
    } else if is_nfkc_quick(text.chars()) == IsNormalized::Yes {
        for c in text.chars() {
            feed(c, &mut hasher);
        }
    } else {
        for c in text.nfkc() {
            feed(c, &mut hasher);
        }
    }
    hasher.finish()
}

/// FNV-1a, 64 bits.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// NFKC, skipping the work for text that is normalized already: ASCII, or text the
/// Unicode quick check finds normalized (most accented text, which comes composed).
fn nfkc(text: &str) -> std::borrow::Cow<'_, str> {
    if text.is_ascii() || is_nfkc_quick(text.chars()) == IsNormalized::Yes {
        std::borrow::Cow::Borrowed(text)
    } else {
        std::borrow::Cow::Owned(text.nfkc().collect())
    }
}

/// A 64-bit FNV-1a hash: stable across platforms, releases and runs (unlike std's
/// `DefaultHasher`), for ids that must not change between builds.
pub fn stable_hash(text: &str) -> u64 {
    let mut hasher = Fnv::new();
    hasher.write(text.as_bytes());
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_key_folds_case_spacing_and_compatibility_forms() {
        assert_eq!(name_key("  Zhongbo   ZHU "), "zhongbo zhu");
        // NFKC: a fullwidth letter and a composed/decomposed accent are the same.
        assert_eq!(name_key("Ｚoe\u{0308}"), name_key("zoë"));
        assert_ne!(name_key("Zoë"), name_key("Zoe"));
        assert_eq!(name_key("Łukasz"), "łukasz");
    }

    #[test]
    fn text_key_ignores_case_spacing_and_punctuation() {
        assert_eq!(
            text_key("Scalable Training of Mixture-of-Experts Models, with Megatron Core."),
            text_key("scalable  training of mixture of experts models with megatron core")
        );
        assert_eq!(text_key("“Quoted” — text"), "quoted text");
        assert_eq!(text_key("ﬁne"), "fine");
        assert_ne!(text_key("Deep Learning"), text_key("Deep Learnings"));
        assert_eq!(text_key("..."), "");
    }

    #[test]
    fn text_key_hash_is_the_hash_of_the_key() {
        for text in [
            "Scalable Training of Mixture-of-Experts Models, with Megatron Core.",
            "  leading and trailing  ",
            "Ünïcödé — ﬁne “quotes” Łukasz 王伟",
            // Normalized already (composed accents), and not (decomposed, compatibility).
            "Kähler manifolds, Erdős–Rényi graphs",
            "Ka\u{308}hler manifolds",
            "ﬁnite Ｇroups",
            "...",
            "",
        ] {
            assert_eq!(text_key_hash(text), stable_hash(&text_key(text)), "{text}");
        }
        assert_eq!(text_key_hash("A, b!"), text_key_hash("a b"));
        // Composed and decomposed accents, and compatibility forms, are one text.
        assert_eq!(text_key_hash("Kähler"), text_key_hash("Ka\u{308}hler"));
        assert_eq!(
            text_key_hash("ﬁnite Ｇroups"),
            text_key_hash("finite groups")
        );
        assert_eq!(name_key("Erdo\u{30b}s"), name_key("Erdős"));
        assert_ne!(text_key_hash("a b"), text_key_hash("ab"));
    }

    #[test]
    fn stable_hash_is_fnv1a() {
        assert_eq!(stable_hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(stable_hash("a"), 0xaf63_dc4c_8601_ec8c);
    }
}
