//! Macro definitions that authors write in a title or abstract, and their expansion.
//!
//! arXiv abstracts sometimes begin with the definitions the rest of the abstract uses,
//! as in `$\newcommand{\cx}[1]{\operatorname{tot}(\mathcal{#1})}$`. The simple forms are
//! read, wherever they appear (in math or in text):
//!
//! * `\newcommand`, `\renewcommand`, `\providecommand` (and their `*` forms), with the name
//!   braced or not, an optional `[n]` number of arguments (at most 9), an optional `[default]`
//!   for the first one, and a braced body (or a single token);
//! * `\def`, `\gdef` (and `\edef`, `\xdef`, read the same way) with undelimited parameters
//!   `#1#2…` in order;
//! * `\let\a\b` and `\let\a=\b`;
//! * `\DeclareMathOperator{\name}{text}` (and `*`), as `\operatorname{text}`.
//!
//! A definition applies to the math that follows it in the same paper's title and abstract.
//! A fragment made only of definitions renders as nothing. Expansion replaces a call by its
//! body, its arguments substituted for `#1`…`#9`, and reads on from the start of what it
//! inserted, as TeX does, so a body may call other macros or itself. It is bounded: at most
//! [`MAX_EXPANSIONS`] calls per fragment and at most [`MAX_EXPANDED_BYTES`] of result, after
//! which the fragment is shown as its source (so `\def\a{\a\a}` cannot hang or blow up).

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::lex::{token_at, Spanned, Token};

/// At most this many macros are defined for one paper; later definitions are not read.
const MAX_DEFINITIONS: usize = 64;
/// At most this many macros are defined for the whole site ([`Definitions::from_preamble`]).
pub const MAX_SITE_DEFINITIONS: usize = 1024;
/// A body longer than this (in bytes) is not read.
const MAX_BODY_BYTES: usize = 1024;
/// At most this many macro calls are expanded in one fragment.
pub(crate) const MAX_EXPANSIONS: usize = 256;
/// A fragment may grow to at most this many bytes by expansion.
pub(crate) const MAX_EXPANDED_BYTES: usize = super::MAX_MATH_BYTES;

/// The macros defined so far in one paper's title and abstract (see the module
/// documentation). Empty for a paper that defines none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Definitions {
    macros: BTreeMap<String, Macro>,
    /// How many of `macros` came from the site's preamble: a paper may define
    /// [`MAX_DEFINITIONS`] more.
    inherited: usize,
}

/// Why a site's macro preamble could not be read: the byte offset of the definition (or
/// of what is not one) and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreambleError {
    /// Byte offset in the preamble.
    pub offset: usize,
    /// What is wrong there.
    pub reason: String,
}

/// One defined macro.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Macro {
    /// The number of arguments, 0 to 9.
    params: usize,
    /// The default of the first argument, which is then optional (`[..]`).
    default: Option<String>,
    /// The replacement text, with `#1`…`#9` for the arguments and `##` for `#`.
    body: String,
}

/// Whether the control word `name` defines a macro.
pub(crate) fn is_definition(name: &str) -> bool {
    matches!(
        name,
        "newcommand"
            | "renewcommand"
            | "providecommand"
            | "def"
            | "gdef"
            | "edef"
            | "xdef"
            | "let"
            | "DeclareMathOperator"
    )
}

