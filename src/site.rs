//! The build pipeline, as `build` and `check` run it:
//! load configuration -> read and parse record files -> read bios and pages -> link ->
//! plan -> render -> collect static files -> write.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use crate::cache;
use crate::config::{normalize_base_url, parse_config, SiteConfig, CONFIG_FILE};
use crate::content::{parse_bio, parse_page, Bio, ExtraPage};
use crate::diagnostics::{Diagnostic, Location, Severity};
use crate::graph::link_with;
use crate::memo::{BuildMemo, Reuse};
use crate::output::{Committed, OutputWriter, WriteStats};
use crate::plan::{content_hash, plan_site, PlanInput, PlannedFile};
use crate::records::{parse_record_file, RecordFile};
use crate::render::{read_template_overrides, Renderer, DEFAULT_STATIC};
use crate::slug::slugify;

/// Where a site's parts live, relative to its root.
pub const RECORDS_DIR: &str = "content/records";
/// Author bios.
pub const AUTHORS_DIR: &str = "content/authors";
/// Extra pages.
pub const PAGES_DIR: &str = "content/pages";
/// Template overrides.
pub const TEMPLATES_DIR: &str = "templates";
/// Static files copied as they are.
pub const STATIC_DIR: &str = "static";

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
        }
    }

    /// The output folder.
    pub fn output_dir(&self) -> PathBuf {
        self.output
            .clone()
            .unwrap_or_else(|| self.root.join("public"))
    }
}

/// What a successful build did.
#[derive(Debug)]
pub struct BuildReport {
    /// Number of authors.
    pub authors: usize,
    /// Number of papers.
    pub papers: usize,
    /// Papers listed by several authors.
    pub shared_papers: usize,
    /// HTML pages rendered.
    pub pages: usize,
    /// Output files in all (pages, data, static).
    pub files: usize,
    /// What writing did (all zero for `check`).
    pub write: WriteStats,
    /// Every diagnostic, in a stable order.
    pub diagnostics: Vec<Diagnostic>,
    /// Wall time.
    pub duration: Duration,
    /// The output folder.
    pub output: PathBuf,
}

impl BuildReport {
    /// The one-line summary printed at the end of a build.
    pub fn summary(&self, verb: &str) -> String {
        let (warnings, errors) = crate::diagnostics::count(&self.diagnostics);
        let mut line = format!(
            "{verb} {} author{}, {} paper{} ({} shared by several authors), {} pages",
            self.authors,
            plural(self.authors),
            self.papers,
            plural(self.papers),
            self.shared_papers,
            self.pages,
        );
        if verb == "Built" {
            line.push_str(&format!(
                "; {} file{} written, {} unchanged, {} removed",
                self.write.written,
                plural(self.write.written),
                self.write.unchanged,
                self.write.removed
            ));
        }
        line.push_str(&format!(
            "; {warnings} warning{}, {errors} error{} in {} ms",
            plural(warnings),
            plural(errors),
            self.duration.as_millis()
        ));
        line
    }
}

