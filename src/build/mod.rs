//! The build pipeline, as `build` and `check` run it, one named step each: `load` the
//! sources -> `link` -> `plan` -> `render_outputs` (only what changed since the last
//! build) -> `commit_and_save` the output and the cache -> the report. The `previous`
//! module holds the cache decision, [`memo`] what a long-running process carries from
//! one build to the next.

use std::collections::HashSet;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

pub mod cache;
pub mod memo;
mod previous;
mod report;

pub use memo::{BuildMemo, SavedCache};
pub use report::{BuildFailure, BuildReport};

use crate::config::normalize_base_url;
use crate::diagnostics::Diagnostic;
use crate::graph::{link_with, SiteGraph};
use crate::identity::IdentityRules;
use crate::kept_file::KeptFile;
use crate::output::generations::current_generation;
use crate::output::{
    is_safe_relative_path, write_atomically_with, AtomicFile, OutputWriter, WriteStats,
};
use crate::plan::redirects::SlugHistory;
use crate::plan::texts::{conversions_to_keep, kept_conversion_keys, PaperText};
use crate::plan::{
    plan_site, search_outputs, OutputKind, PlanInput, PlanMemo, PlannedOutput, SitePlan,
};
use crate::records::TextPool;
use crate::render::context::{Fingerprinted, MadeParts, OutputMaker};
use crate::render::{Renderer, DEFAULT_STATIC};
use crate::search::{KeptTerms, TermsKept};
use crate::sources::kept::{self, KeptRecords, KEPT_RECORDS_FILE};
use crate::sources::{read_site, SiteInput, RECORDS_DIR, STATIC_DIR, TEMPLATES_DIR};
use crate::text_store::{KeptTexts, TextStore};
use crate::threads::free_in_background;
use previous::{
    updated_outputs, FindingPrevious, KeptOutputs, OutputCheck, OutputOrder, PreviousBuild,
};
use report::Gathered;

/// What to build and how.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// The site root (holds `profilegen.yaml`, `content/`, ...).
    pub root: PathBuf,
    /// The output folder; `<root>/public` when `None`.
    pub output: Option<PathBuf>,
    /// Overrides the configured `base_url`.
    pub base_url: Option<String>,
    /// Fail on any diagnostic, warnings included.
    pub strict: bool,
    /// Write the output (false for `check`).
    pub write: bool,
    /// Show a progress bar on a terminal.
    pub progress: bool,
    /// Render everything, ignoring the build cache (which is still updated).
    pub force: bool,
    /// Build in generations: the output path becomes a symbolic link to a whole build,
    /// switched in one rename (see [`crate::output::generations`]). An output path that
    /// already links to a generation is built so whatever this says.
    pub generations: bool,
}

impl BuildOptions {
    /// Options for building the site at `root` into `<root>/public`.
    pub fn new(root: impl Into<PathBuf>) -> BuildOptions {
        BuildOptions {
            root: root.into(),
            output: None,
            base_url: None,
            strict: false,
            write: true,
            progress: false,
            force: false,
            generations: false,
        }
    }

    /// The output folder.
    pub fn output_dir(&self) -> PathBuf {
        self.output
            .clone()
            .unwrap_or_else(|| self.root.join("public"))
    }

    /// Whether the output is built in generations: when asked to, or when the output
    /// path already links to a generation.
    pub fn in_generations(&self) -> bool {
        self.generations || current_generation(&self.output_dir()).is_some()
    }
}

/// Runs the whole pipeline. On success the output folder holds the new site; on failure
/// nothing was written.
pub fn build(options: &BuildOptions) -> Result<BuildReport, BuildFailure> {
    build_with(options, &mut BuildMemo::default())
}

/// Reads and links the site at `options.root`, without planning or writing anything:
/// its authors and papers, for reports on them (`check --authors`).
pub fn link_site(options: &BuildOptions) -> Result<SiteGraph, BuildFailure> {
    let mut memo = BuildMemo::default();
    let (mut input, mut gathered, _) = load(options, &options.output_dir(), &mut memo, None)?;
    Ok(link(&mut input, &memo, &mut gathered).0)
}

/// [`build`], reusing what the previous build in this process left in `memo` (and
/// leaving this build's work there for the next). The output is the same with or
/// without a memo.
pub fn build_with(
    options: &BuildOptions,
    memo: &mut BuildMemo,
) -> Result<BuildReport, BuildFailure> {
    build_and_report(options, memo, |_| ())
}

/// [`build_with`] for a long-running process, which calls `report` with the outcome as
/// soon as the outputs are written, before the memo is made ready for the next build
/// (the results this build did not use let go: 50 ms at 100,000 papers), so that the
/// outcome is shown that much sooner.
pub fn build_and_report(
    options: &BuildOptions,
    memo: &mut BuildMemo,
    report: impl FnOnce(&Result<BuildReport, BuildFailure>),
) -> Result<BuildReport, BuildFailure> {
    let result = run_build(options, memo);
    report(&result);
    memo.finish_build();
    result
}

/// For a long-running process whose first build found the site unchanged (and so left
/// its stages nothing to reuse: see [`BuildMemo::is_cold`]), runs the whole pipeline
/// once more, so that the first rebuild after a change reuses as much as the ones after
/// it. It writes what a build writes: nothing, while the site is unchanged. (At 100,000
/// papers the first rebuild otherwise took 9.2 s against 3.9 s for the next.)
pub fn warm_up(options: &BuildOptions, memo: &mut BuildMemo) -> Result<BuildReport, BuildFailure> {
    memo.warming = true;
    let result = build_with(options, memo);
    memo.warming = false;
    result
}

