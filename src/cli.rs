//! The command line: parses arguments and calls into the library.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::build::BuildMemo;
use crate::build::{build, build_with, BuildOptions};
use crate::diagnostics::{printed, Diagnostic, Severity, SHOWN_PER_KIND};
use crate::live::{
    describe_changes, describe_outcome, notify_browsers, start_preview, watch, ServeSettings,
    WatchSettings,
};

/// Exit code: success (warnings allowed).
pub const EXIT_OK: u8 = 0;
/// Exit code: the build failed (fatal error, or any diagnostic with `--strict`), or
/// `check` found errors.
pub const EXIT_FAILED: u8 = 1;
/// Exit code: bad command-line usage (clap's own).
pub const EXIT_USAGE: u8 = 2;
/// Exit code: a long-running command stopped at once by a second Ctrl-C (128 + SIGINT,
/// as shells report a process that Ctrl-C ended).
pub const EXIT_INTERRUPTED: u8 = 130;

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
    /// Build, serve the site locally, and rebuild and reload the browser on every change.
    Serve(ServeArgs),
}

/// Options of `build`.
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// Site root: the folder with profilegen.yaml and content/.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Output folder [default: public/ in the --root folder].
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
    /// Print every diagnostic (by default each kind is shown a few times, then counted).
    #[arg(long, short)]
    pub verbose: bool,
    /// Render everything, ignoring the build cache in .profilegen/.
    #[arg(long)]
    pub force: bool,
    /// Keep running: rebuild whenever the sources change (one log line per rebuild).
    #[arg(long)]
    pub watch: bool,
    /// Build in generations, so that a web server never sees two builds mixed: the
    /// output path becomes a link to a whole build in OUTPUT.generations/, switched to
    /// the next one in one rename once it is complete (the previous one is kept). Later
    /// builds into that link do so without the option.
    #[arg(long)]
    pub generations: bool,
    /// With --watch: poll the file system instead of using native events (for network or
    /// virtual file systems that miss events).
    #[arg(long, requires = "watch")]
    pub poll: bool,
}

/// Options of `serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Site root: the folder with profilegen.yaml and content/.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 1111)]
    pub port: u16,
    /// Address to bind; the default serves this machine only.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
    /// Open the site in the default browser.
    #[arg(long)]
    pub open: bool,
    /// Poll the file system instead of using native events.
    #[arg(long)]
    pub poll: bool,
    /// Print every diagnostic (by default each kind is shown a few times, then counted).
    #[arg(long, short)]
    pub verbose: bool,
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
    /// Print every diagnostic (by default each kind is shown a few times, then counted).
    #[arg(long, short)]
    pub verbose: bool,
    /// Also list likely duplicate authors (one person under two spellings) that are not
    /// merged, best first, each with the settings that would merge them.
    #[arg(long)]
    pub authors: bool,
    /// How many likely duplicates `--authors` lists at most (0: all).
    #[arg(long, default_value_t = 50, requires = "authors")]
    pub limit: usize,
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
        Command::Serve(args) => run_serve(args),
    })
}

/// Prints diagnostics on stderr: every one with `verbose`, else each kind a few times
/// and then a count ([`crate::diagnostics::printed`]).
fn print_diagnostics(diagnostics: &[Diagnostic], errors_only: bool, verbose: bool) {
    let shown: Vec<&Diagnostic> = diagnostics
        .iter()
        .filter(|d| !errors_only || d.severity == Severity::Error)
        .collect();
    let per_kind = (!verbose).then_some(SHOWN_PER_KIND);
    eprint!("{}", printed(&shown, per_kind));
}

