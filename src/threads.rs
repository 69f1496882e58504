//! Small helpers for work shared between threads, used by every stage.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `mutex`, whether or not a thread panicked while holding it (what the callers'
/// mutexes guard is whole after any step).
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Gives the calling thread the lowest priority (nice 19, on Linux, where each thread
/// has its own), for work a build does not wait for: it then runs in the time the
/// build's own threads leave idle.
pub fn give_way_to_the_build() {
    #[cfg(target_os = "linux")]
    let _ = rustix::process::setpriority_process(None, 19);
}

/// Frees `data` on another thread, so that the caller need not wait for it: the linked
/// site's many small pieces took 60 ms to free after a rebuild at 100,000 papers, and
/// a one-off build's process ends meanwhile. When no thread can be started, the refused
/// closure is dropped here, and `data` with it.
pub fn free_in_background<T: Send + 'static>(data: T) {
    let freeing = std::thread::Builder::new().name("free".into());
    let _ = freeing.spawn(move || drop(data));
}
