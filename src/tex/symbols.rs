//! Text-mode commands that stand for a symbol or a reference outside math.
//!
//! arXiv abstracts often write math symbols without `$...$` (`\sim 5`, `30\deg`, `1
//! \mum`), and references as `\cite{key}`. Most math symbols are read by the math
//! converter itself (see `Converter::bare_math` in the parent module); this table holds
//! what means something else, or something more, in text.

/// The text of a symbol command whose meaning in text differs from math, or that only
/// authors' own macros define with one obvious meaning.
pub(crate) fn text_symbol(name: &str) -> Option<&'static str> {
    Some(match name {
        // In text, `\deg` is the degree sign (in math it is the operator "deg").
        "deg" | "degree" | "textdegree" => "°",
        "celsius" | "degC" => "°C",
        "textmu" | "micro" => "µ",
        // The math converter writes `\mu` as the micro sign; in text it is the Greek letter.
        "mu" => "μ",
        "ohm" | "textohm" => "Ω",
        // Common physics macros: micrometre and microsecond.
        "mum" => "µm",
        "mus" => "µs",
        "textpm" => "±",
        "texttimes" => "×",
        "etal" => "et al.",
        "textminus" => "−",
        _ => return None,
    })
}

/// The Greek letter named `name` (`beta` → β), for the names that an accent command can
/// swallow the start of: `\b{eta}` is `\beta`, `\r{ho}` is `\rho` and `\k{appa}` is
/// `\kappa` after a conversion that lost a backslash-word boundary.
pub(crate) fn greek_letter(name: &str) -> Option<char> {
    Some(match name {
        "beta" => 'β',
        "rho" => 'ρ',
        "kappa" => 'κ',
        "chi" => 'χ',
        "tau" => 'τ',
        "theta" => 'θ',
        "vartheta" => 'ϑ',
        "varepsilon" => 'ε',
        "varphi" => 'φ',
        "varrho" => 'ϱ',
        "varsigma" => 'ς',
        "varpi" => 'ϖ',
        "upsilon" => 'υ',
        "delta" => 'δ',
        "Delta" => 'Δ',
        "Theta" => 'Θ',
        _ => return None,
    })
}

/// Whether `name` is a citation command (`\cite`, `\citep`, `\parencite`, ...).
pub(crate) fn is_citation(name: &str) -> bool {
    matches!(
        name,
        "cite"
            | "Cite"
            | "citep"
            | "citet"
            | "citealp"
            | "citealt"
            | "citeauthor"
            | "citeyear"
            | "parencite"
            | "textcite"
            | "autocite"
            | "footcite"
            | "nocite"
    )
}

/// The readable form of a citation: `[key1, key2]`, with the note of `\cite[p.~3]{key}`
/// after the keys (`[key, p. 3]`); `None` for `\nocite`, which prints nothing.
pub(crate) fn citation_text(name: &str, keys: &str, note: Option<&str>) -> Option<String> {
    if name == "nocite" {
        return None;
    }
    let mut text = String::from("[");
    for (i, key) in keys
        .split(',')
        .map(str::trim)
        .filter(|key| !key.is_empty())
        .enumerate()
    {
        if i > 0 {
            text.push_str(", ");
        }
        text.push_str(key);
    }
    if let Some(note) = note.map(str::trim).filter(|note| !note.is_empty()) {
        if text.len() > 1 {
            text.push_str(", ");
        }
        text.push_str(&note.replace('~', " "));
    }
    text.push(']');
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_symbols() {
        let cases = [
            ("deg", "°"),
            ("degree", "°"),
            ("textdegree", "°"),
            ("celsius", "°C"),
            ("degC", "°C"),
            ("textmu", "µ"),
            ("mu", "μ"),
            ("micro", "µ"),
            ("ohm", "Ω"),
            ("textohm", "Ω"),
            ("mum", "µm"),
            ("mus", "µs"),
            ("textpm", "±"),
            ("texttimes", "×"),
            ("textminus", "−"),
        ];
        for (name, symbol) in cases {
            assert_eq!(text_symbol(name), Some(symbol), "{name}");
        }
        assert_eq!(text_symbol("alpha"), None);
    }

    #[test]
    fn citations() {
        assert!(is_citation("cite") && is_citation("citep") && is_citation("parencite"));
        assert!(!is_citation("citation") && !is_citation("ref"));
        assert_eq!(
            citation_text("cite", "smith", None).as_deref(),
            Some("[smith]")
        );
        assert_eq!(
            citation_text("citep", " a, b ,,c", None).as_deref(),
            Some("[a, b, c]")
        );
        assert_eq!(
            citation_text("cite", "key", Some("p.~3")).as_deref(),
            Some("[key, p. 3]")
        );
        assert_eq!(citation_text("cite", "", None).as_deref(), Some("[]"));
        assert_eq!(citation_text("nocite", "key", None), None);
    }
}
