//! The `profilegen` command; everything happens in the library.

fn main() -> std::process::ExitCode {
    keep_freed_memory();
    profilegen::cli::run()
}

/// mimalloc: rendering allocates many small strings on every thread, which the system
/// allocator serializes.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in mimalloc.h (the same in mimalloc 2 and 3).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Tells mimalloc to keep freed memory rather than give it back to the system. A
/// rebuild in `build --watch` or `serve` uses about as much memory as the last one, and
/// getting pages back from the system (which zeroes them) cost about 40 ms a rebuild on
/// the benchmark site. A one-off build exits soon after anyway.
fn keep_freed_memory() {
    // SAFETY: sets an integer option; mimalloc allows this at any time, from any thread.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
}
