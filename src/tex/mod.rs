//! Converting the TeX fragments found in titles and abstracts to HTML and plain text.
//!
//! Titles and abstracts of papers are written by their authors in a loose mixture of plain text
//! and TeX: `$P_Z$`, `\textbf{V}ariational`, `{\"u}ber`, `--`, but also plain `<`, `&`, URLs and
//! currency (`costs $5 and $10`). [`render_tex`] turns one such string into
//!
//! * `html`: every character from the input escaped, text-mode TeX turned into markup and math
//!   turned into MathML at build time (no JavaScript on the page);
//! * `text`: clean plain text for meta tags, feeds and JSON-LD (see "Text form of math" below);
//! * `warnings`: one message per fragment that could not be converted. Such a fragment is kept
//!   as its source text (escaped in `html`), so nothing is ever lost and nothing ever fails.
//!
//! # Math
//!
//! `$...$` and `\(...\)` are inline math, `$$...$$` and `\[...\]` display math
//! (`<math display="block">`), and `\ensuremath{...}` is inline math too. A single `$` follows
//! pandoc's rules, so that currency stays text: an opening `$` must be followed by a non-space,
//! the closing `$` must be preceded by a non-space and not be followed by a digit, and the math
//! may contain no other unescaped `$` and no blank line. Otherwise the `$` is a literal dollar,
//! as `\$` always is. A space after the opening `$` or before the closing one is allowed, as
//! arXiv readers see it, when the math is clearly TeX: it holds a command or a script, its
//! braces pair up and it does not start with a digit (`$ \vec B $` is math, `$ 5 or $ 10` is
//! not). A `$` inside a group the math opened is math nested in a text
//! command (`$3\times10^{19}\text{ cm$^{-3}$}$`) when the group closes and a `$` that can
//! close the math follows it.
//!
//! The MathML comes from the [`pulldown-latex`](https://crates.io/crates/pulldown-latex) crate.
//! It was chosen over the alternatives because it is pure Rust with a single small dependency
//! (`bumpalo`), supports a wide range of LaTeX math (environments, `\operatorname`, `\mathbb`,
//! accents, colours ...), follows MathML Core (rendered natively by current browsers), and is
//! maintained: version 0.8.0 (2026) added fuzzing, limits on macro expansion and recovery
//! instead of panics on malformed input. Its minimum Rust version (1.74) is below this
//! project's. `latex2mathml` (0.2.3) is unmaintained and much less complete; `math-core` is
//! excellent but its current releases require a newer Rust than this project supports.
//!
//! The crate's output is not used verbatim. It writes some input characters raw (`<`, `&`, `"`
//! inside `<mi>`/`<mo>`) and some markup the Nu HTML checker rejects (`displaystyle` on
//! token elements, `mu` units, scripts with a stray extra child), so this module
//! substitutes placeholders for dangerous characters in the event stream, then re-parses the
//! generated MathML against a whitelist of elements and attributes, repairs those issues and
//! serialises it again with all text escaped. Anything that does not pass is treated like
//! unparsable math (source text plus a warning).
//!
//! # Text form of math
//!
//! In `text`, math becomes a readable linear form close to what people type:
//! symbols as Unicode (`\alpha` → `α`, `\le` → `≤`, `\mathbb{R}` → `ℝ`), subscripts and
//! superscripts with `_` and `^` (`$P_Z$` → `P_Z`, `$x^{n+1}$` → `x^(n+1)`, arguments longer
//! than one item in parentheses), fractions with `/` (`\frac{a+b}{2}` → `(a+b)/2`), roots with
//! `√` (`\sqrt{x}` → `√x`), accents as combining characters (`\hat{x}` → `x̂`), primes as `′`,
//! spaces around relations and binary operators (`$a+b=c$` → `a + b = c`), `\text{..}` as its
//! text, matrix cells separated by `, ` and rows by `; `.
//!
//! # Text mode
//!
//! * `\textbf{..}`, `{\bf ..}`, `\bfseries` → `<b>`; `\emph`, `\textit`, `\textsl`, `\em`,
//!   `\it`, `\itshape` → `<i>`; `\texttt`, `\tt` → `<code>`; `\underline` → `<u>`;
//!   `\textsuperscript`/`\textsubscript` → `<sup>`/`<sub>`; `\textrm`, `\textsc`, `\text`,
//!   `\mbox` ... keep their argument without markup. In `text` all of them are just their text.
//! * Accents (`\'e`, `\"{o}`, `{\"u}`, `\c{c}`, `\v s`, `\H{o}`, `\'\i` ...) become composed
//!   (NFC) characters; `\ss`, `\o`, `\l`, `\aa`, `\ae`, `\oe`, `\i` ... their letters.
//! * `--` en dash, `---` em dash, `~` no-break space, ``` `` ``` and `''` curly double quotes,
//!   `` ` `` an opening single quote (and the next `'` its closing one).
//! * `\&`, `\%`, `\_`, `\#`, `\$`, `\{`, `\}` are the literal characters; grouping braces
//!   disappear; `\\` becomes a space.
//! * `\url{..}` and bare `http://`, `https://` and `ftp://` URLs are copied verbatim.
//! * Math written in text is read as math (the submodule `symbols` holds what means
//!   something else in text, such as `\deg` → `°`): a lone symbol becomes its character
//!   (`\alpha` → `α`), a command with arguments or scripts inline MathML
//!   (`\mathcal{O}`, `\alpha_s`). `\cite{key}` becomes `[key]`; `\textcolor{c}{..}`,
//!   `\colorbox{c}{..}` keep their text and `\color{c}` goes.
//! * Unknown commands stay as their source text (with their brace arguments) and add a
//!   warning; so do unbalanced braces, unterminated math and math that cannot be converted.
//!
//! A control word that produces a single letter (`\ss`, `\o`, accents) swallows the spaces
//! after it, as in TeX (`Bj\o rn` → `Bjørn`); word-like ones (`\LaTeX`, `\ldots`) keep them,
//! since metadata titles are rarely compiled and `\LaTeX is` means "LaTeX is".
//!
//! # Tokens
//!
//! The source is split into tokens (text runs, control words and symbols, braces, `$` and
//! `$$`) by the submodule `lex`, the tokenizer that the citation exports ([`crate::cite`])
//! read titles with too, and the letters and accents of text mode come from the one table in
//! the submodule `letters`. Macros that the paper defines (`\newcommand`, `\def`: the
//! submodule `defs`, see [`render_tex_with`]) are expanded, then math passes through the
//! macro table of the submodule `macros` (`\mathscr`, `\frak`, `\over`, `\R`, ...) before
//! conversion. This module adds the reading described above: pandoc's rules for `$`, groups
//! and their markup, and dashes, quotes and URLs inside text runs.
//!
//! # Cost
//!
//! A string with none of `$ \ { } ~` and `` ` `` and no `--` or `''` only costs one scan plus
//! escaping. Otherwise the conversion is a single left-to-right pass with bounded look-ahead
//! (brace matching is precomputed, math delimiters are searched for at most once per
//! region), and math fragments are limited in length and nesting, so the run time is linear.

mod defs;
pub(crate) mod letters;
pub(crate) mod lex;
mod macros;
mod symbols;

use pulldown_latex::config::DisplayMode;
use pulldown_latex::event::{
    Content, Dimension, DimensionUnit, EnvironmentFlow, Font, Grouping, ScriptPosition, ScriptType,
    Visual,
};
use pulldown_latex::{push_mathml, Event, Parser, RenderConfig, Storage};
use unicode_normalization::UnicodeNormalization;

pub use defs::{Definitions, PreambleError};
use letters::{dotless_letter, letter_accent, letter_command, symbol_accent};
use lex::{MathDelimiter, Spanned, Token, Tokens};

/// The result of converting one title or abstract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TexRendering {
    /// HTML: all text escaped (&, <, >, ", '), text-mode TeX turned into markup
    /// (`<b>`, `<i>`/`<em>`), math as MathML (`<math> ... </math>`, `display="block"` for `$$...$$` and `\[...\]`).
    pub html: String,
    /// Clean plain text for meta tags, feeds, JSON-LD: no TeX commands, no markup, math in the
    /// readable linear form described in the module documentation (`$P_Z$` -> `P_Z`,
    /// `$\alpha$` -> `α`, `$\frac{a}{b}$` -> `a/b`).
    pub text: String,
    /// One message per fragment that could not be parsed; such fragments stay readable as
    /// their source text (escaped) in `html` and `text`.
    pub warnings: Vec<String>,
}

/// One math fragment of a title or abstract, as [`render_tex`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MathFragment {
    /// The fragment as written, delimiters included (`$x^2$`, `\ensuremath{x}`).
    pub source: String,
    /// The TeX between the delimiters.
    pub tex: String,
    /// Whether it is display math (`$$...$$`, `\[...\]`).
    pub display: bool,
    /// Why it is shown as its source text; `None` when it is rendered as MathML.
    pub error: Option<String>,
}

/// The math fragments of a title or abstract, in order, each with whether it converts:
/// exactly the fragments that [`render_tex`] renders as MathML or shows as source.
///
/// ```
/// # use profilegen::tex::math_fragments;
/// let fragments = math_fragments(r"costs $5 for $x^2$ and $\nosuch$");
/// assert_eq!(fragments.len(), 2);
/// assert_eq!(fragments[0].source, "$x^2$");
/// assert!(fragments[0].error.is_none());
/// assert!(fragments[1].error.is_some());
/// ```
#[must_use]
pub fn math_fragments(input: &str) -> Vec<MathFragment> {
    math_fragments_with(input, &mut Definitions::new())
}

/// [`math_fragments`] for one of a paper's texts, with the macros its earlier texts
/// defined (`definitions`), to which this text's definitions are added: as
/// [`render_tex_with`] reads it.
#[must_use]
pub fn math_fragments_with(input: &str, definitions: &mut Definitions) -> Vec<MathFragment> {
    if !has_tex(input) {
        return Vec::new();
    }
    let mut converter = Converter::new(input, std::mem::take(definitions));
    converter.fragments = Some(Vec::new());
    let (_, fragments, defined) = converter.run();
    *definitions = defined;
    fragments.unwrap_or_default()
}

/// Converts a title or abstract. Never panics, runs in time linear in the input
/// (no backtracking blow-up), and returns the input escaped (html) / as is (text) when it has no TeX at all.
///
/// ```
/// # use profilegen::tex::render_tex;
/// let r = render_tex(r"\textbf{V}ariational flows for $P_Z$");
/// assert!(r.html.starts_with("<b>V</b>ariational flows for <math"));
/// assert_eq!(r.text, "Variational flows for P_Z");
/// assert!(r.warnings.is_empty());
/// ```
#[must_use]
pub fn render_tex(input: &str) -> TexRendering {
    render_tex_with(input, &mut Definitions::new())
}

/// [`render_tex`] for one of a paper's texts (its title, then each abstract paragraph in
/// order), with the macros its earlier texts defined: math may call them, and the
/// definitions this text makes (`\newcommand`, `\def`, ...) are added to `definitions`
/// for the texts after it. A math fragment made only of definitions renders as nothing.
///
/// ```
/// # use profilegen::tex::{render_tex_with, Definitions};
/// let mut definitions = Definitions::new();
/// let abstract_start = render_tex_with(
///     r"$\newcommand{\set}[1]{\mathbb{#1}}$We study $\set{R}$.",
///     &mut definitions,
/// );
/// assert!(abstract_start.html.starts_with("We study <math"));
/// assert_eq!(abstract_start.text, "We study ℝ.");
/// assert!(abstract_start.warnings.is_empty());
/// ```
#[must_use]
pub fn render_tex_with(input: &str, definitions: &mut Definitions) -> TexRendering {
    if !has_tex(input) {
        return render_plain(input);
    }
    let (rendering, _, defined) = Converter::new(input, std::mem::take(definitions)).run();
    *definitions = defined;
    rendering
}

/// What conversion makes of `input` when it has no TeX ([`has_tex`]): the text
/// escaped for HTML, and itself.
pub fn render_plain(input: &str) -> TexRendering {
    let mut html = String::with_capacity(input.len() + input.len() / 16);
    push_escaped(&mut html, input);
    TexRendering {
        html,
        text: input.to_owned(),
        warnings: Vec::new(),
    }
}

/// Whether `input` contains anything the converter would change beyond escaping: text
/// without it converts to itself (escaped, for HTML).
///
/// Asked of every title and abstract in every build, so it looks at 32 bytes at a time
/// with comparisons the compiler turns into vector instructions, and looks closely only
/// at a block that has one of the bytes TeX starts with (`-` and `'` count only doubled).
pub fn has_tex(input: &str) -> bool {
    const BLOCK: usize = 32;
    let bytes = input.as_bytes();
    let (blocks, _) = bytes.as_chunks::<BLOCK>();
    for (n, block) in blocks.iter().enumerate() {
        // A byte, not a `bool`: the compiler vectorizes `|=` of bytes, not of `bool`s.
        let mut may_start = 0u8;
        for &b in block {
            for start in TEX_STARTS {
                may_start |= u8::from(b == start);
            }
        }
        if may_start != 0 && (n * BLOCK..(n + 1) * BLOCK).any(|i| starts_tex(bytes, i)) {
            return true;
        }
    }
    (blocks.len() * BLOCK..bytes.len()).any(|i| starts_tex(bytes, i))
}

/// The bytes TeX can start with (see [`starts_tex`]).
const TEX_STARTS: [u8; 8] = *b"$\\{}~`-'";

/// Whether TeX starts at byte `i` of `bytes`: one of [`TEX_STARTS`], where `-` and `'`
/// count only doubled (`--`, `''`).
fn starts_tex(bytes: &[u8], i: usize) -> bool {
    match bytes[i] {
        b'-' | b'\'' => bytes.get(i + 1) == Some(&bytes[i]),
        b => TEX_STARTS.contains(&b),
    }
}

/// Appends `s` to `out` with the five HTML-significant characters escaped.
pub(crate) fn push_escaped(out: &mut String, s: &str) {
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let rep = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        out.push_str(rep);
        start = i + 1;
    }
    out.push_str(&s[start..]);
}

/// At most this many characters of a fragment are quoted in a warning.
const WARNING_FRAGMENT_CHARS: usize = 40;
/// Math fragments longer than this (in bytes) are not converted.
const MAX_MATH_BYTES: usize = 4096;
/// Math fragments with braces nested deeper than this are not converted.
const MAX_MATH_BRACE_DEPTH: usize = 48;
/// Nesting limit for the MathML tree and for the text form of math.
const MAX_TREE_DEPTH: usize = 200;
/// Inline math whose text form is longer than this (in characters) is wrapped in a
/// `<span class="math-wide">`, a box that scrolls sideways on narrow screens.
const WIDE_INLINE_MATH_CHARS: usize = 32;
/// How far an optional `[...]` argument of an unknown command is looked for.
const MAX_OPTIONAL_ARG_BYTES: usize = 64;

/// `s` cut to [`WARNING_FRAGMENT_CHARS`] characters (with `…`), for quoting in a warning.
fn shorten(s: &str) -> String {
    match s.char_indices().nth(WARNING_FRAGMENT_CHARS) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

/// The state of one conversion (the slow path of [`render_tex`]).
struct Converter<'a> {
    src: &'a str,
    bytes: &'a [u8],
    /// For each `{`, the index of its matching `}` (`usize::MAX` when unmatched).
    brace_match: Vec<usize>,
    html: String,
    text: String,
    warnings: Vec<String>,
    /// Open groups: where each ends (its `}` or the input's end) and the length of
    /// `closers` when it opened.
    frames: Vec<(usize, usize)>,
    /// Closing tags pending for the open groups, innermost last.
    closers: Vec<&'static str>,
    /// Open single quotes (`` ` ``) not yet closed by a `'`.
    open_single_quotes: usize,
    /// For each closing math delimiter (indexed by [`MathDelimiter`]), a `(from, bound)`
    /// where a search found none: a search starting later with no larger bound cannot find
    /// one either.
    no_close: [Option<(usize, usize)>; 6],
    /// The math fragments read so far, when [`math_fragments`] asks for them.
    fragments: Option<Vec<MathFragment>>,
    /// The macros defined so far in the paper's texts.
    defs: Definitions,
    /// Open `itemize` lists.
    lists: usize,
}