/// The pipeline, step by step.
fn run_build(options: &BuildOptions, memo: &mut BuildMemo) -> Result<BuildReport, BuildFailure> {
    let started = Instant::now();
    let timings = Timings::from_env();
    let output = options.output_dir();
    let (mut input, mut gathered, previous, kept_texts) =
        load_and_keep(options, &output, memo, &timings)?;
    let mut previous = previous.finish(inputs_hash(&input), &mut memo.saved);
    let order = previous.order.take();
    let unchanged = previous.unchanged_site(&output).filter(|_| !memo.warming);
    if let Some(cache) = unchanged {
        let diagnostics = Gathered(cache.diagnostics.clone()).sorted_and_strict(options.strict)?;
        timings.mark("unchanged");
        let summary = cache.summary;
        let write = WriteStats {
            unchanged: summary.files,
            ..WriteStats::default()
        };
        previous.give_back(&mut memo.saved);
        memo.saved.order = order;
        let duration = started.elapsed();
        return Ok(BuildReport::new(
            summary,
            write,
            diagnostics.0,
            duration,
            output,
        ));
    }
    memo.ran_pipeline = true;
    let output_check = previous.check_outputs(&output);
    require_records(options, &input, &gathered)?;

    let (mut graph, freeing) = link(&mut input, memo, &mut gathered);
    timings.mark(&link_stage(&graph, memo));
    let mut on_disk = KeptOnDisk::open(options, memo);
    let mut plan = plan(
        &graph,
        &input,
        (&memo.plan, on_disk.earlier_texts.as_ref()),
        previous.history(),
        &mut gathered,
    );
    timings.mark("plan");
    let renderer = Renderer::new(&input.templates)
        .map_err(|d| gathered.fail_because("template error".into(), d))?;
    let static_files = static_files(&input, &plan, &mut gathered);
    let gathered = gathered.sorted_and_strict(options.strict)?;

    let writer = open_writer(options, &output, &gathered)?;
    let kept = KeptOutputs {
        cache: previous.cache.as_deref(),
        files: OutputCheck::finish(output_check),
        order: order.as_ref(),
    };
    let rendering = Rendering {
        renderer: &renderer,
        writer: writer.as_ref(),
        statics: static_files.len(),
        freeing,
        kept: &kept,
        progress: options.progress,
        memo,
    };
    let mut kept_terms = on_disk.search_terms();
    let rendered = rendering
        .render_outputs(&plan, &timings, &mut kept_terms)
        .and_then(|rendered| {
            let mut statics = static_files.iter();
            statics.try_for_each(|(path, bytes)| stage(writer.as_ref(), path, bytes))?;
            Ok(rendered)
        });
    let rendered = rendered.and_then(|rendered| {
        match unreadable_texts(options, &graph, kept_texts.as_ref()) {
            None => Ok(rendered),
            Some(d) => Err(d),
        }
    });
    let (fingerprints, kept, search_outputs, made) = match rendered {
        Ok(rendered) => rendered,
        Err(d) => {
            if let Some(writer) = writer {
                writer.abort();
            }
            return Err(gathered.fail(d));
        }
    };
    let terms = kept_terms.outcome;
    on_disk.finish(terms, (&graph, &input.config, &plan.index.paper_texts));
    plan.outputs.extend(search_outputs);
    let summary = cache::CachedSummary {
        authors: graph.authors.len(),
        papers: graph.papers.len(),
        shared_papers: graph.shared_paper_count(),
        pages: plan
            .outputs
            .iter()
            .filter(|o| matches!(o.kind, OutputKind::Page(_)))
            .count(),
        files: plan.outputs.len() + static_files.len(),
        redirects: plan.index.redirects.len(),
    };
    let redirects = plan.index.slug_history.redirects.clone();
    let built = BuiltOutputs {
        previous,
        fingerprints,
        kept,
        summary,
    };
    let (write, diagnostics) = commit_and_save(
        (plan, made, freeing),
        writer,
        built,
        gathered,
        &mut memo.saved,
    )?;
    timings.mark("write");
    let mut report = BuildReport::new(summary, write, diagnostics, started.elapsed(), output);
    report.redirects = redirects;
    memo.link.keep_papers(&mut graph);
    free_in_background((graph, input, order));
    Ok(report)
}

/// [`load`], taking the record files an earlier one-off build kept, then keeps them
/// for the next ([`keep_records`]); also gives the kept texts the records took, to
/// learn at the end whether reading one back failed. It runs before the cache
/// decision, so that the build of an unchanged site keeps the parsed record files too
/// when the kept ones are missing or another binary's.
fn load_and_keep(
    options: &BuildOptions,
    output: &Path,
    memo: &mut BuildMemo,
    timings: &Timings,
) -> Result<(SiteInput, Gathered, FindingPrevious, Option<KeptTexts>), BuildFailure> {
    let earlier_records = earlier_records(options, memo);
    let (input, gathered, previous) = load(options, output, memo, earlier_records.as_ref())?;
    let parsed = (input.records_parsed, input.records.len());
    timings.mark(&format!(
        "read and parse ({} of {} record files parsed)",
        parsed.0, parsed.1
    ));
    if keep_records(options, memo, &input, earlier_records.is_some()) {
        timings.mark("keep records");
    }
    let kept_texts = earlier_records.map(KeptRecords::into_texts);
    Ok((input, gathered, previous, kept_texts))
}

/// Reads and parses the sources, applies `--base-url`, and refuses an output folder
/// that would overwrite them; finds the last build's cache meanwhile.
fn load(
    options: &BuildOptions,
    output: &Path,
    memo: &mut BuildMemo,
    earlier_records: Option<&KeptRecords>,
) -> Result<(SiteInput, Gathered, FindingPrevious), BuildFailure> {
    let mut previous = PreviousBuild::start_finding(options, output, &mut memo.saved);
    let save_failures = std::mem::take(&mut previous.save_failures);
    // A site whose records an earlier build kept is a large one: the abstracts of the
    // files read now go to a store from the first, as those kept are out of memory.
    let large = earlier_records.is_some();
    let pool = match lean_from_bytes(memo) {
        Some(_) if large => TextPool::storing_from(0, text_store_dir(options)),
        Some(min_bytes) => TextPool::storing_from(min_bytes, text_store_dir(options)),
        None => TextPool::default(),
    };
    let mut input = read_site(&options.root, (&memo.records, earlier_records), pool)
        .map_err(|d| Gathered::default().fail(d))?;
    if large && input.abstracts_store.is_none() {
        // No file was read: the build's own texts (conversions, the search index's
        // scratch file) go out of memory all the same.
        input.abstracts_store = Some(TextStore::in_dir(&text_store_dir(options)));
    }
    let mut gathered = Gathered(std::mem::take(&mut input.diagnostics));
    gathered.0.extend(
        save_failures
            .into_iter()
            .map(|message| Diagnostic::warning(message, None)),
    );
    if let Some(url) = &options.base_url {
        if !(url.starts_with("https://") || url.starts_with("http://")) {
            let d = Diagnostic::error(
                format!("--base-url `{url}` is not an absolute http(s) URL"),
                None,
            );
            return Err(Gathered::default().fail(d));
        }
        input.config.base_url = Some(normalize_base_url(url));
    }
    if options.write {
        check_output_location(&options.root, output).map_err(|d| gathered.fail(d))?;
    }
    Ok((input, gathered, previous))
}

