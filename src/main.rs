//! The `profilegen` command; everything happens in the library.

fn main() -> std::process::ExitCode {
    profilegen::build::memo::keep_freed_memory();
    profilegen::build::memo::stop_huge_pages();
    profilegen::cli::run()
}

/// mimalloc: rendering allocates many small strings on every thread, which the system
/// allocator serializes.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