impl<'a> Converter<'a> {
    fn new(src: &'a str, defs: Definitions) -> Self {
        let bytes = src.as_bytes();
        Converter {
            src,
            bytes,
            brace_match: lex::match_braces(src),
            html: String::with_capacity(src.len() * 2),
            text: String::with_capacity(src.len()),
            warnings: Vec::new(),
            frames: vec![(bytes.len(), 0)],
            closers: Vec::new(),
            open_single_quotes: 0,
            no_close: [None; 6],
            fragments: None,
            defs,
            lists: 0,
        }
    }

    /// Converts the whole source; also returns the math fragments, when they were asked
    /// for, and the macros defined by the end of it.
    fn run(mut self) -> (TexRendering, Option<Vec<MathFragment>>, Definitions) {
        let mut pos = 0;
        loop {
            let (end, closer_base) = *self.frames.last().expect("the root frame is never popped");
            if pos >= end {
                while self.closers.len() > closer_base {
                    let tag = self.closers.pop().expect("checked length");
                    self.html.push_str(tag);
                }
                if self.frames.len() == 1 {
                    break;
                }
                self.frames.pop();
                pos = end + 1;
                continue;
            }
            pos = self.token(lex::token_at(self.src, pos), end);
        }
        let rendering = TexRendering {
            html: self.html,
            text: self.text,
            warnings: self.warnings,
        };
        (rendering, self.fragments, self.defs)
    }

    /// Handles the token `spanned` (inside a group ending at `end`) and returns where to go
    /// on.
    fn token(&mut self, spanned: Spanned<'a>, end: usize) -> usize {
        let pos = spanned.start;
        match spanned.token {
            Token::Text(_) => self.text_run(pos, spanned.end),
            Token::BeginGroup => {
                let close = self.brace_match[pos];
                if close == usize::MAX {
                    self.keep_source(pos, spanned.end, "unbalanced `{`");
                } else {
                    self.frames.push((close, self.closers.len()));
                }
                spanned.end
            }
            // A `}` that closes a group ends its frame before it is read as a token.
            Token::EndGroup => {
                self.keep_source(pos, spanned.end, "unbalanced `}`");
                spanned.end
            }
            Token::Dollar | Token::DoubleDollar => self.dollar(spanned, end),
            Token::ControlWord(name) => self.command(pos, name, spanned.end, end),
            Token::ControlSymbol(c) => match spanned.token.math_delimiter() {
                Some(open @ (MathDelimiter::OpenParen | MathDelimiter::OpenBracket)) => {
                    self.backslash_math(pos, open, spanned.end, end)
                }
                _ => self.control_symbol(pos, c, spanned.end, end),
            },
            Token::LoneBackslash => {
                self.keep_source(pos, spanned.end, "lone backslash");
                spanned.end
            }
        }
    }

    /// Copies the plain run `src[from..to]` to both outputs.
    fn flush(&mut self, from: usize, to: usize) {
        if from < to {
            let run = &self.src[from..to];
            push_escaped(&mut self.html, run);
            self.text.push_str(run);
        }
    }

    /// Emits `s` (plain text) to both outputs.
    fn emit(&mut self, s: &str) {
        push_escaped(&mut self.html, s);
        self.text.push_str(s);
    }

    fn emit_char(&mut self, c: char) {
        let mut buf = [0; 4];
        self.emit(c.encode_utf8(&mut buf));
    }

    /// Emits `src[from..to]` verbatim (escaped) and records `message` as a warning.
    fn keep_source(&mut self, from: usize, to: usize, message: &str) {
        let fragment = &self.src[from..to];
        self.warnings
            .push(format!("{message}: {:?}", shorten(fragment)));
        self.emit(fragment);
    }

    fn warn(&mut self, message: String) {
        self.warnings.push(message);
    }

    /// Whether a bare URL starts at `pos`.
    fn url_at(&self, pos: usize) -> bool {
        if pos > 0 && self.bytes[pos - 1].is_ascii_alphanumeric() {
            return false;
        }
        let rest = &self.bytes[pos..];
        rest.starts_with(b"http://") || rest.starts_with(b"https://") || rest.starts_with(b"ftp://")
    }

    /// Converts the text run `src[from..to]` (a [`Token::Text`]): `~`, dashes, quotes and
    /// bare URLs become their characters, the rest is copied. Returns `to`.
    fn text_run(&mut self, from: usize, to: usize) -> usize {
        let bytes = self.bytes;
        let mut pos = from;
        let mut copied = from;
        while pos < to {
            let doubled = pos + 1 < to && bytes[pos + 1] == bytes[pos];
            let special = match bytes[pos] {
                b'~' | b'`' => true,
                b'-' => doubled,
                b'\'' => doubled || self.open_single_quotes > 0,
                b'h' | b'f' => self.url_at(pos),
                _ => false,
            };
            if !special {
                pos += 1;
                continue;
            }
            self.flush(copied, pos);
            pos = self.text_special(pos, to);
            copied = pos;
        }
        self.flush(copied, to);
        to
    }

    /// Handles the character at `pos` of a text run ending at `to` that is not copied as it
    /// is (see [`Converter::text_run`]) and returns where to go on.
    fn text_special(&mut self, pos: usize, to: usize) -> usize {
        let bytes = self.bytes;
        let followed_by = |offset: usize, b: u8| pos + offset < to && bytes[pos + offset] == b;
        match bytes[pos] {
            b'~' => {
                self.html.push_str("&nbsp;");
                self.text.push('\u{a0}');
                pos + 1
            }
            b'-' => {
                if followed_by(2, b'-') {
                    self.emit("\u{2014}");
                    pos + 3
                } else {
                    self.emit("\u{2013}");
                    pos + 2
                }
            }
            b'`' => {
                if followed_by(1, b'`') {
                    self.emit("\u{201c}");
                    pos + 2
                } else {
                    self.open_single_quotes += 1;
                    self.emit("\u{2018}");
                    pos + 1
                }
            }
            b'\'' => {
                if followed_by(1, b'\'') {
                    self.emit("\u{201d}");
                    pos + 2
                } else if self.open_single_quotes > 0 {
                    self.open_single_quotes -= 1;
                    self.emit("\u{2019}");
                    pos + 1
                } else {
                    self.emit("'");
                    pos + 1
                }
            }
            _ => {
                // A bare URL: verbatim up to white space or the end of the run (TeX structure).
                let mut i = pos;
                while i < to && !bytes[i].is_ascii_whitespace() {
                    i += 1;
                }
                let url = &self.src[pos..i];
                self.emit(url);
                i
            }
        }
    }

    /// Skips spaces and tabs (not line breaks) from `pos`, up to `end`.
    fn skip_spaces(&self, mut pos: usize, end: usize) -> usize {
        while pos < end && matches!(self.bytes[pos], b' ' | b'\t') {
            pos += 1;
        }
        pos
    }

    /// The brace group starting at `pos` (after optional spaces), if there is a balanced one
    /// inside `end`: `(index of '{', index of '}')`.
    fn brace_arg(&self, pos: usize, end: usize) -> Option<(usize, usize)> {
        let open = self.skip_spaces(pos, end);
        if open < end && self.bytes[open] == b'{' {
            let close = self.brace_match[open];
            if close != usize::MAX && close < end {
                return Some((open, close));
            }
        }
        None
    }

    /// Handles the control word `name` whose backslash is at `pos` and which ends at
    /// `name_end`; returns where to go on.
    fn command(&mut self, pos: usize, name: &str, name_end: usize, end: usize) -> usize {
        let after_spaces = self.skip_spaces(name_end, end);

        if defs::is_definition(name) {
            // A definition in text defines for the math after it, and shows nothing.
            if let Some(to) = self.defs.read(&self.src[..end], pos) {
                return to;
            }
            return self.unknown(pos, name_end, end, "macro definition not understood");
        }
        if self.defs.defines(name) {
            if let Some(to) = self.inline_math(pos, name_end, end) {
                return to;
            }
        }

        if let Some(markup) = wrapping_command(name) {
            if let Some((open, close)) = self.brace_arg(name_end, end) {
                self.frames.push((close, self.closers.len()));
                if let Markup::Tag(open_tag, close_tag) = markup {
                    self.html.push_str(open_tag);
                    self.closers.push(close_tag);
                }
                return open + 1;
            }
            return self.unknown(pos, name_end, end, "command without its `{...}` argument");
        }
        if let Some(markup) = declaration(name) {
            if let Markup::Tag(open_tag, close_tag) = markup {
                self.html.push_str(open_tag);
                self.closers.push(close_tag);
            }
            return after_spaces;
        }
        if let Some(to) = self.split_greek_letter(name, name_end, end) {
            return to;
        }
        if let Some(mark) = letter_accent(name) {
            return self.accent(pos, mark, name_end, end);
        }
        if let Some(command) = letter_command(name) {
            self.emit(command.letter);
            return after_spaces;
        }
        if let Some(word) = word_command(name) {
            self.emit(word);
            return name_end;
        }
        match name {
            "url" | "href" => {
                if let Some((open, close)) = self.brace_arg(name_end, end) {
                    if name == "url" {
                        self.emit(&self.src[open + 1..close]);
                        return close + 1;
                    }
                    // \href{url}{text}: the text stays, the target goes.
                    if let Some((open2, close2)) = self.brace_arg(close + 1, end) {
                        self.frames.push((close2, self.closers.len()));
                        return open2 + 1;
                    }
                }
                self.unknown(pos, name_end, end, "command without its `{...}` argument")
            }
            "begin" => self
                .environment(pos, name_end, end)
                .unwrap_or_else(|| self.unknown(pos, name_end, end, "unknown command")),
            "item" if self.lists > 0 => {
                self.emit("\u{2022} ");
                after_spaces
            }
            "end" if self.lists > 0 && self.src[name_end..end].starts_with("{itemize}") => {
                self.lists -= 1;
                self.skip_spaces(name_end + "{itemize}".len(), end)
            }
            "ensuremath" => {
                if let Some((open, close)) = self.brace_arg(name_end, end) {
                    let tex = &self.src[open + 1..close];
                    self.math(tex, pos, close + 1, false);
                    return close + 1;
                }
                self.unknown(pos, name_end, end, "command without its `{...}` argument")
            }
            "noindent" | "relax" | "par" | "newline" | "linebreak" | "allowbreak"
            | "nolinebreak" | "protect" | "xspace" | "unskip" | "smallskip" | "medskip"
            | "bigskip" => {
                if matches!(
                    name,
                    "par" | "newline" | "linebreak" | "smallskip" | "medskip" | "bigskip"
                ) {
                    self.emit(" ");
                }
                after_spaces
            }
            _ => self
                .citation_or_colour(pos, name, name_end, end)
                .or_else(|| self.bare_math(pos, name, name_end, end))
                .unwrap_or_else(|| self.unknown(pos, name_end, end, "unknown command")),
        }
    }

    /// Handles `\begin{..}` in text: a math environment (`equation*`, `gather`, ...) up to
    /// its `\end` as display math, and `itemize` as its items, each after a bullet. None for
    /// other environments, and when the `\end` is missing.
    fn environment(&mut self, pos: usize, name_end: usize, end: usize) -> Option<usize> {
        let (open, close) = self.brace_arg(name_end, end)?;
        let env = &self.src[open + 1..close];
        if env == "itemize" {
            self.lists += 1;
            return Some(self.skip_spaces(close + 1, end));
        }
        if !is_math_environment(env) {
            return None;
        }
        let closing = format!("\\end{{{env}}}");
        let to = self.src[close + 1..end].find(&closing)? + close + 1 + closing.len();
        let tex = &self.src[pos..to];
        self.math(tex, pos, to, true);
        Some(to)
    }

    /// Handles `\cite{..}` and its kin (as `[key]`), and `\textcolor{c}{text}`,
    /// `\colorbox{c}{text}` and `\color{c}` (the text stays, the colour goes); None when
    /// `name` is none of them.
    fn citation_or_colour(
        &mut self,
        pos: usize,
        name: &str,
        name_end: usize,
        end: usize,
    ) -> Option<usize> {
        if symbols::is_citation(name) {
            let mut at = name_end;
            let mut note = None;
            // Up to two optional arguments; the last is the note (`\cite[p.~3]{key}`).
            for _ in 0..2 {
                match self.optional_arg(at, end) {
                    Some((inner, after)) => {
                        note = Some(inner);
                        at = after;
                    }
                    None => break,
                }
            }
            let Some((open, close)) = self.brace_arg(at, end) else {
                return Some(self.unknown(
                    pos,
                    name_end,
                    end,
                    "command without its `{...}` argument",
                ));
            };
            let keys = &self.src[open + 1..close];
            if let Some(text) = symbols::citation_text(name, keys, note) {
                self.emit(&text);
            }
            return Some(close + 1);
        }
        match name {
            "textcolor" | "colorbox" | "color" => {
                let Some((_, close)) = self.brace_arg(name_end, end) else {
                    return Some(self.unknown(
                        pos,
                        name_end,
                        end,
                        "command without its `{...}` argument",
                    ));
                };
                if name == "color" {
                    return Some(self.skip_spaces(close + 1, end));
                }
                match self.brace_arg(close + 1, end) {
                    Some((open2, close2)) => {
                        self.frames.push((close2, self.closers.len()));
                        Some(open2 + 1)
                    }
                    None => Some(self.unknown(
                        pos,
                        name_end,
                        end,
                        "command without its `{...}` argument",
                    )),
                }
            }
            _ => None,
        }
    }

    /// The optional argument `[...]` at `pos` (after spaces), if there is a short one before
    /// `end`: its inside and where it ends.
    fn optional_arg(&self, pos: usize, end: usize) -> Option<(&'a str, usize)> {
        let open = self.skip_spaces(pos, end);
        if open >= end || self.bytes[open] != b'[' {
            return None;
        }
        let limit = end.min(open + MAX_OPTIONAL_ARG_BYTES);
        let close = self.bytes[open..limit].iter().position(|&b| b == b']')? + open;
        Some((&self.src[open + 1..close], close + 1))
    }

    /// Handles a math command written in text (`\alpha`, `\sim`, `\mathcal{O}`,
    /// `\frac{1}{2}`), with its arguments and scripts: a lone symbol becomes its character
    /// (`\alpha` → `α`), anything else inline MathML. None when the math converter does not
    /// know it either.
    fn bare_math(&mut self, pos: usize, name: &str, name_end: usize, end: usize) -> Option<usize> {
        if let Some(symbol) = symbols::text_symbol(name) {
            self.emit(symbol);
            return Some(name_end);
        }
        self.inline_math(pos, name_end, end)
    }

    /// Converts the command at `pos`, whose name ends at `name_end`, with its arguments and
    /// scripts, as inline math (a lone character as text); None when it does not convert.
    fn inline_math(&mut self, pos: usize, name_end: usize, end: usize) -> Option<usize> {
        let mut args_end = self.arguments_end(name_end, end);
        if args_end == name_end && is_math_accent(&self.src[pos + 1..name_end]) {
            // `\bar S`: an accent on the one letter after it.
            let rest = &self.bytes[name_end..end];
            if let [b' ', letter, after @ ..] = rest {
                if letter.is_ascii_alphabetic()
                    && !after.first().is_some_and(u8::is_ascii_alphabetic)
                {
                    args_end = name_end + 2;
                }
            }
        }
        let to = self.scripts_end(args_end, end);
        let (mathml, text) = convert_math(&self.src[pos..to], false, &self.defs).ok()?;
        if to == name_end && text.chars().count() == 1 {
            self.emit(&text);
        } else {
            self.html.push_str(&mathml);
            self.text.push_str(&text);
        }
        Some(to)
    }