/// Why a build wrote nothing.
#[derive(Debug)]
pub struct BuildFailure {
    /// One line: what failed.
    pub reason: String,
    /// Every diagnostic gathered, the fatal ones included.
    pub diagnostics: Vec<Diagnostic>,
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Everything read from a site root, before linking.
#[derive(Debug, Default)]
pub struct SiteInput {
    /// Configuration.
    pub config: SiteConfig,
    /// Parsed record files (the readable ones).
    pub records: Vec<Arc<RecordFile>>,
    /// Author bios.
    pub bios: Vec<Bio>,
    /// Extra pages.
    pub pages: Vec<ExtraPage>,
    /// Template overrides from the site's `templates/`.
    pub templates: Vec<(String, String)>,
    /// Static files from the site's `static/`: `(relative path, bytes)`.
    pub static_files: Vec<(String, Vec<u8>)>,
    /// Diagnostics from reading and parsing.
    pub diagnostics: Vec<Diagnostic>,
    /// `(path relative to the root, hash of its bytes)` of every input file read.
    pub file_hashes: Vec<(String, u64)>,
}

impl SiteInput {
    /// One hash of every input file and of `extra` (options that shape the output).
    pub fn inputs_hash(&self, extra: &str) -> u64 {
        let mut hashes: Vec<&(String, u64)> = self.file_hashes.iter().collect();
        hashes.sort();
        let mut bytes = Vec::with_capacity(hashes.len() * 48 + extra.len());
        bytes.extend_from_slice(env!("CARGO_PKG_VERSION").as_bytes());
        bytes.push(0);
        bytes.extend_from_slice(extra.as_bytes());
        for (path, hash) in hashes {
            bytes.push(0);
            bytes.extend_from_slice(path.as_bytes());
            bytes.extend_from_slice(&hash.to_le_bytes());
        }
        content_hash(&bytes)
    }
}

/// Runs the whole pipeline. On success the output folder holds the new site; on failure
/// nothing was written.
pub fn build(options: &BuildOptions) -> Result<BuildReport, BuildFailure> {
    build_with(options, &mut BuildMemo::default())
}

/// [`build`], reusing what the previous build in this process left in `memo` (and
/// leaving this build's work there for the next). The output is the same with or
/// without a memo.
pub fn build_with(
    options: &BuildOptions,
    memo: &mut BuildMemo,
) -> Result<BuildReport, BuildFailure> {
    let result = run_build(options, memo);
    memo.finish_build();
    result
}

fn run_build(options: &BuildOptions, memo: &mut BuildMemo) -> Result<BuildReport, BuildFailure> {
    let started = Instant::now();
    let output = options.output_dir();
    let fail = |reason: String, diagnostics: Vec<Diagnostic>| BuildFailure {
        reason,
        diagnostics,
    };

    let timings = Timings::from_env();
    let save_failure = memo.wait_for_save();
    let mut input =
        read_site(&options.root, &memo.records).map_err(|d| fail(d.message.clone(), vec![d]))?;
    input
        .diagnostics
        .extend(save_failure.map(|message| Diagnostic::warning(message, None)));
    timings.mark("read and parse");
    if let Some(url) = &options.base_url {
        if !(url.starts_with("https://") || url.starts_with("http://")) {
            let d = Diagnostic::error(
                format!("--base-url `{url}` is not an absolute http(s) URL"),
                None,
            );
            return Err(fail(d.message.clone(), vec![d]));
        }
        input.config.base_url = Some(normalize_base_url(url));
    }
    if options.write {
        check_output_location(&options.root, &output).map_err(|d| {
            let mut diagnostics = std::mem::take(&mut input.diagnostics);
            diagnostics.push(d.clone());
            fail(d.message, diagnostics)
        })?;
    }
    // Nothing changed since the last build into this folder: nothing to do.
    let inputs_hash = input.inputs_hash(&format!(
        "base_url={:?} theme={:016x}",
        input.config.base_url,
        crate::render::default_theme_hash()
    ));
    let cache_path = cache::cache_file(&options.root, &output);
    // A cache this process saved is trusted to describe the output folder (so long as
    // the folder's manifest is still there): files changed by hand while a long-running
    // build runs are repaired by the next one-off build, which checks every file.
    let mut trusted = false;
    let cache = if options.write && !options.force {
        match memo.cache.take() {
            Some((path, cache)) if path == cache_path => {
                trusted = output.join(crate::output::MANIFEST).is_file();
                Some(cache)
            }
            _ => cache::load(&cache_path).map(Arc::new),
        }
    } else {
        None
    };
    if let Some(cache) = &cache {
        if cache.inputs == inputs_hash && outputs_intact(&output, cache) {
            let diagnostics = sorted_and_strict(options.strict, cache.diagnostics.clone())?;
            timings.mark("unchanged");
            let summary = cache.summary;
            memo.cache = Some((cache_path, Arc::clone(cache)));
            return Ok(BuildReport {
                authors: summary.authors,
                papers: summary.papers,
                shared_papers: summary.shared_papers,
                pages: summary.pages,
                files: summary.files,
                write: WriteStats {
                    written: 0,
                    unchanged: summary.files,
                    removed: 0,
                },
                diagnostics,
                duration: started.elapsed(),
                output,
            });
        }
    }

    // Which outputs are still as the last build left them: checked on another thread
    // while the sources are linked and planned.
    let intact_check = cache.as_ref().filter(|_| !trusted).map(|cache| {
        let (cache, output) = (Arc::clone(cache), output.clone());
        std::thread::spawn(move || intact_outputs(&output, &cache))
    });

    let mut diagnostics = std::mem::take(&mut input.diagnostics);
    if input.records.iter().all(|f| f.records.is_empty()) {
        let d = Diagnostic::error(
            format!(
                "no readable record under {}",
                options.root.join(RECORDS_DIR).display()
            ),
            None,
        )
        .with_note("add author record files (*.txt) to content/records/");
        diagnostics.push(d.clone());
        return Err(fail(d.message, diagnostics));
    }

    let graph = link_with(&input.records, &memo.link);
    drop(std::mem::take(&mut input.records));
    diagnostics.extend(graph.diagnostics.iter().cloned());
    timings.mark("link");
    let mut plan = plan_site(&PlanInput {
        graph: &graph,
        config: &input.config,
        bios: &input.bios,
        pages: &input.pages,
        memo: &memo.plan,
    });
    diagnostics.extend(plan.diagnostics.iter().cloned());
    timings.mark("plan");

    let renderer = Renderer::new(&input.templates).map_err(|d| {
        let mut all = diagnostics.clone();
        all.push(d.clone());
        fail("template error".into(), all)
    })?;

    // Files written as they are: data files, then static files (the site's own first,
    // overriding the theme's of the same name; never a generated page).
    let generated: HashSet<&str> = plan.outputs.iter().map(|p| p.path.as_str()).collect();
    let generated =
        |path: &str| generated.contains(path) || crate::plan::is_search_index_path(path);
    let mut files: Vec<PlannedFile> = Vec::new();
    let mut static_paths = HashSet::new();
    for (path, bytes) in input
        .static_files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .chain(DEFAULT_STATIC.iter().copied())
    {
        if !static_paths.insert(path.to_string()) {
            continue;
        }
        if generated(path) {
            diagnostics.push(Diagnostic::warning(
                format!(
                    "static/{path} has the same path as a generated file; the generated file wins"
                ),
                None,
            ));
            continue;
        }
        files.push(PlannedFile {
            path: path.to_string(),
            bytes: bytes.to_vec(),
        });
    }

    let mut diagnostics = sorted_and_strict(options.strict, diagnostics)?;

    let writer = if options.write {
        Some(OutputWriter::open(&output).map_err(|err| {
            let mut all = diagnostics.clone();
            all.push(Diagnostic::error(err.to_string(), None));
            fail(err.to_string(), all)
        })?)
    } else {
        None
    };
    let stage = |file: PlannedFile| -> Result<(), Diagnostic> {
        match &writer {
            Some(writer) => writer
                .stage(&file)
                .map(|_| ())
                .map_err(|err| Diagnostic::error(err.to_string(), None)),
            None => Ok(()),
        }
    };
    let page_count = plan
        .outputs
        .iter()
        .filter(|o| matches!(o.kind, crate::plan::OutputKind::Page(_)))
        .count();
    // Outputs whose fingerprint and file are as the last build left them are kept as
    // they are; only the others are rendered.
    let templates = renderer.template_hashes();
    let root = writer.as_ref().map(|w| w.root().to_path_buf());
    let intact: Option<HashSet<String>> =
        intact_check.map(|check| check.join().unwrap_or_default());
    let unchanged_of = |plan: &crate::plan::SitePlan, range: std::ops::Range<usize>| {
        let fingerprints = plan.fingerprints_of(&templates, range.clone());
        let outputs = &plan.outputs[range];
        let unchanged: Vec<bool> = match (&cache, &root) {
            (Some(cache), Some(_)) => outputs
                .par_iter()
                .zip(&fingerprints)
                .map(|(o, fingerprint)| {
                    cache
                        .outputs
                        .get(&o.path)
                        .is_some_and(|state| state.fingerprint == *fingerprint)
                        && intact
                            .as_ref()
                            .is_none_or(|set| set.contains(o.path.as_str()))
                })
                .collect(),
            _ => vec![false; fingerprints.len()],
        };
        if let Some(writer) = &writer {
            let kept = outputs.iter().zip(&unchanged).filter(|(_, u)| **u);
            writer.keep_all(kept.map(|(o, _)| o.path.as_str()));
        }
        (fingerprints, unchanged)
    };
    // Everything but the search index is rendered while the index is built.
    let progress = progress_bar(options.progress, plan.outputs.len() as u64);
    let ((mut fingerprints, mut unchanged, rendered), ()) = rayon::join(
        || {
            let (fingerprints, unchanged) = unchanged_of(&plan, 0..plan.outputs.len());
            let rendered = renderer.render_each(&plan, &progress, |i| !unchanged[i], stage);
            (fingerprints, unchanged, rendered)
        },
        || plan.prepare_search_index(),
    );
    timings.mark("render");
    let added = plan.add_search_outputs();
    let (more_fingerprints, more_unchanged) = unchanged_of(&plan, added.clone());
    fingerprints.extend(more_fingerprints);
    unchanged.extend(more_unchanged);
    let rendered = rendered
        .and_then(|()| {
            let wanted = |i: usize| added.contains(&i) && !unchanged[i];
            renderer.render_each(&plan, &ProgressBar::hidden(), wanted, stage)
        })
        .and_then(|()| files.iter().try_for_each(|f| stage(f.clone())));
    timings.mark("search index");
    if let Err(d) = rendered {
        if let Some(writer) = writer {
            writer.abort();
        }
        let mut all = diagnostics.clone();
        all.push(d.clone());
        return Err(fail(d.message, all));
    }
    let file_count = plan.outputs.len() + files.len();
    let summary = cache::CachedSummary {
        authors: graph.authors.len(),
        papers: graph.papers.len(),
        shared_papers: graph.shared_paper_count(),
        pages: page_count,
        files: file_count,
    };
    // The plan is freed on another thread while the output is committed and the cache
    // saved: freeing its many small pieces takes tens of milliseconds on a large site.
    let planned = std::mem::take(&mut plan.outputs);
    let ((), write) = rayon::join(
        move || drop(plan),
        || -> Result<WriteStats, BuildFailure> {
            let committed = match writer {
                Some(writer) => writer.commit().map_err(|err| {
                    let mut all = diagnostics.clone();
                    all.push(Diagnostic::error(err.to_string(), None));
                    fail(err.to_string(), all)
                })?,
                None => Committed::default(),
            };
            if root.is_some() {
                // Record what was written; a cache that cannot be saved only costs time
                // later.
                let outputs =
                    updated_outputs(cache, &planned, &fingerprints, &unchanged, &committed);
                let new_cache = Arc::new(cache::BuildCache {
                    version: env!("CARGO_PKG_VERSION").to_string(),
                    inputs: inputs_hash,
                    summary,
                    diagnostics: diagnostics.clone(),
                    outputs,
                });
                let save = {
                    let (path, cache) = (cache_path.clone(), Arc::clone(&new_cache));
                    move || {
                        cache::save(&path, &cache).map_err(|err| {
                            format!("cannot save the build cache {}: {err}", path.display())
                        })
                    }
                };
                if memo.save_in_background {
                    memo.pending_save = Some(std::thread::spawn(save));
                    memo.cache = Some((cache_path, new_cache));
                } else {
                    match save() {
                        Ok(()) => memo.cache = Some((cache_path, new_cache)),
                        Err(message) => diagnostics.push(Diagnostic::warning(message, None)),
                    }
                }
            }
            Ok(committed.stats)
        },
    );
    let write = write?;
    timings.mark("write");
    Ok(BuildReport {
        authors: summary.authors,
        papers: summary.papers,
        shared_papers: summary.shared_papers,
        pages: page_count,
        files: file_count,
        write,
        diagnostics,
        duration: started.elapsed(),
        output,
    })
}

/// The cache's outputs after a build: the previous entries of the outputs kept as they
/// were, and the new fingerprint and file state of the others. The previous map is
/// updated in place when this build holds the only reference to it (a rebuild usually
/// changes a few hundred of tens of thousands of entries).
fn updated_outputs(
    previous: Option<Arc<cache::BuildCache>>,
    outputs: &[crate::plan::PlannedOutput],
    fingerprints: &[u64],
    unchanged: &[bool],
    committed: &Committed,
) -> std::collections::HashMap<String, cache::OutputState> {
    let entry = |i: usize, file: cache::FileState| cache::OutputState {
        fingerprint: fingerprints[i],
        file,
    };
    match previous.map(Arc::try_unwrap) {
        Some(Ok(previous)) => {
            let mut map = previous.outputs;
            let mut without_state = 0;
            for (i, o) in outputs.iter().enumerate().filter(|(i, _)| !unchanged[*i]) {
                match committed.states.get(&o.path) {
                    Some(state) => match map.get_mut(&o.path) {
                        Some(old) => *old = entry(i, *state),
                        None => {
                            map.insert(o.path.clone(), entry(i, *state));
                        }
                    },
                    None => {
                        map.remove(&o.path);
                        without_state += 1;
                    }
                }
            }
            // Entries of outputs this build no longer has.
            if map.len() != outputs.len() - without_state {
                let planned: HashSet<&str> = outputs.iter().map(|o| o.path.as_str()).collect();
                map.retain(|path, _| planned.contains(path.as_str()));
            }
            map
        }
        previous => {
            let previous = previous.and_then(Result::err);
            outputs
                .par_iter()
                .enumerate()
                .filter_map(|(i, o)| {
                    let kept = previous.as_ref().and_then(|c| c.outputs.get(&o.path));
                    let state = match kept {
                        Some(state) if unchanged[i] => Some(state.file),
                        _ => committed.states.get(&o.path).copied(),
                    };
                    state.map(|file| (o.path.clone(), entry(i, file)))
                })
                .collect()
        }
    }
}

/// The outputs the cache lists whose file is still as the last build left it.
fn intact_outputs(output: &Path, cache: &cache::BuildCache) -> HashSet<String> {
    let root = fs::canonicalize(output).unwrap_or_else(|_| output.to_path_buf());
    cache
        .outputs
        .iter()
        .filter(|(path, state)| {
            cache::FileState::of(&root.join(path)).is_some_and(|actual| state.file.admits(&actual))
        })
        .map(|(path, _)| path.clone())
        .collect()
}

/// Whether every output file the cache lists is still as the last build left it, and
/// the output folder's manifest is there.
fn outputs_intact(output: &Path, cache: &cache::BuildCache) -> bool {
    output.join(crate::output::MANIFEST).is_file()
        && cache.outputs.par_iter().all(|(path, state)| {
            cache::FileState::of(&output.join(path))
                .is_some_and(|actual| state.file.admits(&actual))
        })
}

/// Per-stage wall times on stderr when `PROFILEGEN_TIMINGS` is set, for benchmarking.
struct Timings {
    last: Option<std::cell::Cell<Instant>>,
}

impl Timings {
    fn from_env() -> Timings {
        Timings {
            last: std::env::var_os("PROFILEGEN_TIMINGS")
                .map(|_| std::cell::Cell::new(Instant::now())),
        }
    }

