//! Stable hashes: of file contents, and of the inputs of a piece of work.
//!
//! Both are xxh3 (64 bits), which is the same on every platform and in every run, so a
//! hash written into the build cache by one build can be compared by the next.

use std::hash::{Hash, Hasher};

/// A stable hash of some bytes, for file contents.
pub fn content_hash(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// A stable hash of `tag` (which kind of work) and `value` (everything the work reads),
/// through [`std::hash::Hash`]: the key under which [`crate::reuse::Reuse`] keeps a result.
pub fn key(tag: &str, value: &impl Hash) -> u64 {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    tag.hash(&mut hasher);
    value.hash(&mut hasher);
    hasher.finish()
}

/// A `HashMap` keyed by values that are hashes already: the key is its own hash.
pub type ByHash<V> = std::collections::HashMap<u64, V, nohash_hasher::BuildNoHashHasher<u64>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_stable_and_tell_tags_apart() {
        assert_eq!(content_hash(b""), 0x2d06800538d394c2, "xxh3 of nothing");
        assert_ne!(content_hash(b"a"), content_hash(b"b"));
        assert_eq!(key("title", &"x"), key("title", &"x"));
        assert_ne!(key("title", &"x"), key("slug", &"x"));
        assert_ne!(key("title", &("a", "bc")), key("title", &("ab", "c")));
    }

    #[test]
    fn a_by_hash_map_keeps_colliding_low_bits_apart() {
        let mut map: ByHash<&str> = ByHash::default();
        map.insert(1, "one");
        map.insert(1 << 40 | 1, "other");
        assert_eq!(map.get(&1), Some(&"one"));
        assert_eq!(map.get(&(1 << 40 | 1)), Some(&"other"));
    }
}