    /// Where the brace and `[...]` arguments that directly follow `from` end.
    fn arguments_end(&self, from: usize, end: usize) -> usize {
        let mut i = from;
        loop {
            if i < end && self.bytes[i] == b'{' {
                let close = self.brace_match[i];
                if close != usize::MAX && close < end {
                    i = close + 1;
                    continue;
                }
            } else if i < end && self.bytes[i] == b'[' {
                let limit = end.min(i + MAX_OPTIONAL_ARG_BYTES);
                if let Some(off) = self.bytes[i..limit].iter().position(|&b| b == b']') {
                    i += off + 1;
                    continue;
                }
            }
            return i;
        }
    }

    /// Where the subscript and superscript (`_x`, `^{..}`, at most one of each) that
    /// directly follow `from` end.
    fn scripts_end(&self, from: usize, end: usize) -> usize {
        let mut i = from;
        for _ in 0..2 {
            if i + 1 >= end || !matches!(self.bytes[i], b'_' | b'^') {
                break;
            }
            let next = self.bytes[i + 1];
            if next == b'{' {
                let close = self.brace_match[i + 1];
                if close == usize::MAX || close >= end {
                    break;
                }
                i = close + 1;
            } else if next.is_ascii_alphanumeric() {
                i += 2;
            } else {
                break;
            }
        }
        i
    }

    /// Keeps an unknown command and its directly following arguments as source text.
    fn unknown(&mut self, pos: usize, name_end: usize, end: usize, message: &str) -> usize {
        let i = self.arguments_end(name_end, end);
        self.keep_source(pos, i, message);
        i
    }

    /// Handles `\` followed by the non-letter `c`, which ends at `after` (the math
    /// delimiters `\(` and `\[` excepted: see [`Converter::backslash_math`]).
    fn control_symbol(&mut self, pos: usize, c: char, after: usize, end: usize) -> usize {
        match c {
            '$' | '&' | '%' | '_' | '#' | '{' | '}' => {
                self.emit_char(c);
                after
            }
            '\\' | ' ' | '\n' | '\r' | '\t' => {
                self.emit(" ");
                after
            }
            ',' => {
                self.emit("\u{2009}");
                after
            }
            '-' | '/' | '@' => after,
            _ => {
                if let Some(mark) = symbol_accent(c) {
                    return self.accent(pos, mark, after, end);
                }
                self.keep_source(pos, after, "unknown command");
                after
            }
        }
    }

    /// Handles the math that `open` (`\(` or `\[`, at `pos`, ending at `after`) begins:
    /// converted up to its closer, or the delimiter kept as text, with a warning, when no
    /// closer follows inside `end`.
    fn backslash_math(
        &mut self,
        pos: usize,
        open: MathDelimiter,
        after: usize,
        end: usize,
    ) -> usize {
        let display = open == MathDelimiter::OpenBracket;
        let (closer, message) = if display {
            (
                MathDelimiter::CloseBracket,
                "unterminated display math `\\[`",
            )
        } else {
            (MathDelimiter::CloseParen, "unterminated inline math `\\(`")
        };
        match self.find_closer(after, end, closer) {
            Some(close_at) => {
                let tex = &self.src[after..close_at];
                self.math(tex, pos, close_at + 2, display);
                close_at + 2
            }
            None => {
                let to = end.min(pos + 2 + 4 * WARNING_FRAGMENT_CHARS);
                let to = floor_char_boundary(self.src, to);
                let fragment = shorten(&self.src[pos..to]);
                self.warn(format!("{message}: {fragment:?}"));
                self.emit(&self.src[pos..after]);
                after
            }
        }
    }

    /// Reads `\b{eta}`, `\r{ho}`, `\k{appa}`: a one-letter accent command whose braced
    /// argument completes the name of a Greek letter, as β, ρ, κ (no accent makes sense
    /// on a whole word). None for anything else (`\k{e}` is ę).
    fn split_greek_letter(&mut self, name: &str, name_end: usize, end: usize) -> Option<usize> {
        if name.len() != 1 || letter_accent(name).is_none() {
            return None;
        }
        let (open, close) = self.brace_arg(name_end, end)?;
        let rest = &self.src[open + 1..close];
        if rest.len() < 2 || !rest.bytes().all(|b| b.is_ascii_alphabetic()) {
            return None;
        }
        let letter = symbols::greek_letter(&format!("{name}{rest}"))?;
        self.emit_char(letter);
        Some(close + 1)
    }

    /// Applies the accent `mark` (a combining character) of the command at `pos`, whose
    /// argument starts at `arg` (after optional spaces).
    fn accent(&mut self, pos: usize, mark: char, arg: usize, end: usize) -> usize {
        let start = self.skip_spaces(arg, end);
        let (base, next) = if start >= end {
            (None, start)
        } else {
            self.accent_base_at(start, mark, end)
        };
        match base {
            Some(base) => {
                let accented = apply_accent(&base, mark);
                self.emit(&accented);
                next
            }
            None => {
                let to = if next > start { next } else { arg };
                self.keep_source(pos, to, "accent without a letter to put it on");
                to
            }
        }
    }

    /// The base of the accent `mark` at `start` (before `end`) and where it ends; None (and
    /// `start`) when what follows is no base: a `}`, a `$`, a line break or a command other
    /// than the dotless `\i` and `\j`.
    fn accent_base_at(&self, start: usize, mark: char, end: usize) -> (Option<String>, usize) {
        let spanned = lex::token_at(self.src, start);
        match spanned.token {
            Token::BeginGroup => match self.brace_arg(start, end) {
                Some((open, close)) => {
                    let inner = self.src[open + 1..close].trim();
                    (accent_base(inner, mark), close + 1)
                }
                None => (None, start),
            },
            // `\'\i`: a dotless letter as the base.
            Token::ControlWord(name) => match dotless_letter(name) {
                Some(letter) => (Some(letter.to_owned()), self.skip_spaces(spanned.end, end)),
                None => (None, start),
            },
            Token::Text(run) => match run.chars().next() {
                Some(c) if c != '\n' && c != '\r' => (Some(c.to_string()), start + c.len_utf8()),
                _ => (None, start),
            },
            _ => (None, start),
        }
    }

    /// Handles the `$` or `$$` `spanned`.
    fn dollar(&mut self, spanned: Spanned<'a>, end: usize) -> usize {
        let bytes = self.bytes;
        let pos = spanned.start;
        let from = spanned.end;
        if spanned.token == Token::DoubleDollar {
            return match self.find_closer(from, end, MathDelimiter::DoubleDollar) {
                Some(close) => {
                    let tex = &self.src[from..close];
                    self.math(tex, pos, close + 2, true);
                    close + 2
                }
                None => {
                    let to =
                        floor_char_boundary(self.src, end.min(from + 4 * WARNING_FRAGMENT_CHARS));
                    let fragment = shorten(&self.src[pos..to]);
                    self.warn(format!("unterminated display math `$$`: {fragment:?}"));
                    self.emit("$$");
                    from
                }
            };
        }
        if let Some(close) = self.spaced_inline_math(from, end) {
            let tex = &self.src[from..close];
            self.math(tex, pos, close + 1, false);
            return close + 1;
        }
        if from >= end || bytes[from].is_ascii_whitespace() {
            self.emit("$");
            return from;
        }
        match self.find_inline_dollar_close(from, end) {
            Ok(close) => {
                let tex = &self.src[from..close];
                self.math(tex, pos, close + 1, false);
                close + 1
            }
            Err(stop) => {
                // Not math: a literal dollar (currency). Warn only when it looked like math.
                let first = bytes[from];
                if !first.is_ascii_digit() && stop_was_end(bytes, stop) {
                    let to =
                        floor_char_boundary(self.src, stop.min(from + 4 * WARNING_FRAGMENT_CHARS));
                    let fragment = shorten(&self.src[pos..to]);
                    self.warn(format!("unterminated inline math `$`: {fragment:?}"));
                }
                self.emit("$");
                from
            }
        }
    }

    /// Inline math that pandoc's rules refuse for a space after the opening `$` or before
    /// the closing one (`$ \vec B\times \nabla B $`, `${\Bbb C}((z)). $`), as arXiv
    /// readers see it: accepted when what lies between holds a command (`\name`), `^` or
    /// `_` and does not start with a digit (`$ 5 and $ 10` stays currency). Returns the
    /// closing `$`; None for math that the usual rule reads, or that is not math.
    fn spaced_inline_math(&self, from: usize, end: usize) -> Option<usize> {
        let bytes = self.bytes;
        let mut close = None;
        for spanned in Tokens::starting_at(&self.src[..end], from) {
            match spanned.token {
                Token::Text(_)
                    if blank_line_start(bytes, spanned.start, spanned.end, end).is_some() =>
                {
                    return None;
                }
                Token::Dollar | Token::DoubleDollar => {
                    close = Some(spanned.start);
                    break;
                }
                _ => {}
            }
        }
        let close = close?;
        let spaced = from < close
            && (bytes[from].is_ascii_whitespace() || bytes[close - 1].is_ascii_whitespace());
        let tex = &self.src[from..close];
        let clearly_tex = tex.contains(['^', '_'])
            || tex
                .as_bytes()
                .windows(2)
                .any(|w| w[0] == b'\\' && w[1].is_ascii_alphabetic());
        let valid = spaced
            && clearly_tex
            && balanced_braces(tex)
            && !tex.trim_start().starts_with(|c: char| c.is_ascii_digit())
            && !bytes.get(close + 1).is_some_and(u8::is_ascii_digit);
        valid.then_some(close)
    }

    /// Looks for the `$` closing inline math opened just before `from`: the next math shift
    /// (`$` or the first of `$$`), if it is a valid closer and comes before a blank line and
    /// `end`. A `$` inside a group the math opened is math nested in text
    /// (`$\text{ cm$^{-3}$}$`) when the group closes and a valid closer follows it; when
    /// none does, the first `$` decides, as if groups did not count. On failure returns
    /// where the search stopped. One pass over the tokens either way.
    fn find_inline_dollar_close(&self, from: usize, end: usize) -> Result<usize, usize> {
        let bytes = self.bytes;
        let closer_at = |i: usize| {
            let valid = i > from
                && !bytes[i - 1].is_ascii_whitespace()
                && !bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
            if valid {
                Ok(i)
            } else {
                Err(i)
            }
        };
        let mut depth = 0usize;
        // What the first `$` says, when it is inside a group: the answer should no `$`
        // outside the groups close the math.
        let mut first: Option<Result<usize, usize>> = None;
        for spanned in Tokens::starting_at(&self.src[..end], from) {
            match spanned.token {
                Token::Text(_) => {
                    if let Some(i) = blank_line_start(bytes, spanned.start, spanned.end, end) {
                        return first.unwrap_or(Err(i));
                    }
                }
                Token::BeginGroup => depth += 1,
                Token::EndGroup => depth = depth.saturating_sub(1),
                Token::Dollar if depth > 0 => {
                    first.get_or_insert(closer_at(spanned.start));
                }
                Token::Dollar | Token::DoubleDollar => {
                    let verdict = closer_at(spanned.start);
                    return match first {
                        Some(first) if verdict.is_err() => first,
                        _ => verdict,
                    };
                }
                _ => {}
            }
        }
        first.unwrap_or(Err(end))
    }

    /// Looks for `closer` (`$$`, `\)` or `\]`) from `from` to `end` and returns where it
    /// starts; a search for `$$` also ends at a blank line.
    fn find_closer(&mut self, from: usize, end: usize, closer: MathDelimiter) -> Option<usize> {
        let known_unclosed =
            matches!(self.no_close[closer as usize], Some((f, e)) if from >= f && end <= e);
        if known_unclosed {
            return None;
        }
        let bytes = self.bytes;
        for spanned in Tokens::starting_at(&self.src[..end], from) {
            match spanned.token {
                Token::Text(_)
                    if closer == MathDelimiter::DoubleDollar
                        && blank_line_start(bytes, spanned.start, spanned.end, end).is_some() =>
                {
                    return None;
                }
                token if token.math_delimiter() == Some(closer) => return Some(spanned.start),
                _ => {}
            }
        }
        self.no_close[closer as usize] = Some((from, end));
        None
    }