    fn mark(&self, stage: &str) {
        if let Some(last) = &self.last {
            let now = Instant::now();
            eprintln!(
                "timing: {stage:<15} {:>7.1} ms",
                (now - last.get()).as_secs_f64() * 1000.0
            );
            last.set(now);
        }
    }
}

/// Sorts the diagnostics; with `--strict`, any of them fails the build.
fn sorted_and_strict(
    strict: bool,
    mut diagnostics: Vec<Diagnostic>,
) -> Result<Vec<Diagnostic>, BuildFailure> {
    sort_diagnostics(&mut diagnostics);
    if strict && !diagnostics.is_empty() {
        let n = diagnostics.len();
        return Err(BuildFailure {
            reason: format!("--strict: {n} diagnostic{}", plural(n)),
            diagnostics,
        });
    }
    Ok(diagnostics)
}

/// Files first (by path, line, column), then file-less messages.
fn sort_diagnostics(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by(|a, b| {
        let key = |d: &Diagnostic| {
            d.location
                .as_ref()
                .map(|l| (0, l.path.clone(), l.line, l.column))
                .unwrap_or((1, PathBuf::new(), 0, 0))
        };
        key(a).cmp(&key(b)).then_with(|| a.message.cmp(&b.message))
    });
}

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

/// Reads everything under a site root: configuration (fatal if broken), record files,
/// bios, pages, template overrides and static files.
pub fn read_site(root: &Path, reuse: &RecordReuse) -> Result<SiteInput, Diagnostic> {
    let mut input = SiteInput::default();
    let config_path = root.join(CONFIG_FILE);
    match fs::read(&config_path) {
        Ok(bytes) => {
            input
                .file_hashes
                .push((CONFIG_FILE.to_string(), content_hash(&bytes)));
            let text = String::from_utf8(bytes).map_err(|err| {
                Diagnostic::error(format!("{CONFIG_FILE} is not valid UTF-8: {err}"), None)
            })?;
            input.config = parse_config(Path::new(CONFIG_FILE), &text)?;
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => {
            return Err(Diagnostic::error(
                format!("cannot read {}: {err}", config_path.display()),
                None,
            ))
        }
    }

    let (records, mut diagnostics, mut hashes) = read_records(root, reuse);
    input.records = records;
    input.diagnostics.append(&mut diagnostics);
    input.file_hashes.append(&mut hashes);

    for (slug, display, text) in read_markdown(root, AUTHORS_DIR, &mut input) {
        match parse_bio(&display, &slug, &text) {
            Ok(bio) => input.bios.push(bio),
            Err(d) => input.diagnostics.push(d.with_note("the bio is skipped")),
        }
    }
    let mut page_slugs = HashSet::new();
    for (stem, display, text) in read_markdown(root, PAGES_DIR, &mut input) {
        let slug = slugify(&stem, "page");
        if !page_slugs.insert(slug.clone()) {
            input.diagnostics.push(Diagnostic::warning(
                format!(
                    "page {} has the same URL /{slug}/ as another page; skipped",
                    display.display()
                ),
                Some(Location::at_line(&display, 1, 1, "", 1)),
            ));
            continue;
        }
        match parse_page(&display, &slug, &text) {
            Ok(page) => input.pages.push(page),
            Err(d) => input.diagnostics.push(d.with_note("the page is skipped")),
        }
    }
    input.templates = read_template_overrides(&root.join(TEMPLATES_DIR))?;
    input.static_files = read_static(&root.join(STATIC_DIR), &mut input.diagnostics);
    for (name, source) in &input.templates {
        let hash = content_hash(source.as_bytes());
        input
            .file_hashes
            .push((format!("{TEMPLATES_DIR}/{name}"), hash));
    }
    for (name, bytes) in &input.static_files {
        let hash = content_hash(bytes);
        input
            .file_hashes
            .push((format!("{STATIC_DIR}/{name}"), hash));
    }
    Ok(input)
}

/// A record file as parsed, with the diagnostics parsing it gave.
#[derive(Debug)]
pub struct ParsedRecordFile {
    /// The file, unless nothing in it was readable.
    pub file: Option<Arc<RecordFile>>,
    /// What was wrong in it.
    pub diagnostics: Vec<Diagnostic>,
}

/// What [`read_records`] may reuse from the previous build in the same process.
#[derive(Default)]
pub struct RecordReuse {
    /// Parsed record files, by path and bytes.
    pub parsed: Reuse<ParsedRecordFile>,
    /// Parsed record files with the hash of their bytes, by path, size and modification
    /// time: a file whose size and time did not change is not read again...
    pub stamps: Reuse<StampedRecordFile>,
    /// ... unless it is one of these, which the watcher saw change since the last build
    /// (relative to the site root): a copy that keeps an old file's size and time is
    /// still read.
    pub reported_changes: HashSet<PathBuf>,
}

impl RecordReuse {
    /// Starts keeping results for the next build (see [`Reuse::enable`]).
    pub fn enable(&mut self) {
        self.parsed.enable();
        self.stamps.enable();
    }

    /// Ends a build: see [`Reuse::finish_build`].
    pub fn finish_build(&mut self) {
        self.parsed.finish_build();
        self.stamps.finish_build();
        self.reported_changes.clear();
    }
}

/// A parsed record file with the hash of its bytes, as [`read_records`] remembers it by
/// path, size and modification time.
#[derive(Debug)]
pub struct StampedRecordFile {
    /// Hash of the file's bytes.
    pub hash: u64,
    /// The file as parsed.
    pub parsed: Arc<ParsedRecordFile>,
}

/// How old a file's modification time must be before its size and time are trusted to
/// say that it did not change (file systems with coarse times could otherwise hide a
/// second write within the same tick).
const STAMP_MIN_AGE: Duration = Duration::from_secs(2);

/// A key for `path`'s size and modification time, when they can be trusted.
fn stamp_key(shown: &str, path: &Path) -> Option<u64> {
    let meta = fs::metadata(path).ok()?;
    let modified = meta.modified().ok()?;
    let age = std::time::SystemTime::now().duration_since(modified).ok()?;
    if age < STAMP_MIN_AGE {
        return None;
    }
    let since_epoch = modified.duration_since(std::time::UNIX_EPOCH).ok()?;
    Some(crate::memo::key(
        "record stamp",
        &(shown, meta.len(), since_epoch.as_nanos()),
    ))
}

/// The records of the site, their diagnostics, and each file's path and hash.
type ReadRecords = (Vec<Arc<RecordFile>>, Vec<Diagnostic>, Vec<(String, u64)>);

/// Reads and parses every `*.txt` under `<root>/content/records`, in parallel, sorted by
/// path. Also returns each file's path (relative to the root) and the hash of its bytes.
/// A file `reuse` holds with the same path and bytes is not parsed again, and one it
/// holds with the same path, size and (old enough) modification time is not even read,
/// unless the watcher reported it changed.
pub fn read_records(root: &Path, reuse: &RecordReuse) -> ReadRecords {
    let RecordReuse {
        parsed,
        stamps,
        reported_changes,
    } = reuse;
    let dir = root.join(RECORDS_DIR);
    let mut diagnostics = Vec::new();
    let mut paths = Vec::new();
    for entry in walkdir::WalkDir::new(&dir)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !is_hidden(e.file_name()))
    {
        match entry {
            Ok(entry) => {
                let is_txt = entry.path().extension().is_some_and(|e| e == "txt");
                let hidden = entry.file_name().to_string_lossy().starts_with('.');
                if entry.file_type().is_file() && is_txt && !hidden {
                    paths.push(entry.into_path());
                }
            }
            Err(err)
                if err
                    .io_error()
                    .is_some_and(|e| e.kind() == std::io::ErrorKind::NotFound)
                    && err.depth() == 0 => {}
            Err(err) => diagnostics.push(Diagnostic::error(
                format!(
                    "cannot read {}: {err}",
                    err.path().unwrap_or(&dir).display()
                ),
                None,
            )),
        }
    }
    type Parsed = (
        Option<Arc<ParsedRecordFile>>,
        Vec<Diagnostic>,
        Option<(String, u64)>,
    );
    let results: Vec<Parsed> = paths
        .par_iter()
        .map(|path| {
            let display = path.strip_prefix(root).unwrap_or(path);
            let shown = display.to_string_lossy().into_owned();
            let stamp = stamp_key(&shown, path).filter(|_| !reported_changes.contains(display));
            if let Some(known) = stamp.and_then(|key| stamps.get(key)) {
                let parsed = Arc::clone(&known.parsed);
                return (Some(parsed), Vec::new(), Some((shown, known.hash)));
            }
            match fs::read(path) {
                Ok(bytes) => {
                    let hash = content_hash(&bytes);
                    let key = || crate::memo::key("record file", &(&shown, hash));
                    let file = parsed.get_or(key, || {
                        let (file, diagnostics) = parse_record_file(display, &bytes);
                        ParsedRecordFile {
                            file: file.map(Arc::new),
                            diagnostics,
                        }
                    });
                    if let Some(stamp) = stamp {
                        let parsed = Arc::clone(&file);
                        stamps.insert(stamp, StampedRecordFile { hash, parsed });
                    }
                    (Some(file), Vec::new(), Some((shown, hash)))
                }
                Err(err) => (
                    None,
                    vec![Diagnostic::error(
                        format!("cannot read {}: {err}", display.display()),
                        None,
                    )],
                    None,
                ),
            }
        })
        .collect();
    let mut files = Vec::with_capacity(parsed.len());
    let mut hashes = Vec::with_capacity(parsed.len());
    for (file, mut diags, hash) in results {
        if let Some(file) = file {
            files.extend(file.file.clone());
            diagnostics.extend(file.diagnostics.iter().cloned());
        }
        diagnostics.append(&mut diags);
        hashes.extend(hash);
    }
    (files, diagnostics, hashes)
}

/// `(file stem, path shown in diagnostics, text)` of every `*.md` directly under
/// `<root>/<dir>`; records each file's hash, and diagnostics for unreadable ones.
fn read_markdown(root: &Path, dir: &str, input: &mut SiteInput) -> Vec<(String, PathBuf, String)> {
    let mut out = Vec::new();
    let Ok(entries) = fs::read_dir(root.join(dir)) else {
        return out;
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md") && p.is_file())
        .collect();
    paths.sort();
    for path in paths {
        let display = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
        match fs::read(&path).map(String::from_utf8) {
            Ok(Ok(text)) => {
                input.file_hashes.push((
                    display.to_string_lossy().into_owned(),
                    content_hash(text.as_bytes()),
                ));
                let stem = path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                out.push((stem, display, text));
            }
            Ok(Err(err)) => {
                let bytes = err.as_bytes();
                let valid = err.utf8_error().valid_up_to();
                let text = String::from_utf8_lossy(bytes);
                let valid_len = String::from_utf8_lossy(&bytes[..valid]).len();
                input.diagnostics.push(Diagnostic::error(
                    "file is not valid UTF-8; skipped",
                    Some(Location::in_text(&display, &text, valid_len, 1)),
                ));
            }
            Err(err) => input.diagnostics.push(Diagnostic::error(
                format!("cannot read {}: {err}", display.display()),
                None,
            )),
        }
    }
    out
}

/// Every file under `dir` as `(relative path with /, bytes)`, skipping hidden and editor
/// temporary files and paths that are not safe output paths.
fn read_static(dir: &Path, diagnostics: &mut Vec<Diagnostic>) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    if !dir.is_dir() {
        return files;
    }
    for entry in walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0 || !is_hidden(e.file_name()) || e.file_name() == ".well-known"
        })
        .filter_map(Result::ok)
    {
        if !entry.file_type().is_file() {
            continue;
        }
        let relative: Vec<String> = entry
            .path()
            .strip_prefix(dir)
            .unwrap_or(entry.path())
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let relative = relative.join("/");
        let name = entry.file_name().to_string_lossy();
        if name.starts_with('.') || name.ends_with('~') || name.ends_with(".swp") {
            continue;
        }
        if !crate::output::is_safe_relative_path(&relative) || relative == crate::output::MANIFEST {
            continue;
        }
        match fs::read(entry.path()) {
            Ok(bytes) => files.push((relative, bytes)),
            Err(err) => diagnostics.push(Diagnostic::error(
                format!("cannot read {}: {err}", entry.path().display()),
                None,
            )),
        }
    }
    files
}