/// The hash of every input file and of the options that shape the output.
fn inputs_hash(input: &SiteInput) -> u64 {
    input.inputs_hash(&output_shape(
        input.config.base_url.as_deref(),
        crate::render::context::reads::OUTPUT_REVISION,
    ))
}

/// What shapes the output besides the input files: the `base_url`, the default theme,
/// and the output `revision` of the code that renders (a site built by code of another
/// revision is not unchanged, even with the same files).
fn output_shape(base_url: Option<&str>, revision: u64) -> String {
    format!(
        "base_url={base_url:?} theme={:016x} revision={revision}",
        crate::render::default_theme_hash()
    )
}

/// A site needs at least one readable record.
fn require_records(
    options: &BuildOptions,
    input: &SiteInput,
    gathered: &Gathered,
) -> Result<(), BuildFailure> {
    if input.records.iter().any(|f| !f.records.is_empty()) {
        return Ok(());
    }
    let d = Diagnostic::error(
        format!(
            "no readable record under {}",
            options.root.join(RECORDS_DIR).display()
        ),
        None,
    )
    .with_note("add author record files (*.txt) to content/records/");
    Err(gathered.fail(d))
}

/// Abstracts that total less than this many bytes stay in memory rather than go to a
/// text store (on a larger site, the abstracts read after this many bytes go to it):
/// a small site saves little memory by it, and each read back of a stored text is a
/// system call (on a 10,000-paper site, 12 MB of abstracts, storing them made a fresh
/// build about 8% slower). `PROFILEGEN_TEXT_STORE_MIN_BYTES` overrides it.
const TEXT_STORE_MIN_BYTES: usize = 64 << 20;

/// [`TEXT_STORE_MIN_BYTES`], or `PROFILEGEN_TEXT_STORE_MIN_BYTES` when that is a number.
fn text_store_min_bytes() -> usize {
    std::env::var("PROFILEGEN_TEXT_STORE_MIN_BYTES")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(TEXT_STORE_MIN_BYTES)
}

/// From how many bytes of distinct abstracts a build with `memo` is a large one-off
/// build, which saves memory at some cost in speed: its abstracts go to a text store as
/// they are read, once they total that much, and the allocator gives freed memory back
/// (see [`link`]). `None` for a long-running process (`serve`, `build --watch`): it
/// keeps the parsed records for its next build anyway, so storing their abstracts
/// would save nothing, write them all again on every rebuild, and leave the records it
/// reuses holding earlier builds' files.
fn lean_from_bytes(memo: &BuildMemo) -> Option<usize> {
    (!memo.is_long_running()).then(text_store_min_bytes)
}

/// Where a build's text store puts its file: the build cache's folder, or the system's
/// temporary folder for `check`, which writes nothing into the site.
fn text_store_dir(options: &BuildOptions) -> PathBuf {
    match options.write {
        true => options.root.join(cache::CACHE_DIR),
        false => std::env::temp_dir(),
    }
}

/// Links the record files into the site graph (and frees them), and decides how the
/// build frees memory from then on ([`Freeing::of`]). In a large one-off build
/// ([`lean_from_bytes`]), whose abstracts reading put in a text store, out of memory,
/// the graph's papers keep theirs there too, and from then on the allocator gives
/// freed memory back to the system ([`memo::give_back_freed_memory_from_now_on`]).
fn link(input: &mut SiteInput, memo: &BuildMemo, gathered: &mut Gathered) -> (SiteGraph, Freeing) {
    let rules = IdentityRules::of_site(&input.config, &input.bios);
    memo.link.hold_files(&input.records);
    let mut graph = link_with(&input.records, &rules, &memo.link);
    let store = input.abstracts_store.take();
    let freeing = Freeing::of(memo, store.is_some());
    if freeing.gives_back() {
        // Before the records are freed, so that their memory goes back too.
        memo::give_back_freed_memory_from_now_on();
    }
    drop(std::mem::take(&mut input.records));
    if let Some(store) = store {
        // The abstracts read before the store was started are still in memory.
        graph.store_texts(store);
    }
    gathered.0.extend(graph.diagnostics.iter().cloned());
    (graph, freeing)
}

/// The link stage's name in timings: whether the abstracts went to a text store's file,
/// or in a long-running process, how many papers were taken from the previous build.
fn link_stage(graph: &SiteGraph, memo: &BuildMemo) -> String {
    if graph.texts.on_disk() {
        "link (stored)".to_string()
    } else if memo.is_long_running() {
        let (taken, lists) = (memo.link.papers_taken(), memo.link.author_lists_taken());
        let (papers, authors) = (graph.papers.len(), graph.authors.len());
        let grouped = match memo.link.buckets_regrouped() {
            Some(buckets) => format!("the records of {buckets} titles and years grouped again"),
            None => "every record grouped".to_string(),
        };
        format!(
            "link ({taken} of {papers} papers, {lists} of {authors} authors' lists taken; {grouped})"
        )
    } else {
        "link".to_string()
    }
}

