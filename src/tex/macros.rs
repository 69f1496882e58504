//! The math macro table: commands that authors write and the math converter
//! (pulldown-latex) does not know, rewritten into ones it does before conversion.
//!
//! The table follows KaTeX's (`src/macros.js`), whose coverage arXiv readers are used to:
//!
//! * old font commands: `\mathscr`, `\Cal` → `\mathcal`; `\frak` → `\mathfrak`; `\Bbb`,
//!   `\mathds`, `\mathbbm` → `\mathbb`; `\bold` → `\mathbf`; `\bm`, `\pmb` →
//!   `\boldsymbol`; `\mbox`, `\hbox`, `\textup`, `\textnormal` → `\text`;
//! * plain TeX's infix fractions: `{a \over b}` → `\frac{a}{b}`, `\choose` → `\binom`,
//!   `\atop`, `\brack`, `\brace` → `\genfrac`, each over its whole group;
//! * `\mod` (spaced as in KaTeX), `\varinjlim` and friends, the HTML-entity names of
//!   KaTeX (`\R`, `\N`, `\Z`, `\reals`, `\infin`, `\rarr`, ...), `\llbracket`, `\hdots`;
//! * AMS-TeX's sized delimiters `\biglb(`, `\bigrb)` and their sizes as `\bigl`, `\bigr`;
//! * `\left<` and `\right>` (and the `\big` sizes) as angle brackets;
//! * what means nothing on a web page: `\label{..}`, `\tag{..}`, `\nonumber`, size
//!   declarations (`\small`, `\large`);
//! * common author macros with one obvious meaning: `\C` and `\Q` (besides `\R`, `\N`,
//!   `\Z`) as blackboard bold, `\eps` as `\varepsilon`; standard operator names written as
//!   commands (`\Aut`, `\End`, `\Hom`, `\Spec`, `\Tr`, `\GL`, `\Sym`, `\Ext`, `\coker`,
//!   ...) as upright operators; one letter in a math alphabet (`\CC`, `\RR`, `\bbR` as
//!   blackboard bold, `\cA`, `\mcA` as calligraphic, `\frkh` as Fraktur, `\lie g` as
//!   `\mathfrak g`); `\wt`, `\wh` as `\widetilde`, `\widehat` (not before `(`: `\wt(b)` is a
//!   weight);
//! * the braket package's brackets, as KaTeX has them: `\bra{φ}`, `\ket{ψ}`,
//!   `\braket{φ|ψ}`, and `\Bra`, `\Ket`, `\Braket`, `\set`, `\Set`, whose bars grow with
//!   them;
//! * KaTeX's extensible arrows that the converter lacks (`\xmapsto{f}`, `\xRightarrow`,
//!   `\xhookrightarrow`, ...) as their argument over the arrow; `\operatornamewithlimits`
//!   as `\operatorname*`; `\pod`; `\dddot`; the Russian function names (`\tg`, `\ctg`,
//!   `\arctg`, ...) and `\plim`; phantoms as nothing and `\smash`, `\rlap` and the like
//!   as their argument;
//! * a text command whose argument holds math (`\text{ cm$^{-3}$}`,
//!   `\textit{$R$-convex}`), which the converter does not read in text, as stretches of
//!   text with the math between them (`\text{ cm}{^{-3}}`);
//! * `\H`, the double acute accent, as KaTeX reads it in math too;
//! * `\operatorname{..}`, `\operatorname*{..}` and `\mathop{..}` whose argument holds
//!   commands or scripts (`\operatorname{\mathsf{lex}}`): the converter would show that
//!   argument as literal text, so it gets it as `\mathop\mathrm{..}` (`\mathop\mathord{..}`).
//!
//! Any other command is left as it is, so an author's own macro still fails to convert and
//! keeps its source text.

use std::borrow::Cow;

use super::lex::{match_braces, token_at, Spanned, Token};

/// Groups nested deeper than this are copied without rewriting (the converter rejects
/// them anyway).
const MAX_DEPTH: usize = 64;