    /// Converts the math `tex`, whose whole source (with delimiters) is `src[from..to]`.
    fn math(&mut self, tex: &str, from: usize, to: usize, display: bool) {
        let converted = match self.defs.take_from(tex) {
            Ok(None) => convert_math(tex, display, &self.defs),
            Ok(Some(rest)) if rest.trim().is_empty() => Ok((String::new(), String::new())),
            Ok(Some(rest)) => convert_math(&rest, display, &self.defs),
            Err(reason) => Err(reason),
        };
        if let Some(fragments) = &mut self.fragments {
            fragments.push(MathFragment {
                source: self.src[from..to].to_owned(),
                tex: tex.to_owned(),
                display,
                error: converted.as_ref().err().cloned(),
            });
        }
        match converted {
            Ok((mathml, text)) => {
                // Inline MathML does not break across lines: a long formula gets a box
                // that scrolls sideways instead of running past the text column.
                let wide = !display && text.chars().count() > WIDE_INLINE_MATH_CHARS;
                if wide {
                    self.html.push_str(r#"<span class="math-wide">"#);
                }
                self.html.push_str(&mathml);
                if wide {
                    self.html.push_str("</span>");
                }
                self.text.push_str(&text);
            }
            Err(reason) => {
                let source = &self.src[from..to];
                self.warnings.push(format!(
                    "math not converted ({reason}): {:?}",
                    shorten(source)
                ));
                self.emit(source);
            }
        }
    }
}

/// Whether every `{` of `tex` is closed in it and no `}` closes what it did not open.
fn balanced_braces(tex: &str) -> bool {
    let mut depth = 0usize;
    for spanned in Tokens::new(tex) {
        match spanned.token {
            Token::BeginGroup => depth += 1,
            Token::EndGroup => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            _ => {}
        }
    }
    depth == 0
}

/// Whether the math command `name` puts an accent on one argument (`\bar`, `\hat`).
fn is_math_accent(name: &str) -> bool {
    matches!(
        name,
        "bar"
            | "hat"
            | "tilde"
            | "vec"
            | "dot"
            | "ddot"
            | "check"
            | "breve"
            | "acute"
            | "grave"
            | "widehat"
            | "widetilde"
            | "overline"
            | "underline"
    )
}

/// Math environments that text may hold as display math (`\begin{equation*}`).
fn is_math_environment(name: &str) -> bool {
    matches!(
        name.strip_suffix('*').unwrap_or(name),
        "equation" | "gather" | "align" | "multline" | "eqnarray" | "displaymath" | "math"
    )
}

/// The largest char boundary of `s` at or below `i`.
fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Whether a search stopped at the end of its region or a blank line rather than at a `$`.
fn stop_was_end(bytes: &[u8], stop: usize) -> bool {
    bytes.get(stop) != Some(&b'$')
}

/// Whether the line starting at `i` is blank (only spaces before a line break).
fn blank_line_follows(bytes: &[u8], mut i: usize, end: usize) -> bool {
    while i < end && matches!(bytes[i], b' ' | b'\t' | b'\r') {
        i += 1;
    }
    i < end && bytes[i] == b'\n'
}

/// Where the first line break in `bytes[from..to]` that is followed by a blank line (before
/// `end`) is.
fn blank_line_start(bytes: &[u8], from: usize, to: usize, end: usize) -> Option<usize> {
    (from..to).find(|&i| bytes[i] == b'\n' && blank_line_follows(bytes, i + 1, end))
}

/// What a font command does in HTML.
#[derive(Clone, Copy)]
enum Markup {
    /// Wraps its text in these opening and closing tags.
    Tag(&'static str, &'static str),
    /// Leaves its text without markup.
    Plain,
}

/// Commands with one argument that keep their argument, with or without markup.
fn wrapping_command(name: &str) -> Option<Markup> {
    Some(match name {
        "textbf" => Markup::Tag("<b>", "</b>"),
        "emph" | "textit" | "textsl" => Markup::Tag("<i>", "</i>"),
        "texttt" => Markup::Tag("<code>", "</code>"),
        "underline" => Markup::Tag("<u>", "</u>"),
        "textsuperscript" => Markup::Tag("<sup>", "</sup>"),
        "textsubscript" => Markup::Tag("<sub>", "</sub>"),
        "textrm" | "textsf" | "textsc" | "textup" | "textmd" | "textnormal" | "text" | "mbox"
        | "hbox" | "textlf" | "uppercase" | "MakeUppercase" | "lowercase" | "MakeLowercase"
        | "mathrm" | "mathbf" | "mathit" | "mathsf" | "mathtt" | "nocase" => Markup::Plain,
        _ => return None,
    })
}

/// Font declarations (`{\bf ...}`), which last until the end of the enclosing group.
fn declaration(name: &str) -> Option<Markup> {
    Some(match name {
        "bf" | "bfseries" => Markup::Tag("<b>", "</b>"),
        "it" | "itshape" | "em" | "sl" | "slshape" => Markup::Tag("<i>", "</i>"),
        "tt" | "ttfamily" => Markup::Tag("<code>", "</code>"),
        "rm" | "sf" | "sc" | "scshape" | "normalfont" | "rmfamily" | "sffamily" | "mdseries"
        | "upshape" | "small" | "footnotesize" | "large" | "Large" | "normalsize" => Markup::Plain,
        _ => return None,
    })
}

/// The base of an accent given in braces (`\'{e}`, `\"{\i}`, `\t{oo}`, `\~{}`).
fn accent_base(inner: &str, mark: char) -> Option<String> {
    if inner.is_empty() {
        return Some(String::new());
    }
    let unbraced = inner
        .strip_prefix('{')
        .and_then(|rest| rest.strip_suffix('}'))
        .unwrap_or(inner);
    if let Some(letter) = unbraced.strip_prefix('\\').and_then(dotless_letter) {
        return Some(letter.to_owned());
    }
    let mut chars = inner.chars();
    let first = chars.next()?;
    let plain = |c: char| !matches!(c, '\\' | '{' | '}' | '$' | '~') && !c.is_whitespace();
    if !plain(first) {
        return None;
    }
    match (chars.next(), chars.next()) {
        (None, _) => Some(first.to_string()),
        // The tie accent spans two letters.
        (Some(second), None) if mark == '\u{361}' && plain(second) => {
            Some(format!("{first}{second}"))
        }
        _ => None,
    }
}

/// `base` with the combining `mark` after its first character, in NFC; an empty base gives
/// the accent's spacing form (`\~{}` is a tilde).
fn apply_accent(base: &str, mark: char) -> String {
    let mut chars = base.chars();
    let Some(mut first) = chars.next() else {
        return match mark {
            '\u{301}' => "\u{b4}",
            '\u{300}' => "`",
            '\u{302}' => "^",
            '\u{308}' => "\u{a8}",
            '\u{303}' => "~",
            '\u{304}' => "\u{af}",
            '\u{307}' => "\u{2d9}",
            '\u{327}' => "\u{b8}",
            '\u{30c}' => "\u{2c7}",
            '\u{306}' => "\u{2d8}",
            '\u{30b}' => "\u{2dd}",
            '\u{328}' => "\u{2db}",
            '\u{30a}' => "\u{2da}",
            _ => "",
        }
        .to_owned();
    };
    // Accents go on the dotless forms (`\'\i`), which compose as the dotted letters.
    first = match first {
        '\u{131}' => 'i',
        '\u{237}' => 'j',
        other => other,
    };
    let mut s = String::with_capacity(base.len() + 3);
    s.push(first);
    s.push(mark);
    s.extend(chars);
    s.nfc().collect()
}

/// Control words that stand for a symbol or a word (spaces after them are kept).
fn word_command(name: &str) -> Option<&'static str> {
    Some(match name {
        "ldots" | "dots" | "textellipsis" => "…",
        "textendash" => "\u{2013}",
        "textemdash" => "\u{2014}",
        "S" | "textsection" => "§",
        "P" | "textparagraph" => "¶",
        "copyright" | "textcopyright" => "©",
        "textregistered" => "®",
        "texttrademark" => "™",
        "pounds" | "textsterling" => "£",
        "euro" | "texteuro" => "€",
        "textdollar" => "$",
        "textbackslash" => "\\",
        "textasciitilde" => "~",
        "textasciicircum" => "^",
        "textunderscore" => "_",
        "textbar" => "|",
        "textless" => "<",
        "textgreater" => ">",
        "textbullet" => "•",
        "dag" | "textdagger" => "†",
        "ddag" | "textdaggerdbl" => "‡",
        "textdegree" => "°",
        "guillemotleft" | "guillemetleft" => "«",
        "guillemotright" | "guillemetright" => "»",
        "textquotedblleft" => "\u{201c}",
        "textquotedblright" => "\u{201d}",
        "textquoteleft" => "\u{2018}",
        "textquoteright" => "\u{2019}",
        "quad" | "qquad" | "space" | "enspace" | "hfill" => " ",
        "thinspace" => "\u{2009}",
        "nobreakspace" => "\u{a0}",
        "slash" => "/",
        "LaTeX" => "LaTeX",
        "LaTeXe" => "LaTeX2ε",
        "TeX" => "TeX",
        "BibTeX" => "BibTeX",
        "XeTeX" => "XeTeX",
        "LuaTeX" => "LuaTeX",
        "AmS" => "AMS",
        _ => return None,
    })
}

// ---------------------------------------------------------------------------------------------
// Math
// ---------------------------------------------------------------------------------------------

/// Characters that must not reach the MathML raw, and the noncharacters that stand in for
/// them in the event stream (see [`protect`]).
const PROTECTED: [(char, char); 5] = [
    ('<', '\u{fdd0}'),
    ('>', '\u{fdd1}'),
    ('&', '\u{fdd2}'),
    ('"', '\u{fdd3}'),
    ('\'', '\u{fdd4}'),
];

/// Converts the math `tex` to `(MathML, text form)`, or says why it could not. The calls
/// of the macros in `defs` are expanded first (the submodule `defs`), then the commands of
/// the macro table (the submodule `macros`) are rewritten into ones the converter knows.
///
/// The converter's parser recurses once per command used as an unbraced argument of another
/// (`\frac1\frac1...`), up to some 10 KiB of stack per level in a debug build. A fragment with
/// at most [`MAX_SIMPLE_MATH_NESTING`] commands and braces cannot nest deeper than that and is
/// converted on the calling thread; a larger one (rare: at most [`MAX_MATH_BYTES`] long) is
/// converted on a helper thread with a stack big enough for any fragment of that size.
fn convert_math(tex: &str, display: bool, defs: &Definitions) -> Result<(String, String), String> {
    if tex.len() > MAX_MATH_BYTES {
        return Err(format!("longer than {MAX_MATH_BYTES} bytes"));
    }
    let source = tex;
    let expanded = defs.expand(tex)?;
    let rewritten = macros::rewrite_math(&expanded);
    let tex = &*rewritten;
    let nesting = check_math_source(tex)?;
    if nesting <= MAX_SIMPLE_MATH_NESTING {
        return convert_math_here(tex, source, display);
    }
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("tex-math".to_owned())
            .stack_size(LARGE_MATH_STACK_BYTES)
            .spawn_scoped(scope, || convert_math_here(tex, source, display))
            .map_err(|e| format!("could not start the math converter: {e}"))?
            .join()
            .unwrap_or_else(converter_panicked)
    })
}

/// Fragments with at most this many commands and braces are converted on the calling thread.
const MAX_SIMPLE_MATH_NESTING: usize = 32;
/// The stack of the helper thread for larger fragments (reserved, not committed, memory).
const LARGE_MATH_STACK_BYTES: usize = 64 << 20;

/// [`convert_math`] on the current thread: `tex` after the rewrite, `source` as written.
fn convert_math_here(tex: &str, source: &str, display: bool) -> Result<(String, String), String> {
    let storage = Storage::new();
    let converted = catch_converter_panic(|| {
        let mut events = Vec::new();
        for event in Parser::new(tex, &storage) {
            match event {
                Ok(event) => events.push(event),
                Err(error) => {
                    let message = error.to_string();
                    let first_line = message.lines().next().unwrap_or("parse error");
                    let first_line = first_line
                        .strip_prefix("parsing error: ")
                        .unwrap_or(first_line);
                    return Err(first_line.to_owned());
                }
            }
        }
        let text = math_text(&events).unwrap_or_else(|| source.trim().to_owned());
        let owned: Vec<Option<String>> = events.iter().map(protected_string).collect();
        let events: Vec<Event<'_>> = events
            .iter()
            .zip(&owned)
            .map(|(event, owned)| fix_event(event, owned.as_deref()))
            .collect();
        let config = RenderConfig {
            display_mode: if display {
                DisplayMode::Block
            } else {
                DisplayMode::Inline
            },
            ..RenderConfig::default()
        };
        let mut raw = String::new();
        push_mathml(
            &mut raw,
            events.into_iter().map(Ok::<_, std::convert::Infallible>),
            config,
        )
        .map_err(|e| e.to_string())?;
        let mathml =
            sanitize_mathml(&raw, source).map_err(|e| format!("unexpected MathML: {e}"))?;
        Ok((mathml, text))
    });
    converted.unwrap_or_else(converter_panicked)
}

/// Runs `convert` (the converter's parser and renderer on one fragment), catching a panic
/// in them so that one bad fragment cannot stop a build.
///
/// Catching is the last line of defence, not how input is handled: every input known to
/// trip the converter is kept from it by [`check_math_source`] (such as `\char` followed
/// by a letter outside ASCII). So that none is missed, the panic is not caught in this
/// crate's unit tests and in fuzzing builds (`cfg(fuzzing)`, which cargo-fuzz sets): there
/// it fails the test or the fuzz target with the converter's own message.
fn catch_converter_panic<T>(convert: impl FnOnce() -> T) -> std::thread::Result<T> {
    if cfg!(any(test, fuzzing)) {
        return Ok(convert());
    }
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(convert))
}

/// The result for a fragment whose conversion panicked (see [`catch_converter_panic`]);
/// in unit tests and fuzzing builds the panic goes on.
fn converter_panicked<T>(payload: Box<dyn std::any::Any + Send>) -> Result<T, String> {
    if cfg!(any(test, fuzzing)) {
        std::panic::resume_unwind(payload);
    }
    Err("the math converter failed".to_owned())
}

/// Rejects math this module does not hand to the converter; otherwise returns the number of
/// commands and opening braces, a bound on how deeply the converter can nest.
fn check_math_source(tex: &str) -> Result<usize, String> {
    if tex.trim().is_empty() {
        return Err("empty math".to_owned());
    }
    if tex.len() > MAX_MATH_BYTES {
        return Err(format!("longer than {MAX_MATH_BYTES} bytes"));
    }
    if tex.chars().any(|c| PROTECTED.iter().any(|&(_, p)| p == c)) {
        return Err("contains reserved noncharacters".to_owned());
    }
    let mut depth = 0usize;
    let mut nesting = 0usize;
    for spanned in Tokens::new(tex) {
        match spanned.token {
            Token::ControlWord(name) => {
                nesting += 1;
                if defines_macros(name) {
                    return Err("macro definitions are not supported".to_owned());
                }
                if name == "char" && !char_code_follows(&tex[spanned.end..]) {
                    return Err("\\char takes a character code (a number)".to_owned());
                }
                if !colors_are_ascii(name, &tex[spanned.end..]) {
                    return Err(format!("\\{name} takes a color name or #RRGGBB"));
                }
            }
            Token::ControlSymbol(_) | Token::LoneBackslash => nesting += 1,
            Token::BeginGroup => {
                nesting += 1;
                depth += 1;
                if depth > MAX_MATH_BRACE_DEPTH {
                    return Err("braces nested too deeply".to_owned());
                }
            }
            Token::EndGroup => depth = depth.saturating_sub(1),
            Token::Text(_) | Token::Dollar | Token::DoubleDollar => {}
        }
    }
    Ok(nesting)
}

/// Whether what follows `\char` starts as a character code can: with an ASCII
/// character (a digit, or `'`, `"` or a backquote). pulldown-latex 0.8 panics on a
/// letter outside ASCII there (it steps one byte into the character), so such math is
/// kept as its source instead.
fn char_code_follows(rest: &str) -> bool {
    rest.trim_start()
        .chars()
        .next()
        .is_none_or(|c| c.is_ascii())
}

/// Whether the color arguments of the control word `name` (`\color`, `\textcolor`,
/// `\colorbox`: the first braced argument in `rest`; `\fcolorbox`: the first two) are
/// ASCII, as color names and `#RRGGBB` are. pulldown-latex 0.8 slices a `#` color by
/// bytes and panics on one with a character outside ASCII, so such math is kept as
/// its source instead.
fn colors_are_ascii(name: &str, rest: &str) -> bool {
    let count = match name {
        "color" | "textcolor" | "colorbox" => 1,
        "fcolorbox" => 2,
        _ => return true,
    };
    let mut rest = rest;
    for _ in 0..count {
        let Some(group) = rest.trim_start().strip_prefix('{') else {
            return true;
        };
        let Some(close) = group.find('}') else {
            return group.is_ascii();
        };
        if !group[..close].is_ascii() {
            return false;
        }
        rest = &group[close + 1..];
    }
    true
}

/// Whether the control word `name` defines or expands macros, which math may not do.
fn defines_macros(name: &str) -> bool {
    matches!(
        name,
        "def"
            | "edef"
            | "gdef"
            | "xdef"
            | "let"
            | "newcommand"
            | "renewcommand"
            | "providecommand"
            | "DeclareMathOperator"
            | "futurelet"
            | "expandafter"
    )
}

/// `s` with the [`PROTECTED`] characters replaced by their stand-ins, if it has any.
fn protect_str(s: &str) -> Option<String> {
    if !s.contains(['<', '>', '&', '"', '\'']) {
        return None;
    }
    Some(s.chars().map(protect).collect())
}

/// The stand-in for `c` if it is one of the [`PROTECTED`] characters.
fn protect(c: char) -> char {
    PROTECTED
        .iter()
        .find(|&&(raw, _)| raw == c)
        .map_or(c, |&(_, p)| p)
}

/// For events that carry a string with [`PROTECTED`] characters, the protected string.
fn protected_string(event: &Event<'_>) -> Option<String> {
    match event {
        Event::Content(Content::Text(s) | Content::Number(s) | Content::Function(s)) => {
            protect_str(s)
        }
        _ => None,
    }
}

/// The text the parser gives for a no-break space (`\ `, `~`), as HTML.
const NBSP_TEXT: &str = "&nbsp;";