/// Plans every output of the site, reusing what the previous build in this process
/// left in `memo` or else what an earlier build kept on disk.
fn plan<'a>(
    graph: &'a SiteGraph,
    input: &'a SiteInput,
    (memo, earlier_texts): (&'a PlanMemo, Option<&KeptFile>),
    history: &SlugHistory,
    gathered: &mut Gathered,
) -> SitePlan<'a> {
    let plan = plan_site(&PlanInput {
        graph,
        config: &input.config,
        bios: &input.bios,
        pages: &input.pages,
        memo,
        history,
        earlier_texts,
    });
    gathered.0.extend(plan.diagnostics.iter().cloned());
    plan
}

/// The file in the build cache's folder where a one-off build keeps the site's TeX
/// conversions for the next (see [`keep_conversions`]).
const KEPT_TEXTS_FILE: &str = "texts.kept";

/// The file in the build cache's folder where a one-off build keeps its search index
/// documents' terms for the next (see [`KeptTerms`]).
const KEPT_TERMS_FILE: &str = "search.kept";

/// What a one-off build keeps on disk for the next, in the build cache's folder: the
/// files an earlier build kept, and this build's search terms as they are written.
/// `--force` reads none of them (and keeps them anew).
struct KeptOnDisk {
    identity: String,
    texts_path: PathBuf,
    earlier_texts: Option<KeptFile>,
    terms_path: PathBuf,
    earlier_terms: Option<KeptFile>,
    /// The search terms' file being written; `None` if this build keeps none (a
    /// long-running process, or `check`) or it cannot be written, which costs the next
    /// build only the time the file would have saved.
    keeping_terms: Option<AtomicFile>,
    /// Whether this build keeps its conversions and search terms.
    keeps: bool,
}

impl KeptOnDisk {
    fn open(options: &BuildOptions, memo: &BuildMemo) -> KeptOnDisk {
        let dir = options.root.join(cache::CACHE_DIR);
        let identity = kept_identity();
        let read = |path: &Path| KeptFile::open(path, &identity);
        let (texts_path, terms_path) = (dir.join(KEPT_TEXTS_FILE), dir.join(KEPT_TERMS_FILE));
        let keeps = keeps_on_disk(options, memo);
        let keeping_terms = keeps.then(|| {
            let _ = fs::create_dir_all(&dir);
            AtomicFile::create(&terms_path).ok()
        });
        KeptOnDisk {
            earlier_texts: (!options.force).then(|| read(&texts_path)).flatten(),
            // A long-running process keeps its terms in memory from its first build on.
            earlier_terms: (!options.force && (!memo.is_long_running() || memo.is_cold()))
                .then(|| read(&terms_path))
                .flatten(),
            keeping_terms: keeping_terms.flatten(),
            identity,
            texts_path,
            terms_path,
            keeps,
        }
    }

    /// What the search index reads and keeps.
    fn search_terms(&mut self) -> KeptTerms<'_> {
        KeptTerms {
            earlier: self.earlier_terms.as_ref(),
            keep: (self.keeping_terms.as_mut())
                .map(|file| (file as &mut (dyn Write + Send), self.identity.as_str())),
            outcome: TermsKept::Nothing,
        }
    }

    /// Puts the search terms' file in place if it was written whole, leaves the
    /// earlier one if it still serves, else removes that (so that the next build does
    /// not read a file that no longer has what this one would have kept); and keeps the
    /// site's conversions.
    fn finish(
        self,
        terms: TermsKept,
        (graph, config, texts): (&SiteGraph, &crate::config::SiteConfig, &[Arc<PaperText>]),
    ) {
        if let Some(file) = self.keeping_terms {
            let in_place = match terms {
                TermsKept::EarlierServes => true,
                TermsKept::Written => file.commit().is_ok(),
                TermsKept::Nothing => false,
            };
            if !in_place {
                let _ = fs::remove_file(&self.terms_path);
            }
        }
        if self.keeps {
            let kept = (self.texts_path.as_path(), self.earlier_texts.as_ref());
            keep_conversions(kept, &self.identity, graph, config, texts);
        }
    }
}

/// The error that fails a build when a stored text could not be read back: from the
/// build's own text store, or from the records an earlier build kept (which are then
/// removed, so that the next build reads the record files and keeps them anew).
fn unreadable_texts(
    options: &BuildOptions,
    graph: &SiteGraph,
    kept_texts: Option<&KeptTexts>,
) -> Option<Diagnostic> {
    if let Some(message) = graph.texts.failure() {
        return Some(Diagnostic::error(message, None));
    }
    let message = kept_texts?.failure()?;
    let _ = fs::remove_file(kept_records_path(options));
    Some(Diagnostic::error(message, None))
}

/// Whether a build keeps work on disk for the next (`.profilegen/*.kept`): a one-off
/// build that writes the site. A long-running process keeps its work in memory, and
/// `check` writes nothing into the site.
fn keeps_on_disk(options: &BuildOptions, memo: &BuildMemo) -> bool {
    options.write && !memo.is_long_running()
}

/// Where a one-off build keeps the site's parsed record files ([`crate::sources::kept`]).
fn kept_records_path(options: &BuildOptions) -> PathBuf {
    options.root.join(cache::CACHE_DIR).join(KEPT_RECORDS_FILE)
}

/// The parsed record files an earlier one-off build kept, for this one-off build to
/// take instead of reading them (none for a long-running process, which keeps its own
/// in memory, for `check`, or with `--force`).
fn earlier_records(options: &BuildOptions, memo: &BuildMemo) -> Option<KeptRecords> {
    let reads = keeps_on_disk(options, memo) && !options.force;
    reads
        .then(|| KeptRecords::open(&kept_records_path(options), &kept_identity()))
        .flatten()
}

