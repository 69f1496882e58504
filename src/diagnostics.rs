//! Diagnostics: what went wrong (or looks wrong) in the input, and where.
//!
//! Every diagnostic about a file names the file, the line and the column and
//! carries the offending line so it can be shown to the user. Rendering uses
//! `annotate-snippets`, the renderer behind rustc's and cargo's messages.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};
use serde::{Deserialize, Serialize};

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Severity {
    /// Something looks off, but the build result is still what the input says.
    Warning,
    /// Part of the input could not be read; the rest still builds.
    Error,
}

/// A place in an input file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    /// The file, as shown to the user (relative to the site root when possible).
    pub path: PathBuf,
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
    /// The text of the line, with control characters made visible-safe.
    pub line_text: String,
    /// How many characters from `column` on the diagnostic points at (at least 1).
    pub width: usize,
}

impl Location {
    /// The location of byte `offset` of `text` (a whole file), pointing at `width` characters.
    ///
    /// An offset past the end points just after the last character.
    pub fn in_text(path: &Path, text: &str, offset: usize, width: usize) -> Location {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
        let line = text[..line_start].matches('\n').count() + 1;
        let column = text[line_start..offset].chars().count() + 1;
        Location {
            path: path.to_path_buf(),
            line,
            column,
            line_text: text[line_start..line_end]
                .trim_end_matches('\r')
                .to_string(),
            width: width.max(1),
        }
    }

    /// The location of column `column` (1-based, in characters) on line `line` (1-based),
    /// whose text is `line_text`.
    pub fn at_line(
        path: &Path,
        line: usize,
        column: usize,
        line_text: &str,
        width: usize,
    ) -> Location {
        Location {
            path: path.to_path_buf(),
            line,
            column: column.max(1),
            line_text: line_text.to_string(),
            width: width.max(1),
        }
    }
}

/// One message about the input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// Warning or error.
    pub severity: Severity,
    /// What is wrong, in one sentence.
    pub message: String,
    /// Where, when the message is about a place in a file.
    pub location: Option<Box<Location>>,
    /// An optional extra line: what profilegen did about it, or how to fix it.
    pub note: Option<String>,
}

impl Diagnostic {
    /// A warning at `location`.
    pub fn warning(message: impl Into<String>, location: Option<Location>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            message: message.into(),
            location: location.map(Box::new),
            note: None,
        }
    }

    /// An error at `location`.
    pub fn error(message: impl Into<String>, location: Option<Location>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            location: location.map(Box::new),
            note: None,
        }
    }

    /// The same diagnostic with a note added.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.note = Some(note.into());
        self
    }

    /// Renders the diagnostic as plain text: a title line, then `path:line:column`,
    /// the offending line with a marker under the column, and the note.
    pub fn render(&self) -> String {
        let level = match self.severity {
            Severity::Warning => Level::WARNING,
            Severity::Error => Level::ERROR,
        };
        let message = printable(&self.message, true);
        let note = self.note.as_deref().map(|n| printable(n, true));
        let mut rendered = match &self.location {
            Some(location) => {
                let source = printable(&location.line_text, false);
                let start = byte_index_of_char(&source, location.column - 1);
                let end = byte_index_of_char(&source, location.column - 1 + location.width);
                let path = location.path.display().to_string();
                let snippet = Snippet::source(source.as_str())
                    .line_start(location.line)
                    .path(path.as_str())
                    .annotation(AnnotationKind::Primary.span(start..end));
                let group = level.primary_title(message.as_str()).element(snippet);
                Renderer::plain().render(&[group])
            }
            None => format!("{}: {}", severity_word(self.severity), message),
        };
        if let Some(note) = note {
            rendered.push_str("\n  = note: ");
            rendered.push_str(&note);
        }
        rendered
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

fn severity_word(severity: Severity) -> &'static str {
    match severity {
        Severity::Warning => "warning",
        Severity::Error => "error",
    }
}

