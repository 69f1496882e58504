//! Rendering: planned pages -> HTML, with Tera, in parallel.
//!
//! The default theme lives in `templates/` and is embedded in the binary, so an
//! installed `profilegen` works on any folder; a site's own `templates/` overrides
//! it file by file. Autoescaping is on for every template: input text can only
//! reach a page escaped.

use std::path::Path;
use std::sync::atomic::Ordering;

use indicatif::{ParallelProgressIterator, ProgressBar};
use rayon::prelude::*;
use tera::{Context, Tera};

use crate::diagnostics::Diagnostic;
use crate::plan::{content_hash, Output, PlannedFile, PlannedOutput, SitePlan, TemplateHashes};

/// The default theme's templates, embedded at compile time: `(file name, source)`.
pub const DEFAULT_TEMPLATES: &[(&str, &str)] = &[
    ("base.html", include_str!("../templates/base.html")),
    (
        "macros/paper_list.html",
        include_str!("../templates/macros/paper_list.html"),
    ),
    (
        "macros/pagination.html",
        include_str!("../templates/macros/pagination.html"),
    ),
    ("index.html", include_str!("../templates/index.html")),
    ("authors.html", include_str!("../templates/authors.html")),
    ("author.html", include_str!("../templates/author.html")),
    ("paper.html", include_str!("../templates/paper.html")),
    ("subjects.html", include_str!("../templates/subjects.html")),
    ("subject.html", include_str!("../templates/subject.html")),
    ("years.html", include_str!("../templates/years.html")),
    ("year.html", include_str!("../templates/year.html")),
    ("page.html", include_str!("../templates/page.html")),
    ("404.html", include_str!("../templates/404.html")),
    ("search.html", include_str!("../templates/search.html")),
    ("atom.xml", include_str!("../templates/atom.xml")),
    ("sitemap.xml", include_str!("../templates/sitemap.xml")),
];

/// The default theme's static files, embedded: `(path under the output, contents)`.
pub const DEFAULT_STATIC: &[(&str, &[u8])] = &[
    ("style.css", include_bytes!("../static/style.css")),
    ("favicon.svg", include_bytes!("../static/favicon.svg")),
    ("site.js", include_bytes!("../static/site.js")),
    ("search.js", include_bytes!("../static/search.js")),
];

/// A hash of the built-in theme (templates and static files), so that a build cache
/// made by a binary with another theme is not taken as current.
pub fn default_theme_hash() -> u64 {
    let mut bytes = Vec::new();
    for (name, source) in DEFAULT_TEMPLATES {
        bytes.extend_from_slice(name.as_bytes());
        bytes.extend_from_slice(&content_hash(source.as_bytes()).to_le_bytes());
    }
    for (name, data) in DEFAULT_STATIC {
        bytes.extend_from_slice(name.as_bytes());
        bytes.extend_from_slice(&content_hash(data).to_le_bytes());
    }
    content_hash(&bytes)
}

/// A Tera instance loaded with the theme.
pub struct Renderer {
    tera: Tera,
    hashes: TemplateHashes,
    /// By template name, the size of its last output: the next one's buffer starts that
    /// large, so a big page is not copied again and again as it grows.
    last_sizes: std::collections::HashMap<String, std::sync::atomic::AtomicUsize>,
}

impl Renderer {
    /// Loads the default templates, then `overrides` (`(file name, source)`, e.g. from a
    /// site's `templates/`) on top. A template that does not parse is an error naming the
    /// file, line and column.
    pub fn new(overrides: &[(String, String)]) -> Result<Renderer, Diagnostic> {
        let mut templates: Vec<(String, String)> = DEFAULT_TEMPLATES
            .iter()
            .filter(|(name, _)| !overrides.iter().any(|(o, _)| o == name))
            .map(|(name, source)| (name.to_string(), source.to_string()))
            .collect();
        templates.extend(overrides.iter().cloned());
        let mut html = Vec::new();
        let mut atom = 0;
        let mut sitemap = 0;
        let mut sorted: Vec<&(String, String)> = templates.iter().collect();
        sorted.sort();
        for (name, source) in sorted {
            let hash = content_hash(format!("{name}\0{source}").as_bytes());
            match name.as_str() {
                "atom.xml" => atom = hash,
                "sitemap.xml" => sitemap = hash,
                _ => html.extend_from_slice(&hash.to_le_bytes()),
            }
        }
        let hashes = TemplateHashes {
            html: content_hash(&html),
            atom,
            sitemap,
        };
        let last_sizes = templates
            .iter()
            .map(|(name, _)| (name.clone(), std::sync::atomic::AtomicUsize::new(0)))
            .collect();
        let mut tera = Tera::new();
        tera.autoescape_on(vec![".html", ".xml"]);
        tera.add_raw_templates(templates)
            .map_err(|err| template_error("templates could not be loaded", &err))?;
        Ok(Renderer {
            tera,
            hashes,
            last_sizes,
        })
    }