impl Definitions {
    /// No macros.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The macros of a site-wide preamble: TeX definitions only (`\newcommand`, `\def`,
    /// `\let`, `\DeclareMathOperator`, in the forms the module documentation lists),
    /// separated by spaces, line breaks and `%` comments. Each paper's conversion starts
    /// from them, and a paper's own definitions override them.
    ///
    /// # Errors
    /// The first thing that is not a definition of those forms, or a definition past
    /// `MAX_SITE_DEFINITIONS`.
    pub fn from_preamble(src: &str) -> Result<Definitions, PreambleError> {
        let mut definitions = Definitions::new();
        let mut pos = 0;
        while pos < src.len() {
            pos = skip_spaces(src, pos);
            if src[pos..].starts_with('%') {
                pos = src[pos..].find('\n').map_or(src.len(), |end| pos + end + 1);
                continue;
            }
            if pos >= src.len() {
                break;
            }
            let error = |reason: &str| PreambleError {
                offset: pos,
                reason: reason.to_owned(),
            };
            let spanned = token_at(src, pos);
            let Token::ControlWord(name) = spanned.token else {
                return Err(error("only macro definitions may be given"));
            };
            if !is_definition(name) {
                return Err(error("only macro definitions may be given"));
            }
            if definitions.macros.len() >= MAX_SITE_DEFINITIONS {
                return Err(error(&format!(
                    "at most {MAX_SITE_DEFINITIONS} macros may be defined"
                )));
            }
            pos = definitions
                .read_definition(src, pos, usize::MAX)
                .ok_or_else(|| error("macro definition not understood"))?;
        }
        definitions.inherited = definitions.macros.len();
        Ok(definitions)
    }

    /// Whether no macro is defined.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.macros.is_empty()
    }

    /// Whether `name` (without its backslash) is a defined macro.
    pub(crate) fn defines(&self, name: &str) -> bool {
        self.macros.contains_key(name)
    }

    /// Reads the definitions in the math `tex`: `None` when it has none, otherwise the math
    /// without them (empty when it held nothing else), or why a definition is not read.
    pub(crate) fn take_from(&mut self, tex: &str) -> Result<Option<String>, String> {
        let mut rest = String::new();
        let mut copied = 0;
        let mut pos = 0;
        let mut any = false;
        while pos < tex.len() {
            let spanned = token_at(tex, pos);
            pos = spanned.end;
            if let Token::ControlWord(name) = spanned.token {
                if is_definition(name) {
                    let end = self
                        .read(tex, spanned.start)
                        .ok_or_else(|| "macro definition not understood".to_owned())?;
                    rest.push_str(&tex[copied..spanned.start]);
                    copied = end;
                    pos = end;
                    any = true;
                }
            }
        }
        if !any {
            return Ok(None);
        }
        rest.push_str(&tex[copied..]);
        Ok(Some(rest))
    }

    /// Reads the definition whose command starts at `at` in `src`, and returns where it
    /// ends; None when it is not one of the simple forms.
    pub(crate) fn read(&mut self, src: &str, at: usize) -> Option<usize> {
        self.read_definition(src, at, MAX_DEFINITIONS)
    }

    /// [`Definitions::read`], defining a new macro only while fewer than `room` are
    /// defined beyond the inherited ones.
    fn read_definition(&mut self, src: &str, at: usize, room: usize) -> Option<usize> {
        let command = token_at(src, at);
        let Token::ControlWord(kind) = command.token else {
            return None;
        };
        let (name, definition, end) = match kind {
            "newcommand" | "renewcommand" | "providecommand" => newcommand(src, command.end)?,
            "def" | "gdef" | "edef" | "xdef" => def(src, command.end)?,
            "let" => let_alias(src, command.end)?,
            "DeclareMathOperator" => math_operator(src, command.end)?,
            _ => return None,
        };
        if definition.body.len() > MAX_BODY_BYTES {
            return None;
        }
        let known = self.macros.contains_key(&name);
        if kind == "providecommand" && known {
            return Some(end);
        }
        if !known && self.macros.len() - self.inherited >= room {
            return None;
        }
        self.macros.insert(name, definition);
        Some(end)
    }

    /// The math `tex` with every call of a defined macro expanded; borrowed when it calls
    /// none. Fails when a call lacks an argument or the expansion exceeds its bounds.
    pub(crate) fn expand<'t>(&self, tex: &'t str) -> Result<Cow<'t, str>, String> {
        if self.macros.is_empty() || !self.calls_any(tex) {
            return Ok(Cow::Borrowed(tex));
        }
        let mut buf = tex.to_owned();
        let mut pos = 0;
        let mut expansions = 0;
        while pos < buf.len() {
            let spanned = token_at(&buf, pos);
            let definition = match spanned.token {
                Token::ControlWord(name) => self.macros.get(name),
                _ => None,
            };
            let Some(definition) = definition else {
                pos = spanned.end;
                continue;
            };
            expansions += 1;
            if expansions > MAX_EXPANSIONS {
                return Err(format!("more than {MAX_EXPANSIONS} macro expansions"));
            }
            let (args, end) = arguments(&buf, spanned.end, definition)
                .ok_or_else(|| "macro argument missing".to_owned())?;
            let mut body = String::new();
            if ends_with_control_word(&buf[..spanned.start]) {
                // Keeps `\alpha\x` from becoming `\alphab` when `\x` is `b`.
                body.push(' ');
            }
            substitute(&mut body, &definition.body, &args);
            if starts_with_letter(&buf[end..]) && ends_with_control_word(&body) {
                body.push(' ');
            }
            if buf.len() - (end - spanned.start) + body.len() > MAX_EXPANDED_BYTES {
                return Err(format!(
                    "macro expansion longer than {MAX_EXPANDED_BYTES} bytes"
                ));
            }
            let start = spanned.start;
            buf.replace_range(start..end, &body);
            pos = start;
        }
        Ok(Cow::Owned(buf))
    }

    /// Whether `tex` calls a defined macro.
    fn calls_any(&self, tex: &str) -> bool {
        let mut pos = 0;
        while pos < tex.len() {
            let spanned = token_at(tex, pos);
            if let Token::ControlWord(name) = spanned.token {
                if self.macros.contains_key(name) {
                    return true;
                }
            }
            pos = spanned.end;
        }
        false
    }
}

