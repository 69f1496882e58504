//! The `profilegen` command; everything happens in the library.

fn main() -> std::process::ExitCode {
    profilegen::cli::run()
}