/// The event as handed to the renderer: [`PROTECTED`] characters replaced by stand-ins,
/// `mu` dimensions turned into `em` (the renderer prints the converted value with the
/// unit `mu`, which browsers and the HTML checker reject) and heightful spaces given a width
/// (the renderer drops the opening of the element without one). The parser's text
/// `&nbsp;` (for `\ `, `~` and `\nobreakspace`), which the renderer would escape into a
/// visible `&nbsp;`, becomes a space of the width of TeX's interword space.
fn fix_event<'e>(event: &Event<'e>, owned: Option<&'e str>) -> Event<'e> {
    match (event, owned) {
        (Event::Content(Content::Text(NBSP_TEXT)), _) => Event::Space {
            width: Some(Dimension::new(0.333, DimensionUnit::Em)),
            height: None,
            depth: None,
        },
        (Event::Content(Content::Text(_)), Some(s)) => Event::Content(Content::Text(s)),
        (Event::Content(Content::Number(_)), Some(s)) => Event::Content(Content::Number(s)),
        (Event::Content(Content::Function(_)), Some(s)) => Event::Content(Content::Function(s)),
        (Event::Content(content), _) => Event::Content(match *content {
            Content::Ordinary { content, stretchy } => Content::Ordinary {
                content: protect(content),
                stretchy,
            },
            Content::LargeOp { content, small } => Content::LargeOp {
                content: protect(content),
                small,
            },
            Content::BinaryOp { content, small } => Content::BinaryOp {
                content: protect(content),
                small,
            },
            Content::Delimiter { content, size, ty } => Content::Delimiter {
                content: protect(content),
                size,
                ty,
            },
            Content::Punctuation(c) => Content::Punctuation(protect(c)),
            other => other,
        }),
        (
            Event::Space {
                width,
                height,
                depth,
            },
            _,
        ) => Event::Space {
            width: Some(width.map_or(Dimension::new(0.0, DimensionUnit::Em), em)),
            height: height.map(em),
            depth: depth.map(em),
        },
        (Event::Visual(Visual::Fraction(Some(d))), _) => {
            Event::Visual(Visual::Fraction(Some(em(*d))))
        }
        (
            Event::EnvironmentFlow(EnvironmentFlow::NewLine {
                spacing,
                horizontal_lines,
            }),
            _,
        ) => Event::EnvironmentFlow(EnvironmentFlow::NewLine {
            spacing: spacing.map(em),
            horizontal_lines: horizontal_lines.clone(),
        }),
        (other, _) => other.clone(),
    }
}

/// `d` in `em` if it is in `mu` (18 mu = 1 em).
fn em(d: Dimension) -> Dimension {
    if d.unit == DimensionUnit::Mu {
        Dimension::new(d.value / 18.0, DimensionUnit::Em)
    } else {
        d
    }
}

// --- MathML sanitising -----------------------------------------------------------------------

/// A MathML element as re-parsed from the renderer's output.
struct MElement {
    name: &'static str,
    attrs: Vec<(&'static str, String)>,
    children: Vec<MNode>,
}

enum MNode {
    Element(MElement),
    Text(String),
}

/// The MathML elements allowed in the output.
const ELEMENTS: &[&str] = &[
    "math",
    "mrow",
    "mi",
    "mo",
    "mn",
    "mtext",
    "mspace",
    "msub",
    "msup",
    "msubsup",
    "munder",
    "mover",
    "munderover",
    "mfrac",
    "msqrt",
    "mroot",
    "mtable",
    "mtr",
    "mtd",
    "mstyle",
    "mpadded",
    "mphantom",
    "menclose",
    "semantics",
    "annotation",
];

/// The attributes allowed in the output.
const ATTRIBUTES: &[&str] = &[
    "display",
    "class",
    "style",
    "stretchy",
    "symmetric",
    "minsize",
    "maxsize",
    "movablelimits",
    "largeop",
    "linethickness",
    "mathvariant",
    "width",
    "height",
    "depth",
    "displaystyle",
    "scriptlevel",
    "lspace",
    "rspace",
    "accent",
    "accentunder",
    "fence",
    "form",
    "separator",
    "notation",
    "columnalign",
    "rowalign",
];

/// Elements whose content is text.
fn is_token(name: &str) -> bool {
    matches!(name, "mi" | "mo" | "mn" | "mtext")
}

/// How many children an element must have, for those with a fixed number.
fn required_children(name: &str) -> Option<usize> {
    match name {
        "msub" | "msup" | "munder" | "mover" | "mfrac" | "mroot" => Some(2),
        "msubsup" | "munderover" => Some(3),
        _ => None,
    }
}

/// Re-parses the renderer's MathML, checks it against the whitelists, repairs what the Nu HTML
/// checker rejects and serialises it with all text escaped. The TeX `source` goes along as
/// an `<annotation encoding="application/x-tex">` in `<semantics>`, for screen readers and
/// copy and paste (browsers show only the first child of `<semantics>`).
fn sanitize_mathml(raw: &str, source: &str) -> Result<String, &'static str> {
    let mut root = parse_mathml(raw)?;
    repair(&mut root, 0)?;
    root.attrs
        .retain(|(a, _)| !matches!(*a, "displaystyle" | "scriptlevel"));
    let presentation = MElement {
        name: "mrow",
        attrs: Vec::new(),
        children: std::mem::take(&mut root.children),
    };
    let annotation = MElement {
        name: "annotation",
        attrs: vec![("encoding", "application/x-tex".to_owned())],
        children: vec![MNode::Text(source.trim().to_owned())],
    };
    root.children.push(MNode::Element(MElement {
        name: "semantics",
        attrs: Vec::new(),
        children: vec![MNode::Element(presentation), MNode::Element(annotation)],
    }));
    let mut out = String::with_capacity(raw.len() + 32);
    serialize(&root, &mut out);
    Ok(out)
}

fn parse_mathml(raw: &str) -> Result<MElement, &'static str> {
    let bytes = raw.as_bytes();
    let mut stack: Vec<MElement> = Vec::new();
    let mut root = None;
    let mut i = 0;
    while i < bytes.len() {
        let tag_start = bytes[i] == b'<'
            && bytes
                .get(i + 1)
                .is_some_and(|&b| b.is_ascii_lowercase() || b == b'/');
        if !tag_start {
            // Text, up to the next tag.
            let j = text_end(bytes, i + 1);
            let parent = stack.last_mut().ok_or("text outside <math>")?;
            if !is_token(parent.name) {
                return Err("text outside a token element");
            }
            parent.children.push(MNode::Text(decode_text(&raw[i..j])?));
            i = j;
            continue;
        }
        if bytes[i + 1] == b'/' {
            let close = raw[i..].find('>').ok_or("unterminated closing tag")? + i;
            let name = &raw[i + 2..close];
            let element = stack.pop().ok_or("closing tag without opening tag")?;
            if element.name != name {
                return Err("mismatched closing tag");
            }
            match stack.last_mut() {
                Some(parent) => parent.children.push(MNode::Element(element)),
                None if root.is_none() => root = Some(element),
                None => return Err("more than one <math>"),
            }
            i = close + 1;
            continue;
        }
        // An opening tag.
        let mut j = i + 1;
        while j < bytes.len() && bytes[j].is_ascii_lowercase() {
            j += 1;
        }
        let name = *ELEMENTS
            .iter()
            .find(|&&e| e == &raw[i + 1..j])
            .ok_or("element not allowed")?;
        if (name == "math") != (stack.is_empty() && root.is_none()) {
            return Err("<math> misplaced");
        }
        let mut element = MElement {
            name,
            attrs: Vec::new(),
            children: Vec::new(),
        };
        let (j, self_closing) = read_attributes(raw, j, &mut element)?;
        i = j;
        if self_closing {
            match stack.last_mut() {
                Some(parent) => parent.children.push(MNode::Element(element)),
                None => return Err("self-closing <math>"),
            }
        } else {
            if stack.len() >= MAX_TREE_DEPTH {
                return Err("nested too deeply");
            }
            stack.push(element);
        }
    }
    if !stack.is_empty() {
        return Err("unclosed element");
    }
    root.ok_or("no <math>")
}

/// Where the text starting at `from` ends: at the next tag, or at the end.
fn text_end(bytes: &[u8], from: usize) -> usize {
    let mut j = from;
    while j < bytes.len()
        && !(bytes[j] == b'<'
            && bytes
                .get(j + 1)
                .is_some_and(|&b| b.is_ascii_lowercase() || b == b'/'))
    {
        j += 1;
    }
    j
}

/// Reads the attributes of the opening tag whose name ends at `j` into `element`;
/// returns where the tag ends and whether it closes itself.
fn read_attributes(
    raw: &str,
    mut j: usize,
    element: &mut MElement,
) -> Result<(usize, bool), &'static str> {
    let bytes = raw.as_bytes();
    loop {
        while j < bytes.len() && bytes[j] == b' ' {
            j += 1;
        }
        match bytes.get(j) {
            Some(b'>') => return Ok((j + 1, false)),
            Some(b'/') if bytes.get(j + 1) == Some(&b'>') => return Ok((j + 2, true)),
            Some(b) if b.is_ascii_lowercase() => {
                let name_start = j;
                while j < bytes.len() && (bytes[j].is_ascii_lowercase() || bytes[j] == b'-') {
                    j += 1;
                }
                let attr = *ATTRIBUTES
                    .iter()
                    .find(|&&a| a == &raw[name_start..j])
                    .ok_or("attribute not allowed")?;
                if bytes.get(j) != Some(&b'=') || bytes.get(j + 1) != Some(&b'"') {
                    return Err("malformed attribute");
                }
                let value_start = j + 2;
                let value_end = raw[value_start..]
                    .find('"')
                    .ok_or("unterminated attribute")?
                    + value_start;
                let value = &raw[value_start..value_end];
                if !is_allowed_attribute_value(value) {
                    return Err("attribute value not allowed");
                }
                element.attrs.push((attr, value.to_owned()));
                j = value_end + 1;
            }
            _ => return Err("malformed tag"),
        }
    }
}

/// Whether an attribute value holds only characters MathML presentation values use.
fn is_allowed_attribute_value(value: &str) -> bool {
    value.bytes().all(|b| {
        b.is_ascii_alphanumeric()
            || matches!(
                b,
                b' ' | b'.' | b',' | b':' | b';' | b'#' | b'(' | b')' | b'%' | b'+' | b'-'
            )
    })
}

/// Text content as the renderer wrote it, decoded: its entities resolved and the stand-ins of
/// [`PROTECTED`] characters turned back into those characters.
fn decode_text(s: &str) -> Result<String, &'static str> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let (c, len) = [
            ("&amp;", '&'),
            ("&lt;", '<'),
            ("&gt;", '>'),
            ("&quot;", '"'),
            ("&#39;", '\''),
            ("&nbsp;", '\u{a0}'),
        ]
        .iter()
        .find(|(entity, _)| rest.starts_with(entity))
        .map(|&(entity, c)| (c, entity.len()))
        .ok_or("stray `&` in text")?;
        out.push(c);
        rest = &rest[len..];
    }
    out.push_str(rest);
    if out.contains('"') {
        return Err("stray `\"` in text");
    }
    Ok(out
        .chars()
        .map(|c| {
            PROTECTED
                .iter()
                .find(|&&(_, p)| p == c)
                .map_or(c, |&(raw, _)| raw)
        })
        .collect())
}

/// Repairs what the renderer gets wrong for the HTML checker: `displaystyle`/`scriptlevel`
/// on elements other than `<mstyle>` (moved to an `<mstyle>` around the element) and scripts
/// or fractions with extra children (the leading ones grouped into an `<mrow>`).
fn repair(element: &mut MElement, depth: usize) -> Result<(), &'static str> {
    if depth > MAX_TREE_DEPTH {
        return Err("nested too deeply");
    }
    if let Some(required) = required_children(element.name) {
        let have = element.children.len();
        if have < required {
            return Err("script or fraction with missing parts");
        }
        if have > required {
            let rest = element.children.split_off(have - required + 1);
            let first = std::mem::take(&mut element.children);
            element.children.push(MNode::Element(MElement {
                name: "mrow",
                attrs: Vec::new(),
                children: first,
            }));
            element.children.extend(rest);
        }
    }
    for child in &mut element.children {
        if let MNode::Element(child_element) = child {
            repair(child_element, depth + 1)?;
            let styled = child_element.name != "mstyle"
                && child_element
                    .attrs
                    .iter()
                    .any(|(a, _)| matches!(*a, "displaystyle" | "scriptlevel"));
            if styled {
                let (style_attrs, other): (Vec<_>, Vec<_>) =
                    std::mem::take(&mut child_element.attrs)
                        .into_iter()
                        .partition(|(a, _)| matches!(*a, "displaystyle" | "scriptlevel"));
                child_element.attrs = other;
                let inner = std::mem::replace(child, MNode::Text(String::new()));
                *child = MNode::Element(MElement {
                    name: "mstyle",
                    attrs: style_attrs,
                    children: vec![inner],
                });
            }
        }
    }
    Ok(())
}

fn serialize(element: &MElement, out: &mut String) {
    out.push('<');
    out.push_str(element.name);
    for (name, value) in &element.attrs {
        out.push(' ');
        out.push_str(name);
        out.push_str("=\"");
        push_escaped(out, value);
        out.push('"');
    }
    if element.name == "mspace" && element.children.is_empty() {
        out.push_str("/>");
        return;
    }
    out.push('>');
    for child in &element.children {
        match child {
            MNode::Element(e) => serialize(e, out),
            MNode::Text(t) => push_escaped(out, t),
        }
    }
    out.push_str("</");
    out.push_str(element.name);
    out.push('>');
}

// --- Text form of math -----------------------------------------------------------------------

/// The text form of math from its events (see the module documentation), or `None` when the
/// events are nested too deeply.
fn math_text(events: &[Event<'_>]) -> Option<String> {
    let mut builder = MathText {
        events,
        i: 0,
        depth: 0,
    };
    let mut whole = Piece::default();
    while builder.i < events.len() {
        let piece = builder.seq(None, false, None)?;
        whole.join(piece, false);
        // A stray `End` at the top level stops `seq`; skip it.
        builder.i += 1;
    }
    let normalized: String = whole.s.nfc().collect();
    let mut out = String::with_capacity(normalized.len());
    for word in normalized.split(' ').filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    Some(out)
}

/// The spacing class of a piece of math text, after TeX's atom classes.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
enum Class {
    #[default]
    Ord,
    /// A large operator (`∑`).
    Op,
    /// A binary operator with something before it.
    Bin,
    Rel,
    Open,
    Close,
    Punct,
    /// A named function (`log`).
    Func,
    /// An item with subscripts or superscripts.
    Scripted,
    /// A fraction in linear form (`a/b`).
    Frac,
}

/// A piece of math text.
#[derive(Default)]
struct Piece {
    s: String,
    /// How many items were joined into it (a piece of one item needs no parentheses).
    items: usize,
    first: Option<Class>,
    last: Option<Class>,
}

impl Piece {
    fn item(s: String, class: Class) -> Piece {
        Piece {
            s,
            items: 1,
            first: Some(class),
            last: Some(class),
        }
    }

    /// Appends `next`, with the spaces TeX would put between them (none in scripts).
    fn join(&mut self, mut next: Piece, script: bool) {
        if next.s.is_empty() {
            return;
        }
        if next.first.is_none() {
            // Explicit space.
            if !self.s.is_empty() && !self.s.ends_with(' ') {
                self.s.push(' ');
            }
            return;
        }
        let starts_alnum = next.s.chars().next().is_some_and(char::is_alphanumeric);
        let ends_alnum = self
            .s
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric);
        let mut next_first = next.first.unwrap_or(Class::Ord);
        if next_first == Class::Bin
            && !matches!(
                self.last,
                Some(
                    Class::Ord
                        | Class::Close
                        | Class::Scripted
                        | Class::Frac
                        | Class::Func
                        | Class::Op
                )
            )
        {
            // A unary sign: it binds to what follows.
            next_first = Class::Open;
            if next.items == 1 {
                next.last = Some(Class::Open);
            }
        }
        let space = match self.last {
            None => false,
            Some(last) => {
                let wordy = (last == Class::Func && starts_alnum)
                    || (ends_alnum && next_first == Class::Func)
                    || (matches!(last, Class::Op | Class::Scripted) && starts_alnum)
                    || (last == Class::Frac
                        && matches!(
                            next_first,
                            Class::Ord | Class::Frac | Class::Func | Class::Op
                        ))
                    || (next_first == Class::Frac
                        && matches!(
                            last,
                            Class::Ord | Class::Close | Class::Scripted | Class::Func
                        ));
                wordy
                    || (!script
                        && (matches!(last, Class::Rel | Class::Bin | Class::Punct)
                            || matches!(next_first, Class::Rel | Class::Bin))
                        && last != Class::Open
                        && next_first != Class::Close
                        && next_first != Class::Punct)
            }
        };
        if space && !self.s.ends_with(' ') && !next.s.starts_with(' ') {
            self.s.push(' ');
        }
        self.s.push_str(&next.s);
        self.items += next.items;
        if self.first.is_none() {
            self.first = Some(next_first);
        }
        self.last = next.last;
    }

    /// The piece as an argument of a script or fraction: parenthesised when it has several
    /// items.
    fn argument(&self) -> String {
        if self.items <= 1 {
            self.s.trim().to_owned()
        } else {
            format!("({})", self.s.trim())
        }
    }
}

