//! The command line: parses arguments and calls into the library.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::site::{build, BuildOptions};

/// Exit code: success (warnings allowed).
pub const EXIT_OK: u8 = 0;
/// Exit code: the build failed (fatal error, or any diagnostic with `--strict`), or
/// `check` found errors.
pub const EXIT_FAILED: u8 = 1;
/// Exit code: bad command-line usage (clap's own).
pub const EXIT_USAGE: u8 = 2;

/// profilegen: build scholarly profile sites from author record files.
#[derive(Debug, Parser)]
#[command(name = "profilegen", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build the site into the output folder.
    Build(BuildArgs),
    /// Parse, link and render without writing; report every diagnostic.
    Check(CheckArgs),
    /// Create a new site to start from.
    Init(InitArgs),
}

/// Options of `build`.
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// Site root: the folder with profilegen.yaml and content/.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Output folder [default: <root>/public].
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// Absolute URL the site is published at; overrides base_url in profilegen.yaml.
    #[arg(long)]
    pub base_url: Option<String>,
    /// Fail (and write nothing) on any diagnostic, warnings included.
    #[arg(long)]
    pub strict: bool,
    /// Print only errors and no summary or progress.
    #[arg(long, short)]
    pub quiet: bool,
    /// Render everything, ignoring the build cache in .profilegen/.
    #[arg(long)]
    pub force: bool,
}

/// Options of `check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Site root: the folder with profilegen.yaml and content/.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Check with this base_url instead of the configured one.
    #[arg(long)]
    pub base_url: Option<String>,
    /// Treat warnings as errors.
    #[arg(long)]
    pub strict: bool,
}

/// Options of `init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The folder to create the site in (created if missing; must be empty).
    pub dir: PathBuf,
}

/// Runs the command line; returns the process exit code.
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    ExitCode::from(match cli.command {
        Command::Build(args) => run_build(args),
        Command::Check(args) => run_check(args),
        Command::Init(args) => run_init(args),
    })
}

fn print_diagnostics(diagnostics: &[crate::diagnostics::Diagnostic], errors_only: bool) {
    for d in diagnostics {
        if errors_only && d.severity == crate::diagnostics::Severity::Warning {
            continue;
        }
        eprintln!("{}\n", d.render());
    }
}

fn run_build(args: BuildArgs) -> u8 {
    let options = BuildOptions {
        root: args.root,
        output: args.output,
        base_url: args.base_url,
        strict: args.strict,
        write: true,
        progress: !args.quiet,
        force: args.force,
    };
    match build(&options) {
        Ok(report) => {
            print_diagnostics(&report.diagnostics, args.quiet);
            if !args.quiet {
                eprintln!("{}", report.summary("Built"));
            }
            EXIT_OK
        }
        Err(failure) => {
            print_diagnostics(&failure.diagnostics, false);
            eprintln!(
                "error: build failed: {}; nothing was written",
                failure.reason
            );
            EXIT_FAILED
        }
    }
}

fn run_check(args: CheckArgs) -> u8 {
    let options = BuildOptions {
        root: args.root,
        output: None,
        base_url: args.base_url,
        strict: false,
        write: false,
        progress: false,
        force: true,
    };
    match build(&options) {
        Ok(report) => {
            print_diagnostics(&report.diagnostics, false);
            eprintln!("{}", report.summary("Checked"));
            let failing = crate::site::has_errors(&report.diagnostics)
                || (args.strict && !report.diagnostics.is_empty());
            if failing {
                EXIT_FAILED
            } else {
                EXIT_OK
            }
        }
        Err(failure) => {
            print_diagnostics(&failure.diagnostics, false);
            eprintln!("error: check failed: {}", failure.reason);
            EXIT_FAILED
        }
    }
}

fn run_init(args: InitArgs) -> u8 {
    match crate::init::init_site(&args.dir) {
        Ok(()) => {
            eprintln!(
                "Created a new site in {}. Build it with: profilegen build --root {}",
                args.dir.display(),
                args.dir.display()
            );
            EXIT_OK
        }
        Err(err) => {
            eprintln!("error: {err}");
            EXIT_FAILED
        }
    }
}