/// `pos` moved past spaces in `src`.
fn skip_spaces(src: &str, pos: usize) -> usize {
    pos + src[pos..].len() - src[pos..].trim_start().len()
}

/// The `}` closing the `{` at `open`, if there is one.
fn group_end(src: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut pos = open;
    while pos < src.len() {
        let spanned = token_at(src, pos);
        match spanned.token {
            Token::BeginGroup => depth += 1,
            Token::EndGroup => {
                depth -= 1;
                if depth == 0 {
                    return Some(spanned.start);
                }
            }
            _ => {}
        }
        pos = spanned.end;
    }
    None
}

/// The token at `pos` after spaces; None at the end of `src`.
fn token_after_spaces(src: &str, pos: usize) -> Option<Spanned<'_>> {
    let start = skip_spaces(src, pos);
    (start < src.len()).then(|| token_at(src, start))
}

/// The argument at `pos` (after spaces): a group's content or one token, and where it
/// ends. None at the end of the input or before a `}`.
fn argument(src: &str, pos: usize) -> Option<(&str, usize)> {
    let spanned = token_after_spaces(src, pos)?;
    let start = spanned.start;
    match spanned.token {
        Token::BeginGroup => {
            let close = group_end(src, start)?;
            Some((&src[start + 1..close], close + 1))
        }
        Token::EndGroup => None,
        Token::Text(text) => {
            let len = text.chars().next().map_or(1, char::len_utf8);
            Some((&src[start..start + len], start + len))
        }
        _ => Some((&src[start..spanned.end], spanned.end)),
    }
}

/// The `[...]` at `pos` (after spaces), outside braces: its content and where it ends.
fn bracket(src: &str, pos: usize) -> Option<(&str, usize)> {
    let open = skip_spaces(src, pos);
    if !src[open..].starts_with('[') {
        return None;
    }
    let mut depth = 0usize;
    let mut at = open + 1;
    while at < src.len() {
        let spanned = token_at(src, at);
        match spanned.token {
            Token::BeginGroup => depth += 1,
            Token::EndGroup => depth = depth.checked_sub(1)?,
            Token::Text(text) if depth == 0 => {
                if let Some(i) = text.find(']') {
                    return Some((&src[open + 1..at + i], at + i + 1));
                }
            }
            _ => {}
        }
        at = spanned.end;
    }
    None
}

