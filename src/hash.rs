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

/// A `HashMap` keyed by output paths: a large site's million outputs are each looked up
/// in such a map on every build (the last build's fingerprints and file states). It
/// hashes with foldhash (hashbrown's default hasher), which looked up the million paths
/// of a 500,000-paper site in about half the time std's SipHash took; like SipHash it
/// is seeded afresh in each process, and nothing iterates over the map to make output.
pub type ByPath<V> = std::collections::HashMap<String, V, foldhash::fast::RandomState>;

/// A `HashMap` keyed by values that are hashes already: the key is its own hash.
pub type ByHash<V> = std::collections::HashMap<u64, V, nohash_hasher::BuildNoHashHasher<u64>>;

/// Where to look for a hash in a long list sorted by hashes: for each value of the
/// hashes' top bits, where the run of entries with those bits starts. A lookup then
/// searches one run of a few entries, near each other in memory, rather than the whole
/// list (a binary search of the search terms' kept index at 500,000 papers, an entry
/// per author and paper, about 700,000, reads about twenty places scattered over it:
/// perf put two thirds of a second of a one-off build's CPU in the kept files' searches). Any list sorted by key works; hashes, which spread evenly,
/// make the runs short.
#[derive(Debug)]
pub struct HashRuns {
    /// How far a hash is shifted right to give its run (64: one run).
    shift: u32,
    /// Where each run starts, and after the last, the length of the list.
    starts: Vec<usize>,
}

impl HashRuns {
    /// The runs of `sorted` (ascending), about four entries each.
    pub fn of(sorted: impl ExactSizeIterator<Item = u64>) -> HashRuns {
        let len = sorted.len();
        let bits = len.max(1).ilog2().saturating_sub(2).min(24);
        let shift = 64 - bits;
        let runs = 1usize << bits;
        let mut starts = Vec::with_capacity(runs + 1);
        for (at, hash) in sorted.enumerate() {
            // Runs up to this entry's start here (the ones before it that are empty too).
            while starts.len() <= Self::run_at(shift, hash) {
                starts.push(at);
            }
        }
        starts.resize(runs + 1, len);
        HashRuns { shift, starts }
    }

    /// The run of `hash`: its top bits.
    fn run_at(shift: u32, hash: u64) -> usize {
        hash.checked_shr(shift).unwrap_or(0) as usize
    }

    /// The place of `hash` in `sorted` (the list these runs were made of), with
    /// `hash_of` giving an entry's hash; `None` if it is not there.
    pub fn find<T>(&self, sorted: &[T], hash: u64, hash_of: impl Fn(&T) -> u64) -> Option<usize> {
        let run = Self::run_at(self.shift, hash);
        let (start, end) = (*self.starts.get(run)?, *self.starts.get(run + 1)?);
        let found = sorted
            .get(start..end)?
            .binary_search_by_key(&hash, hash_of)
            .ok()?;
        Some(start + found)
    }
}

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
    fn hash_runs_find_every_entry_and_nothing_else() {
        // Evenly spread, bunched at both ends, and the lists of zero to three entries.
        let spread: Vec<u64> = (0..1000u64)
            .map(|i| content_hash(&i.to_le_bytes()))
            .collect();
        let bunched: Vec<u64> = (0..50).chain(u64::MAX - 50..=u64::MAX).collect();
        for mut list in [spread, bunched, vec![], vec![0], vec![u64::MAX, 7, 1 << 63]] {
            list.sort_unstable();
            let runs = HashRuns::of(list.iter().copied());
            for (at, &hash) in list.iter().enumerate() {
                assert_eq!(runs.find(&list, hash, |&h| h), Some(at), "{hash:x}");
            }
            for absent in [1u64, 1 << 40, (1 << 63) + 1, u64::MAX - 60] {
                if !list.contains(&absent) {
                    assert_eq!(runs.find(&list, absent, |&h| h), None);
                }
            }
        }
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