/// Keeps the site's parsed record files on disk for the next one-off build, when the
/// site is large (its abstracts went to a text store, or an earlier build kept its
/// records) and this build had to read more than a few of them
/// ([`kept::worth_rewriting`]; otherwise the earlier file still serves, and the next
/// build reads those few again). Written beside the earlier file and renamed over it:
/// the texts this build took from that file are read from the file it opened. A file
/// that cannot be written costs the next build only the time it would have saved.
///
/// Returns whether it wrote the file (or tried to).
fn keep_records(
    options: &BuildOptions,
    memo: &BuildMemo,
    input: &SiteInput,
    earlier: bool,
) -> bool {
    let keeps = keeps_on_disk(options, memo);
    let large = earlier || input.abstracts_store.is_some();
    if !keeps || !large || !kept::worth_rewriting(input.records_parsed, input.records.len()) {
        return false;
    }
    let files: Vec<kept::Keepable> = (input.records.iter().zip(&input.record_stamps))
        .filter_map(|(file, stamp)| stamp.map(|(stamp, hash)| (stamp, hash, Arc::clone(file))))
        .collect();
    if files.is_empty() {
        return false;
    }
    let path = kept_records_path(options);
    let _ = fs::create_dir_all(options.root.join(cache::CACHE_DIR));
    let identity = kept_identity();
    let written = write_atomically_with(&path, |out| kept::write_kept(out, &identity, &files));
    if written.is_err() {
        let _ = fs::remove_file(&path);
    }
    true
}

/// What wrote a kept file: this profilegen's version and binary (its size and
/// modification time), so that a file another build of the code wrote is not read.
fn kept_identity() -> String {
    let binary = std::env::current_exe().and_then(fs::metadata).ok();
    let modified = binary.as_ref().and_then(|m| m.modified().ok());
    let since_epoch = modified.and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
    format!(
        "profilegen {} binary {:?} {:?}",
        env!("CARGO_PKG_VERSION"),
        binary.map(|m| m.len()),
        since_epoch.map(|d| d.as_nanos())
    )
}

/// Keeps the site's TeX conversions (`texts`, by paper) on disk at `path` for the next
/// build, unless the file an earlier build kept there still holds nearly all of them
/// ([`KeptFile::still_serves`]: the next build converts the few others again). Only a
/// one-off build writes it: a long-running process keeps its conversions in memory, and
/// writing them on every rebuild would cost each rebuild the time. A file that cannot be
/// written costs the next build only the time it would have saved, so that is not an
/// error.
fn keep_conversions(
    (path, earlier): (&Path, Option<&KeptFile>),
    identity: &str,
    graph: &SiteGraph,
    config: &crate::config::SiteConfig,
    texts: &[Arc<PaperText>],
) {
    let keys = kept_conversion_keys(graph, config, texts);
    if earlier.is_some_and(|kept| kept.still_serves(&keys)) {
        return;
    }
    let conversions = conversions_to_keep(graph, config, texts);
    let _ = path.parent().map(fs::create_dir_all);
    let _ = write_atomically_with(path, |out| KeptFile::write_to(out, identity, conversions));
}

/// The files written as they are: the site's own static files, then the theme's of
/// the same name; never one that a generated output has the path of.
fn static_files<'i>(
    input: &'i SiteInput,
    plan: &SitePlan,
    gathered: &mut Gathered,
) -> Vec<(&'i str, &'i [u8])> {
    let site_files = input.static_files.iter();
    let mut static_paths = HashSet::new();
    let candidates: Vec<(&str, &[u8])> = site_files
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .chain(DEFAULT_STATIC.iter().copied())
        .filter(|(path, _)| is_safe_relative_path(path) && static_paths.insert(*path))
        .collect();
    // The few static paths looked for among the outputs, rather than a set made of
    // every output's: a set of a million paths at 500,000 papers, 0.19 s of processor
    // time on one thread in every rebuild.
    let precompress = plan.index.config.precompress;
    let generated: HashSet<&str> = (plan.outputs.par_iter())
        .map(|p| precompress.served_path(&p.path))
        .filter(|path| static_paths.contains(path))
        .collect();
    let generated =
        |path: &str| generated.contains(path) || crate::search::is_search_index_path(path);
    let mut files = Vec::new();
    for (path, bytes) in candidates {
        if generated(path) {
            gathered.0.push(Diagnostic::warning(
                format!(
                    "static/{path} has the same path as a generated file; the generated file wins"
                ),
                None,
            ));
            continue;
        }
        files.push((path, bytes));
    }
    files
}

/// The output writer, for a build that writes.
fn open_writer(
    options: &BuildOptions,
    output: &Path,
    gathered: &Gathered,
) -> Result<Option<OutputWriter>, BuildFailure> {
    if !options.write {
        return Ok(None);
    }
    let writer = if options.in_generations() {
        OutputWriter::open_next_generation(output)
    } else {
        OutputWriter::open(output)
    };
    writer.map(Some).map_err(|err| {
        gathered.fail_because(err.to_string(), Diagnostic::error(err.to_string(), None))
    })
}

/// Stages one file with `writer` (nothing, for a build that does not write).
fn stage(writer: Option<&OutputWriter>, path: &str, bytes: &[u8]) -> Result<(), Diagnostic> {
    match writer {
        Some(writer) => writer
            .stage(path, bytes)
            .map(|_| ())
            .map_err(|err| Diagnostic::error(err.to_string(), None)),
        None => Ok(()),
    }
}

/// What rendering needs: the renderer, where to stage, and which outputs to keep.
struct Rendering<'r> {
    renderer: &'r Renderer,
    writer: Option<&'r OutputWriter>,
    /// How many static files the build writes besides the outputs.
    statics: usize,
    /// How the build frees memory: whether it gives back what the search index took
    /// once it is gone ([`Freeing::gives_back`]).
    freeing: Freeing,
    kept: &'r KeptOutputs<'r>,
    progress: bool,
    memo: &'r BuildMemo,
}

/// Each output's fingerprint and whether it was kept, the search index's outputs, and
/// what was made for the outputs (to be freed later).
type Rendered = (Vec<Fingerprinted>, Vec<bool>, Vec<PlannedOutput>, MadeParts);