/// The TeX that the control word `name` (without its backslash) is rewritten to.
fn replacement(name: &str) -> Option<&'static str> {
    Some(match name {
        // Fonts.
        "mathscr" | "Cal" | "scr" => "\\mathcal",
        "frak" => "\\mathfrak",
        "Bbb" | "mathds" | "mathbbm" => "\\mathbb",
        "bold" | "mathbold" => "\\mathbf",
        "bm" | "pmb" => "\\boldsymbol",
        "mbox" | "hbox" | "textnormal" | "textup" | "textmd" => "\\text",
        "emph" | "textsl" => "\\textit",
        "sl" => "\\it",
        // Operators.
        "mod" => "\\mkern12mu\\mathrm{mod}\\,\\,",
        "injlim" => "\\mathrm{inj\\,lim}",
        "projlim" => "\\mathrm{proj\\,lim}",
        "varinjlim" => "\\underrightarrow{\\mathrm{lim}}",
        "varprojlim" => "\\underleftarrow{\\mathrm{lim}}",
        "varliminf" => "\\underline{\\mathrm{lim}}",
        "varlimsup" => "\\overline{\\mathrm{lim}}",
        "displaylimits" => "\\limits",
        // Plain TeX's names for the script characters.
        "sp" => "^",
        "sb" => "_",
        // Sets and the HTML-entity names.
        "R" | "Reals" | "reals" => "\\mathbb{R}",
        "N" | "natnums" => "\\mathbb{N}",
        "Z" => "\\mathbb{Z}",
        "C" | "Complex" | "cnums" => "\\mathbb{C}",
        "Q" => "\\mathbb{Q}",
        "eps" => "\\varepsilon",
        "empty" => "\\emptyset",
        "alef" | "alefsym" => "\\aleph",
        "infin" => "\\infty",
        "plusmn" => "\\pm",
        "sdot" => "\\cdot",
        "sub" => "\\subset",
        "sube" => "\\subseteq",
        "supe" => "\\supseteq",
        "harr" | "lrarr" => "\\leftrightarrow",
        "Harr" | "hArr" | "Lrarr" | "lrArr" => "\\Leftrightarrow",
        "larr" => "\\leftarrow",
        "Larr" | "lArr" => "\\Leftarrow",
        "rarr" => "\\rightarrow",
        "Rarr" | "rArr" => "\\Rightarrow",
        "uarr" => "\\uparrow",
        "darr" => "\\downarrow",
        "image" => "\\Im",
        "real" => "\\Re",
        "weierp" => "\\wp",
        "thetasym" => "\\vartheta",
        "bull" => "\\bullet",
        "clubs" => "\\clubsuit",
        "hearts" => "\\heartsuit",
        "spades" => "\\spadesuit",
        "diamonds" => "\\diamondsuit",
        "Colon" => "\\dblcolon",
        "llbracket" => "\\mathopen{\u{27e6}}",
        "rrbracket" => "\\mathclose{\u{27e7}}",
        "lBrace" => "\\mathopen{\u{2983}}",
        "rBrace" => "\\mathclose{\u{2984}}",
        "hdots" => "\\ldots",
        "exist" => "\\exists",
        "lang" => "\\langle",
        "rang" => "\\rangle",
        "Darr" | "dArr" => "\\Downarrow",
        "Uarr" | "uArr" => "\\Uparrow",
        "sect" => "\\S",
        "doublecup" => "\\Cup",
        "Dagger" => "\\ddagger",
        // Accents and spaces the converter lacks, as near as it can show them.
        "dddot" => "\\overset{\\cdot\\cdot\\cdot}",
        "ddddot" => "\\overset{\\cdot\\cdot\\cdot\\cdot}",
        "enskip" => "\\hspace{0.5em}",
        "space" => "\\ ",
        // `\smash{x}` is x without its height and depth, `\rlap{x}` x without its width:
        // x, as near as the converter can show it.
        "smash" | "llap" | "rlap" | "clap" | "mathllap" | "mathrlap" | "mathclap" => "",
        // AMS-TeX's sized delimiters.
        "biglb" => "\\bigl",
        "bigrb" => "\\bigr",
        "Biglb" => "\\Bigl",
        "Bigrb" => "\\Bigr",
        "bigglb" => "\\biggl",
        "biggrb" => "\\biggr",
        "Bigglb" => "\\Biggl",
        "Biggrb" => "\\Biggr",
        // Text-mode letters and accents that KaTeX also reads in math.
        "AA" => "\\text{\u{c5}}",
        "aa" => "\\text{\u{e5}}",
        "i" => "\\imath",
        "j" => "\\jmath",
        "v" => "\\check",
        "u" => "\\breve",
        // The text accent `\H` (double acute), as KaTeX reads it in math too.
        "H" => "\\overset{\u{2dd}}",
        // `\lie g`, `\lie{sl}`: a Lie algebra's name in Fraktur.
        "lie" => "\\mathfrak",
        // What means nothing on a web page.
        "nonumber" | "notag" | "nobreak" | "allowbreak" | "tiny" | "scriptsize"
        | "footnotesize" | "small" | "normalsize" | "large" | "Large" | "LARGE" | "huge"
        | "Huge" => "",
        _ => return None,
    })
}

/// Operator names that authors define as commands of their own (`\Aut`, `\Hom`, `\Spec`)
/// and that have one meaning: the upright operator of that name. The converter knows
/// `\ker`, `\hom`, `\sgn`, `\Im`, `\Re` and the like itself.
fn operator_name(name: &str) -> Option<&'static str> {
    Some(match name {
        "Aut" => "Aut",
        "End" => "End",
        "Hom" => "Hom",
        "Rep" => "Rep",
        "Spec" => "Spec",
        "Proj" => "Proj",
        "Ker" => "Ker",
        "Tr" => "Tr",
        "tr" => "tr",
        "rank" => "rank",
        "rk" => "rk",
        "id" => "id",
        "Id" => "Id",
        "GL" => "GL",
        "SL" => "SL",
        "SO" => "SO",
        "SU" => "SU",
        "PSL" => "PSL",
        "PGL" => "PGL",
        "Sp" => "Sp",
        "Sym" => "Sym",
        "Gal" => "Gal",
        "Pic" => "Pic",
        "Ext" => "Ext",
        "Tor" => "Tor",
        "coker" => "coker",
        "Coker" => "Coker",
        "im" => "im",
        "supp" => "supp",
        "diam" => "diam",
        "vol" => "vol",
        "Lie" => "Lie",
        "Mor" => "Mor",
        "Isom" => "Isom",
        "Out" => "Out",
        "Inn" => "Inn",
        "Der" => "Der",
        "Ad" => "Ad",
        "ad" => "ad",
        "Res" => "Res",
        "Ind" => "Ind",
        "Stab" => "Stab",
        "codim" => "codim",
        "Irr" => "Irr",
        "Mat" => "Mat",
        "Vect" => "Vect",
        "Var" => "Var",
        "Cov" => "Cov",
        "erf" => "erf",
        "plim" => "plim",
        // The Russian names of trigonometric and hyperbolic functions (KaTeX's).
        "tg" => "tg",
        "ctg" => "ctg",
        "cotg" => "cotg",
        "arctg" => "arctg",
        "arcctg" => "arcctg",
        "cosec" => "cosec",
        "cth" => "cth",
        "argmax" => "arg\\,max",
        "argmin" => "arg\\,min",
        _ => return None,
    })
}

/// Shorthands for one letter in a math alphabet: `\CC`, `\RR`, `\ZZ` (a doubled letter)
/// and `\bbR` as blackboard bold, `\cA`, `\mcA` as calligraphic, `\frakg`, `\frkh` as
/// Fraktur. The command that sets the alphabet, and the letter.
fn letter_shorthand(name: &str) -> Option<(&'static str, char)> {
    let bytes = name.as_bytes();
    let last = *bytes.last()?;
    let letter = char::from(last);
    let prefix = &name[..name.len() - 1];
    match prefix {
        "C" | "R" | "Z" | "N" | "Q" | "F" | "K" | "P" | "E" | "T" | "D"
            if prefix.as_bytes()[0] == last =>
        {
            Some(("\\mathbb", letter))
        }
        "bb" if last.is_ascii_uppercase() => Some(("\\mathbb", letter)),
        "c" | "mc" if last.is_ascii_uppercase() => Some(("\\mathcal", letter)),
        "frak" | "frk" if last.is_ascii_alphabetic() => Some(("\\mathfrak", letter)),
        _ => None,
    }
}

/// `\wt` and `\wh`, the common shorthands for `\widetilde` and `\widehat`.
fn wide_accent(name: &str) -> Option<&'static str> {
    match name {
        "wt" => Some("\\widetilde"),
        "wh" => Some("\\widehat"),
        _ => None,
    }
}

/// Writes the operator named `text` (TeX for upright text): as `\operatorname{text}`, or as
/// `\mathop\mathrm{text}` when it holds a command (see [`Rewriter::operator`]).
fn push_operator(out: &mut String, text: &str) {
    if text.contains('\\') {
        out.push_str("\\mathop\\mathrm{");
    } else {
        out.push_str("\\operatorname{");
    }
    out.push_str(text);
    out.push('}');
}