fn run_build(args: BuildArgs) -> u8 {
    let options = BuildOptions {
        root: args.root,
        output: args.output,
        base_url: args.base_url,
        strict: args.strict,
        write: true,
        progress: !args.quiet && !args.watch,
        force: args.force,
        generations: args.generations,
    };
    let quiet = args.quiet;
    let verbose = args.verbose;
    let build_once = |options: &BuildOptions, memo: &mut BuildMemo| match build_with(options, memo)
    {
        Ok(report) => {
            print_diagnostics(&report.diagnostics, quiet, verbose);
            if !quiet {
                eprintln!("{}", report.summary("Built"));
                for line in report.redirect_lines() {
                    eprintln!("{line}");
                }
            }
            EXIT_OK
        }
        Err(failure) => {
            print_diagnostics(&failure.diagnostics, false, verbose);
            eprintln!(
                "error: build failed: {}; nothing was written",
                failure.reason
            );
            EXIT_FAILED
        }
    };
    if !args.watch {
        return build_once(&options, &mut BuildMemo::default());
    }
    let settings = WatchSettings {
        poll: args.poll.then_some(POLL_INTERVAL),
        ..WatchSettings::default()
    };
    let root = options.root.clone();
    let rebuild_options = BuildOptions {
        force: false,
        ..options.clone()
    };
    let result = watch(
        &rebuild_options,
        &settings,
        stop_on_signal(),
        |memo| {
            build_once(&options, memo);
            eprintln!("Watching {} for changes (Ctrl-C to stop)", root.display());
        },
        |changes, outcome| {
            match outcome {
                Ok(report) => print_diagnostics(&report.diagnostics, true, verbose),
                Err(failure) => print_diagnostics(&failure.diagnostics, false, verbose),
            }
            if !quiet || outcome.is_err() {
                eprintln!(
                    "{}: {}",
                    describe_changes(&root, changes),
                    describe_outcome(outcome)
                );
            }
        },
    );
    match result {
        Ok(()) => EXIT_OK,
        Err(message) => {
            eprintln!("error: {message}");
            EXIT_FAILED
        }
    }
}

/// The flag that stops a long-running command (`build --watch`, `serve`), set on Ctrl-C
/// (SIGINT), SIGTERM or SIGHUP. The command stops between rebuilds: one under way
/// finishes, and the build cache it saves in the background is written whole, where
/// dying at once would leave the cache's temporary file behind. A second signal stops
/// the process at once.
fn stop_on_signal() -> &'static AtomicBool {
    static STOP: AtomicBool = AtomicBool::new(false);
    let installed = ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::SeqCst) {
            std::process::exit(EXIT_INTERRUPTED.into());
        }
        eprintln!("Stopping once the build under way is done (again to stop at once)");
    });
    if let Err(err) = installed {
        eprintln!("warning: cannot stop cleanly on Ctrl-C: {err}");
    }
    &STOP
}

/// How often `--poll` looks at the file system.
const POLL_INTERVAL: Duration = Duration::from_millis(500);

fn run_serve(args: ServeArgs) -> u8 {
    let verbose = args.verbose;
    let settings = ServeSettings {
        root: args.root,
        bind: args.bind,
        port: args.port,
        watch: WatchSettings {
            poll: args.poll.then_some(POLL_INTERVAL),
            ..WatchSettings::default()
        },
    };
    let preview = match start_preview(&settings) {
        Ok(preview) => preview,
        Err(message) => {
            eprintln!("error: {message}");
            return EXIT_FAILED;
        }
    };
    let url = preview.options.base_url.clone().unwrap_or_default();
    let root = settings.root.clone();
    let result = watch(
        &preview.options,
        &settings.watch,
        stop_on_signal(),
        |memo| {
            let first = build_with(&preview.options, memo);
            match &first {
                Ok(report) => {
                    print_diagnostics(&report.diagnostics, false, verbose);
                    eprintln!("{}", report.summary("Built"));
                }
                Err(failure) => {
                    print_diagnostics(&failure.diagnostics, false, verbose);
                    eprintln!("error: build failed: {}", failure.reason);
                }
            }
            notify_browsers(&preview.reload, &first);
            eprintln!("Serving {url} (Ctrl-C to stop)");
            if args.open {
                if let Err(err) = open_browser(&url) {
                    eprintln!("warning: cannot open a browser: {err}");
                }
            }
        },
        |changes, outcome| {
            if let Err(failure) = outcome {
                print_diagnostics(&failure.diagnostics, false, verbose);
            }
            eprintln!(
                "{}: {}",
                describe_changes(&root, changes),
                describe_outcome(outcome)
            );
            notify_browsers(&preview.reload, outcome);
        },
    );
    preview.server.shutdown();
    match result {
        Ok(()) => EXIT_OK,
        Err(message) => {
            eprintln!("error: {message}");
            EXIT_FAILED
        }
    }
}