struct MathText<'e, 'a> {
    events: &'e [Event<'a>],
    i: usize,
    depth: usize,
}

impl MathText<'_, '_> {
    /// Reads items up to the `End` of the current group (not consumed) or the end of the
    /// events. `separators` are the texts for `&` and `\\` inside environments.
    fn seq(
        &mut self,
        font: Option<Font>,
        script: bool,
        separators: Option<(&'static str, &'static str)>,
    ) -> Option<Piece> {
        self.depth += 1;
        if self.depth > MAX_TREE_DEPTH {
            return None;
        }
        let mut font = font;
        let mut piece = Piece::default();
        while let Some(event) = self.events.get(self.i) {
            match event {
                Event::End => break,
                Event::StateChange(pulldown_latex::event::StateChange::Font(f)) => {
                    font = *f;
                    self.i += 1;
                }
                Event::EnvironmentFlow(flow) => {
                    self.i += 1;
                    let (cell, row) = separators.unwrap_or((" ", "; "));
                    let sep = match flow {
                        EnvironmentFlow::Alignment => cell,
                        EnvironmentFlow::NewLine { .. } => row,
                        EnvironmentFlow::StartLines { .. } => "",
                    };
                    piece.s.push_str(sep);
                    piece.last = if sep.trim().is_empty() {
                        piece.last
                    } else {
                        Some(Class::Punct)
                    };
                }
                _ => {
                    let item = self.item(font, script)?;
                    piece.join(item, script);
                }
            }
        }
        // An upright word (`\mathrm{eff}`, `\operatorname{...}`) reads as one item.
        if font == Some(Font::UpRight) && piece.s.chars().all(char::is_alphanumeric) {
            piece.items = piece.items.min(1);
        }
        self.depth -= 1;
        Some(piece)
    }

    /// Reads a group whose `Begin` was just read, through its `End`.
    fn group(&mut self, grouping: &Grouping, font: Option<Font>, script: bool) -> Option<Piece> {
        let separators = match grouping {
            Grouping::Normal | Grouping::LeftRight(..) => None,
            Grouping::Array(_)
            | Grouping::Matrix { .. }
            | Grouping::Cases { .. }
            | Grouping::SubArray { .. } => Some((", ", "; ")),
            _ => Some((" ", "; ")),
        };
        let inner = self.seq(font, script, separators)?;
        // Consume the `End`.
        self.i += 1;
        Some(match grouping {
            Grouping::LeftRight(left, right) => {
                let mut s = String::new();
                s.extend(left.iter());
                s.push_str(inner.s.trim());
                s.extend(right.iter());
                Piece {
                    s,
                    items: 1,
                    first: Some(Class::Open),
                    last: Some(Class::Close),
                }
            }
            Grouping::Normal => inner,
            _ => Piece { items: 2, ..inner },
        })
    }

    /// Reads what a root, fraction or negation applies to.
    fn visual(&mut self, visual: &Visual, font: Option<Font>, script: bool) -> Option<Piece> {
        Some(match visual {
            Visual::SquareRoot => {
                let arg = self.item(font, true)?;
                Piece::item(format!("√{}", arg.argument()), Class::Ord)
            }
            Visual::Root => {
                let radicand = self.item(font, true)?;
                let index = self.item(font, true)?;
                let s = match index.s.trim() {
                    "3" => format!("∛{}", radicand.argument()),
                    "4" => format!("∜{}", radicand.argument()),
                    other => format!("{}^(1/{})", radicand.argument(), other),
                };
                Piece::item(s, Class::Scripted)
            }
            Visual::Fraction(thickness) => {
                let num = self.item(font, true)?;
                let den = self.item(font, true)?;
                let s = if thickness.is_some_and(|d| d.value == 0.0) {
                    // \binom and friends: stacked without a bar.
                    format!("{} {}", num.argument(), den.argument())
                } else {
                    format!("{}/{}", num.argument(), den.argument())
                };
                Piece {
                    s,
                    items: 2,
                    first: Some(Class::Frac),
                    last: Some(Class::Frac),
                }
            }
            Visual::Negation => {
                let mut arg = self.item(font, script)?;
                arg.s.push('\u{338}');
                arg
            }
        })
    }

    /// Reads one item (an argument of a script, fraction or root).
    fn item(&mut self, font: Option<Font>, script: bool) -> Option<Piece> {
        self.depth += 1;
        if self.depth > MAX_TREE_DEPTH {
            return None;
        }
        let Some(event) = self.events.get(self.i) else {
            self.depth -= 1;
            return Some(Piece::default());
        };
        self.i += 1;
        let piece = match event {
            Event::Content(content) => content_piece(content, font),
            Event::Begin(grouping) => self.group(grouping, font, script)?,
            Event::End => {
                // An argument that is missing: leave the `End` to the enclosing group.
                self.i -= 1;
                Piece::default()
            }
            Event::Visual(visual) => self.visual(visual, font, script)?,
            Event::Script { ty, position } => {
                let base = self.item(font, script)?;
                let (sub, sup) = match ty {
                    ScriptType::Subscript => (Some(self.item(font, true)?), None),
                    ScriptType::Superscript => (None, Some(self.item(font, true)?)),
                    ScriptType::SubSuperscript => {
                        let sub = self.item(font, true)?;
                        (Some(sub), Some(self.item(font, true)?))
                    }
                };
                scripted(base, sub, sup, *position)
            }
            Event::Space { width, .. } => {
                if width.is_some_and(|w| w.value > 0.0) {
                    Piece {
                        s: " ".to_owned(),
                        items: 0,
                        first: None,
                        last: None,
                    }
                } else {
                    Piece::default()
                }
            }
            Event::StateChange(_) | Event::EnvironmentFlow(_) => Piece::default(),
        };
        self.depth -= 1;
        Some(piece)
    }
}

/// The text of a base with its scripts.
fn scripted(
    base: Piece,
    sub: Option<Piece>,
    sup: Option<Piece>,
    position: ScriptPosition,
) -> Piece {
    let single_char = |p: &Piece| {
        let mut chars = p.s.trim().chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Some(c),
            _ => None,
        }
    };
    // Accents (\hat{x}, \bar{x}, \overline{AB}) as combining characters on each letter of
    // a short alphanumeric base.
    let base_text = base.s.trim();
    let accentable = position == ScriptPosition::AboveBelow
        && !base_text.is_empty()
        && base_text.chars().count() <= 8
        && base_text.chars().all(char::is_alphanumeric);
    if accentable {
        let mark = match (&sub, &sup) {
            (None, Some(sup)) => single_char(sup).and_then(accent_above),
            (Some(sub), None) => single_char(sub).and_then(accent_below),
            _ => None,
        };
        if let Some(mark) = mark {
            let mut s = String::with_capacity(base_text.len() * 3);
            for c in base_text.chars() {
                s.push(c);
                s.push(mark);
            }
            return Piece::item(s, Class::Ord);
        }
    }
    let class = if base.first == Some(Class::Op) || base.last == Some(Class::Func) {
        Class::Op
    } else {
        Class::Scripted
    };
    let mut s = base.argument();
    if let Some(sub) = sub {
        s.push('_');
        s.push_str(&sub.argument());
    }
    if let Some(sup) = sup {
        let primes = sup.s.trim();
        if !primes.is_empty() && primes.chars().all(|c| matches!(c, '′' | '″' | '‴' | '⁗'))
        {
            s.push_str(primes);
        } else {
            s.push('^');
            s.push_str(&sup.argument());
        }
    }
    Piece {
        s,
        items: 1,
        first: Some(base.first.unwrap_or(Class::Ord)),
        last: Some(class),
    }
}

/// The combining character for an accent drawn above.
fn accent_above(c: char) -> Option<char> {
    Some(match c {
        '‾' | '¯' | '\u{2015}' | '_' => '\u{305}',
        '^' | 'ˆ' => '\u{302}',
        '~' | '˜' => '\u{303}',
        '→' | '⃗' => '\u{20d7}',
        '←' => '\u{20d6}',
        '˙' => '\u{307}',
        '¨' => '\u{308}',
        'ˇ' => '\u{30c}',
        '˘' => '\u{306}',
        '´' => '\u{301}',
        '`' => '\u{300}',
        '˚' => '\u{30a}',
        _ => return None,
    })
}

/// The combining character for an accent drawn below.
fn accent_below(c: char) -> Option<char> {
    Some(match c {
        '_' | '‾' | '¯' => '\u{332}',
        '~' | '˜' => '\u{330}',
        _ => return None,
    })
}

/// The text of one content event.
fn content_piece(content: &Content<'_>, font: Option<Font>) -> Piece {
    match *content {
        Content::Text(NBSP_TEXT) => Piece::item("\u{a0}".to_owned(), Class::Ord),
        Content::Text(s) => Piece::item(s.to_owned(), Class::Ord),
        Content::Number(s) => Piece::item(s.to_owned(), Class::Ord),
        Content::Function(s) => Piece::item(s.to_owned(), Class::Func),
        Content::Ordinary { content, .. } => {
            Piece::item(styled_char(content, font).to_string(), Class::Ord)
        }
        Content::LargeOp { content, .. } => Piece::item(content.to_string(), Class::Op),
        Content::BinaryOp { content, .. } => Piece::item(content.to_string(), Class::Bin),
        Content::Relation { content, .. } => {
            let mut buf = [0u8; 8];
            let bytes = content.encode_utf8_to_buf(&mut buf);
            let s = std::str::from_utf8(bytes)
                .unwrap_or("")
                .replace('\u{fe00}', "");
            Piece::item(s, Class::Rel)
        }
        Content::Delimiter { content, ty, .. } => {
            let class = match ty {
                pulldown_latex::event::DelimiterType::Open => Class::Open,
                pulldown_latex::event::DelimiterType::Close => Class::Close,
                pulldown_latex::event::DelimiterType::Fence => Class::Ord,
            };
            Piece::item(content.to_string(), class)
        }
        Content::Punctuation(c) => Piece::item(c.to_string(), Class::Punct),
    }
}

