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

pub mod cache;
pub mod memo;

pub use memo::BuildMemo;

use crate::config::normalize_base_url;
use crate::diagnostics::Diagnostic;
use crate::graph::link_with;
use crate::output::{is_safe_relative_path, Committed, FileState, OutputWriter, WriteStats};
use crate::plan::{plan_site, PlanInput};
use crate::render::{Renderer, DEFAULT_STATIC};
use crate::sources::{read_site, RECORDS_DIR, STATIC_DIR, TEMPLATES_DIR};

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
    let mut files: Vec<(&str, &[u8])> = Vec::new();
    let mut static_paths = HashSet::new();
    for (path, bytes) in input
        .static_files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .chain(DEFAULT_STATIC.iter().copied())
    {
        if !is_safe_relative_path(path) || !static_paths.insert(path.to_string()) {
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
        files.push((path, bytes));
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
    let stage = |path: &str, bytes: &[u8]| -> Result<(), Diagnostic> {
        match &writer {
            Some(writer) => writer
                .stage(path, bytes)
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
            let rendered = renderer.render_each(
                &plan,
                &progress,
                |i| !unchanged[i],
                |f| stage(&f.path, &f.bytes),
            );
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
            renderer.render_each(&plan, &ProgressBar::hidden(), wanted, |f| {
                stage(&f.path, &f.bytes)
            })
        })
        .and_then(|()| {
            files
                .iter()
                .try_for_each(|(path, bytes)| stage(path, bytes))
        });
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
    let entry = |i: usize, file: FileState| cache::OutputState {
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
            FileState::of(&root.join(path)).is_some_and(|actual| state.file.admits(&actual))
        })
        .map(|(path, _)| path.clone())
        .collect()
}

/// Whether every output file the cache lists is still as the last build left it, and
/// the output folder's manifest is there.
fn outputs_intact(output: &Path, cache: &cache::BuildCache) -> bool {
    output.join(crate::output::MANIFEST).is_file()
        && cache.outputs.par_iter().all(|(path, state)| {
            FileState::of(&output.join(path)).is_some_and(|actual| state.file.admits(&actual))
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