fn run_check(args: CheckArgs) -> u8 {
    let verbose = args.verbose;
    let options = BuildOptions {
        root: args.root.clone(),
        output: None,
        base_url: args.base_url,
        strict: false,
        write: false,
        progress: false,
        force: true,
        generations: false,
    };
    match build(&options) {
        Ok(report) => {
            print_diagnostics(&report.diagnostics, false, verbose);
            eprintln!("{}", report.summary("Checked"));
            if args.authors {
                match crate::build::link_site(&options) {
                    Ok(graph) => print!("{}", duplicates_report(&graph, args.limit)),
                    Err(failure) => eprintln!("error: {}", failure.reason),
                }
            }
            let failing = crate::diagnostics::has_errors(&report.diagnostics)
                || (args.strict && !report.diagnostics.is_empty());
            if failing {
                EXIT_FAILED
            } else {
                EXIT_OK
            }
        }
        Err(failure) => {
            print_diagnostics(&failure.diagnostics, false, verbose);
            eprintln!("error: check failed: {}", failure.reason);
            EXIT_FAILED
        }
    }
}

/// The likely duplicate authors of `graph`, best first (at most `limit`, 0: all), each
/// with what the two share and the settings that would merge them.
fn duplicates_report(graph: &crate::graph::SiteGraph, limit: usize) -> String {
    use crate::suggest::{merge_yaml, suggest_duplicates, Likeness};
    let suggestions = suggest_duplicates(graph);
    if suggestions.is_empty() {
        return "No likely duplicate authors.\n".into();
    }
    let shown = if limit == 0 {
        suggestions.len()
    } else {
        limit.min(suggestions.len())
    };
    let mut text = format!(
        "{} likely duplicate author{} (not merged){}:\n",
        suggestions.len(),
        if suggestions.len() == 1 { "" } else { "s" },
        if shown < suggestions.len() {
            format!(", the best {shown}")
        } else {
            String::new()
        }
    );
    let describe = |id: usize| {
        let author = &graph.authors[id];
        let n = author.papers.len();
        format!(
            "{} (/authors/{}/, {n} paper{})",
            author.name,
            author.slug,
            if n == 1 { "" } else { "s" }
        )
    };
    for (rank, s) in suggestions.iter().take(shown).enumerate() {
        let why = match s.likeness {
            Likeness::Spelling => "one name in two spellings",
            Likeness::Initials => "one name up to initials",
        };
        text.push_str(&format!(
            "\n{}. {} ~ {}\n   {why}; {} shared paper{}, {} shared co-author{}\n   to merge them, add to profilegen.yaml:\n",
            rank + 1,
            describe(s.keep),
            describe(s.join),
            s.shared_papers,
            if s.shared_papers == 1 { "" } else { "s" },
            s.shared_coauthors,
            if s.shared_coauthors == 1 { "" } else { "s" },
        ));
        for line in merge_yaml(graph, s).lines() {
            text.push_str(&format!("     {line}\n"));
        }
    }
    text
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

/// Opens `url` with the desktop's handler (xdg-open, open, or start).
fn open_browser(url: &str) -> std::io::Result<()> {
    let mut command = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(windows) {
        let mut command = std::process::Command::new("cmd");
        command.args(["/C", "start", ""]);
        command
    } else {
        std::process::Command::new("xdg-open")
    };
    crate::build::memo::let_child_use_huge_pages(&mut command);
    command
        .arg(url)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(|_| ())
}