/// `c` in the font, for the fonts whose letters are read differently (double-struck `ℝ`).
fn styled_char(c: char, font: Option<Font>) -> char {
    if font != Some(Font::DoubleStruck) {
        return c;
    }
    let special = match c {
        'C' => Some('ℂ'),
        'H' => Some('ℍ'),
        'N' => Some('ℕ'),
        'P' => Some('ℙ'),
        'Q' => Some('ℚ'),
        'R' => Some('ℝ'),
        'Z' => Some('ℤ'),
        _ => None,
    };
    if let Some(s) = special {
        return s;
    }
    let code = match c {
        'A'..='Z' => 0x1d538 + (c as u32 - 'A' as u32),
        'a'..='z' => 0x1d552 + (c as u32 - 'a' as u32),
        '0'..='9' => 0x1d7d8 + (c as u32 - '0' as u32),
        _ => return c,
    };
    char::from_u32(code).unwrap_or(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_definition_cut_short_is_kept_as_source_with_one_warning() {
        // A definition command with nothing after it, and a definition of an empty name, at the end of
        // the text or of the math.
        for (source, shown) in [
            ("\\let", "\\let"),
            ("A title \\let", "\\let"),
            ("$\\let$", "$\\let$"),
            ("$x\\let $ y", "\\let"),
            ("$<\\def$ and", "\\def"),
            ("A title \\def", "\\def"),
            ("$\\DeclareMathOperator*$", "\\DeclareMathOperator*"),
            ("$\\newcommand{}{x}$", "\\newcommand{}{x}"),
        ] {
            let rendered = render_tex(source);
            assert!(rendered.html.contains(shown), "{source}: {}", rendered.html);
            assert_eq!(
                rendered.warnings.len(),
                1,
                "{source}: {:?}",
                rendered.warnings
            );
        }
    }

    /// Asserts that `source` is shown as its source (no MathML, `shown` in the HTML) with
    /// one warning containing `reason`.
    fn assert_kept_as_source(source: &str, shown: &str, reason: &str) {
        let rendered = render_tex(source);
        assert!(
            !rendered.html.contains("<math"),
            "{source}: {}",
            rendered.html
        );
        assert!(rendered.html.contains(shown), "{source}: {}", rendered.html);
        assert_eq!(
            rendered.warnings.len(),
            1,
            "{source}: {:?}",
            rendered.warnings
        );
        assert!(
            rendered.warnings[0].contains(reason),
            "{:?}",
            rendered.warnings
        );
    }

    /// Asserts that `source` becomes MathML with no warning.
    fn assert_converted(source: &str) {
        let rendered = render_tex(source);
        assert!(rendered.html.contains("<math"), "{}", rendered.html);
        assert!(rendered.warnings.is_empty(), "{:?}", rendered.warnings);
    }

    #[test]
    fn a_color_outside_ascii_is_kept_as_source_with_one_warning() {
        for source in [
            "$\\textcolor{#l\u{fffd}\u{7f}k}{the} x$",
            "$\\color{#ab\u{e9}cd} x$",
            "$\\colorbox{\u{e9}}{x}$",
            "$\\fcolorbox{red}{#\u{3b1}\u{3b1}\u{3b1}}{x}$",
        ] {
            assert_kept_as_source(source, "color", "takes a color name");
        }
        assert_converted("$\\textcolor{#FF0000}{x} + \\fcolorbox{red}{blue}{y}$");
    }

    #[test]
    fn a_char_code_outside_ascii_is_kept_as_source_with_one_warning() {
        for source in ["$\\charé$", "$\\char é x$", "$a\\char\u{3b1}$"] {
            assert_kept_as_source(source, "\\char", "character code");
        }
        // A number still works.
        assert_converted("$\\char65$");
    }

    fn html(s: &str) -> String {
        render_tex(s).html
    }

    fn text(s: &str) -> String {
        render_tex(s).text
    }

    fn clean(s: &str) -> TexRendering {
        let r = render_tex(s);
        assert!(
            r.warnings.is_empty(),
            "unexpected warnings for {s:?}: {:?}",
            r.warnings
        );
        r
    }

    #[test]
    fn plain_text_is_escaped_only() {
        let s = r#"A <b> & "quoted" 'x' study - of 50% growth_rate #1 ^2"#;
        let r = clean(s);
        assert_eq!(
            r.html,
            "A &lt;b&gt; &amp; &quot;quoted&quot; &#39;x&#39; study - of 50% growth_rate #1 ^2"
        );
        assert_eq!(r.text, s);
        assert!(!has_tex(s));
    }

    #[test]
    fn fast_path_detection() {
        for s in ["$", "\\", "{", "}", "~", "`", "--", "''", "a--b"] {
            assert!(has_tex(s), "{s:?}");
        }
        for s in ["", "a-b", "it's", "<&>\"", "é", "a - b"] {
            assert!(!has_tex(s), "{s:?}");
        }
    }

    #[test]
    fn tex_is_found_wherever_it_is_in_a_long_text() {
        // The scan looks at blocks of 32 bytes: TeX at either end of a block, a doubled
        // `-` or `'` across two blocks, and a text of single hyphens in every block.
        let plain = "a-b it's ".repeat(20);
        assert!(!has_tex(&plain));
        for at in [0, 1, 30, 31, 32, 33, 63, 64, plain.len() - 1, plain.len()] {
            for tex in ["$", "\\", "{", "}", "~", "`"] {
                let text = format!("{}{tex}{}", &plain[..at], &plain[at..]);
                assert!(has_tex(&text), "{tex} at {at}");
            }
        }
        for pair in ["--", "''"] {
            for at in 28..36 {
                let text = format!("{}{pair}{}", &"x".repeat(at), &plain);
                assert!(has_tex(&text), "{pair} at {at}");
                assert!(
                    !has_tex(&text.replacen(pair, &pair[..1], 1)),
                    "{pair} at {at}"
                );
            }
        }
    }

    #[test]
    fn inline_math_becomes_mathml_with_msub() {
        let r = clean("$P_Z$");
        assert!(
            r.html.starts_with("<math display=\"inline\">"),
            "{}",
            r.html
        );
        assert!(
            r.html.contains("<msub><mi>P</mi><mi>Z</mi></msub>"),
            "{}",
            r.html
        );
        assert!(r.html.ends_with("</math>"));
        assert_eq!(r.text, "P_Z");
    }

    #[test]
    fn display_math() {
        for s in [r"$$\sum_i x_i$$", r"\[\sum_i x_i\]"] {
            let r = clean(s);
            assert!(r.html.starts_with("<math display=\"block\">"), "{}", r.html);
            assert!(r.html.contains('∑'));
            assert_eq!(r.text, "∑_i x_i");
        }
        let r = clean(r"where \(\alpha\) is");
        assert_eq!(
            r.html,
            "where <math display=\"inline\"><semantics><mrow><mi>α</mi></mrow>\
             <annotation encoding=\"application/x-tex\">\\alpha</annotation>\
             </semantics></math> is",
        );
        assert_eq!(r.text, "where α is");
    }

    #[test]
    fn mathml_carries_its_tex_as_an_annotation() {
        let r = clean(r"$a<b \mathscr{C}$");
        assert!(
            r.html.ends_with(
                "<annotation encoding=\"application/x-tex\">a&lt;b \\mathscr{C}</annotation>\
                 </semantics></math>"
            ),
            "{}",
            r.html
        );
        assert_eq!(r.html.matches("<semantics><mrow>").count(), 1);
    }

    #[test]
    fn ensuremath_is_math() {
        let r = clean(r"\ensuremath{\beta}-VAE");
        assert!(r.html.starts_with("<math"));
        assert_eq!(r.text, "β-VAE");
    }

    #[test]
    fn text_form_of_math() {
        let cases = [
            (r"$\alpha$", "α"),
            (r"$x^{n+1}$", "x^(n+1)"),
            (r"$a+b=c$", "a + b = c"),
            (r"$-1$", "−1"),
            (r"$\frac{a+b}{2}$", "(a+b)/2"),
            (r"$\sqrt{x}$", "√x"),
            (r"$\sqrt[3]{x}$", "∛x"),
            (r"$\mathbb{R}^n$", "ℝ^n"),
            (r"$O(n \log n)$", "O(n log n)"),
            (r"$\hat{x}$", "x̂"),
            (r"$\overline{AB}$", "A\u{305}B\u{305}"),
            (r"$\tfrac12 \dfrac{a}{b} x$", "1/2 a/b x"),
            (r"$2\frac{1}{2}$", "2 1/2"),
            (r"$f'(x)$", "f′(x)"),
            (r"$x \neq y$", "x ≠ y"),
            (r"$\not\in$", "∉"),
            (r"$f(x, y)$", "f(x, y)"),
            (r"$\text{if } x \le 0$", "if x ≤ 0"),
            (r"$\binom{n}{k}$", "(n k)"),
            (
                r"$\begin{pmatrix} a & b \\ c & d \end{pmatrix}$",
                "(a, b; c, d)",
            ),
            (r"$\sum_{i=1}^n x_i$", "∑_(i=1)^n x_i"),
            (r"$a < b$", "a < b"),
            (r"$r_{\mathrm{eff}} \leq 2k$", "r_eff ≤ 2k"),
            (r"$\mathcal{O}(n^{-1/2} \log n)$", "O(n^(−1/2) log n)"),
            (r"$\|\theta\|_2$", "∥θ∥_2"),
        ];
        for (tex, expected) in cases {
            let r = clean(tex);
            assert_eq!(r.text, expected, "{tex}");
        }
    }

    #[test]
    fn commands_of_the_macro_table_render() {
        let cases = [
            (r"$\mathscr{C}at$", "Cat"),
            (r"$\frak g$", "g"),
            (r"$\Bbb Z$", "ℤ"),
            (r"$\Cal D$", "D"),
            (r"$\mbox{if } x$", "if x"),
            (r"${a \over b}$", "a/b"),
            (r"${n \choose k}$", "(n k)"),
            (r"$\bold 1$", "1"),
            (r"$\rm{d}x$", "dx"),
            (r"$f\colon A \to B$", "f:A → B"),
            (r"$a \mod p$", "a mod p"),
            (r"$\widetilde{X}$", "X̃"),
            (
                r"$\R^n \times \C \times \Z \times \N \times \Q$",
                "ℝ^n × ℂ × ℤ × ℕ × ℚ",
            ),
            (r"$\eps > 0$", "ε > 0"),
            (r"$\left< x \right>$", "⟨x⟩"),
            (r"$C_{n}\sp{(1)}$", "C_n^((1))"),
            (
                r"$\bullet_i{\buildrel a_i\over -}\bullet_{i+1}$",
                "∙_i−^a∙_(i+1)",
            ),
            (r"$1.5 \AA$", "1.5Å"),
            (r"$\varinjlim_i A_i$", "lim_→_i A_i"),
            (r"$x = 1 \label{one}$", "x = 1"),
        ];
        let mut wrong = Vec::new();
        for (tex, expected) in cases {
            let r = clean(tex);
            assert!(r.html.starts_with("<math"), "{tex}: {}", r.html);
            if r.text != expected {
                wrong.push((tex, r.text));
            }
        }
        assert!(wrong.is_empty(), "{wrong:?}");
        // An author macro of unknown meaning keeps its source, with a warning.
        let r = render_tex(r"$\CK = \mathrm{Cat}$");
        assert_eq!(r.text, r"$\CK = \mathrm{Cat}$");
        assert_eq!(r.warnings.len(), 1);
    }

    #[test]
    fn bold_italic_and_nesting() {
        let r = clean(r"\textbf{V}ariational \textbf{Gr}adient Fl\textbf{ow}");
        assert_eq!(r.html, "<b>V</b>ariational <b>Gr</b>adient Fl<b>ow</b>");
        assert_eq!(r.text, "Variational Gradient Flow");
        let r = clean(r"\emph{a \textbf{b \textit{c}} d}");
        assert_eq!(r.html, "<i>a <b>b <i>c</i></b> d</i>");
        assert_eq!(r.text, "a b c d");
        assert_eq!(html(r"\textit{x}"), "<i>x</i>");
        assert_eq!(html(r"\texttt{a<b}"), "<code>a&lt;b</code>");
        assert_eq!(html(r"\textsc{Abc} \textrm{x}"), "Abc x");
        assert_eq!(html(r"x\textsuperscript{th}"), "x<sup>th</sup>");
        assert_eq!(html(r"\underline{u}"), "<u>u</u>");
    }

    #[test]
    fn declarations_last_until_group_end() {
        let r = clean(r"a {\bf b c} d {\em e}");
        assert_eq!(r.html, "a <b>b c</b> d <i>e</i>");
        assert_eq!(r.text, "a b c d e");
        assert_eq!(html(r"\bfseries x"), "<b>x</b>");
    }

    #[test]
    fn accents_compose() {
        let cases = [
            (r"\'e", "é"),
            (r#"\"o"#, "ö"),
            (r#"{\"u}"#, "ü"),
            (r"\^o", "ô"),
            (r"\`a", "à"),
            (r"\~n", "ñ"),
            (r"\c{c}", "ç"),
            (r"\c c", "ç"),
            (r"\v{s}", "š"),
            (r"\v s", "š"),
            (r"\H{o}", "ő"),
            (r"\u{a}", "ă"),
            (r"\k{a}", "ą"),
            (r"\r{a}", "å"),
            (r"\={o}", "ō"),
            (r"\.{z}", "ż"),
            (r"\'{E}", "É"),
            (r"\'\i", "í"),
            (r#"\"{\i}"#, "ï"),
            (r"\ss", "ß"),
            (r"\o", "ø"),
            (r"\O", "Ø"),
            (r"\l", "ł"),
            (r"\L", "Ł"),
            (r"\aa", "å"),
            (r"\AA", "Å"),
            (r"\ae", "æ"),
            (r"\AE", "Æ"),
            (r"\oe", "œ"),
            (r"\~{}", "~"),
        ];
        for (tex, expected) in cases {
            let r = clean(tex);
            assert_eq!(r.text, expected, "{tex}");
            assert_eq!(r.html, expected, "{tex}");
            assert!(r.text.chars().count() == 1, "{tex} not composed");
        }
        assert_eq!(
            text(r#"Schr\"{o}dinger Erd\H{o}s G\"odel Bj\o rn Stra\ss e"#),
            "Schrödinger Erdős Gödel Bjørn Straße"
        );
        assert_eq!(text(r#"Pe\~na {\'E}cole na\"{\i}ve"#), "Peña École naïve");
    }

    #[test]
    fn dashes_spaces_and_quotes() {
        let r = clean("pages 1--2 --- well~done ``quoted'' and `single'");
        assert_eq!(
            r.text,
            "pages 1\u{2013}2 \u{2014} well\u{a0}done \u{201c}quoted\u{201d} and \u{2018}single\u{2019}"
        );
        assert_eq!(
            r.html,
            "pages 1\u{2013}2 \u{2014} well&nbsp;done \u{201c}quoted\u{201d} and \u{2018}single\u{2019}"
        );
        // Apostrophes stay apostrophes.
        assert_eq!(html("it's a--b"), "it&#39;s a\u{2013}b");
    }

    #[test]
    fn escaped_specials_and_braces() {
        let r = clean(r"R\&D 50\% a\_b \#1 \$5 \{x\} {Gro\ss}e");
        assert_eq!(r.text, "R&D 50% a_b #1 $5 {x} Große");
        assert_eq!(r.html, "R&amp;D 50% a_b #1 $5 {x} Große");
        assert_eq!(text("{{NASA}} {B}ayes"), "NASA Bayes");
    }

    #[test]
    fn currency_dollars_stay_text() {
        let r = clean("costs $5 and $10 per unit");
        assert_eq!(r.text, "costs $5 and $10 per unit");
        assert_eq!(r.html, "costs $5 and $10 per unit");
        assert_eq!(clean("prices $5, $6 and $7.").text, "prices $5, $6 and $7.");
        assert_eq!(clean("a $ b $ c").text, "a $ b $ c");
        assert_eq!(clean("$5-$10 range").text, "$5-$10 range");
        assert_eq!(clean("US$ 3").text, "US$ 3");
        assert_eq!(clean(r"costs $ 5 \emph{or} $ 10").text, "costs $ 5 or $ 10");
        assert_eq!(clean(r"$ 5 \times 3 $").text, r"$ 5 × 3 $");
        // Closing `$` followed by a digit is not a closer.
        assert_eq!(clean("$x$5").text, "$x$5");
        let r = clean("from $x$ to $y$");
        assert_eq!(r.text, "from x to y");
        assert_eq!(r.html.matches("<math").count(), 2);
    }

    #[test]
    fn spaced_dollars_around_clear_tex_are_math() {
        let r = clean(r"the ion $ \vec B\times \nabla B $ drift, $\chi \in {\Bbb C}((z)). $ We");
        assert_eq!(r.html.matches("<math").count(), 2, "{}", r.html);
        assert_eq!(r.text, "the ion B⃗ × ∇B drift, χ ∈ ℂ((z)). We");
        // Nor when the braces between them do not pair up.
        let r = render_tex(r"a $ {b $ c");
        assert_eq!(r.html.matches("<math").count(), 0, "{}", r.html);
        // Without a command or a script, spaced dollars stay text.
        assert_eq!(clean("a $ b $ c").text, "a $ b $ c");
    }

    #[test]
    fn math_nested_in_a_text_command_of_math_is_math() {
        let r = clean(r"of $\textit{left $R$-affine spaces}$ for");
        assert_eq!(r.html.matches("<math").count(), 1, "{}", r.html);
        assert!(r.html.contains("<mi>R</mi>"), "{}", r.html);
        assert_eq!(r.text, "of left R-affine spaces for");
        let shown = &r.html[..r.html.find("<annotation").unwrap()];
        assert!(!shown.contains('$'), "only the TeX annotation: {}", r.html);
        let r = clean(r"above $3\times10^{19}\text{ cm$^{-3}$}$ filamentation");
        assert_eq!(r.html.matches("<math").count(), 1, "{}", r.html);
        assert!(r.text.contains("cm"), "{}", r.text);
        assert!(!r.text.contains('$'), "{}", r.text);
        let r = clean(r"notion of $\textit{$\mathcal{C}$-generated spaces}$, from");
        assert!(r.html.contains("<mi>𝒞</mi>"), "{}", r.html);
        // Two maths in one text, and a text command without math, side by side.
        let r = clean(r"$\mbox{for $a$ and $b$} \text{ all}$");
        assert_eq!(r.html.matches("<mi>").count(), 2, "{}", r.html);
        // The usual reading still wins where it pairs up: two maths, not one.
        let r = clean(r"$x$ and {$y$}");
        assert_eq!(r.html.matches("<math").count(), 2, "{}", r.html);
        // An unclosed text command keeps the first `$` closing the math, as before: that
        // fragment stays source, and the next is math.
        let r = render_tex(r"$\text{a$ then $b$");
        assert!(r.html.starts_with(r"$\text{a$ then <math"), "{}", r.html);
        assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    }

    #[test]
    fn math_environments_and_lists_in_text() {
        let r = clean(r"such that \begin{equation*} s_{23}\, s_{13}=s_{12}, \end{equation*} where");
        assert!(
            r.html.starts_with(r#"such that <math display="block">"#),
            "{}",
            r.html
        );
        assert!(r.html.ends_with("</math> where"), "{}", r.html);
        let r = clean(
            r"questions: \begin{itemize} \item what is a set? \item and $\pi$? \end{itemize} The",
        );
        assert_eq!(
            r.text,
            "questions: \u{2022} what is a set? \u{2022} and π? The"
        );
        // Other environments, and one without its end, stay source.
        assert_eq!(render_tex(r"\begin{proof} x").warnings.len(), 1);
        assert_eq!(render_tex(r"\begin{equation} x").warnings.len(), 1);
        assert_eq!(render_tex(r"an \item").warnings.len(), 1);
    }

    #[test]
    fn accents_on_a_bare_letter_in_text() {
        let r = clean(r"matrices S and \bar S from R\otimes \bar R\longrightarrow R");
        assert_eq!(r.html.matches("<math").count(), 2, "{}", r.html);
        assert_eq!(r.text, "matrices S and S\u{305} from R⊗ R\u{305}⟶ R");
    }

    #[test]
    fn unknown_commands_stay_with_warning() {
        let r = render_tex(r"see \foo{smith} and \shadowsync bar");
        assert_eq!(r.text, r"see \foo{smith} and \shadowsync bar");
        assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);
        assert!(r.warnings[0].contains(r"\\foo{smith}"), "{:?}", r.warnings);
    }

    #[test]
    fn math_symbols_in_text_are_characters() {
        let cases = [
            (r"\alpha", "α"),
            (r"\beta", "β"),
            (r"\gamma", "γ"),
            (r"\mu", "μ"),
            (r"\omega", "ω"),
            (r"\lambda", "λ"),
            (r"\Gamma", "Γ"),
            (r"\Omega", "Ω"),
            (r"\sim", "∼"),
            (r"\times", "×"),
            (r"\pm", "±"),
            (r"\leq", "≤"),
            (r"\geq", "≥"),
            (r"\approx", "≈"),
            (r"\otimes", "⊗"),
            (r"\in", "∈"),
            (r"\to", "→"),
            (r"\rightarrow", "→"),
            (r"\infty", "∞"),
            (r"\lesssim", "≲"),
            (r"\circ", "∘"),
            (r"\nabla", "∇"),
            (r"\hbar", "ℏ"),
            (r"\R", "ℝ"),
            (r"\deg", "°"),
            (r"\mum", "µm"),
        ];
        for (tex, symbol) in cases {
            let r = clean(&format!("a {tex} b"));
            assert_eq!(r.text, format!("a {symbol} b"), "{tex}");
            assert_eq!(r.html, format!("a {symbol} b"), "{tex}");
        }
        assert_eq!(clean(r"at 90{\deg} pitch").text, "at 90° pitch");
        assert_eq!(clean(r"$T$ \sim 5 eV").text, "T ∼ 5 eV");
    }

    #[test]
    fn math_commands_in_text_become_mathml() {
        let r = clean(r"An \mathcal{O}(N) solver");
        assert!(
            r.html.starts_with("An <math display=\"inline\">"),
            "{}",
            r.html
        );
        assert!(r.html.ends_with("</math>(N) solver"), "{}", r.html);
        assert_eq!(r.text, "An O(N) solver");
        let r = clean(r"with \alpha_s and \frac{1}{2} of 10\times10^{19}");
        assert_eq!(r.html.matches("<math").count(), 2, "{}", r.html);
        assert_eq!(r.text, "with α_s and 1/2 of 10×10^19");
    }

    #[test]
    fn citations_and_colours_in_text() {
        let r = clean(r"as shown \cite{smith2019} and \citep[p.~3]{a,b}.");
        assert_eq!(r.text, "as shown [smith2019] and [a, b, p. 3].");
        assert_eq!(clean(r"x\nocite{k} y").text, "x y");
        let r = clean(r"\textcolor{red}{warm} and \colorbox{blue}{\emph{cold}} {\color{red} text}");
        assert_eq!(r.text, "warm and cold text");
        assert_eq!(r.html, "warm and <i>cold</i> text");
        let r = render_tex(r"\cite without keys");
        assert_eq!(r.text, r"\cite without keys");
        assert_eq!(r.warnings.len(), 1);
    }

    #[test]
    fn unbalanced_braces() {
        let r = render_tex(r"a {b c");
        assert_eq!(r.text, "a {b c");
        assert_eq!(r.warnings.len(), 1);
        let r = render_tex(r"a} b");
        assert_eq!(r.text, "a} b");
        assert_eq!(r.warnings.len(), 1);
        let r = render_tex(r"\textbf{a");
        assert_eq!(r.text, r"\textbf{a");
        assert!(!r.warnings.is_empty());
        assert!(!r.html.contains("<b>"));
    }

    #[test]
    fn unterminated_math() {
        let r = render_tex(r"see \(x + y");
        assert_eq!(r.text, r"see \(x + y");
        assert_eq!(r.warnings.len(), 1);
        let r = render_tex(r"see \[x");
        assert_eq!(r.text, r"see \[x");
        assert_eq!(r.warnings.len(), 1);
        let r = render_tex("see $$x + y");
        assert_eq!(r.text, "see $$x + y");
        assert_eq!(r.warnings.len(), 1);
        let r = render_tex(r"see $\alpha + y");
        assert_eq!(r.text, r"see $α + y");
        assert!(r.warnings[0].contains("unterminated inline math"));
    }

    #[test]
    fn author_operator_names_and_shorthands_render() {
        let r = clean(r"$\Aut(G)$ and $\Rep_{\mathcal{D}}(G)$ over $\CC$");
        assert!(r.html.contains("<mi>Aut</mi>"), "{}", r.html);
        assert!(r.html.contains("<mi>Rep</mi>"), "{}", r.html);
        assert_eq!(r.text, "Aut(G) and Rep_D(G) over ℂ");
        let r = clean(r"$\operatorname{\mathsf{lex}}(A)$, $\wt{V}$, $\cC$");
        let shown: String = r
            .html
            .split("<annotation")
            .map(|part| {
                part.split_once("</annotation>")
                    .map_or(part, |(_, rest)| rest)
            })
            .collect();
        assert!(!shown.contains('\\'), "{shown}");
        assert!(shown.contains("<mi>𝗅</mi><mi>𝖾</mi><mi>𝗑</mi>"), "{shown}");
        assert!(r.html.contains("𝒞"), "{}", r.html);
        // KaTeX reads `\H` as the double acute accent.
        let r = clean(r"$\H(C)$");
        assert!(r.html.contains("<mover>"), "{}", r.html);
    }

    #[test]
    fn author_definitions_apply_to_later_math() {
        let mut definitions = Definitions::new();
        let r = render_tex_with(
            r"$\newcommand{\poly}{_{\operatorname{poly}}}\newcommand{\cx}[1]{\mathcal{#1}\poly}$We map $T\poly(M)$ to $\cx{D}$.",
            &mut definitions,
        );
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        assert!(r.html.starts_with("We map <math"), "{}", r.html);
        assert_eq!(r.text, "We map T_poly(M) to D_poly.");
        // The definitions carry over to the paper's next text, not to other papers.
        let next = render_tex_with(r"Here $\cx{T}$ and \cx{D}.", &mut definitions);
        assert!(next.warnings.is_empty(), "{:?}", next.warnings);
        assert_eq!(next.text, "Here T_poly and D_poly.");
        assert_eq!(render_tex(r"$\cx{T}$").warnings.len(), 1);
        // Definitions in text define too, and show nothing.
        let mut definitions = Definitions::new();
        let r = render_tex_with(
            r"\def\ip#1#2{\langle #1,#2\rangle}Let $\ip{u}{v}=0$.",
            &mut definitions,
        );
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        assert_eq!(r.text, "Let ⟨u, v⟩ = 0.");
        // Only the definitions of a fragment are removed from it.
        let r = clean(r"$\def\x{y}\x^2$");
        assert_eq!(r.text, "y^2");
        // The fragments of a paper, as the build renders them.
        let mut definitions = Definitions::new();
        let fragments = math_fragments_with(r"$\def\x{y}$ and $\x$", &mut definitions);
        assert_eq!(fragments.len(), 2);
        assert!(fragments.iter().all(|f| f.error.is_none()), "{fragments:?}");
    }

    #[test]
    fn recursive_definitions_end_with_a_warning() {
        for s in [
            r"$\def\a{\a\a}$ then $\a$",
            r"$\def\a{\a}$ then $\a$",
            r"\def\a{\a x\a} then $\a$",
            r"$\newcommand{\a}[1]{\a{#1#1}}$ then $\a{x}$",
        ] {
            let start = std::time::Instant::now();
            let r = render_tex(s);
            assert!(start.elapsed() < std::time::Duration::from_secs(2), "{s}");
            assert_eq!(r.warnings.len(), 1, "{s}: {:?}", r.warnings);
            assert!(
                r.warnings[0].contains("macro expansion"),
                "{:?}",
                r.warnings
            );
            assert!(
                r.text.ends_with(" then $\\a$") || r.text.ends_with(" then $\\a{x}$"),
                "{}",
                r.text
            );
        }
    }

    #[test]
    fn greek_letters_split_by_an_accent_command() {
        let r = clean(
            r"moderate to low \b{eta} plasma at radius \r{ho} = 0.88, \r{ho}i and \k{appa} > 0.58",
        );
        assert_eq!(
            r.text,
            "moderate to low β plasma at radius ρ = 0.88, ρi and κ > 0.58"
        );
        assert_eq!(r.html, r.text.replace('>', "&gt;"));
        // Real accents stay accents.
        assert_eq!(clean(r"B\k{e}dlewo \r{a} \b{b}").text, "Będlewo å ḇ");
    }

    #[test]
    fn layout_and_word_macros_in_text() {
        let r = clean(r#"algebras. \smallskip More by P\"{u}tterich~\etal [1]"#);
        assert_eq!(r.text, "algebras.  More by Pütterich\u{a0}et al. [1]");
    }

    #[test]
    fn long_inline_math_gets_a_scrolling_box() {
        let long = r"$\mathrm{Lax}(\mathcal{C},\mathrm{Lax}(\mathcal{D},\mathcal{E})) \cong [\mathcal{C}\boxtimes \mathcal{D},\mathcal{E}] + x_1 + x_2$";
        let r = clean(long);
        assert!(
            r.html
                .starts_with(r#"<span class="math-wide"><math display="inline">"#),
            "{}",
            r.html
        );
        assert!(r.html.ends_with("</math></span>"), "{}", r.html);
        // Short inline math and display math are not wrapped.
        assert!(clean("$x^2$").html.starts_with("<math"));
        let display = clean(&format!("${long}$"));
        assert!(display.html.starts_with(r#"<math display="block">"#));
    }

    #[test]
    fn control_spaces_in_math_are_spaces() {
        let r = clean(r"$M \ | \ \textrm{for}~x$");
        assert!(!r.html.contains("nbsp"), "{}", r.html);
        assert_eq!(
            r.html.matches(r#"<mspace width="0.333em"#).count(),
            3,
            "{}",
            r.html
        );
        assert!(!r.text.contains("nbsp"), "{}", r.text);
    }

    #[test]
    fn rejected_math_keeps_source() {
        for s in [
            r"$\frac{a$",
            r"$\undefinedcommand x$",
            r"$a}$",
            r"$\def\x#2{y}\x$",
            r"$\def\a{\a\a}\a$",
            "$$ $$",
        ] {
            let r = render_tex(s);
            assert_eq!(r.text, s, "{s}");
            assert_eq!(r.warnings.len(), 1, "{s}: {:?}", r.warnings);
            assert!(
                r.warnings[0].contains("math not converted"),
                "{:?}",
                r.warnings
            );
            assert!(!r.html.contains("<math"), "{s}");
        }
        let r = render_tex(r"ok $x$ bad $\nosuch$ ok $y$");
        assert_eq!(r.html.matches("<math").count(), 2);
        assert_eq!(r.text, r"ok x bad $\nosuch$ ok y");
    }

    #[test]
    fn hostile_input_is_escaped() {
        let r = clean("<script>alert(1)</script>");
        assert_eq!(r.html, "&lt;script&gt;alert(1)&lt;/script&gt;");
        let r = render_tex("</math><img src=x onerror=alert(1)> $x$");
        assert!(r.html.starts_with("&lt;/math&gt;&lt;img"));
        let r = clean(r"\textbf{<img>}");
        assert_eq!(r.html, "<b>&lt;img&gt;</b>");
        assert_eq!(r.text, "<img>");
        let r = render_tex("$<script>$");
        assert!(!r.html.contains("<script"), "{}", r.html);
        let r =
            render_tex(r#"$\text{</math><script>"'&}$ $\operatorname{<s>}$ $a<b$ $\mathrm{"}$"#);
        assert!(!r.html.contains("<script"), "{}", r.html);
        assert!(!r.html.contains("<s>"), "{}", r.html);
        assert!(r.html.contains("&lt;/math&gt;"), "{}", r.html);
        assert_html_safe(&r.html);
        let r = render_tex(r"\url{http://x.org/?a=1&b=<2>}");
        assert_eq!(r.html, "http://x.org/?a=1&amp;b=&lt;2&gt;");
    }

    #[test]
    fn urls_are_verbatim() {
        let r = clean(r"code at https://github.com/u/a_b--c/~x and \url{http://a.org/~b_%c}.");
        assert_eq!(
            r.text,
            "code at https://github.com/u/a_b--c/~x and http://a.org/~b_%c."
        );
    }

    #[test]
    fn math_inside_markup() {
        let r = clean(r"\textbf{On $P_Z$} it");
        assert!(r.html.starts_with("<b>On <math"));
        assert!(r.html.ends_with("</math></b> it"));
        assert_eq!(r.text, "On P_Z it");
    }

    #[test]
    fn mathml_repairs() {
        // Styles move to <mstyle>, extra children of scripts are grouped.
        let r = clean(
            r"$\dfrac{1}{2} \lim_n \sup_x f \mskip3mu x \begin{matrix} \displaystyle a \end{matrix}$",
        );
        assert!(!r.html.contains("<mrow displaystyle"), "{}", r.html);
        assert!(!r.html.contains("mu\""), "{}", r.html);
        assert!(!r.html.contains("<mi displaystyle"), "{}", r.html);
        assert!(r.html.contains("<mstyle displaystyle"), "{}", r.html);
    }

    /// Every `<` in `html` starts an allowed tag, every `&` an entity, and no `"` is outside a
    /// tag.
    fn assert_html_safe(html: &str) {
        let allowed = ["b", "i", "code", "u", "sup", "sub"];
        let mut rest = html;
        while let Some(i) = rest.find(['<', '&', '"']) {
            let tail = &rest[i..];
            if let Some(after) = tail.strip_prefix('&') {
                assert!(
                    ["amp;", "lt;", "gt;", "quot;", "#39;", "nbsp;"]
                        .iter()
                        .any(|e| after.starts_with(e)),
                    "raw & in {html}"
                );
                rest = after;
            } else if tail.starts_with('"') {
                panic!("raw \" outside a tag in {html}");
            } else {
                let end = tail.find('>').expect("tag is closed");
                let tag = &tail[1..end];
                let name = tag.trim_start_matches('/');
                let name = name.split([' ', '/']).next().unwrap();
                assert!(
                    allowed.contains(&name) || ELEMENTS.contains(&name),
                    "tag {tag:?} in {html}"
                );
                rest = &tail[end + 1..];
            }
        }
    }

    #[test]
    fn no_panic_sweep() {
        let tricky = [
            r#"\textbf{V}ariational $P_Z$ costs $5 and $$\sum_i x_i$$ \(\alpha\) \[x\] {\"u} \c{c} -- --- ~ `` '' \& \% \$ \_ <a href="x">&amp;"#,
            r"$\frac{a}{b}$ \emph{\textit{\textbf{x}}} {\bf a {\it b} c} \'{} \'\i \t{oo} \url{http://x/~y}",
            r"$\begin{array}{c|c} a & b \\ \hline c & d \end{array}$ $\sqrt[n]{x}$ $\left( x \right.$",
            "$\u{fdd0}$ \\\u{e9} \\\u{1f600} {{{{}}}} }}}{{{ $$$$ $ $ \\ \\\\ $\\$$ $a\\$b$",
            "\u{00e9}\u{0301}$x$\u{10ffff}\\'\u{1f600} \\c{\u{1f600}} \\v",
            r"$\mathbb{R}^{n \times m}$ \ensuremath{ \textsuperscript{a} \href{u}{t} \strut $\strut$ $\Space{1em}{2em}{1em}$",
        ];
        let mut inputs: Vec<String> = Vec::new();
        for t in tricky {
            for (i, _) in t.char_indices() {
                inputs.push(t[..i].to_owned());
                inputs.push(t[i..].to_owned());
            }
            // Mutations: drop each special character in turn.
            for (i, c) in t.char_indices() {
                if "${}\\~-`'".contains(c) {
                    let mut m = t.to_owned();
                    m.remove(i);
                    inputs.push(m);
                }
            }
        }
        for input in &inputs {
            let r = render_tex(input);
            assert_html_safe(&r.html);
            if !has_tex(input) {
                assert_eq!(&r.text, input);
            }
        }
    }

    #[test]
    fn pathological_inputs_are_fast() {
        let n = 200_000;
        let cases = [
            "$a ".repeat(n / 3),
            "\\(".repeat(n / 2),
            "$$".repeat(n / 2),
            "\\[x".repeat(n / 3),
            "{".repeat(n),
            "}".repeat(n),
            "{".repeat(n / 2) + &"}".repeat(n / 2),
            "\\textbf{".repeat(n / 8),
            "$\\sqrt".repeat(n / 6),
            format!("${}x$", "\\sqrt".repeat(800)),
            format!("${}x{}$", "{".repeat(40), "}".repeat(40)),
            "$x$ ".repeat(n / 4),
            "\\'".repeat(n / 2),
            "a--b``c'' ".repeat(n / 10),
        ];
        for input in &cases {
            let start = std::time::Instant::now();
            let r = render_tex(input);
            assert_html_safe(&r.html);
            let elapsed = start.elapsed();
            assert!(
                elapsed < std::time::Duration::from_secs(5),
                "{:?} took {elapsed:?}",
                shorten(input)
            );
        }
    }
}