/// The macro name at `pos` (after spaces), braced or not, and where it ends.
fn macro_name(src: &str, pos: usize) -> Option<(String, usize)> {
    let start = skip_spaces(src, pos);
    if start >= src.len() {
        return None;
    }
    let (inner, end) = if src[start..].starts_with('{') {
        let close = group_end(src, start)?;
        (src[start + 1..close].trim(), close + 1)
    } else {
        let spanned = token_at(src, start);
        (&src[start..spanned.end], spanned.end)
    };
    if inner.is_empty() {
        return None;
    }
    let spanned = token_at(inner, 0);
    match spanned.token {
        Token::ControlWord(name) if spanned.end == inner.len() => Some((name.to_owned(), end)),
        _ => None,
    }
}

/// `\newcommand` and its kin, after the command: `*`, the name, `[n]`, `[default]`, the
/// body.
fn newcommand(src: &str, pos: usize) -> Option<(String, Macro, usize)> {
    let mut pos = skip_spaces(src, pos);
    if src[pos..].starts_with('*') {
        pos += 1;
    }
    let (name, mut pos) = macro_name(src, pos)?;
    let mut params = 0;
    if let Some((count, end)) = bracket(src, pos) {
        params = count.trim().parse::<usize>().ok().filter(|&n| n <= 9)?;
        pos = end;
    }
    let mut default = None;
    if params > 0 {
        if let Some((value, end)) = bracket(src, pos) {
            default = Some(value.to_owned());
            pos = end;
        }
    }
    let (body, end) = argument(src, pos)?;
    let definition = Macro {
        params,
        default,
        body: body.to_owned(),
    };
    valid_body(&definition).then_some((name, definition, end))
}

/// `\def` and its kin, after the command: the name, `#1#2…`, the braced body.
fn def(src: &str, pos: usize) -> Option<(String, Macro, usize)> {
    let spanned = token_after_spaces(src, pos)?;
    let Token::ControlWord(name) = spanned.token else {
        return None;
    };
    let mut pos = spanned.end;
    let mut params = 0;
    while src[pos..].starts_with('#') {
        let digit = src[pos + 1..].chars().next()?.to_digit(10)?;
        if digit as usize != params + 1 {
            return None;
        }
        params += 1;
        pos += 2;
    }
    if !src[pos..].starts_with('{') {
        return None;
    }
    let close = group_end(src, pos)?;
    let definition = Macro {
        params,
        default: None,
        body: src[pos + 1..close].to_owned(),
    };
    valid_body(&definition).then(|| (name.to_owned(), definition, close + 1))
}

/// `\let`, after the command: the name, an optional `=`, the one token it stands for.
fn let_alias(src: &str, pos: usize) -> Option<(String, Macro, usize)> {
    let spanned = token_after_spaces(src, pos)?;
    let Token::ControlWord(name) = spanned.token else {
        return None;
    };
    let mut pos = skip_spaces(src, spanned.end);
    if src[pos..].starts_with('=') {
        pos += 1;
    }
    let token = token_after_spaces(src, pos)?;
    let target = token.start;
    if !matches!(token.token, Token::ControlWord(_) | Token::ControlSymbol(_)) {
        return None;
    }
    let definition = Macro {
        params: 0,
        default: None,
        body: src[target..token.end].to_owned(),
    };
    Some((name.to_owned(), definition, token.end))
}

/// `\DeclareMathOperator`, after the command: `*`, the name, the operator's text.
fn math_operator(src: &str, pos: usize) -> Option<(String, Macro, usize)> {
    let mut pos = skip_spaces(src, pos);
    let starred = src[pos..].starts_with('*');
    if starred {
        pos += 1;
    }
    let (name, pos) = macro_name(src, pos)?;
    let (text, end) = argument(src, pos)?;
    let command = if starred {
        "\\operatorname*"
    } else {
        "\\operatorname"
    };
    let definition = Macro {
        params: 0,
        default: None,
        body: format!("{command}{{{text}}}"),
    };
    valid_body(&definition).then_some((name, definition, end))
}

