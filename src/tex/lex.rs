//! The TeX tokenizer: how title and abstract source splits into text, commands, braces and
//! math shifts.
//!
//! Both readers of TeX in the crate split their source with it: the conversion to HTML and
//! plain text ([`super::render_tex`], and its check of math before the math is converted),
//! and the citation exports ([`crate::cite`]), which keep a title's TeX in BibTeX when that is
//! safe and strip it for citation keys. What a reader makes of the tokens (pandoc's rules for
//! a single `$`, BibTeX's for a title) is its own; what a token is, is decided only here.
//!
//! The tokenizer keeps no state: the token at a position depends only on the text from that
//! position on, so a reader can start or resume at any character (after the letter an accent
//! took from a text run, or at the second `$` of a `$$`).
//!
//! * `\` and ASCII letters is a control word (`\textbf`); `\` and any other character is a
//!   control symbol (`\'`, `\$`, `\\`, `\é`); a `\` that ends the text stands alone.
//! * `{` and `}` open and close a group. Escaped ones (`\{`, `\}`) are control symbols.
//! * `$$` is one token and `$` another; `\$` is a control symbol.
//! * Everything else, up to the next `\`, `{`, `}` or `$`, is a text run: TeX's other special
//!   characters (`~ % & # _ ^`) and ligatures (`--`, ``` `` ```) are left to the readers.

use super::letters::symbol_accent;

/// One token of TeX source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Token<'a> {
    /// A run of characters none of which is `\`, `{`, `}` or `$`; never empty.
    Text(&'a str),
    /// `\` and a name of ASCII letters (`\textbf`): the name, without the backslash.
    ControlWord(&'a str),
    /// `\` and one character that is not an ASCII letter (`\'`, `\$`, `\\`, `\é`).
    ControlSymbol(char),
    /// A `\` at the very end of the text.
    LoneBackslash,
    /// `{`.
    BeginGroup,
    /// `}`.
    EndGroup,
    /// A single `$`.
    Dollar,
    /// `$$`.
    DoubleDollar,
}

/// A token and where it is: `src[start..end]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Spanned<'a> {
    /// The token.
    pub token: Token<'a>,
    /// Byte offset of its first character.
    pub start: usize,
    /// Byte offset just after it.
    pub end: usize,
}

/// Whether `b` starts a token other than a text run.
fn is_structure(b: u8) -> bool {
    matches!(b, b'\\' | b'{' | b'}' | b'$')
}

/// The token that starts at byte `pos` of `src`, which must be a character boundary before
/// the end of `src`.
pub(crate) fn token_at(src: &str, pos: usize) -> Spanned<'_> {
    let bytes = src.as_bytes();
    let (token, end) = match bytes[pos] {
        b'\\' => backslash_token(src, pos),
        b'{' => (Token::BeginGroup, pos + 1),
        b'}' => (Token::EndGroup, pos + 1),
        b'$' if bytes.get(pos + 1) == Some(&b'$') => (Token::DoubleDollar, pos + 2),
        b'$' => (Token::Dollar, pos + 1),
        _ => {
            let end = bytes[pos..]
                .iter()
                .position(|&b| is_structure(b))
                .map_or(bytes.len(), |length| pos + length);
            (Token::Text(&src[pos..end]), end)
        }
    };
    Spanned {
        token,
        start: pos,
        end,
    }
}

/// The control word, control symbol or lone backslash whose `\` is at `pos`, and its end.
fn backslash_token(src: &str, pos: usize) -> (Token<'_>, usize) {
    let bytes = src.as_bytes();
    let name_start = pos + 1;
    let Some(next) = src[name_start..].chars().next() else {
        return (Token::LoneBackslash, name_start);
    };
    if !next.is_ascii_alphabetic() {
        return (Token::ControlSymbol(next), name_start + next.len_utf8());
    }
    let name_end = bytes[name_start..]
        .iter()
        .position(|b| !b.is_ascii_alphabetic())
        .map_or(bytes.len(), |length| name_start + length);
    (Token::ControlWord(&src[name_start..name_end]), name_end)
}

