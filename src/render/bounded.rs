//! Values made once and then shared by many outputs of a build, in bounded memory: a
//! cache holds at most about its `max_bytes` and, when full, starts again empty. What
//! it holds must be a pure function of its key, so whether a value was kept or is made
//! again changes nothing in the output, whatever the order or the thread count.

use std::sync::{PoisonError, RwLock};

use crate::hash::ByHash;

/// A cache of values by a 64-bit key (a hash of everything the value is made from),
/// holding at most about `max_bytes` (as its callers count them).
pub struct BoundedCache<V> {
    max_bytes: usize,
    held: RwLock<Held<V>>,
}

/// The values a [`BoundedCache`] holds, and their bytes.
struct Held<V> {
    values: ByHash<V>,
    bytes: usize,
}

impl<V: Clone> BoundedCache<V> {
    /// An empty cache that holds at most about `max_bytes`.
    pub fn new(max_bytes: usize) -> BoundedCache<V> {
        BoundedCache {
            max_bytes,
            held: RwLock::new(Held {
                values: ByHash::default(),
                bytes: 0,
            }),
        }
    }

    /// The value for `key`, if the cache holds it.
    pub fn get(&self, key: u64) -> Option<V> {
        let held = self.held.read().unwrap_or_else(PoisonError::into_inner);
        held.values.get(&key).cloned()
    }

    /// Keeps `value` (of `bytes`) for `key`, emptying the cache first when it would be
    /// over its size, and gives back what the cache now holds for `key`: the value
    /// another thread kept first, if one did (both are the same).
    pub fn insert(&self, key: u64, value: V, bytes: usize) -> V {
        let mut held = self.held.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(kept) = held.values.get(&key) {
            return kept.clone();
        }
        if held.bytes + bytes > self.max_bytes {
            held.values = ByHash::default();
            held.bytes = 0;
        }
        held.bytes += bytes;
        held.values.insert(key, value.clone());
        value
    }

    /// The value for `key`: the one held, else `make()`'s (its value and its bytes).
    pub fn get_or_make(&self, key: u64, make: impl FnOnce() -> (V, usize)) -> V {
        if let Some(found) = self.get(key) {
            return found;
        }
        let (value, bytes) = make();
        self.insert(key, value, bytes)
    }

    /// The bytes the cache holds now.
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.held
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_made_once_while_it_is_held() {
        let cache = BoundedCache::new(100);
        let mut made = 0;
        for _ in 0..3 {
            let value = cache.get_or_make(7, || {
                made += 1;
                ("seven".to_string(), 5)
            });
            assert_eq!(value, "seven");
        }
        assert_eq!(made, 1);
        assert_eq!(cache.bytes(), 5);
    }

    #[test]
    fn a_full_cache_starts_again_empty() {
        let cache = BoundedCache::new(10);
        cache.insert(1, 'a', 6);
        cache.insert(2, 'b', 4);
        assert_eq!(
            (cache.get(1), cache.get(2), cache.bytes()),
            (Some('a'), Some('b'), 10)
        );
        // One byte more than fits: the cache empties, then holds the new value only.
        cache.insert(3, 'c', 1);
        assert_eq!(
            (cache.get(1), cache.get(2), cache.get(3)),
            (None, None, Some('c'))
        );
        assert_eq!(cache.bytes(), 1);
    }

    #[test]
    fn the_first_value_kept_for_a_key_is_the_one_given_back() {
        let cache = BoundedCache::new(10);
        assert_eq!(cache.insert(1, "first", 1), "first");
        assert_eq!(cache.insert(1, "second", 1), "first");
        assert_eq!(cache.bytes(), 1);
    }
}