    /// Hashes of the loaded templates, for output fingerprints.
    pub fn template_hashes(&self) -> TemplateHashes {
        self.hashes
    }

    /// Produces one output of `plan`: renders its template, or takes its bytes.
    pub fn render_output(
        &self,
        plan: &SitePlan,
        planned: &PlannedOutput,
    ) -> Result<PlannedFile, Diagnostic> {
        let context = match plan.output(planned) {
            Output::Bytes(bytes) => {
                return Ok(PlannedFile {
                    path: planned.path.clone(),
                    bytes,
                })
            }
            Output::Page(context) => Context::from_serialize(&context),
            Output::Feed(context) => Context::from_serialize(&context),
            Output::Sitemap(context) => Context::from_serialize(&context),
        }
        .map_err(|err| {
            template_error(
                &format!("context of {} is not serializable", planned.path),
                &err,
            )
        })?;
        let template = planned.template.unwrap_or_default();
        let last_size = self.last_sizes.get(template);
        let capacity = last_size.map_or(0, |size| size.load(Ordering::Relaxed));
        // Rendered as bytes: Tera writes only UTF-8, so its output need not be checked
        // and converted to a string.
        let mut bytes = Vec::with_capacity(capacity + capacity / 8);
        self.tera
            .render_to(template, &context, &mut bytes)
            .map_err(|err| {
                template_error(
                    &format!("rendering {} with template {template} failed", planned.path),
                    &err,
                )
            })?;
        if let Some(size) = last_size {
            size.store(bytes.len(), Ordering::Relaxed);
        }
        Ok(PlannedFile {
            path: planned.path.clone(),
            bytes,
        })
    }

    /// Produces every output of `plan` in parallel and hands each file to `sink` as soon
    /// as it is ready; only the outputs in flight are held in memory. Stops at the first
    /// failure (of rendering or of `sink`) and returns it.
    /// Outputs for which `wanted(index)` is false are skipped.
    pub fn render_each(
        &self,
        plan: &SitePlan,
        progress: &ProgressBar,
        wanted: impl Fn(usize) -> bool + Sync,
        sink: impl Fn(PlannedFile) -> Result<(), Diagnostic> + Sync,
    ) -> Result<(), Diagnostic> {
        let result = plan
            .outputs
            .par_iter()
            .enumerate()
            .progress_with(progress.clone())
            .filter(|(index, _)| wanted(*index))
            .try_for_each(|(_, planned)| sink(self.render_output(plan, planned)?));
        progress.finish_and_clear();
        result
    }
}

fn template_error(what: &str, err: &tera::Error) -> Diagnostic {
    let mut detail = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        detail.push_str("\n  caused by: ");
        detail.push_str(&cause.to_string());
        source = cause.source();
    }
    Diagnostic::error(format!("{what}: {detail}"), None)
}

/// Reads a site's template overrides: every file under `dir`, named by its path
/// relative to `dir` with `/` separators. A missing folder means no overrides.
pub fn read_template_overrides(dir: &Path) -> Result<Vec<(String, String)>, Diagnostic> {
    let mut overrides = Vec::new();
    if !dir.is_dir() {
        return Ok(overrides);
    }
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|err| {
            Diagnostic::error(
                format!("cannot read templates folder {}: {err}", dir.display()),
                None,
            )
        })?;
        if !entry.file_type().is_file() {
            continue;
        }
        let name = entry
            .path()
            .strip_prefix(dir)
            .unwrap_or(entry.path())
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        if name.starts_with('.') || name.ends_with('~') || name.ends_with(".swp") {
            continue;
        }
        let source = std::fs::read_to_string(entry.path()).map_err(|err| {
            Diagnostic::error(
                format!("cannot read template {}: {err}", entry.path().display()),
                None,
            )
        })?;
        overrides.push((name, source));
    }
    Ok(overrides)
}