/// Input text shown on a terminal must not carry escape sequences or other controls.
/// Line breaks are kept in messages (a template error spans several lines) when
/// `keep_newlines` is set; every other control character is replaced.
fn printable(text: &str, keep_newlines: bool) -> String {
    text.chars()
        .map(|c| match c {
            '\t' => ' ',
            '\n' if keep_newlines => '\n',
            c if c.is_control() => '\u{FFFD}',
            c => c,
        })
        .collect()
}

/// The byte index of the `n`th character of `s`, or `s.len()` past the end.
fn byte_index_of_char(s: &str, n: usize) -> usize {
    s.char_indices().nth(n).map_or(s.len(), |(i, _)| i)
}

/// Counts diagnostics by severity: `(warnings, errors)`.
pub fn count(diagnostics: &[Diagnostic]) -> (usize, usize) {
    let errors = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    (diagnostics.len() - errors, errors)
}

/// Exit status of a build or check.
pub fn has_errors(diagnostics: &[Diagnostic]) -> bool {
    diagnostics.iter().any(|d| d.severity == Severity::Error)
}

/// How many diagnostics of one kind a build prints in full before it only counts them.
pub const SHOWN_PER_KIND: usize = 3;

/// The kind of a diagnostic: its severity and its message with what names one thing
/// left out (text in backquotes or double quotes, numbers), so that "TeX in `A`:
/// unknown command: "\\mu"" and the same about another title are of one kind.
pub fn kind_of(d: &Diagnostic) -> String {
    let mut kind = String::with_capacity(d.message.len());
    let mut quote = None;
    let mut last_digit = false;
    for c in d.message.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => {
                kind.push(c);
                quote = None;
            }
            (Some(_), _) => {}
            (None, '`' | '"') => {
                kind.push(c);
                kind.push('…');
                quote = Some(c);
            }
            (None, c) if c.is_ascii_digit() => {
                if !last_digit {
                    kind.push('N');
                }
            }
            (None, c) => kind.push(c),
        }
        last_digit = quote.is_none() && c.is_ascii_digit();
    }
    format!("{}: {kind}", severity_word(d.severity))
}

/// The diagnostics as a build prints them: with `shown_per_kind`, the first that many of
/// each kind in full and then one line per kind with how many more there are (a large
/// site's thousands of warnings fit a screen); with `None`, every one in full.
pub fn printed(diagnostics: &[&Diagnostic], shown_per_kind: Option<usize>) -> String {
    let mut out = String::new();
    // Each kind with how many of it there are, in order of first appearance.
    let mut seen: Vec<(String, usize)> = Vec::new();
    let mut index_of_kind: HashMap<String, usize> = HashMap::new();
    for d in diagnostics {
        let shown = match shown_per_kind {
            None => true,
            Some(limit) => {
                let kind = kind_of(d);
                let i = *index_of_kind.entry(kind.clone()).or_insert_with(|| {
                    seen.push((kind, 0));
                    seen.len() - 1
                });
                seen[i].1 += 1;
                seen[i].1 <= limit
            }
        };
        if shown {
            out.push_str(&d.render());
            out.push_str("\n\n");
        }
    }
    let limit = shown_per_kind.unwrap_or(usize::MAX);
    let hidden: Vec<&(String, usize)> = seen.iter().filter(|(_, n)| *n > limit).collect();
    for (kind, n) in &hidden {
        let more = n - limit;
        out.push_str(&format!(
            "... and {} more like this: {kind}\n",
            with_thousands(more)
        ));
    }
    if !hidden.is_empty() {
        out.push_str("(--verbose prints every diagnostic)\n\n");
    }
    out
}