/// The tokens of `src` from byte `pos` (a character boundary) to its end.
#[derive(Debug, Clone)]
pub(crate) struct Tokens<'a> {
    src: &'a str,
    pos: usize,
}

impl<'a> Tokens<'a> {
    /// The tokens of all of `src`.
    pub(crate) fn new(src: &'a str) -> Self {
        Tokens { src, pos: 0 }
    }

    /// The tokens of `src` from byte `pos` on.
    pub(crate) fn starting_at(src: &'a str, pos: usize) -> Self {
        Tokens { src, pos }
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = Spanned<'a>;

    fn next(&mut self) -> Option<Spanned<'a>> {
        if self.pos >= self.src.len() {
            return None;
        }
        let spanned = token_at(self.src, self.pos);
        self.pos = spanned.end;
        Some(spanned)
    }
}

/// A token that begins or ends math.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MathDelimiter {
    /// `$`, which begins and ends inline math.
    Dollar,
    /// `$$`, which begins and ends display math.
    DoubleDollar,
    /// `\(`, which begins inline math.
    OpenParen,
    /// `\)`, which ends it.
    CloseParen,
    /// `\[`, which begins display math.
    OpenBracket,
    /// `\]`, which ends it.
    CloseBracket,
}

impl MathDelimiter {
    /// The delimiter that ends the math this one begins; None for `\)` and `\]`, which
    /// begin nothing.
    pub(crate) fn closer(self) -> Option<MathDelimiter> {
        match self {
            MathDelimiter::Dollar => Some(MathDelimiter::Dollar),
            MathDelimiter::DoubleDollar => Some(MathDelimiter::DoubleDollar),
            MathDelimiter::OpenParen => Some(MathDelimiter::CloseParen),
            MathDelimiter::OpenBracket => Some(MathDelimiter::CloseBracket),
            MathDelimiter::CloseParen | MathDelimiter::CloseBracket => None,
        }
    }
}

impl Token<'_> {
    /// The math delimiter this token is, if it is one.
    pub(crate) fn math_delimiter(self) -> Option<MathDelimiter> {
        match self {
            Token::Dollar => Some(MathDelimiter::Dollar),
            Token::DoubleDollar => Some(MathDelimiter::DoubleDollar),
            Token::ControlSymbol('(') => Some(MathDelimiter::OpenParen),
            Token::ControlSymbol(')') => Some(MathDelimiter::CloseParen),
            Token::ControlSymbol('[') => Some(MathDelimiter::OpenBracket),
            Token::ControlSymbol(']') => Some(MathDelimiter::CloseBracket),
            _ => None,
        }
    }
}

/// For each byte of `src` that is a `{`, the offset of the `}` that closes its group, or
/// `usize::MAX` when none does (the entry of every other byte is `usize::MAX` too).
pub(crate) fn match_braces(src: &str) -> Vec<usize> {
    let mut matches = vec![usize::MAX; src.len()];
    let mut open_groups = Vec::new();
    for spanned in Tokens::new(src) {
        match spanned.token {
            Token::BeginGroup => open_groups.push(spanned.start),
            Token::EndGroup => {
                if let Some(open) = open_groups.pop() {
                    matches[open] = spanned.start;
                }
            }
            _ => {}
        }
    }
    matches
}