/// Whether every `#` of the body is `##` or names one of its parameters.
fn valid_body(definition: &Macro) -> bool {
    let bytes = definition.body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'#' => {
                match bytes.get(i + 1) {
                    Some(b'#') => {}
                    Some(d @ b'1'..=b'9') if usize::from(d - b'0') <= definition.params => {}
                    _ => return false,
                }
                i += 2;
            }
            _ => i += 1,
        }
    }
    true
}

/// The arguments of a call of `definition` whose name ends at `pos`, and where the call
/// ends.
fn arguments(src: &str, pos: usize, definition: &Macro) -> Option<(Vec<String>, usize)> {
    let mut args = Vec::with_capacity(definition.params);
    let mut pos = pos;
    for i in 0..definition.params {
        if i == 0 {
            if let Some(default) = &definition.default {
                match bracket(src, pos) {
                    Some((value, end)) => {
                        args.push(value.to_owned());
                        pos = end;
                    }
                    None => args.push(default.clone()),
                }
                continue;
            }
        }
        let (value, end) = argument(src, pos)?;
        args.push(value.to_owned());
        pos = end;
    }
    Some((args, pos))
}

/// Appends `body` to `out` with `#n` replaced by the `n`th of `args` and `##` by `#`.
fn substitute(out: &mut String, body: &str, args: &[String]) {
    let mut rest = body;
    while let Some(i) = rest.find(['#', '\\']) {
        push_joined(out, &rest[..i]);
        rest = &rest[i..];
        if rest.starts_with('\\') {
            // A command is copied whole, so `\#` stays a literal `#`.
            let end = token_at(rest, 0).end;
            push_joined(out, &rest[..end]);
            rest = &rest[end..];
            continue;
        }
        match rest[1..].chars().next() {
            Some('#') => {
                out.push('#');
                rest = &rest[2..];
            }
            Some(digit @ '1'..='9') => {
                let index = digit as usize - '1' as usize;
                push_joined(out, args.get(index).map_or("", String::as_str));
                rest = &rest[2..];
            }
            _ => {
                out.push('#');
                rest = &rest[1..];
            }
        }
    }
    push_joined(out, rest);
}

/// Appends `piece` to `out`, with a space between when `out` ends with a control word and
/// `piece` starts with a letter (which would run on into its name).
fn push_joined(out: &mut String, piece: &str) {
    if starts_with_letter(piece) && ends_with_control_word(out) {
        out.push(' ');
    }
    out.push_str(piece);
}

/// Whether `s` starts with an ASCII letter.
fn starts_with_letter(s: &str) -> bool {
    s.as_bytes().first().is_some_and(u8::is_ascii_alphabetic)
}