/// Commands whose one brace argument is dropped with them: labels, and phantoms, which
/// show nothing (the space they keep is lost).
fn dropped_with_argument(name: &str) -> bool {
    matches!(name, "label" | "tag" | "phantom" | "hphantom" | "vphantom")
}

/// Plain TeX's infix fraction commands, and the command they become on their group.
fn infix(name: &str) -> Option<&'static str> {
    Some(match name {
        "over" => "\\frac",
        "choose" => "\\binom",
        "atop" => "\\genfrac{}{}{0pt}{}",
        "brack" => "\\genfrac[]{0pt}{}",
        "brace" => "\\genfrac\\{\\}{0pt}{}",
        _ => return None,
    })
}

/// Commands after which `<` and `>` are delimiters (angle brackets).
fn takes_delimiter(name: &str) -> bool {
    matches!(
        name,
        "left"
            | "right"
            | "middle"
            | "big"
            | "Big"
            | "bigg"
            | "Bigg"
            | "bigl"
            | "Bigl"
            | "biggl"
            | "Biggl"
            | "bigr"
            | "Bigr"
            | "biggr"
            | "Biggr"
            | "bigm"
            | "Bigm"
            | "biggm"
            | "Biggm"
    )
}

/// A command that writes its argument between `open` and `close`: a bracket of the
/// braket package, as KaTeX defines it (the argument in a group of its own, unless its
/// bars grow: `\middle` must be in the group of its `\left` and `\right`), with the first
/// bar (`|`, and `\|`) at the argument's top level, or every one, written as `bar` (and
/// `double_bar`) so that it grows with the brackets; or an extensible arrow, its argument
/// over the arrow.
struct Wrapped {
    open: &'static str,
    close: &'static str,
    /// What a bar and a double bar become, if they change (a double bar may not).
    bars: Option<(&'static str, Option<&'static str>)>,
    /// Whether every bar changes, not only the first.
    every_bar: bool,
}

/// The wrapping command `name`, if it is one: a bracket (`\bra`, `\ket`, `\braket`,
/// `\set` and their capitalized, growing forms) or an extensible arrow that the converter
/// lacks (`\xmapsto`, `\xRightarrow`, `\xhookrightarrow`, ...; it has `\xrightarrow` and
/// `\xleftarrow`).
fn wrapping(name: &str) -> Option<Wrapped> {
    let fixed = |open, close| Wrapped {
        open,
        close,
        bars: None,
        every_bar: false,
    };
    Some(match name {
        "bra" => fixed("\\mathinner{\\langle{", "}|}"),
        "ket" => fixed("\\mathinner{|{", "}\\rangle}"),
        "braket" => fixed("\\mathinner{\\langle{", "}\\rangle}"),
        "Bra" => fixed("\\left\\langle{", "}\\right|"),
        "Ket" => fixed("\\left|{", "}\\right\\rangle"),
        "Braket" => Wrapped {
            open: "\\left\\langle ",
            close: "\\right\\rangle ",
            bars: Some(("\\,\\middle\\vert\\,", Some("\\,\\middle\\Vert\\,"))),
            every_bar: true,
        },
        "set" => Wrapped {
            open: "\\{\\,",
            close: "\\,\\}",
            bars: Some(("\\mid ", None)),
            every_bar: false,
        },
        "Set" => Wrapped {
            open: "\\left\\{\\:",
            close: "\\:\\right\\}",
            bars: Some(("\\;\\middle\\vert\\;", Some("\\;\\middle\\Vert\\;"))),
            every_bar: false,
        },
        // `\pod{n}`: `\pmod` without its "mod".
        "pod" => fixed("\\quad({", "})"),
        _ => {
            let arrow = extensible_arrow(name)?;
            return Some(fixed("\\mathrel{\\overset{", arrow));
        }
    })
}

/// The arrow of an extensible arrow command the converter lacks, after its argument
/// (which goes over it).
fn extensible_arrow(name: &str) -> Option<&'static str> {
    Some(match name {
        "xleftrightarrow" => "}{\\longleftrightarrow}}",
        "xLeftarrow" => "}{\\Longleftarrow}}",
        "xRightarrow" => "}{\\Longrightarrow}}",
        "xLeftrightarrow" => "}{\\Longleftrightarrow}}",
        "xmapsto" => "}{\\longmapsto}}",
        "xhookleftarrow" => "}{\\hookleftarrow}}",
        "xhookrightarrow" => "}{\\hookrightarrow}}",
        "xtwoheadleftarrow" => "}{\\twoheadleftarrow}}",
        "xtwoheadrightarrow" => "}{\\twoheadrightarrow}}",
        "xlongequal" => "}{=\\!=}}",
        "xrightleftharpoons" | "xrightequilibrium" => "}{\\rightleftharpoons}}",
        "xleftrightharpoons" | "xleftequilibrium" => "}{\\leftrightharpoons}}",
        "xrightharpoonup" => "}{\\rightharpoonup}}",
        "xrightharpoondown" => "}{\\rightharpoondown}}",
        "xleftharpoonup" => "}{\\leftharpoonup}}",
        "xleftharpoondown" => "}{\\leftharpoondown}}",
        "xrightleftarrows" | "xtofrom" => "}{\\rightleftarrows}}",
        _ => return None,
    })
}