/// Whether a lenient reader of TeX in BibTeX (the `biblatex` crate) could take a `$` in
/// `rest`, the text right after `command`, for part of that command's name (`\LaTeX$x$`,
/// `\,$x$`): such a reader runs a name on up to the next white space, control character or
/// one of `@ { } " # ' ( ) , = % \ ~`, except after a control symbol that stands alone for it
/// (an escaped special such as `\&`, or an accent such as `\'`). False for other tokens.
pub(crate) fn dollar_in_lenient_name(command: Token<'_>, rest: &str) -> bool {
    let name_runs_on = match command {
        Token::ControlWord(_) => true,
        Token::ControlSymbol(c) => {
            !matches!(c, '{' | '}' | '\\' | '$' | '&' | '%' | '#' | '_' | '-')
                && symbol_accent(c).is_none()
        }
        _ => false,
    };
    name_runs_on
        && rest
            .chars()
            .take_while(|&c| {
                !matches!(
                    c,
                    '@' | '{' | '}' | '"' | '#' | '\'' | '(' | ')' | ',' | '=' | '%' | '\\' | '~'
                ) && !c.is_control()
                    && !c.is_whitespace()
            })
            .any(|c| c == '$')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(src: &str) -> Vec<Token<'_>> {
        Tokens::new(src).map(|spanned| spanned.token).collect()
    }

    #[test]
    fn empty_input_has_no_tokens() {
        assert!(tokens("").is_empty());
        assert_eq!(Tokens::starting_at("ab", 2).next(), None);
    }

    #[test]
    fn text_runs_end_at_structure_only() {
        assert_eq!(
            tokens("a~b%c&d#e_f^g--h``i'' é"),
            [Token::Text("a~b%c&d#e_f^g--h``i'' é")]
        );
        assert_eq!(
            tokens(r"ab\cd{e}f$g"),
            [
                Token::Text("ab"),
                Token::ControlWord("cd"),
                Token::BeginGroup,
                Token::Text("e"),
                Token::EndGroup,
                Token::Text("f"),
                Token::Dollar,
                Token::Text("g"),
            ]
        );
    }

    #[test]
    fn control_words_and_symbols() {
        assert_eq!(
            tokens(r"\textbf{V}\'e\\\$\ss x"),
            [
                Token::ControlWord("textbf"),
                Token::BeginGroup,
                Token::Text("V"),
                Token::EndGroup,
                Token::ControlSymbol('\''),
                Token::Text("e"),
                Token::ControlSymbol('\\'),
                Token::ControlSymbol('$'),
                Token::ControlWord("ss"),
                Token::Text(" x"),
            ]
        );
        // A control word's name is ASCII letters only.
        assert_eq!(
            tokens(r"\a1\bé\c"),
            [
                Token::ControlWord("a"),
                Token::Text("1"),
                Token::ControlWord("b"),
                Token::Text("é"),
                Token::ControlWord("c"),
            ]
        );
    }

    #[test]
    fn non_ascii_after_a_backslash_is_one_control_symbol() {
        let spans: Vec<Spanned> = Tokens::new("\\é\\😀x").collect();
        assert_eq!(spans[0].token, Token::ControlSymbol('é'));
        assert_eq!((spans[0].start, spans[0].end), (0, 3));
        assert_eq!(spans[1].token, Token::ControlSymbol('😀'));
        assert_eq!((spans[1].start, spans[1].end), (3, 8));
        assert_eq!(spans[2].token, Token::Text("x"));
        assert_eq!(tokens("\\\n"), [Token::ControlSymbol('\n')]);
    }

    #[test]
    fn lone_backslash_only_at_the_end() {
        assert_eq!(tokens("a\\"), [Token::Text("a"), Token::LoneBackslash]);
        assert_eq!(
            tokens("\\\\\\"),
            [Token::ControlSymbol('\\'), Token::LoneBackslash]
        );
    }

    #[test]
    fn dollars() {
        assert_eq!(tokens("$"), [Token::Dollar]);
        assert_eq!(tokens("$$"), [Token::DoubleDollar]);
        assert_eq!(tokens("$$$"), [Token::DoubleDollar, Token::Dollar]);
        assert_eq!(
            tokens(r"\$$x\$"),
            [
                Token::ControlSymbol('$'),
                Token::Dollar,
                Token::Text("x"),
                Token::ControlSymbol('$'),
            ]
        );
        // `\\$` is an escaped backslash, then a math shift.
        assert_eq!(tokens(r"\\$"), [Token::ControlSymbol('\\'), Token::Dollar]);
    }

    #[test]
    fn math_delimiters() {
        let delimiters: Vec<Option<MathDelimiter>> = Tokens::new(r"$$$\(\)\[\]\{x")
            .map(|spanned| spanned.token.math_delimiter())
            .collect();
        assert_eq!(
            delimiters,
            [
                Some(MathDelimiter::DoubleDollar),
                Some(MathDelimiter::Dollar),
                Some(MathDelimiter::OpenParen),
                Some(MathDelimiter::CloseParen),
                Some(MathDelimiter::OpenBracket),
                Some(MathDelimiter::CloseBracket),
                None,
                None,
            ]
        );
        assert_eq!(
            MathDelimiter::OpenParen.closer(),
            Some(MathDelimiter::CloseParen)
        );
        assert_eq!(MathDelimiter::Dollar.closer(), Some(MathDelimiter::Dollar));
        assert_eq!(MathDelimiter::CloseBracket.closer(), None);
    }

    #[test]
    fn resuming_inside_a_text_run_or_a_double_dollar() {
        assert_eq!(
            Tokens::starting_at("ab{", 1).next().unwrap().token,
            Token::Text("b")
        );
        let spanned = Tokens::starting_at("$$x", 1).next().unwrap();
        assert_eq!(
            (spanned.token, spanned.start, spanned.end),
            (Token::Dollar, 1, 2)
        );
    }

    #[test]
    fn brace_matching() {
        let src = r"{a{b}\{c\}}}{";
        let matches = match_braces(src);
        assert_eq!(matches[0], 10);
        assert_eq!(matches[2], 4);
        // Escaped braces do not count; the last `{` and the extra `}` have no partner.
        assert_eq!(matches[6], usize::MAX);
        assert_eq!(matches[12], usize::MAX);
        let unbalanced = match_braces("{{{");
        assert!(unbalanced.iter().all(|&m| m == usize::MAX));
        assert!(match_braces("").is_empty());
    }

    #[test]
    fn nested_groups_match_inside_out() {
        let depth = 500;
        let src = "{".repeat(depth) + &"}".repeat(depth);
        let matches = match_braces(&src);
        for (open, &close) in matches.iter().enumerate().take(depth) {
            assert_eq!(close, 2 * depth - 1 - open);
        }
    }

    #[test]
    fn very_long_input_is_few_tokens() {
        let long = "word ".repeat(100_000) + r"\x" + &"é".repeat(100_000);
        let spans: Vec<Spanned> = Tokens::new(&long).collect();
        assert_eq!(spans.len(), 3);
        assert_eq!(spans[0].end, 500_000);
        assert_eq!(spans[1].token, Token::ControlWord("x"));
        assert_eq!(spans[2].end, long.len());
    }

    #[test]
    fn lenient_names_and_dollars() {
        let word = Token::ControlWord("LaTeX");
        assert!(dollar_in_lenient_name(word, "$x$"));
        assert!(dollar_in_lenient_name(word, "ab$x$"));
        assert!(!dollar_in_lenient_name(word, " $x$"));
        assert!(!dollar_in_lenient_name(word, "{}$x$"));
        assert!(!dollar_in_lenient_name(word, ""));
        assert!(dollar_in_lenient_name(Token::ControlSymbol(','), "$x$"));
        assert!(dollar_in_lenient_name(Token::ControlSymbol('('), "x$"));
        for alone in ['&', '-', '\'', '"', '$', '{'] {
            assert!(
                !dollar_in_lenient_name(Token::ControlSymbol(alone), "$x$"),
                "{alone}"
            );
        }
        assert!(!dollar_in_lenient_name(Token::Text("a"), "$x$"));
    }
}