impl Rendering<'_> {
    /// Renders and stages every output that is not kept as it is: first the search
    /// index (built, staged and freed, so that its files and the pages never take memory
    /// at once), then everything else. The plan's outputs are fingerprinted while the
    /// search index is built, whose postings are sorted on one thread. Returns each
    /// output's fingerprint and whether it was kept, and the search index's outputs
    /// (which come after the plan's).
    fn render_outputs(
        &self,
        plan: &SitePlan,
        timings: &Timings,
        kept_terms: &mut KeptTerms,
    ) -> Result<Rendered, Diagnostic> {
        let mut maker = OutputMaker::new(&plan.index, &self.memo.render);
        maker.hash_entities();
        let (search, (plan_last, plan_fingerprints)) = rayon::join(
            || maker.prepare_search(&self.memo.search, kept_terms),
            || self.fingerprints(&plan.outputs, &maker),
        );
        let search_outputs = search_outputs(search.files(), plan.index.config.precompress);
        let search_stage = match search.patched() {
            Some(changed) => format!("search index ({changed} documents patched in)"),
            None => "search index".to_string(),
        };
        let (search_last, search_fingerprints) = self.fingerprints(&search_outputs, &maker);
        let (search_kept, rendered) = self.render_range(
            (&search_outputs, &search_fingerprints, &search_last),
            &maker,
            &ProgressBar::hidden(),
            0,
        );
        rendered?;
        maker.forget_search();
        if self.freeing.gives_back() {
            // The search index is gone: what it took goes back before every thread
            // renders pages.
            memo::give_back_freed_memory();
        }
        timings.mark(&search_stage);
        let progress = progress_bar(self.progress, plan.outputs.len() as u64);
        let outputs = (&plan.outputs[..], &plan_fingerprints[..], &plan_last[..]);
        let (mut kept, rendered) = self.render_range(outputs, &maker, &progress, self.statics);
        rendered?;
        timings.mark("render");
        let mut fingerprints = plan_fingerprints;
        fingerprints.extend(search_fingerprints);
        kept.extend(search_kept);
        Ok((fingerprints, kept, search_outputs, maker.finish()))
    }

    /// What the last build recorded for each of `outputs` ([`KeptOutputs::last`]), and
    /// each one's fingerprint, found by that when it can be.
    fn fingerprints(
        &self,
        outputs: &[PlannedOutput],
        maker: &OutputMaker,
    ) -> (Vec<Option<Fingerprinted>>, Vec<Fingerprinted>) {
        let templates = self.renderer.template_hashes();
        let last = self.kept.last(outputs, self.writer.is_some());
        let fingerprints = (outputs.par_iter().zip(&last))
            .map(|(o, &last)| maker.fingerprint_after(&o.path, &o.kind, &templates, last))
            .collect();
        (last, fingerprints)
    }

    /// Renders and stages those of `outputs` (with their `fingerprints` and what the
    /// last build recorded for them) that are not kept; whether each was kept. The
    /// writer makes room for those and for `staged_after` more files.
    fn render_range(
        &self,
        (outputs, fingerprints, last): (
            &[PlannedOutput],
            &[Fingerprinted],
            &[Option<Fingerprinted>],
        ),
        maker: &OutputMaker,
        progress: &ProgressBar,
        staged_after: usize,
    ) -> (Vec<bool>, Result<(), Diagnostic>) {
        let kept = self.kept.mark(outputs, fingerprints, last);
        if let Some(writer) = self.writer {
            writer.expect_files(kept.iter().filter(|&&k| !k).count() + staged_after);
        }
        let wanted = |i: usize| !kept[i];
        let rendered = self
            .renderer
            .render_each(outputs, maker, progress, wanted, |file| {
                stage(self.writer, &file.path, &file.bytes)
            });
        (kept, rendered)
    }
}

/// What the cache of a finished build records, besides the outputs' file states.
struct BuiltOutputs {
    previous: PreviousBuild,
    fingerprints: Vec<Fingerprinted>,
    kept: Vec<bool>,
    summary: cache::CachedSummary,
}

/// How a build frees its plan when it commits (see [`commit_and_save`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Freeing {
    /// On another thread while the output is committed: a long-running process, whose
    /// rebuild would wait tens of milliseconds for the many small pieces of a large
    /// site's plan, and which keeps freed memory for the next rebuild anyway.
    Beside,
    /// Before the commit: a small one-off build.
    First,
    /// Before the commit, then the allocator gives back what the plan and rendering
    /// freed ([`memo::give_back_freed_memory`]), as it gives back the search index's
    /// before rendering: a large one-off build (one whose abstracts went to a text
    /// store, see [`link`]). The commit's tables of every output (the files' states, the
    /// build cache's entries) would otherwise take new memory while the freed pieces sit
    /// in pages other objects still use: at 500,000 papers a first build's memory went
    /// from 2.00 GB in rendering to a peak of 2.27 GB at the commit; with this it falls
    /// to 1.26 GB there, and rendering holds 1.48-1.54 GB.
    FirstGivingBack,
}

impl Freeing {
    /// How a build with `memo` frees memory: `stored` tells whether reading put the
    /// abstracts in a text store, which only a large one-off build does.
    fn of(memo: &BuildMemo, stored: bool) -> Freeing {
        match (memo.is_long_running(), stored) {
            (true, _) => Freeing::Beside,
            (false, false) => Freeing::First,
            (false, true) => Freeing::FirstGivingBack,
        }
    }

    /// Whether the allocator gives freed memory back to the system: from linking on,
    /// and at once after the search index and the plan are freed.
    fn gives_back(self) -> bool {
        self == Freeing::FirstGivingBack
    }
}