/// `tex` with its bars at the top level (outside groups) written as `bar`, and its
/// double bars (`\|`) as `double_bar` (if it is given): the first one, or every one.
fn replace_bars(tex: &str, (bar, double_bar): (&str, Option<&str>), every_bar: bool) -> String {
    let mut out = String::with_capacity(tex.len() + 16);
    let mut depth = 0usize;
    let mut replaced = false;
    let mut chars = tex.char_indices();
    while let Some((_, c)) = chars.next() {
        let at_top = depth == 0 && (every_bar || !replaced);
        match c {
            '\\' => match chars.next() {
                Some((_, '|')) if at_top && double_bar.is_some() => {
                    out.push_str(double_bar.unwrap_or_default());
                    replaced = true;
                }
                Some((_, escaped)) => {
                    out.push('\\');
                    out.push(escaped);
                }
                None => out.push('\\'),
            },
            '|' if at_top => {
                out.push_str(bar);
                replaced = true;
            }
            '{' => {
                depth += 1;
                out.push(c);
            }
            '}' => {
                depth = depth.saturating_sub(1);
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// The command a text command of math becomes around stretches of its text when its
/// argument holds math (see `Rewriter::text_with_math`): itself, or what the table
/// rewrites it to (`\mbox` -> `\text`, `\emph` -> `\textit`).
fn text_command(name: &str) -> Option<&'static str> {
    const TEXT_COMMANDS: [&str; 6] = [
        "\\text", "\\textit", "\\textbf", "\\textrm", "\\textsf", "\\texttt",
    ];
    let own = || (TEXT_COMMANDS.iter().copied()).find(|command| command[1..] == *name);
    let command = replacement(name).or_else(own)?;
    TEXT_COMMANDS.contains(&command).then_some(command)
}

/// Whether the control word `name` is rewritten by [`rewrite_math`].
fn is_rewritten(name: &str) -> bool {
    replacement(name).is_some()
        || wrapping(name).is_some()
        || operator_name(name).is_some()
        || letter_shorthand(name).is_some()
        || matches!(name, "operatorname" | "operatornamewithlimits" | "mathop")
        || wide_accent(name).is_some()
        || dropped_with_argument(name)
        || infix(name).is_some()
        || takes_delimiter(name)
}

/// The math `tex` with every command of the table rewritten (see the module
/// documentation); borrowed when there is nothing to rewrite.
pub(crate) fn rewrite_math(tex: &str) -> Cow<'_, str> {
    let mut pos = 0;
    let mut any = false;
    while pos < tex.len() {
        let spanned = token_at(tex, pos);
        let rewritten = match spanned.token {
            Token::ControlWord(name) => is_rewritten(name),
            // Math nested in a text command's argument.
            Token::Dollar => true,
            _ => false,
        };
        if rewritten {
            any = true;
            break;
        }
        pos = spanned.end;
    }
    if !any {
        return Cow::Borrowed(tex);
    }
    let mut rewriter = Rewriter {
        tex,
        braces: match_braces(tex),
        out: String::with_capacity(tex.len() + 32),
    };
    rewriter.region(0, tex.len(), 0);
    Cow::Owned(rewriter.out)
}

/// The state of one rewrite.
struct Rewriter<'a> {
    tex: &'a str,
    /// For each `{`, the offset of its `}` (see [`match_braces`]).
    braces: Vec<usize>,
    out: String,
}

impl Rewriter<'_> {
    /// The `}` closing the `{` at `open`, if it closes before `end`.
    fn closing(&self, open: usize, end: usize) -> Option<usize> {
        let close = *self.braces.get(open)?;
        (close != usize::MAX && close < end).then_some(close)
    }

    /// Rewrites the group content `tex[from..to]`: an infix fraction command at its top
    /// level makes it a fraction of the parts before and after it.
    fn region(&mut self, from: usize, to: usize, depth: usize) {
        if depth > MAX_DEPTH {
            self.out.push_str(&self.tex[from..to]);
            return;
        }
        if let Some((at, after, command)) = self.infix_at(from, to) {
            self.out.push_str(command);
            self.out.push('{');
            self.tokens(from, at, depth);
            self.out.push_str("}{");
            self.tokens(after, to, depth);
            self.out.push('}');
            return;
        }
        self.tokens(from, to, depth);
    }

    /// The tokens at the top level of `tex[from..to]`: after a `{` whose group closes
    /// before `to`, the token after its `}`.
    fn top_level(&self, from: usize, to: usize) -> impl Iterator<Item = Spanned<'_>> + '_ {
        let mut pos = from;
        std::iter::from_fn(move || {
            let spanned = (pos < to).then(|| token_at(&self.tex[..to], pos))?;
            pos = match spanned.token {
                Token::BeginGroup => self.closing(pos, to).map_or(spanned.end, |close| close + 1),
                _ => spanned.end,
            };
            Some(spanned)
        })
    }

    /// The first infix fraction command at the top level of `tex[from..to]`: where it
    /// starts, where it ends and what it becomes.
    fn infix_at(&self, from: usize, to: usize) -> Option<(usize, usize, &'static str)> {
        // `\buildrel a \over b` is a command of its own, which the converter knows.
        let mut buildrels = 0usize;
        for spanned in self.top_level(from, to) {
            match spanned.token {
                Token::ControlWord("buildrel") => buildrels += 1,
                Token::ControlWord("over") if buildrels > 0 => buildrels -= 1,
                Token::ControlWord(name) => {
                    if let Some(command) = infix(name) {
                        return Some((spanned.start, spanned.end, command));
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// Copies the tokens of `tex[from..to]`, rewriting commands and the groups inside.
    fn tokens(&mut self, from: usize, to: usize, depth: usize) {
        let mut pos = from;
        while pos < to {
            let spanned = token_at(&self.tex[..to], pos);
            pos = spanned.end;
            match spanned.token {
                Token::BeginGroup => {
                    if let Some(close) = self.closing(spanned.start, to) {
                        self.out.push('{');
                        self.region(spanned.end, close, depth + 1);
                        self.out.push('}');
                        pos = close + 1;
                        continue;
                    }
                }
                Token::ControlWord(name) => {
                    if let Some(next) = self.text_with_math(name, pos, to, depth) {
                        pos = next;
                        continue;
                    }
                    if let Some(replacement) = replacement(name) {
                        self.out.push_str(replacement);
                        continue;
                    }
                    if let Some(operator) = operator_name(name) {
                        push_operator(&mut self.out, operator);
                        continue;
                    }
                    if let Some((font, letter)) = letter_shorthand(name) {
                        self.out.push_str(font);
                        self.out.push('{');
                        self.out.push(letter);
                        self.out.push('}');
                        continue;
                    }
                    if let Some(accent) = wide_accent(name) {
                        // `\wt(b)` is a weight, not an accent over `(`.
                        if !self.tex[pos..to].trim_start().starts_with('(') {
                            self.out.push_str(accent);
                            continue;
                        }
                    }
                    if let Some(wrapped) = wrapping(name) {
                        pos = self.wrap(&wrapped, spanned.start, pos, to, depth);
                        continue;
                    }
                    if matches!(name, "operatorname" | "operatornamewithlimits" | "mathop") {
                        pos = self.operator(name, pos, to, depth);
                        continue;
                    }
                    if dropped_with_argument(name) {
                        pos = self.skip_argument(pos, to);
                        continue;
                    }
                    if takes_delimiter(name) {
                        self.out.push_str(&self.tex[spanned.start..spanned.end]);
                        pos = self.angle_delimiter(pos, to);
                        continue;
                    }
                }
                _ => {}
            }
            self.out.push_str(&self.tex[spanned.start..spanned.end]);
        }
    }

    /// Writes a text command (`\text`, `\textit`, `\mbox`, ...: the control word `name`,
    /// which ends at `pos`) whose argument holds math (`\text{ cm$^{-3}$}`,
    /// `\textit{$R$-convex spaces}`), which the converter does not read in text: each
    /// stretch of text as the command, each math between them as a group
    /// (`\text{ cm}{^{-3}}`). Returns where to go on; None, writing nothing, for any
    /// other command, or an argument without math at its top level in `$` pairs.
    fn text_with_math(&mut self, name: &str, pos: usize, to: usize, depth: usize) -> Option<usize> {
        let command = text_command(name)?;
        if self.tex.as_bytes().get(pos) != Some(&b'{') {
            return None;
        }
        let close = self.closing(pos, to)?;
        let dollars = self.top_level_dollars(pos + 1, close)?;
        let mut text_from = pos + 1;
        let text = |rewriter: &mut Self, from: usize, to: usize| {
            if from < to {
                rewriter.out.push_str(command);
                rewriter.out.push('{');
                rewriter.tokens(from, to, depth + 1);
                rewriter.out.push('}');
            }
        };
        for pair in dollars.chunks(2) {
            text(self, text_from, pair[0]);
            self.out.push('{');
            self.region(pair[0] + 1, pair[1], depth + 1);
            self.out.push('}');
            text_from = pair[1] + 1;
        }
        text(self, text_from, close);
        Some(close + 1)
    }

    /// Where the `$`s at the top level of `tex[from..to]` are, when there are some and
    /// they pair up (none of them `$$`).
    fn top_level_dollars(&self, from: usize, to: usize) -> Option<Vec<usize>> {
        let mut dollars = Vec::new();
        for spanned in self.top_level(from, to) {
            match spanned.token {
                Token::Dollar => dollars.push(spanned.start),
                Token::DoubleDollar => return None,
                _ => {}
            }
        }
        (!dollars.is_empty() && dollars.len() % 2 == 0).then_some(dollars)
    }

    /// Writes `\operatorname` or `\mathop` (the control word `name`, which ends at `pos`)
    /// with its argument, and returns where to go on. The converter takes a group argument
    /// of either as literal text, so an argument that holds commands, groups or scripts
    /// (`\operatorname{\mathsf{lex}}`, `\mathop{\bigoplus}`) is handed to it as one command
    /// instead: `\mathop\mathrm{..}` for an operator name, `\mathop\mathord{..}` for
    /// `\mathop`. `\operatorname*` (limits below in display math) becomes `\mathop\mathrm`.
    fn operator(&mut self, name: &str, pos: usize, to: usize, depth: usize) -> usize {
        let star = name == "operatorname" && self.tex[pos..to].starts_with('*');
        let after_star = pos + usize::from(star);
        // `\operatornamewithlimits` is `\operatorname*` under its old name.
        let starred = star || name == "operatornamewithlimits";
        let open = after_star + self.tex[after_star..to].len()
            - self.tex[after_star..to].trim_start().len();
        let group = (self.tex.as_bytes().get(open) == Some(&b'{'))
            .then(|| self.closing(open, to))
            .flatten();
        let Some(close) = group else {
            self.out.push('\\');
            self.out.push_str(name);
            return after_star;
        };
        let inner = &self.tex[open + 1..close];
        let literal = !inner.contains(['\\', '{', '}', '^', '_']);
        if literal && !starred {
            self.out.push('\\');
            self.out.push_str(name);
            self.out.push_str(&self.tex[pos..=close]);
            return close + 1;
        }
        self.out.push_str(if name == "mathop" {
            "\\mathop\\mathord{"
        } else {
            "\\mathop\\mathrm{"
        });
        self.region(open + 1, close, depth + 1);
        self.out.push('}');
        close + 1
    }

    /// Writes the wrapping command that starts at `start` and ends at `pos` with its
    /// argument (a group, or else the one token after spaces: `\ket0`, `\ket\psi`), and
    /// returns where to go on. Without an argument, or with an optional one (`[`), which
    /// these commands do not take here, the command is copied as it is.
    fn wrap(
        &mut self,
        bracket: &Wrapped,
        start: usize,
        pos: usize,
        to: usize,
        depth: usize,
    ) -> usize {
        let at = pos + self.tex[pos..to].len() - self.tex[pos..to].trim_start().len();
        let argument = match self.tex.as_bytes().get(at) {
            _ if at >= to => None,
            Some(b'{') => self.closing(at, to).map(|close| (at + 1, close, close + 1)),
            Some(b'}' | b'[') => None,
            Some(_) => {
                // One character of a run of text; a whole command otherwise.
                let spanned = token_at(&self.tex[..to], at);
                let end = match spanned.token {
                    Token::Text(text) => at + text.chars().next().map_or(0, char::len_utf8),
                    _ => spanned.end,
                };
                Some((at, end, end))
            }
            None => None,
        };
        let Some((from, until, next)) = argument else {
            self.out.push_str(&self.tex[start..pos]);
            return pos;
        };
        self.out.push_str(bracket.open);
        let inner_start = self.out.len();
        self.region(from, until, depth + 1);
        if let Some(bars) = bracket.bars {
            let inner = replace_bars(&self.out[inner_start..], bars, bracket.every_bar);
            self.out.truncate(inner_start);
            self.out.push_str(&inner);
        }
        self.out.push_str(bracket.close);
        next
    }

    /// Where the brace argument after `pos` (and spaces) ends; `pos` when there is none.
    fn skip_argument(&self, pos: usize, to: usize) -> usize {
        let open = pos + self.tex[pos..to].len() - self.tex[pos..to].trim_start().len();
        match self.tex.as_bytes().get(open) {
            Some(b'{') => self.closing(open, to).map_or(pos, |close| close + 1),
            _ => pos,
        }
    }

    /// Writes `<` or `>` after spaces at `pos` as `\langle` or `\rangle`, and returns where
    /// to go on.
    fn angle_delimiter(&mut self, pos: usize, to: usize) -> usize {
        let rest = &self.tex[pos..to];
        let trimmed = rest.trim_start();
        let angle = match trimmed.as_bytes().first() {
            Some(b'<') => "\\langle ",
            Some(b'>') => "\\rangle ",
            _ => return pos,
        };
        self.out.push_str(angle);
        pos + (rest.len() - trimmed.len()) + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(tex: &str) -> String {
        rewrite_math(tex).into_owned()
    }

    #[test]
    fn math_in_a_text_command_is_a_group_between_stretches_of_text() {
        assert_eq!(
            rewrite(r"3\times10^{19}\text{ cm$^{-3}$}"),
            r"3\times10^{19}\text{ cm}{^{-3}}"
        );
        assert_eq!(
            rewrite(r"\textit{$\mathscr{C}$-generated spaces}"),
            r"{\mathcal{C}}\textit{-generated spaces}"
        );
        assert_eq!(
            rewrite(r"\mbox{left $R$ and $S$}"),
            r"\text{left }{R}\text{ and }{S}"
        );
        assert_eq!(rewrite(r"\emph{$x$}"), r"{x}");
        // Unpaired, `$$`, or deeper in the argument: left as they are.
        for kept in [
            r"\text{a $b}",
            r"\text{a $$b$$}",
            r"\text{a {$b$}}",
            r"\mathrm{$b$}",
        ] {
            assert_eq!(rewrite(kept), kept);
        }
    }

    #[test]
    fn tex_without_table_commands_is_borrowed() {
        assert!(matches!(
            rewrite_math(r"\frac{a}{b} + \mathcal{O}"),
            Cow::Borrowed(_)
        ));
        assert!(matches!(rewrite_math(""), Cow::Borrowed(_)));
    }

    #[test]
    fn font_commands() {
        let cases = [
            (r"\mathscr{C}at", r"\mathcal{C}at"),
            (r"\Cal D", r"\mathcal D"),
            (r"\frak g", r"\mathfrak g"),
            (r"\Bbb Z", r"\mathbb Z"),
            (r"\mathds{1}", r"\mathbb{1}"),
            (r"\mathbbm{1}", r"\mathbb{1}"),
            (r"\bold 1", r"\mathbf 1"),
            (r"\bm\alpha", r"\boldsymbol\alpha"),
            (r"\pmb{x}", r"\boldsymbol{x}"),
            (r"\mbox{ if }", r"\text{ if }"),
            (r"\hbox{-Mod}", r"\text{-Mod}"),
            (r"\textup{x}", r"\text{x}"),
            (r"\emph{x}", r"\textit{x}"),
            (r"{\sl x}", r"{\it x}"),
        ];
        for (tex, expected) in cases {
            assert_eq!(rewrite(tex), expected, "{tex}");
        }
    }

    #[test]
    fn infix_fractions_take_their_group() {
        assert_eq!(rewrite(r"{a \over b}"), r"{\frac{a }{ b}}");
        assert_eq!(rewrite(r"1 \over 2"), r"\frac{1 }{ 2}");
        assert_eq!(rewrite(r"x + {1 \over {n+1}}"), r"x + {\frac{1 }{ {n+1}}}");
        assert_eq!(rewrite(r"{n \choose k}"), r"{\binom{n }{ k}}");
        assert_eq!(rewrite(r"{a \atop b}"), r"{\genfrac{}{}{0pt}{}{a }{ b}}");
        assert_eq!(rewrite(r"{a \brack b}"), r"{\genfrac[]{0pt}{}{a }{ b}}");
        assert_eq!(rewrite(r"{a \brace b}"), r"{\genfrac\{\}{0pt}{}{a }{ b}}");
        // Inside the parts, the table applies too.
        assert_eq!(
            rewrite(r"{\R \over \Z}"),
            r"{\frac{\mathbb{R} }{ \mathbb{Z}}}"
        );
        // `\buildrel` takes its own `\over`.
        assert_eq!(
            rewrite(r"{\buildrel a \over -} {x \over y}"),
            r"{\buildrel a \over -} {\frac{x }{ y}}"
        );
        // `\overline` is not `\over`.
        assert_eq!(rewrite(r"\overline{x} \Z"), r"\overline{x} \mathbb{Z}");
    }

    #[test]
    fn operators() {
        assert_eq!(rewrite(r"a \mod p"), r"a \mkern12mu\mathrm{mod}\,\, p");
        assert_eq!(
            rewrite(r"\varinjlim_i"),
            r"\underrightarrow{\mathrm{lim}}_i"
        );
        assert_eq!(rewrite(r"\varprojlim"), r"\underleftarrow{\mathrm{lim}}");
        assert_eq!(rewrite(r"\varliminf"), r"\underline{\mathrm{lim}}");
        assert_eq!(rewrite(r"\varlimsup"), r"\overline{\mathrm{lim}}");
        assert_eq!(rewrite(r"\injlim"), r"\mathrm{inj\,lim}");
        assert_eq!(rewrite(r"\projlim"), r"\mathrm{proj\,lim}");
        assert_eq!(rewrite(r"\sum\displaylimits"), r"\sum\limits");
        assert_eq!(rewrite(r"C_{n}\sp{(1)}\sb2"), r"C_{n}^{(1)}_2");
    }

    #[test]
    fn author_macros_with_one_meaning() {
        for (name, letter) in [("R", 'R'), ("N", 'N'), ("Z", 'Z'), ("C", 'C'), ("Q", 'Q')] {
            assert_eq!(
                rewrite(&format!(r"\{name}^n")),
                format!(r"\mathbb{{{letter}}}^n")
            );
        }
        assert_eq!(rewrite(r"\eps>0"), r"\varepsilon>0");
        assert_eq!(
            rewrite(r"\reals \Complex \natnums"),
            r"\mathbb{R} \mathbb{C} \mathbb{N}"
        );
        // Other short author macros are left alone.
        assert_eq!(rewrite(r"\D \K \Z"), r"\D \K \mathbb{Z}");
    }

    #[test]
    fn braket_brackets_as_katex_defines_them() {
        assert_eq!(rewrite(r"\ket{\psi}"), r"\mathinner{|{\psi}\rangle}");
        assert_eq!(rewrite(r"\bra{\phi}"), r"\mathinner{\langle{\phi}|}");
        assert_eq!(
            rewrite(r"\braket{\phi|\psi}"),
            r"\mathinner{\langle{\phi|\psi}\rangle}"
        );
        assert_eq!(rewrite(r"\Ket{\psi}"), r"\left|{\psi}\right\rangle");
        assert_eq!(rewrite(r"\Bra{x}"), r"\left\langle{x}\right|");
        // One token without braces is the argument, as in TeX; the argument is rewritten.
        assert_eq!(
            rewrite(r"\ket0 + \ket \psi"),
            r"\mathinner{|{0}\rangle} + \mathinner{|{\psi}\rangle}"
        );
        assert_eq!(
            rewrite(r"\ket{\R^n}"),
            r"\mathinner{|{\mathbb{R}^n}\rangle}"
        );
        // Without an argument the command stays, and fails as before.
        assert_eq!(rewrite(r"a\ket"), r"a\ket");
        assert_eq!(rewrite(r"{\ket}"), r"{\ket}");
    }

    #[test]
    fn growing_brackets_grow_their_bars() {
        // Every bar of \Braket, and its double bars; bars inside groups stay.
        assert_eq!(
            rewrite(r"\Braket{\phi|A|\psi}"),
            r"\left\langle \phi\,\middle\vert\,A\,\middle\vert\,\psi\right\rangle "
        );
        assert_eq!(
            rewrite(r"\Braket{a\|b{|c|}}"),
            r"\left\langle a\,\middle\Vert\,b{|c|}\right\rangle "
        );
        // Only the first bar of a set; a double bar of \set stays as it is.
        assert_eq!(rewrite(r"\set{x|x>0}"), r"\{\,x\mid x>0\,\}");
        assert_eq!(rewrite(r"\set{x\|y|z}"), r"\{\,x\|y\mid z\,\}");
        assert_eq!(
            rewrite(r"\Set{x|x>|y|}"),
            r"\left\{\:x\;\middle\vert\;x>|y|\:\right\}"
        );
        // Escaped characters are no bars or groups.
        assert_eq!(rewrite(r"\set{\{x\}|y}"), r"\{\,\{x\}\mid y\,\}");
    }

    #[test]
    fn braket_brackets_convert() {
        for tex in [
            r"$\ket{\psi}$",
            r"$\bra{\phi}$",
            r"$\braket{\phi|\psi}$",
            r"$\Bra{x}\Ket{y}$",
            r"$\Braket{ \phi | \frac{\partial^2}{\partial t^2} | \psi }$",
            r"$\set{x|x>0}$",
            r"$\Set{x|x>0}$",
            r"$\ket0\otimes\ket1$",
        ] {
            let fragments = crate::tex::math_fragments(tex);
            assert_eq!(fragments.len(), 1, "{tex}");
            assert_eq!(fragments[0].error, None, "{tex}");
        }
        let shown = crate::tex::render_tex(r"state $\ket{\psi}$").text;
        assert_eq!(shown, "state |ψ⟩");
        // Outside `$…$` too, as the text's other math commands.
        let in_text = crate::tex::render_tex(r"the state \ket{\psi} evolves");
        assert_eq!(in_text.text, "the state |ψ⟩ evolves");
        assert!(in_text.html.contains("<math"), "{}", in_text.html);
        assert!(in_text.warnings.is_empty());
        // An author's own definition of a bracket name wins over the table.
        let mut definitions = crate::tex::Definitions::new();
        let defined = crate::tex::render_tex_with(
            r"$\newcommand{\set}[1]{\mathbb{#1}}$We study $\set{R}$.",
            &mut definitions,
        );
        assert_eq!(defined.text, "We study ℝ.");
    }

    #[test]
    fn extensible_arrows_put_their_argument_over_the_arrow() {
        assert_eq!(
            rewrite(r"A\xmapsto{f}B"),
            r"A\mathrel{\overset{f}{\longmapsto}}B"
        );
        assert_eq!(
            rewrite(r"\xRightarrow{\R}"),
            r"\mathrel{\overset{\mathbb{R}}{\Longrightarrow}}"
        );
        // An argument below (`[..]`) is not read: the command stays, and fails.
        assert_eq!(rewrite(r"\xmapsto[g]{f}"), r"\xmapsto[g]{f}");
        // The converter's own arrows are left to it.
        assert_eq!(rewrite(r"\xrightarrow{f}"), r"\xrightarrow{f}");
    }

    #[test]
    fn katex_commands_the_converter_lacks_convert() {
        for tex in [
            r"$A\xleftrightarrow{a}B\xLeftarrow{b}C\xRightarrow{c}D\xLeftrightarrow{d}E$",
            r"$A\xmapsto{f}B\xhookleftarrow{g}C\xhookrightarrow{h}D$",
            r"$A\xtwoheadleftarrow{f}B\xtwoheadrightarrow{g}C\xlongequal{h}D$",
            r"$A\xrightleftharpoons{k}B\xleftrightharpoons{k}C\xrightequilibrium{k}D$",
            r"$A\xleftequilibrium{k}B\xrightharpoonup{a}C\xrightharpoondown{b}D$",
            r"$A\xleftharpoonup{a}B\xleftharpoondown{b}C\xrightleftarrows{c}D\xtofrom{d}E$",
            r"$\exist x\in\lang a\rang, \Darr\dArr\Uarr\uArr\sect\doublecup$",
            r"$\dddot x+\ddddot{y}$",
            r"$a\enskip b\space c$",
            r"$\plim_{n} X_n = \tg x + \ctg x + \cotg x + \arctg x + \arcctg x + \cosec x + \cth x$",
            r"$\operatornamewithlimits{ess\,sup}_x f$",
            r"$a\phantom{bc}d\hphantom{e}\vphantom{\int}f\smash{g}$",
            r"$\mathrlap{a}\mathllap{b}\mathclap{c}\rlap{d}\llap{e}\clap{f}\Dagger$",
            r"$a\equiv b\pod{m}$",
        ] {
            let fragments = crate::tex::math_fragments(tex);
            assert_eq!(fragments.len(), 1, "{tex}");
            assert_eq!(fragments[0].error, None, "{tex}");
        }
        assert_eq!(crate::tex::render_tex(r"$a\phantom{bc}d$").text, "ad");
        assert_eq!(rewrite(r"a\equiv b\pod{m}"), r"a\equiv b\quad({m})");
        assert_eq!(crate::tex::render_tex(r"$\tg x$").text, "tg x");
    }

    #[test]
    fn operator_names_are_upright() {
        assert_eq!(rewrite(r"\Aut(G)"), r"\operatorname{Aut}(G)");
        assert_eq!(
            rewrite(r"\Rep_{\mathcal{D}}(G) \to \End V"),
            r"\operatorname{Rep}_{\mathcal{D}}(G) \to \operatorname{End} V"
        );
        assert_eq!(
            rewrite(r"\GL_n \SL_2 \Spec R \im f \id"),
            r"\operatorname{GL}_n \operatorname{SL}_2 \operatorname{Spec} R \operatorname{im} f \operatorname{id}"
        );
        assert_eq!(rewrite(r"\argmax_x"), r"\mathop\mathrm{arg\,max}_x");
        // What the converter knows itself, and longer names, are left alone.
        assert_eq!(
            rewrite(r"\ker f \Im z \Automorphism"),
            r"\ker f \Im z \Automorphism"
        );
    }

    #[test]
    fn letter_shorthands() {
        assert_eq!(
            rewrite(r"\CC^n \RR \ZZ \QQ"),
            r"\mathbb{C}^n \mathbb{R} \mathbb{Z} \mathbb{Q}"
        );
        assert_eq!(rewrite(r"\bbR \bbH"), r"\mathbb{R} \mathbb{H}");
        assert_eq!(rewrite(r"\cC \mcA"), r"\mathcal{C} \mathcal{A}");
        assert_eq!(rewrite(r"\frkh \frakg"), r"\mathfrak{h} \mathfrak{g}");
        assert_eq!(rewrite(r"\lie{sl}_2"), r"\mathfrak{sl}_2");
        // Not doubled, lower case or unknown prefixes stay.
        assert_eq!(
            rewrite(r"\CR \cc \bbr \xA \HH \AA"),
            "\\CR \\cc \\bbr \\xA \\HH \\text{\u{c5}}"
        );
    }

    #[test]
    fn wide_accent_shorthands() {
        assert_eq!(rewrite(r"\wt{V}_{\Cal T}"), r"\widetilde{V}_{\mathcal T}");
        assert_eq!(rewrite(r"\wt {\Cal D'}"), r"\widetilde {\mathcal D'}");
        assert_eq!(rewrite(r"\wh X"), r"\widehat X");
        // `\wt(b)` is a weight.
        assert_eq!(rewrite(r"\wt(b)"), r"\wt(b)");
    }

    #[test]
    fn operatorname_arguments_with_commands() {
        assert_eq!(
            rewrite(r"\operatorname{\mathsf{lex}}(A)"),
            r"\mathop\mathrm{\mathsf{lex}}(A)"
        );
        assert_eq!(
            rewrite(r"\operatorname{\widehat{HFL}}(K)"),
            r"\mathop\mathrm{\widehat{HFL}}(K)"
        );
        assert_eq!(rewrite(r"\operatorname{Rep_q}"), r"\mathop\mathrm{Rep_q}");
        assert_eq!(
            rewrite(r"\mathop{\bigoplus}_i"),
            r"\mathop\mathord{\bigoplus}_i"
        );
        assert_eq!(
            rewrite(r"\operatorname*{arg\,min}_x"),
            r"\mathop\mathrm{arg\,min}_x"
        );
        assert_eq!(
            rewrite(r"\operatornamewithlimits{ess\,sup}_x"),
            r"\mathop\mathrm{ess\,sup}_x"
        );
        assert_eq!(
            rewrite(r"\operatornamewithlimits x"),
            r"\operatornamewithlimits x"
        );
        // The table applies inside the argument.
        assert_eq!(
            rewrite(r"\operatorname{\Bbb Z}"),
            r"\mathop\mathrm{\mathbb Z}"
        );
        // Plain names are left as they are.
        assert_eq!(
            rewrite(r"\operatorname{Hom}(A,B)"),
            r"\operatorname{Hom}(A,B)"
        );
        assert_eq!(rewrite(r"\mathop{lim}"), r"\mathop{lim}");
        assert_eq!(rewrite(r"\operatorname x"), r"\operatorname x");
    }

    #[test]
    fn double_acute_as_katex_reads_it() {
        assert_eq!(rewrite(r"\H(C)"), "\\overset{\u{2dd}}(C)");
    }

    #[test]
    fn entity_names() {
        let cases = [
            ("empty", r"\emptyset"),
            ("alef", r"\aleph"),
            ("alefsym", r"\aleph"),
            ("infin", r"\infty"),
            ("plusmn", r"\pm"),
            ("sdot", r"\cdot"),
            ("sub", r"\subset"),
            ("sube", r"\subseteq"),
            ("supe", r"\supseteq"),
            ("harr", r"\leftrightarrow"),
            ("hArr", r"\Leftrightarrow"),
            ("larr", r"\leftarrow"),
            ("lArr", r"\Leftarrow"),
            ("rarr", r"\rightarrow"),
            ("rArr", r"\Rightarrow"),
            ("uarr", r"\uparrow"),
            ("darr", r"\downarrow"),
            ("image", r"\Im"),
            ("real", r"\Re"),
            ("weierp", r"\wp"),
            ("thetasym", r"\vartheta"),
            ("bull", r"\bullet"),
            ("clubs", r"\clubsuit"),
            ("hearts", r"\heartsuit"),
            ("spades", r"\spadesuit"),
            ("diamonds", r"\diamondsuit"),
            ("Colon", r"\dblcolon"),
            ("hdots", r"\ldots"),
            ("biglb", r"\bigl"),
            ("Biggrb", r"\Biggr"),
            ("llbracket", "\\mathopen{\u{27e6}}"),
            ("rrbracket", "\\mathclose{\u{27e7}}"),
            ("AA", "\\text{\u{c5}}"),
            ("i", r"\imath"),
            ("v", r"\check"),
        ];
        for (name, expected) in cases {
            assert_eq!(rewrite(&format!(r"\{name}")), expected, "{name}");
        }
    }

    #[test]
    fn angle_delimiters() {
        assert_eq!(
            rewrite(r"\left< x \right>"),
            r"\left\langle  x \right\rangle "
        );
        assert_eq!(rewrite(r"\bigl<x\bigr>"), r"\bigl\langle x\bigr\rangle ");
        assert_eq!(rewrite(r"\left( x \right)"), r"\left( x \right)");
    }

    #[test]
    fn dropped_commands() {
        assert_eq!(rewrite(r"x = 1 \label{eq:one}\nonumber"), r"x = 1 ");
        assert_eq!(rewrite(r"x \tag{1}"), r"x ");
        assert_eq!(rewrite(r"{\small x}"), r"{ x}");
        // Without an argument, only the command goes.
        assert_eq!(rewrite(r"\label x"), r" x");
    }

    #[test]
    fn unbalanced_and_deep_input_is_copied() {
        assert_eq!(rewrite(r"{\R"), r"{\mathbb{R}");
        assert_eq!(rewrite(r"\R}"), r"\mathbb{R}}");
        let deep = "{".repeat(100) + r"\R" + &"}".repeat(100);
        let out = rewrite(&deep);
        assert_eq!(out.matches('{').count(), out.matches('}').count());
    }
}
