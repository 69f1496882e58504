//! Work one build can hand to the next in the same process (`build --watch`, `serve`).
//!
//! A long-running profilegen rebuilds after every batch of changes, and most of what it
//! parsed and converted last time is still right: a record file whose bytes did not
//! change parses the same, a title converts to the same MathML, a paper's search terms
//! are the same. [`Reuse`] keeps such results keyed by a hash of *everything* the work
//! read ([`crate::hash::key`]), so reusing one can never change what is built: a build
//! with a memo writes the same bytes as one without. Only what the latest build used is
//! kept, so memory does not grow as files come and go.
//!
//! A one-off `profilegen build` keeps nothing and behaves as if there were no memo.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::hash::ByHash;
use crate::threads::lock;

/// Results of one kind of work, by a hash of the work's whole input. Disabled until
/// [`Reuse::enable`]d: a one-off build keeps nothing (so memory is freed as early as
/// without it).
///
/// A result found again is only marked as used by this build (an atomic store, no lock):
/// a rebuild reuses nearly everything, and copying each result found into a new map
/// behind one lock took a tenth of a rebuild's time on two threads.
pub struct Reuse<T> {
    /// Whether results are kept at all.
    enabled: bool,
    /// This build's number, which marks the results it uses (64 bits: it never comes
    /// round again, so a result left unused for many builds is never taken for used).
    build: u64,
    /// What earlier builds made, each with the number of the last build that used it.
    kept: ByHash<Kept<T>>,
    /// What this build made so far.
    made: Mutex<ByHash<Arc<T>>>,
}

/// A kept result and the number of the last build that used it.
struct Kept<T> {
    value: Arc<T>,
    used_by: AtomicU64,
}

impl<T> Default for Reuse<T> {
    fn default() -> Self {
        Reuse {
            enabled: false,
            build: 1,
            kept: ByHash::default(),
            made: Mutex::new(ByHash::default()),
        }
    }
}

impl<T> Reuse<T> {
    /// The result for the key `key()` gives: the previous build's if it has one, else
    /// `make()`'s. The key must be a hash of everything `make` reads; it is not even
    /// computed while nothing is kept (a one-off build). Safe to call from many threads.
    pub fn get_or(&self, key: impl FnOnce() -> u64, make: impl FnOnce() -> T) -> Arc<T> {
        if !self.enabled && self.kept.is_empty() {
            return Arc::new(make());
        }
        let key = key();
        match self.get(key) {
            Some(found) => found,
            None => self.insert(key, make()),
        }
    }

    /// The previous build's result for `key`, if it has one (kept for the next build).
    pub fn get(&self, key: u64) -> Option<Arc<T>> {
        let kept = self.kept.get(&key)?;
        kept.used_by.store(self.build, Ordering::Relaxed);
        Some(Arc::clone(&kept.value))
    }

    /// Records `value` as the result for `key`, for the next build.
    pub fn insert(&self, key: u64, value: T) -> Arc<T> {
        let value = Arc::new(value);
        if self.enabled {
            lock(&self.made).insert(key, Arc::clone(&value));
        }
        value
    }

    /// Starts keeping results for the next build.
    pub fn enable(&mut self) {
        self.enabled = true;
    }

    /// Ends a build: what it used is what the next one may reuse; the rest is dropped.
    /// A build that stopped before this kind of work keeps the previous results.
    pub fn finish_build(&mut self) {
        let build = self.build;
        let made = std::mem::take(self.made.get_mut().unwrap_or_else(|e| e.into_inner()));
        let used = |kept: &mut Kept<T>| *kept.used_by.get_mut() == build;
        if !made.is_empty() || self.kept.values_mut().any(used) {
            self.kept.retain(|_, kept| used(kept));
            self.kept.extend(made.into_iter().map(|(key, value)| {
                let used_by = AtomicU64::new(build);
                (key, Kept { value, used_by })
            }));
        }
        self.build = build + 1;
    }

    /// Whether results are kept for the next build (a long-running process).
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// How many results the next build may reuse.
    pub fn len(&self) -> usize {
        self.kept.len()
    }

    /// Whether there is nothing to reuse.
    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// What the next build may reuse, in no particular order.
    pub fn values(&self) -> impl Iterator<Item = &Arc<T>> {
        self.kept.values().map(|kept| &kept.value)
    }

    /// What the next build may reuse, to be updated in place (for example renumbered),
    /// in no particular order. An update must keep each value what its key's work makes.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Arc<T>> {
        self.kept.values_mut().map(|kept| &mut kept.value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn reuses_what_the_previous_build_used_and_forgets_the_rest() {
        let made = AtomicUsize::new(0);
        let make = |text: &str| {
            made.fetch_add(1, Ordering::Relaxed);
            text.to_uppercase()
        };
        let mut off: Reuse<String> = Reuse::default();
        let key_unused = || -> u64 { panic!("a disabled memo computes no key") };
        assert_eq!(*off.get_or(key_unused, || make("a")), "A");
        off.finish_build();
        assert!(off.is_empty(), "a disabled memo keeps nothing");
        made.store(0, Ordering::Relaxed);

        let mut reuse: Reuse<String> = Reuse::default();
        reuse.enable();
        assert_eq!(*reuse.get_or(|| 1, || make("a")), "A");
        assert_eq!(*reuse.get_or(|| 2, || make("b")), "B");
        assert_eq!(made.load(Ordering::Relaxed), 2);
        reuse.finish_build();
        assert_eq!(reuse.len(), 2);

        // Second build: 1 is reused, 3 is new, 2 is not used.
        assert_eq!(*reuse.get_or(|| 1, || make("changed")), "A");
        assert_eq!(*reuse.get_or(|| 3, || make("c")), "C");
        assert_eq!(made.load(Ordering::Relaxed), 3);
        reuse.finish_build();
        assert_eq!(reuse.len(), 2, "2 was dropped");
        assert_eq!(*reuse.get_or(|| 2, || make("b again")), "B AGAIN");

        // Results found from many threads at once are each kept.
        let mut shared: Reuse<usize> = Reuse::default();
        shared.enable();
        (0..1000u64).for_each(|k| drop(shared.get_or(|| k, || k as usize)));
        shared.finish_build();
        std::thread::scope(|scope| {
            for part in 0..4u64 {
                let shared = &shared;
                scope.spawn(move || {
                    for k in (part * 100)..(part * 100 + 100) {
                        assert_eq!(*shared.get_or(|| k, || usize::MAX), k as usize);
                    }
                });
            }
        });
        shared.finish_build();
        assert_eq!(shared.len(), 400, "the 400 used of 1000");
        let mut kept: Vec<usize> = shared.values().map(|v| **v).collect();
        kept.sort_unstable();
        assert_eq!(kept, (0..400).collect::<Vec<_>>());

        // A build that used nothing of this kind keeps what there was.
        let mut other: Reuse<String> = Reuse::default();
        other.enable();
        other.get_or(|| 9, || "x".into());
        other.finish_build();
        other.finish_build();
        assert_eq!(other.len(), 1);
    }
}