/// Commits the staged output and saves the build cache (in the background for a
/// long-running process), freeing the plan and what was made for its outputs as
/// `freeing` says.
fn commit_and_save(
    (mut plan, made, freeing): (SitePlan, MadeParts, Freeing),
    writer: Option<OutputWriter>,
    mut built: BuiltOutputs,
    mut gathered: Gathered,
    saved: &mut SavedCache,
) -> Result<(WriteStats, Vec<Diagnostic>), BuildFailure> {
    let planned = std::mem::take(&mut plan.outputs);
    let history = std::mem::take(&mut plan.index.slug_history);
    let free_plan = move || drop((plan, made));
    let (mut without_entry, mut cache_saved) = (Vec::new(), false);
    let commit = || -> Result<WriteStats, BuildFailure> {
        let Some(writer) = writer else {
            return Ok(WriteStats::default());
        };
        let kept_paths: Vec<&str> = (planned.iter().zip(&built.kept))
            .filter(|(_, &kept)| kept)
            .map(|(o, _)| o.path.as_str())
            .collect();
        let committed = writer.commit(&kept_paths).map_err(|err| {
            gathered.fail_because(err.to_string(), Diagnostic::error(err.to_string(), None))
        })?;
        let write = committed.stats;
        // Saves that failed since the last build are reported with this one. A save
        // under way holds the cache taken below, which is then updated in place.
        let failures = saved.wait().into_iter();
        (gathered.0).extend(failures.map(|message| Diagnostic::warning(message, None)));
        let outputs;
        (outputs, without_entry) = updated_outputs(
            built.previous.cache.take(),
            &planned,
            &built.fingerprints,
            &built.kept,
            committed.states,
            &committed.stale,
        );
        let new_cache = Arc::new(cache::BuildCache {
            version: env!("CARGO_PKG_VERSION").to_string(),
            inputs: built.previous.inputs_hash,
            summary: built.summary,
            diagnostics: gathered.0.clone(),
            outputs,
            history,
        });
        match saved.save(built.previous.cache_path.clone(), new_cache) {
            Some(message) => gathered.0.push(Diagnostic::warning(message, None)),
            None => cache_saved = true,
        }
        Ok(write)
    };
    let write = match freeing {
        Freeing::Beside => rayon::join(free_plan, commit).1,
        Freeing::First => {
            free_plan();
            commit()
        }
        Freeing::FirstGivingBack => {
            free_plan();
            memo::give_back_freed_memory();
            commit()
        }
    };
    let write = write?;
    // The order goes with the cache just saved, which the memo keeps.
    if saved.keeps_order && cache_saved {
        saved.order = Some(OutputOrder::new(
            planned,
            &built.fingerprints,
            &without_entry,
        ));
    }
    Ok((write, gathered.0))
}

/// Per-stage wall times on stderr when `PROFILEGEN_TIMINGS` is set, for benchmarking,
/// each with the processor time the process spent meanwhile (on every thread: a stage
/// that keeps both cores busy shows about twice its wall time).
struct Timings {
    last: Option<std::cell::Cell<(Instant, Duration)>>,
}

impl Timings {
    fn from_env() -> Timings {
        Timings {
            last: std::env::var_os("PROFILEGEN_TIMINGS")
                .map(|_| std::cell::Cell::new((Instant::now(), processor_time()))),
        }
    }

    fn mark(&self, stage: &str) {
        if let Some(last) = &self.last {
            let (now, processor) = (Instant::now(), processor_time());
            let (then, processor_then) = last.get();
            eprintln!(
                "timing: {stage:<15} {:>7.1} ms, processor {:>7.1} ms{}",
                (now - then).as_secs_f64() * 1000.0,
                processor.saturating_sub(processor_then).as_secs_f64() * 1000.0,
                memory_in_use()
            );
            last.set((now, processor));
        }
    }
}

/// The user and system time the process has used so far, on every thread (zero where
/// `getrusage` fails or is not the system's).
fn processor_time() -> Duration {
    #[cfg(unix)]
    {
        // SAFETY: `getrusage` fills the zeroed struct it is given and keeps no pointer
        // to it.
        let usage = unsafe {
            let mut usage: libc::rusage = std::mem::zeroed();
            (libc::getrusage(libc::RUSAGE_SELF, &mut usage) == 0).then_some(usage)
        };
        // `time_t` and `suseconds_t` are not `i64` on every system.
        #[allow(clippy::useless_conversion)]
        let of = |t: libc::timeval| {
            let micros = i64::from(t.tv_sec) * 1_000_000 + i64::from(t.tv_usec);
            Duration::from_micros(micros.max(0) as u64)
        };
        if let Some(usage) = usage {
            return of(usage.ru_utime) + of(usage.ru_stime);
        }
    }
    Duration::ZERO
}

/// The process's resident memory now and at its peak, as `/proc/self/status` gives it
/// on Linux (empty elsewhere): what `PROFILEGEN_TIMINGS` prints after each stage.
fn memory_in_use() -> String {
    let status = fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        let line = status.lines().find(|l| l.starts_with(name))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb / 1024)
    };
    match (field("VmRSS:"), field("VmHWM:")) {
        (Some(now), Some(peak)) => format!(", {now:>6} MB resident, peak {peak} MB"),
        _ => String::new(),
    }
}

/// A progress bar for rendering, on a terminal and for large sites only.
fn progress_bar(enabled: bool, len: u64) -> ProgressBar {
    if !enabled || len < 2000 {
        return ProgressBar::hidden();
    }
    // indicatif draws nothing when stderr is not a terminal.
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("Rendering {bar:40} {pos}/{len} pages") {
        bar.set_style(style);
    }
    bar
}

