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

use std::sync::{Arc, Mutex};

use crate::hash::ByHash;

/// Results of one kind of work, by a hash of the work's whole input. Disabled until
/// [`Reuse::enable`]d: a one-off build keeps nothing (so memory is freed as early as
/// without it).
pub struct Reuse<T> {
    /// Whether results are kept at all.
    enabled: bool,
    /// What the previous build made or reused.
    previous: ByHash<Arc<T>>,
    /// What this build made or reused so far.
    current: Mutex<ByHash<Arc<T>>>,
}

impl<T> Default for Reuse<T> {
    fn default() -> Self {
        Reuse {
            enabled: false,
            previous: ByHash::default(),
            current: Mutex::new(ByHash::default()),
        }
    }
}

impl<T> Reuse<T> {
    /// The result for the key `key()` gives: the previous build's if it has one, else
    /// `make()`'s. The key must be a hash of everything `make` reads; it is not even
    /// computed while nothing is kept (a one-off build). Safe to call from many threads.
    pub fn get_or(&self, key: impl FnOnce() -> u64, make: impl FnOnce() -> T) -> Arc<T> {
        if !self.enabled && self.previous.is_empty() {
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
        let found = Arc::clone(self.previous.get(&key)?);
        self.keep(key, &found);
        Some(found)
    }

    /// Records `value` as the result for `key`, for the next build.
    pub fn insert(&self, key: u64, value: T) -> Arc<T> {
        let value = Arc::new(value);
        if self.enabled {
            self.keep(key, &value);
        }
        value
    }

    /// Starts keeping results for the next build.
    pub fn enable(&mut self) {
        self.enabled = true;
    }

    fn keep(&self, key: u64, value: &Arc<T>) {
        self.current
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, Arc::clone(value));
    }

    /// Ends a build: what it used is what the next one may reuse; the rest is dropped.
    /// A build that stopped before this kind of work keeps the previous results.
    pub fn finish_build(&mut self) {
        let current = std::mem::take(self.current.get_mut().unwrap_or_else(|e| e.into_inner()));
        if !current.is_empty() {
            self.previous = current;
        }
    }

    /// Whether results are kept for the next build (a long-running process).
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// How many results the next build may reuse.
    pub fn len(&self) -> usize {
        self.previous.len()
    }

    /// Whether there is nothing to reuse.
    pub fn is_empty(&self) -> bool {
        self.previous.is_empty()
    }

    /// What the next build may reuse, in no particular order.
    pub fn values(&self) -> impl Iterator<Item = &Arc<T>> {
        self.previous.values()
    }

    /// What the next build may reuse, to be updated in place (for example renumbered),
    /// in no particular order. An update must keep each value what its key's work makes.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Arc<T>> {
        self.previous.values_mut()
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

        // A build that used nothing of this kind keeps what there was.
        let mut other: Reuse<String> = Reuse::default();
        other.enable();
        other.get_or(|| 9, || "x".into());
        other.finish_build();
        other.finish_build();
        assert_eq!(other.len(), 1);
    }
}