/// Hidden files and folders (`.git`, `.DS_Store`, editor swap files) are not part of a
/// site.
fn is_hidden(name: &std::ffi::OsStr) -> bool {
    name.to_string_lossy().starts_with('.')
}

/// Exit status of a build or check.
pub fn has_errors(diagnostics: &[Diagnostic]) -> bool {
    diagnostics.iter().any(|d| d.severity == Severity::Error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;

    fn record(title: &str) -> String {
        format!(
            "arXiv subjects\n\nAda Lovelace\n\nPublications and source records attributed to \
             Ada Lovelace.\n\n1 recordLinked to original sources\n\narXiv2024\n\n{title}\n\n\
             An abstract.\n\ncs.DC\u{2197}"
        )
    }

    fn titles(root: &Path, reuse: &RecordReuse) -> Vec<String> {
        let (files, _, _) = read_records(root, reuse);
        files
            .iter()
            .flat_map(|f| f.records.iter().map(|r| r.title.clone()))
            .collect()
    }

    #[test]
    fn old_enough_unchanged_stamps_are_not_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let records = dir.path().join(RECORDS_DIR);
        fs::create_dir_all(&records).unwrap();
        let file = records.join("ada.txt");
        let an_hour_ago = SystemTime::now() - Duration::from_secs(3600);
        let write = |text: &str, modified: SystemTime| {
            fs::write(&file, text).unwrap();
            fs::File::options()
                .write(true)
                .open(&file)
                .unwrap()
                .set_modified(modified)
                .unwrap();
        };
        let mut reuse = RecordReuse::default();
        reuse.enable();

        write(&record("First Title"), an_hour_ago);
        assert_eq!(titles(dir.path(), &reuse), ["First Title"]);
        assert_eq!(
            reuse.stamps.len(),
            0,
            "nothing to reuse before the build ends"
        );
        reuse.finish_build();
        assert_eq!(reuse.stamps.len(), 1);

        // Same size and time: trusted, not read (as by make; editors and copies change
        // the time)...
        write(&record("Other Title"), an_hour_ago);
        assert_eq!(titles(dir.path(), &reuse), ["First Title"]);
        // ... unless the watcher saw the file change.
        reuse
            .reported_changes
            .insert(PathBuf::from(RECORDS_DIR).join("ada.txt"));
        assert_eq!(titles(dir.path(), &reuse), ["Other Title"]);
        reuse.finish_build();
        assert!(reuse.reported_changes.is_empty(), "reports last one build");

        // Another time: read again.
        write(&record("Third Title"), an_hour_ago + Duration::from_secs(1));
        assert_eq!(titles(dir.path(), &reuse), ["Third Title"]);

        // A time too recent to trust: always read.
        write(&record("Forth Title"), SystemTime::now());
        assert_eq!(titles(dir.path(), &reuse), ["Forth Title"]);
        reuse.finish_build();
        write(&record("Fifth Title"), SystemTime::now());
        assert_eq!(titles(dir.path(), &reuse), ["Fifth Title"]);
    }
}
