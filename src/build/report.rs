//! What a build tells its caller: the report of a successful build, the failure of one
//! that wrote nothing, and the diagnostics gathered on the way.

use std::path::PathBuf;
use std::time::Duration;

use super::cache::CachedSummary;
use crate::diagnostics::Diagnostic;
use crate::output::WriteStats;

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
    /// How many old URLs lead to moved pages.
    pub redirect_count: usize,
    /// Those redirects, `(old site path, new site path)`, when this build planned them
    /// (empty when the site was unchanged).
    pub redirects: Vec<(String, String)>,
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
    /// The report of a build that made the site `summary` counts.
    pub(super) fn new(
        summary: CachedSummary,
        write: WriteStats,
        diagnostics: Vec<Diagnostic>,
        duration: Duration,
        output: PathBuf,
    ) -> BuildReport {
        BuildReport {
            authors: summary.authors,
            papers: summary.papers,
            shared_papers: summary.shared_papers,
            pages: summary.pages,
            files: summary.files,
            redirect_count: summary.redirects,
            redirects: Vec::new(),
            write,
            diagnostics,
            duration,
            output,
        }
    }

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
        if self.redirect_count > 0 {
            line.push_str(&format!(
                ", {} redirect{} from old URLs",
                self.redirect_count,
                plural(self.redirect_count)
            ));
        }
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

/// How many redirects [`BuildReport::redirect_lines`] lists before it sums up.
pub const REDIRECTS_LISTED: usize = 10;

impl BuildReport {
    /// The redirects, one line each (`  /authors/old/ -> /authors/new/`), at most
    /// `REDIRECTS_LISTED` and then how many more `_redirects` lists.
    pub fn redirect_lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .redirects
            .iter()
            .take(REDIRECTS_LISTED)
            .map(|(from, to)| format!("  redirect /{from} -> /{to}"))
            .collect();
        if self.redirects.len() > REDIRECTS_LISTED {
            lines.push(format!(
                "  ... and {} more redirects (see _redirects in the output)",
                self.redirects.len() - REDIRECTS_LISTED
            ));
        }
        lines
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

/// The diagnostics a build has gathered so far, and how it fails: with all of them and
/// the fatal one last.
#[derive(Debug, Default)]
pub(super) struct Gathered(pub Vec<Diagnostic>);

impl Gathered {
    /// A failure with every diagnostic so far and `fatal`, whose message is the reason.
    pub fn fail(&self, fatal: Diagnostic) -> BuildFailure {
        self.fail_because(fatal.message.clone(), fatal)
    }

    /// A failure with every diagnostic so far and `fatal`, for `reason`.
    pub fn fail_because(&self, reason: String, fatal: Diagnostic) -> BuildFailure {
        let mut diagnostics = self.0.clone();
        diagnostics.push(fatal);
        BuildFailure {
            reason,
            diagnostics,
        }
    }

    /// Sorts the diagnostics (files first by path, line and column, then file-less
    /// messages); with `strict`, any of them fails the build.
    pub fn sorted_and_strict(mut self, strict: bool) -> Result<Gathered, BuildFailure> {
        sort_diagnostics(&mut self.0);
        if strict && !self.0.is_empty() {
            let n = self.0.len();
            return Err(BuildFailure {
                reason: format!("--strict: {n} diagnostic{}", plural(n)),
                diagnostics: self.0,
            });
        }
        Ok(self)
    }
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

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