/// Refuses output folders that would overwrite the site's own sources.
fn check_output_location(root: &Path, output: &Path) -> Result<(), Diagnostic> {
    let canonical_root = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let canonical_output = match fs::canonicalize(output) {
        Ok(path) => path,
        Err(_) => {
            let parent = output
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            match fs::canonicalize(parent) {
                Ok(p) => p.join(output.file_name().unwrap_or_default()),
                Err(_) => return Ok(()),
            }
        }
    };
    let protected = [
        canonical_root.clone(),
        canonical_root.join("content"),
        canonical_root.join(TEMPLATES_DIR),
        canonical_root.join(STATIC_DIR),
    ];
    let clash = protected.iter().any(|p| {
        p.starts_with(&canonical_output) || canonical_output.starts_with(p) && p != &canonical_root
    });
    if clash || canonical_output == canonical_root {
        return Err(Diagnostic::error(
            format!(
                "output folder {} would overwrite the site's sources",
                output.display()
            ),
            None,
        )
        .with_note(
            "choose an output folder outside content/, templates/ and static/, such as public/",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_output_revision_and_base_url_shape_the_output() {
        let shape = output_shape(None, 4);
        assert_ne!(shape, output_shape(None, 5), "another revision");
        assert_ne!(shape, output_shape(Some("https://lab.example/"), 4));
        assert_eq!(shape, output_shape(None, 4));
    }

    #[test]
    fn only_one_off_builds_build_lean() {
        let one_off = BuildMemo::default();
        assert_eq!(lean_from_bytes(&one_off), Some(text_store_min_bytes()));
        // `serve` and `build --watch` keep the parsed records' abstracts anyway.
        assert_eq!(lean_from_bytes(&BuildMemo::long_running()), None);
    }

    /// A site in a temporary folder with the first `count` record files of the example
    /// site, and its records folder.
    fn site_with_example_records(count: usize) -> (tempfile::TempDir, PathBuf) {
        let site = tempfile::tempdir().unwrap();
        let records = site.path().join("content/records");
        fs::create_dir_all(&records).unwrap();
        let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("content/records");
        for entry in fs::read_dir(example).unwrap().take(count) {
            let path = entry.unwrap().path();
            fs::copy(&path, records.join(path.file_name().unwrap())).unwrap();
        }
        (site, records)
    }

    /// A long-running process is told each build's outcome once, before the memo lets go
    /// of what the build did not use, and the memo is then ready for the next build as
    /// after [`build_with`]: it reuses the parsed files.
    #[test]
    fn a_reported_build_leaves_its_work_to_the_next() {
        let (site, records) = site_with_example_records(2);
        let options = BuildOptions::new(site.path());
        let mut memo = BuildMemo::long_running();
        let mut outcomes = Vec::new();
        let report = |outcome: &Result<BuildReport, BuildFailure>| {
            outcomes.push(outcome.as_ref().map(|r| r.write.written).ok());
        };
        let returned = build_and_report(&options, &mut memo, report);
        assert!(
            matches!(outcomes[..], [Some(written)] if written > 10),
            "{outcomes:?}"
        );
        assert_eq!(returned.map(|r| r.write.written).ok(), outcomes[0]);
        assert!(!memo.is_cold(), "the whole pipeline ran");
        assert_eq!(memo.records.parsed.len(), 2, "the parsed files are kept");

        // A new file: the next build is reported too, and reuses the two parsed files.
        let first = records.read_dir().unwrap().next().unwrap().unwrap().path();
        let text = fs::read_to_string(first).unwrap();
        let name = text.split("\n\n").nth(1).unwrap();
        fs::write(
            records.join("zz_new.txt"),
            text.replace(name, "A. Newcomer"),
        )
        .unwrap();
        let mut next = None;
        let _ = build_and_report(&options, &mut memo, |outcome| {
            next = Some(outcome.as_ref().map(|r| r.write.written).ok());
        });
        assert!(
            matches!(next, Some(Some(written)) if written > 0),
            "{next:?}"
        );
        assert_eq!(memo.records.parsed.len(), 3, "two reused, one new");

        // The file goes again: the report comes while the memo still holds its parsed
        // copy, which is let go only after the report (the tidying the report does not
        // wait for).
        let held: Vec<std::sync::Weak<_>> =
            (memo.records.parsed.values()).map(Arc::downgrade).collect();
        let alive = || held.iter().filter(|w| w.upgrade().is_some()).count();
        fs::remove_file(records.join("zz_new.txt")).unwrap();
        let mut alive_at_report = None;
        let _ = build_and_report(&options, &mut memo, |_| alive_at_report = Some(alive()));
        assert_eq!(alive_at_report, Some(3), "reported before the memo let go");
        assert_eq!(alive(), 2, "then the removed file's copy was let go");
    }

    /// A one-off build keeps its conversions and search terms; the next one-off build
    /// reads them, and `--force` reads neither (whatever they hold) but keeps them anew.
    #[test]
    fn force_reads_no_kept_file_and_keeps_them_again() {
        let (site, _) = site_with_example_records(3);
        let options = BuildOptions::new(site.path());
        build(&options).expect("the first build");
        let kept_dir = site.path().join(cache::CACHE_DIR);
        let terms = kept_entries(&kept_dir.join(KEPT_TERMS_FILE));
        assert!(terms.len() > 10, "search terms kept: {}", terms.len());
        assert!(kept_dir.join(KEPT_TEXTS_FILE).exists());

        let memo = BuildMemo::default();
        let next = KeptOnDisk::open(&BuildOptions::new(site.path()), &memo);
        assert!(next.earlier_terms.is_some() && next.earlier_texts.is_some());
        drop(next);
        let forced_options = BuildOptions {
            force: true,
            ..BuildOptions::new(site.path())
        };
        let forced = KeptOnDisk::open(&forced_options, &memo);
        assert!(forced.earlier_terms.is_none() && forced.earlier_texts.is_none());
        assert!(forced.keeps && forced.keeping_terms.is_some());
        drop(forced);

        // A forced build over a damaged terms file succeeds and keeps the same terms
        // again (the terms' numbers, and the blobs' order, follow the threads that made them).
        fs::write(kept_dir.join(KEPT_TERMS_FILE), b"PGKEPT1\ndamaged").unwrap();
        build(&forced_options).expect("the forced build");
        assert_eq!(kept_entries(&kept_dir.join(KEPT_TERMS_FILE)), terms);
    }

    /// Every document's search terms in the kept file at `path`, which this binary wrote.
    fn kept_entries(path: &Path) -> Vec<(u64, crate::search::KeptWords)> {
        let kept = KeptFile::open(path, &kept_identity()).expect("a whole kept file");
        crate::search::kept_words_by_key(&kept).expect("a whole term table and blobs")
    }
}