/// `n` with commas between thousands: `44,141`.
pub fn with_thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_in_text_counts_lines_and_characters() {
        let text = "first\nsécond line\nthird";
        let offset = text.find("line").unwrap();
        let loc = Location::in_text(Path::new("a.txt"), text, offset, 4);
        assert_eq!(loc.line, 2);
        assert_eq!(loc.column, 8);
        assert_eq!(loc.line_text, "sécond line");
    }

    #[test]
    fn location_past_the_end_points_after_last_character() {
        let loc = Location::in_text(Path::new("a.txt"), "ab\ncd", 99, 1);
        assert_eq!((loc.line, loc.column), (2, 3));
    }

    #[test]
    fn render_names_file_line_column_and_shows_the_line() {
        let loc = Location::at_line(Path::new("records/x.txt"), 7, 3, "3 recordsLinked", 1);
        let d = Diagnostic::error("bad count", Some(loc)).with_note("the records present win");
        let text = d.render();
        assert!(text.starts_with("error: bad count"), "{text}");
        assert!(text.contains("records/x.txt:7:3"), "{text}");
        assert!(text.contains("3 recordsLinked"), "{text}");
        assert!(text.contains("note: the records present win"), "{text}");
    }

    #[test]
    fn render_strips_terminal_escapes_from_input() {
        let loc = Location::at_line(Path::new("x.txt"), 1, 1, "\u{1b}[31mred", 1);
        let text = Diagnostic::warning("odd \u{1b}]0;title\u{7}", Some(loc)).render();
        assert!(!text.contains('\u{1b}'), "{text:?}");
        assert!(!text.contains('\u{7}'), "{text:?}");
    }

    #[test]
    fn render_without_location_is_one_line() {
        let d = Diagnostic::warning("base_url is not set", None);
        assert_eq!(d.render(), "warning: base_url is not set");
    }

    #[test]
    fn kinds_leave_out_what_names_one_thing() {
        let tex = |title: &str, command: &str| {
            Diagnostic::warning(
                format!("TeX in `{title}`: unknown command: \"{command}\""),
                None,
            )
        };
        assert_eq!(
            kind_of(&tex("On $\\mu$", "\\mu")),
            "warning: TeX in `…`: unknown command: \"…\""
        );
        assert_eq!(kind_of(&tex("A", "\\mu")), kind_of(&tex("B 2", "\\sim")));
        let copies = |n: usize| {
            Diagnostic::warning(
                format!("copies of `x` in {n} files differ in their title"),
                None,
            )
        };
        assert_eq!(kind_of(&copies(2)), kind_of(&copies(12_345)));
        assert_eq!(
            kind_of(&copies(2)),
            "warning: copies of `…` in N files differ in their title"
        );
        let error = Diagnostic::error("copies of `x` in 2 files differ in their title", None);
        assert_ne!(kind_of(&error), kind_of(&copies(2)), "severities apart");
        assert_eq!(kind_of(&Diagnostic::warning("", None)), "warning: ");
    }

    #[test]
    fn printing_shows_a_few_of_each_kind_and_counts_the_rest() {
        let many: Vec<Diagnostic> = (0..1005)
            .map(|i| Diagnostic::warning(format!("unknown command `\\c{i}`"), None))
            .chain([Diagnostic::error("cannot read x", None)])
            .collect();
        let all: Vec<&Diagnostic> = many.iter().collect();
        let printed = printed(&all, Some(SHOWN_PER_KIND));
        assert!(printed.contains("`\\c0`") && printed.contains("`\\c2`"));
        assert!(!printed.contains("`\\c3`"));
        assert!(printed.contains("error: cannot read x"), "{printed}");
        assert!(printed.contains("... and 1,002 more like this: warning: unknown command `…`"));
        assert!(printed.contains("--verbose"));
        assert_eq!(printed.lines().filter(|l| l.starts_with("...")).count(), 1);
        let every = super::printed(&all, None);
        assert!(every.contains("`\\c1004`") && !every.contains("more like this"));
        let few = super::printed(&all[..2], Some(SHOWN_PER_KIND));
        assert!(!few.contains("--verbose"));
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(with_thousands(0), "0");
        assert_eq!(with_thousands(999), "999");
        assert_eq!(with_thousands(1000), "1,000");
        assert_eq!(with_thousands(44_141), "44,141");
        assert_eq!(with_thousands(1_234_567), "1,234,567");
    }
}