/// Whether `s` ends with a control word (`\alpha`, not `\\alpha` or `a`).
fn ends_with_control_word(s: &str) -> bool {
    let letters = s.bytes().rev().take_while(u8::is_ascii_alphabetic).count();
    if letters == 0 {
        return false;
    }
    let backslashes = s.as_bytes()[..s.len() - letters]
        .iter()
        .rev()
        .take_while(|&&b| b == b'\\')
        .count();
    backslashes % 2 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definitions of `source`, and the math left after them.
    fn defined(source: &str) -> (Definitions, Option<String>) {
        let mut definitions = Definitions::new();
        let rest = definitions.take_from(source).unwrap();
        (definitions, rest)
    }

    fn expanded(definitions: &Definitions, tex: &str) -> String {
        definitions.expand(tex).unwrap().into_owned()
    }

    #[test]
    fn newcommand_forms() {
        let (d, rest) = defined(
            r"\newcommand{\poly}{_{\operatorname{poly}}}\newcommand\cx[1]{\mathcal{#1}\poly} \renewcommand*{\R}{\mathbb{R}}",
        );
        assert_eq!(rest.as_deref(), Some(" "));
        assert_eq!(expanded(&d, r"T\poly(M)"), r"T_{\operatorname{poly}}(M)");
        assert_eq!(
            expanded(&d, r"\cx{T}"),
            r"\mathcal{T}_{\operatorname{poly}}"
        );
        assert_eq!(
            expanded(&d, r"\cx T + \R"),
            r"\mathcal{T}_{\operatorname{poly}} + \mathbb{R}"
        );
        let (d, _) = defined(r"\newcommand{\pair}[2][x]{(#1,#2)}");
        assert_eq!(expanded(&d, r"\pair{y}"), "(x,y)");
        assert_eq!(expanded(&d, r"\pair[a]{b}"), "(a,b)");
        // `\providecommand` keeps an earlier definition.
        let (d, _) = defined(r"\newcommand{\x}{a}\providecommand{\x}{b}\providecommand{\y}{c}");
        assert_eq!(expanded(&d, r"\x\y"), "ac");
    }

    #[test]
    fn a_site_preamble_is_definitions_comments_and_spaces() {
        let preamble = "% the group's notation\n\\newcommand{\\CK}{\\mathcal{K}}\n  \\def\\mO{\\mathcal{O}} % sheaf\n\\DeclareMathOperator{\\Spf}{Spf}\n";
        let site = Definitions::from_preamble(preamble).unwrap();
        assert_eq!(
            expanded(&site, r"\CK+\mO_X\Spf"),
            r"\mathcal{K}+\mathcal{O}_X\operatorname{Spf}"
        );
        assert_eq!(
            Definitions::from_preamble(" \n% nothing\n").unwrap(),
            Definitions::new()
        );
        // A paper's own definitions override the site's, and a paper may still define
        // its full share of macros however many the site has.
        let mut paper = site.clone();
        paper.take_from(r"\renewcommand{\CK}{C_K}").unwrap();
        assert_eq!(expanded(&paper, r"\CK\mO"), r"C_K\mathcal{O}");
        let many: String = (0..MAX_DEFINITIONS + 10)
            .map(|i| format!("\\def\\m{}{{x}}", letters(i)))
            .collect();
        let mut paper = Definitions::from_preamble(&many).unwrap();
        let own: String = (0..MAX_DEFINITIONS)
            .map(|i| format!("\\def\\p{}{{y}}", letters(i)))
            .collect();
        paper.take_from(&own).unwrap();
        assert_eq!(expanded(&paper, r"\plc\mb"), "yx");
    }

    /// `i` written in the letters a to z, as macro names take only letters.
    fn letters(mut i: usize) -> String {
        let mut name = String::new();
        loop {
            name.push(char::from(b'a' + (i % 26) as u8));
            i /= 26;
            if i == 0 {
                return name;
            }
        }
    }

    #[test]
    fn a_site_preamble_names_where_it_stops_being_definitions() {
        let at = |src: &str| Definitions::from_preamble(src).unwrap_err();
        let error = at("\\newcommand{\\a}{x}\n\\mathcal{K}");
        assert_eq!(error.offset, 19);
        assert_eq!(error.reason, "only macro definitions may be given");
        assert_eq!(at("x").offset, 0);
        let error = at("\\def\\a{x}\\newcommand{\\b}");
        assert_eq!(
            (error.offset, error.reason.as_str()),
            (9, "macro definition not understood")
        );
        let too_many: String = (0..=MAX_SITE_DEFINITIONS)
            .map(|i| format!("\\def\\m{}{{x}}", letters(i)))
            .collect();
        assert!(at(&too_many).reason.starts_with("at most 1024"));
    }

    #[test]
    fn def_let_and_declare_math_operator() {
        let (d, _) = defined(
            r"\def\ip#1#2{\langle #1, #2\rangle}\let\eps=\varepsilon\DeclareMathOperator{\Gr}{Gr}\DeclareMathOperator*{\am}{arg\,max}",
        );
        assert_eq!(expanded(&d, r"\ip{u}{v}"), r"\langle u, v\rangle");
        assert_eq!(expanded(&d, r"\eps>0"), r"\varepsilon>0");
        assert_eq!(expanded(&d, r"\Gr(k,n)"), r"\operatorname{Gr}(k,n)");
        assert_eq!(expanded(&d, r"\am_x"), r"\operatorname*{arg\,max}_x");
    }

    #[test]
    fn fragments_without_definitions_are_left_alone() {
        let (d, rest) = defined(r"x^2 + \alpha");
        assert!(rest.is_none());
        assert!(d.is_empty());
        assert!(matches!(d.expand(r"\x"), Ok(Cow::Borrowed(_))));
    }

    #[test]
    fn mixed_fragments_keep_their_math() {
        let (d, rest) = defined(r"\def\x{y} \x + 1");
        assert_eq!(rest.as_deref(), Some(r" \x + 1"));
        assert_eq!(expanded(&d, &rest.unwrap()), " y + 1");
    }

    #[test]
    fn expansion_keeps_command_names_apart() {
        let (d, _) = defined(r"\def\x{b}\def\y{\beta}\def\z#1{\alpha#1}");
        assert_eq!(expanded(&d, r"\alpha\x"), r"\alpha b");
        assert_eq!(expanded(&d, r"\y x"), r"\beta x");
        assert_eq!(expanded(&d, r"\y{}x"), r"\beta{}x");
        assert_eq!(expanded(&d, r"\z{x}"), r"\alpha x");
        assert_eq!(expanded(&d, r"\z\x"), r"\alpha b");
    }

    #[test]
    fn recursion_and_growth_are_bounded() {
        for source in [
            r"\def\a{\a\a}",
            r"\def\a{\a}",
            r"\newcommand{\a}[1]{\a{#1#1}}",
        ] {
            let (d, _) = defined(source);
            let error = d.expand(r"\a{x}").unwrap_err();
            assert!(error.contains("macro expansion"), "{source}: {error}");
        }
        // Mutual recursion, and a body that doubles in size each time.
        let (d, _) = defined(r"\def\a{\b}\def\b{\a}\def\c{\c xx\c}");
        assert!(d.expand(r"\a").is_err());
        assert!(d.expand(r"\c").is_err());
        // Depth and size stay within bounds on a long chain that does end.
        let mut chain = String::new();
        for i in 0..20 {
            let name = |n: usize| format!("m{}", char::from(b'a' + n as u8));
            chain.push_str(&format!(
                r"\def\{}{{\{} \{}}}",
                name(i),
                name(i + 1),
                name(i + 1)
            ));
        }
        let (d, _) = defined(&chain);
        assert!(d.expand(r"\ma").is_err());
    }

    #[test]
    fn missing_arguments_and_odd_forms() {
        let (d, _) = defined(r"\newcommand{\f}[2]{#1/#2}");
        assert_eq!(d.expand(r"\f{a}").unwrap_err(), "macro argument missing");
        for source in [
            r"\newcommand{\f}[1]{#2}",
            r"\newcommand{\f}[10]{x}",
            r"\def\f#2{x}",
            r"\def\f#1.{x}",
            r"\newcommand{\f x}{y}",
            r"\newcommand{\f}",
            r"\let\f",
            r"\let",
            r"\let ",
            r"\def",
            r"\def ",
            r"\gdef",
            r"\newcommand",
            r"\renewcommand* ",
            r"\DeclareMathOperator",
            r"\DeclareMathOperator*",
            r"\newcommand{}{x}",
            r"\newcommand{ }{x}",
        ] {
            let mut d = Definitions::new();
            assert!(d.take_from(source).is_err(), "{source}");
        }
    }

    #[test]
    fn number_of_definitions_is_bounded() {
        let mut source = String::new();
        for i in 0..MAX_DEFINITIONS + 1 {
            source.push_str(&format!(r"\def\m{}{{x}}", "a".repeat(i + 1)));
        }
        let mut d = Definitions::new();
        assert!(d.take_from(&source).is_err());
        assert_eq!(d.macros.len(), MAX_DEFINITIONS);
    }
}
