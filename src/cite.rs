//! Citation exports for paper pages: BibTeX, RIS and CSL-JSON, and site-wide citation keys.
//!
//! Every paper page offers the same citation in three formats. They all start from one
//! [`CitationInput`], whose strings are as read from the record files, and none of the
//! functions here panics, whatever those strings hold.
//!
//! Record files list only the authors who have a profile on the site, so a paper's author
//! list is always possibly incomplete. BibTeX can say so (`and others`, printed "et al.");
//! RIS and CSL-JSON have no such marker, so they list the known authors only.
//!
//! # Format choices
//!
//! * **BibTeX**: `@misc`, the entry type of arXiv's own BibTeX export, with
//!   `archivePrefix`/`primaryClass` (read by biblatex and the arXiv-aware styles) for arXiv
//!   and `howpublished` for other sources. The title keeps its TeX when that TeX is safe
//!   (balanced braces and math, no stray `%`, `&`, `#`, which are escaped), else the plain
//!   text title is escaped instead; it is wrapped in `{{…}}` so styles keep its
//!   capitalization. Every other field is escaped so that any text survives:
//!   `& % $ # _` become `\&` and so on, `\ ~ ^` become `\textbackslash{}`,
//!   `\textasciitilde{}`, `\textasciicircum{}`, and `--` becomes `-{}-` (no en dash
//!   ligature). Braces that pair up become `\{`…`\}`; a brace without a partner becomes
//!   `\textbraceleft{}`/`\textbraceright{}`, because BibTeX counts every brace in a
//!   value, escaped or not: a lone `\{` swallows the rest of the entry. The `url` field is
//!   verbatim in biblatex, so it is not backslash-escaped: characters that are not allowed
//!   in a URL anyway (space, `{ } \ " < > ^ |`, backquote, non-ASCII) are percent-encoded
//!   instead, which keeps the URL's meaning.
//! * **RIS**: `TY  - GEN`. Zotero's RIS importer has no preprint type: `GEN` imports as a
//!   journal article, `ELEC` as a web page (cited as a web page, without the source),
//!   `UNPB` is not mapped at all (so it also falls back to journal article) and
//!   `INPR`/`MANSCPT` become an "unpublished manuscript". With `GEN` the source goes to
//!   `T2` (Zotero: Publication, "arXiv"; EndNote: Secondary Title) and `DB` (Zotero:
//!   Archive; EndNote: Name of Database), so Zotero makes a journal article published in
//!   "arXiv", the shape Google Scholar's exports give arXiv papers too. `PB` is left out
//!   because a Zotero journal article has no publisher field: the importer would attach it
//!   as a stray note.
//! * **CSL-JSON**: `"type": "article"` with `"genre": "preprint"`. CSL 1.0.2 defines
//!   `article` as a preprint, working paper or similar; it is what Zotero's Preprint item
//!   type maps to, with its Repository (here the source, e.g. "arXiv") as `publisher`
//!   (`archive` is for archives holding physical material) and its genre as `genre`,
//!   which APA prints as `[Preprint]`. Subjects go to `keyword`, comma-separated.
//!
//! A year of 0 is taken as unknown and left out of every format.

use std::borrow::Cow;
use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::tex::letters::{letter_command, symbol_accent};
use crate::tex::lex::{dollar_in_lenient_name, MathDelimiter, Spanned, Token, Tokens};

/// What a citation needs to know about one paper. Strings are as in the record files.
#[derive(Debug, Clone, Hash)]
pub struct CitationInput<'a> {
    /// Citation key, as made by [`citation_keys`]. Characters other than ASCII letters,
    /// digits and `- _ : . / +` are dropped from it in the outputs.
    pub key: &'a str,
    /// Raw title, may contain TeX (`\textbf{V}ariational`, `$P_Z$`).
    pub title: &'a str,
    /// The same title as clean plain text (TeX already converted).
    pub title_text: &'a str,
    /// Display names of the site's authors, in order ("Zhongbo Zhu", "Łukasz Nowak").
    pub authors: Vec<&'a str>,
    /// Year of the record; 0 means unknown.
    pub year: u16,
    /// Source token, e.g. "arXiv" or "bioRxiv".
    pub source: &'a str,
    /// arXiv category codes, primary first.
    pub subjects: &'a [String],
    /// Abstract as clean plain text.
    pub abstract_text: Option<&'a str>,
    /// Absolute URL of the paper's page on the site, when known.
    pub url: Option<String>,
    /// BCP 47 language tag, e.g. "en".
    pub language: &'a str,
}

/// One BibTeX `@misc` entry for the paper, ending with `"\n"`.
///
/// Fields, in order and each only when known: `title`, `author` (always ending with
/// `and others`), `year`, `archivePrefix` and `primaryClass` (arXiv) or `howpublished`
/// (other sources), `keywords`, `abstract`, `url`, `language`. See the module
/// documentation for the escaping rules; every value has balanced braces.
pub fn bibtex_entry(c: &CitationInput) -> String {
    let mut fields: Vec<(&str, String)> = Vec::new();

    let title = bib_title(c.title, c.title_text);
    if !title.is_empty() {
        fields.push(("title", title));
    }

    let names: Vec<Name> = c.authors.iter().filter_map(|a| parse_name(a)).collect();
    if !names.is_empty() {
        let mut list: Vec<String> = names.iter().map(bib_name).collect();
        list.push("others".to_string());
        fields.push(("author", list.join(" and ")));
    }

    if c.year != 0 {
        fields.push(("year", c.year.to_string()));
    }

    let subjects = clean_list(c.subjects);
    let source = clean_text(c.source);
    if is_arxiv(&source) {
        fields.push(("archivePrefix", "arXiv".to_string()));
        if let Some(primary) = subjects.first() {
            fields.push(("primaryClass", bib_escape(primary)));
        }
    } else if !source.is_empty() {
        fields.push(("howpublished", bib_escape(&source)));
    }

    if !subjects.is_empty() {
        fields.push(("keywords", bib_escape(&subjects.join(", "))));
    }
    if let Some(abstract_text) = c.abstract_text {
        let value = bib_escape(abstract_text);
        if !value.is_empty() {
            fields.push(("abstract", value));
        }
    }
    if let Some(url) = &c.url {
        let value = clean_url(url);
        if !value.is_empty() {
            fields.push(("url", value));
        }
    }
    let language = bib_escape(c.language);
    if !language.is_empty() {
        fields.push(("language", language));
    }

    let mut out = format!("@misc{{{},\n", safe_key(c.key));
    let last = fields.len().saturating_sub(1);
    for (i, (name, value)) in fields.iter().enumerate() {
        out.push_str("  ");
        out.push_str(name);
        out.push_str(" = {");
        out.push_str(value);
        out.push('}');
        if i != last {
            out.push(',');
        }
        out.push('\n');
    }
    out.push_str("}\n");
    out
}

/// One RIS record for the paper: `TY  - GEN` first, `ER  - ` last, `"\n"` line ends.
///
/// Tags, each only when known: `TI`, one `AU` per author (`Family, Given` or
/// `Family, Given, Suffix`), `PY`, `AB`, one `KW` per subject, `UR`, `T2` and `DB` for the
/// source, `LA`. Whitespace runs in values (newlines included) become one space and
/// control characters are dropped, so every value stays on its line.
pub fn ris_entry(c: &CitationInput) -> String {
    let mut out = String::new();
    ris_line(&mut out, "TY", "GEN");
    ris_line(&mut out, "TI", &plain_title(c));
    for name in c.authors.iter().filter_map(|a| parse_name(a)) {
        ris_line(&mut out, "AU", &ris_name(&name));
    }
    if c.year != 0 {
        ris_line(&mut out, "PY", &c.year.to_string());
    }
    if let Some(abstract_text) = c.abstract_text {
        ris_line(&mut out, "AB", abstract_text);
    }
    for subject in clean_list(c.subjects) {
        ris_line(&mut out, "KW", &subject);
    }
    if let Some(url) = &c.url {
        ris_line(&mut out, "UR", &clean_url(url));
    }
    let source = clean_text(c.source);
    ris_line(&mut out, "T2", &source);
    ris_line(&mut out, "DB", &source);
    ris_line(&mut out, "LA", &clean_text(c.language));
    out.push_str("ER  - \n");
    out
}

/// One CSL-JSON item for the paper.
///
/// `id` (the key), `type` `"article"`, `genre` `"preprint"`, and when known `title` (the
/// plain-text title), `author` (`family`/`given`/`suffix` objects; a one-word name has
/// `family` only), `issued` (`{"date-parts": [[year]]}`), `abstract`, `URL`, `keyword`
/// (subjects, comma-separated), `publisher` (the source) and `language`.
pub fn csl_item(c: &CitationInput) -> Value {
    let mut m = Map::new();
    m.insert("id".into(), Value::from(safe_key(c.key)));
    m.insert("type".into(), Value::from("article"));
    m.insert("genre".into(), Value::from("preprint"));

    let title = plain_title(c);
    if !title.is_empty() {
        m.insert("title".into(), Value::from(title));
    }

    let authors: Vec<Value> = c
        .authors
        .iter()
        .filter_map(|a| parse_name(a))
        .map(|n| {
            let mut person = Map::new();
            person.insert("family".into(), Value::from(n.family));
            if !n.given.is_empty() {
                person.insert("given".into(), Value::from(n.given));
            }
            if !n.suffix.is_empty() {
                person.insert("suffix".into(), Value::from(n.suffix));
            }
            Value::Object(person)
        })
        .collect();
    if !authors.is_empty() {
        m.insert("author".into(), Value::Array(authors));
    }

    if c.year != 0 {
        let mut issued = Map::new();
        issued.insert(
            "date-parts".into(),
            Value::Array(vec![Value::Array(vec![Value::from(c.year)])]),
        );
        m.insert("issued".into(), Value::Object(issued));
    }

    let optional = [
        ("abstract", c.abstract_text.map(clean_text)),
        (
            "URL",
            c.url.as_deref().map(|url| Cow::Owned(clean_url(url))),
        ),
        (
            "keyword",
            Some(Cow::Owned(clean_list(c.subjects).join(", "))),
        ),
        ("publisher", Some(clean_text(c.source))),
        ("language", Some(clean_text(c.language))),
    ];
    for (name, value) in optional {
        if let Some(value) = value.filter(|v| !v.is_empty()) {
            m.insert(name.into(), Value::from(value));
        }
    }
    Value::Object(m)
}

/// A `.bib` file: the entries of [`bibtex_entry`] separated by a blank line.
pub fn bibtex_file(entries: &[CitationInput]) -> String {
    entries
        .iter()
        .map(bibtex_entry)
        .collect::<Vec<_>>()
        .join("\n")
}

/// A `.ris` file: the records of [`ris_entry`] separated by a blank line.
pub fn ris_file(entries: &[CitationInput]) -> String {
    entries.iter().map(ris_entry).collect::<Vec<_>>().join("\n")
}

/// A CSL-JSON file: a pretty-printed array of [`csl_item`]s followed by `"\n"`.
pub fn csl_file(entries: &[CitationInput]) -> String {
    let items = Value::Array(entries.iter().map(csl_item).collect());
    let mut out = serde_json::to_string_pretty(&items).unwrap_or_else(|_| "[]".to_string());
    out.push('\n');
    out
}

/// Citation keys for a whole site, one per input paper, in input order.
///
/// A key is `familyname + year + first significant title word`, ASCII lowercase
/// (transliterated with `deunicode`, e.g. "Łukasz Nowak" -> "nowak"):
/// ("Zhongbo Zhu", 2026, "Scalable Training of …") -> "zhu2026scalable".
///
/// * The family name is the last word of the display name, or the part before the first
///   comma when it has one ("Nowak, Łukasz"); a paper without a usable first author gets
///   "anon". A year of 0 is left out.
/// * The title word is the first word that is not a stop word (a, an, the, on, of, for,
///   towards, …) nor all digits, after TeX commands, braces and `$` are removed. Words
///   split at hyphens and other punctuation ("Mixture-of-Experts" -> "mixture"), except
///   that a one-letter or stop-word start keeps the whole word ("X-ray" -> "xray",
///   "On-Device" -> "ondevice"). A title with no usable word gives just family + year.
/// * Papers sharing a base key are ordered by `tiebreak` (a stable id per paper); the
///   first keeps the base, the next get "a", "b", … "z", "aa", … A suffixed key never
///   takes another paper's base key or an earlier suffixed key, so keys are unique and
///   depend only on the set of papers, not on input order.
///
/// Input per paper: (first author's display name or None, year, title, tiebreak).
pub fn citation_keys(papers: &[(Option<&str>, u16, &str, &str)]) -> Vec<String> {
    use rayon::prelude::*;
    let bases: Vec<String> = papers
        .par_iter()
        .map(|&(name, year, title, _)| citation_base_key(name, year, title))
        .collect();
    citation_keys_of_bases(papers, bases)
}

/// [`citation_keys`], with each paper's base key (the key before any suffix, which
/// [`citation_base_key`] makes) given in `bases`.
///
/// A paper's key depends only on the papers whose bases [`may_share_keys`] with its
/// own, so the keys of a set of papers closed under that relation are the same whatever
/// other papers are keyed with them: a long-running process keys again only the papers
/// a change can touch.
pub fn citation_keys_of_bases(
    papers: &[(Option<&str>, u16, &str, &str)],
    bases: Vec<String>,
) -> Vec<String> {
    crate::slug::unique_names(bases, |base, sharing, taken| {
        // Sort by everything the paper is, so that the order of the input never matters;
        // the index only separates papers that are identical in every respect.
        let mut members = sharing.to_vec();
        members.sort_by(|&a, &b| {
            let (na, ya, ta, ka) = papers[a];
            let (nb, yb, tb, kb) = papers[b];
            (ka, ta, ya, na, a).cmp(&(kb, tb, yb, nb, b))
        });
        let mut keys = vec![(members[0], base.to_string())];
        let mut next_suffix = 0;
        for &paper in &members[1..] {
            // The suffixes go on without end, so a free one is always found.
            let key = loop {
                let candidate = format!("{base}{}", alpha_suffix(next_suffix));
                next_suffix += 1;
                if taken.take(&candidate) {
                    break candidate;
                }
            };
            keys.push((paper, key));
        }
        keys
    })
}

// ---------------------------------------------------------------------------------------
// Names

/// A display name split into family, given and suffix parts (all clean text).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Name {
    family: String,
    given: String,
    suffix: String,
}

const NAME_SUFFIXES: &[&str] = &["jr", "jr.", "sr", "sr.", "ii", "iii", "iv"];

/// Splits a display name. With a comma it is "Family, Given" (or BibTeX's
/// "Family, Suffix, Given"); without, the family name is the last word ("Martin Luther
/// King Jr." keeps "Jr." as suffix) and a one-word name is a family name alone.
fn parse_name(display: &str) -> Option<Name> {
    let text = clean_text(display);
    if text.is_empty() {
        return None;
    }
    let empty = String::new;
    if text.contains(',') {
        let parts: Vec<&str> = text
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect();
        return match parts.as_slice() {
            [] => None,
            [family] => Some(Name {
                family: family.to_string(),
                given: empty(),
                suffix: empty(),
            }),
            [family, given] => Some(Name {
                family: family.to_string(),
                given: given.to_string(),
                suffix: empty(),
            }),
            [family, suffix, rest @ ..] => Some(Name {
                family: family.to_string(),
                given: rest.join(" "),
                suffix: suffix.to_string(),
            }),
        };
    }
    let words: Vec<&str> = text.split(' ').collect();
    match words.as_slice() {
        [] => None,
        [only] => Some(Name {
            family: only.to_string(),
            given: empty(),
            suffix: empty(),
        }),
        [given @ .., family, suffix]
            if !given.is_empty() && NAME_SUFFIXES.contains(&suffix.to_lowercase().as_str()) =>
        {
            Some(Name {
                family: family.to_string(),
                given: given.join(" "),
                suffix: suffix.to_string(),
            })
        }
        [given @ .., family] => Some(Name {
            family: family.to_string(),
            given: given.join(" "),
            suffix: empty(),
        }),
    }
}

/// `Family, Given` (or `Family, Suffix, Given`) for a BibTeX name list.
fn bib_name(n: &Name) -> String {
    let mut out = bib_name_part(&n.family);
    if !n.suffix.is_empty() {
        out.push_str(", ");
        out.push_str(&bib_name_part(&n.suffix));
    }
    if !n.given.is_empty() || !n.suffix.is_empty() {
        out.push_str(", ");
        out.push_str(&bib_name_part(&n.given));
    }
    out
}

/// One escaped name part, braced when BibTeX would otherwise split it: a word "and"
/// separates names, and a lone "others" means "et al.".
fn bib_name_part(part: &str) -> String {
    let escaped = bib_escape(part);
    let needs_braces = part.eq_ignore_ascii_case("others")
        || part.contains(',')
        || part.split(' ').any(|w| w.eq_ignore_ascii_case("and"));
    if needs_braces {
        format!("{{{escaped}}}")
    } else {
        escaped
    }
}

/// `Family, Given` (or `Family, Given, Suffix`, RIS's order) for an `AU` line.
fn ris_name(n: &Name) -> String {
    let mut out = n.family.clone();
    if !n.given.is_empty() || !n.suffix.is_empty() {
        out.push_str(", ");
        out.push_str(&n.given);
    }
    if !n.suffix.is_empty() {
        out.push_str(", ");
        out.push_str(&n.suffix);
    }
    out
}

// ---------------------------------------------------------------------------------------
// Text

/// One line of text: whitespace runs (newlines included) become one space, control and
/// zero-width formatting characters are dropped, ends are trimmed.
fn clean_text(s: &str) -> Cow<'_, str> {
    if is_clean(s) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut pending_space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            pending_space = true;
            continue;
        }
        if c.is_control() || c == '\u{feff}' {
            continue;
        }
        if pending_space && !out.is_empty() {
            out.push(' ');
        }
        pending_space = false;
        out.push(c);
    }
    Cow::Owned(out)
}

/// Whether `s` is already what [`clean_text`] would make of it: no control or format
/// characters, no whitespace but single inner ASCII spaces (the common case; checked
/// without allocating).
fn is_clean(s: &str) -> bool {
    let bytes = s.as_bytes();
    if bytes.first() == Some(&b' ') || bytes.last() == Some(&b' ') {
        return false;
    }
    // The common case, printable ASCII, checked with two fast scans (the first in
    // chunks the compiler can check many bytes at a time).
    let printable_ascii = bytes.chunks(32).all(|chunk| {
        chunk
            .iter()
            .fold(true, |ok, &b| ok & (b' '..=b'~').contains(&b))
    });
    if printable_ascii {
        return !s.contains("  ");
    }
    let mut previous_space = false;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b' ' {
            if previous_space {
                return false;
            }
            previous_space = true;
            i += 1;
        } else if b.is_ascii_graphic() {
            previous_space = false;
            i += 1;
        } else if b.is_ascii() {
            return false;
        } else {
            // A non-ASCII character: decoded only here (text is mostly ASCII).
            let Some(c) = s[i..].chars().next() else {
                return false;
            };
            if c.is_whitespace() || c.is_control() || c == '\u{feff}' {
                return false;
            }
            previous_space = false;
            i += c.len_utf8();
        }
    }
    true
}

/// Clean, non-empty, de-duplicated items, in order.
fn clean_list(items: &[String]) -> Vec<String> {
    let mut seen = HashSet::new();
    items
        .iter()
        .map(|s| clean_text(s).into_owned())
        .filter(|s| !s.is_empty() && seen.insert(s.clone()))
        .collect()
}

fn is_arxiv(source: &str) -> bool {
    source.eq_ignore_ascii_case("arxiv")
}

/// The plain-text title, falling back to the raw title when there is none.
fn plain_title(c: &CitationInput) -> String {
    let text = clean_text(c.title_text);
    if text.is_empty() {
        clean_text(c.title).into_owned()
    } else {
        text.into_owned()
    }
}

/// Key characters safe in BibTeX (and anywhere else); never empty.
fn safe_key(key: &str) -> String {
    let key: String = key
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.' | '/' | '+'))
        .collect();
    if key.is_empty() {
        "paper".to_string()
    } else {
        key
    }
}

/// The URL on one line, with characters that a URL may not contain percent-encoded
/// (space, `" < > \ ^ { | }`, backquote, controls: [`crate::url::NOT_IN_URL`]; and
/// non-ASCII, as UTF-8), with uppercase hex digits; `%` stays as it is. Safe verbatim in
/// BibTeX.
fn clean_url(url: &str) -> String {
    let url = clean_text(url);
    percent_encoding::utf8_percent_encode(&url, crate::url::NOT_IN_URL).to_string()
}

fn ris_line(out: &mut String, tag: &str, value: &str) {
    let value = clean_text(value);
    if value.is_empty() {
        return;
    }
    out.push_str(tag);
    out.push_str("  - ");
    out.push_str(&value);
    out.push('\n');
}

// ---------------------------------------------------------------------------------------
// BibTeX escaping

/// Escapes plain text for a BibTeX field so that it reads back as the same text.
fn bib_escape(text: &str) -> String {
    let cleaned = clean_text(text);
    if !cleaned.bytes().any(|b| {
        matches!(
            b,
            b'\\' | b'{' | b'}' | b'&' | b'%' | b'$' | b'#' | b'_' | b'~' | b'^' | b'-'
        )
    }) {
        return cleaned.into_owned();
    }
    // Every character escaped here is ASCII, so the text is walked byte by byte, and the
    // runs between escapes (UTF-8 sequences included) are copied as they are.
    let bytes = cleaned.as_bytes();
    let paired = paired_braces(bytes);
    let mut out = String::with_capacity(bytes.len() + 16);
    let mut copied = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let is_paired = paired.as_ref().is_some_and(|p| p[i]);
        let escape = match b {
            b'\\' => "\\textbackslash{}",
            b'{' if is_paired => "\\{",
            b'}' if is_paired => "\\}",
            b'{' => "\\textbraceleft{}",
            b'}' => "\\textbraceright{}",
            b'&' => "\\&",
            b'%' => "\\%",
            b'$' => "\\$",
            b'#' => "\\#",
            b'_' => "\\_",
            b'~' => "\\textasciitilde{}",
            b'^' => "\\textasciicircum{}",
            // `--` and `---` would print as dashes: keep each hyphen apart.
            b'-' if bytes.get(i + 1) == Some(&b'-') => "-{}",
            _ => continue,
        };
        out.push_str(&cleaned[copied..i]);
        out.push_str(escape);
        copied = i + 1;
    }
    out.push_str(&cleaned[copied..]);
    out
}

/// For each byte, whether it is a brace with a partner (`{` before its `}`); None when
/// there is no brace at all.
fn paired_braces(bytes: &[u8]) -> Option<Vec<bool>> {
    if !bytes.iter().any(|&b| b == b'{' || b == b'}') {
        return None;
    }
    let mut paired = vec![false; bytes.len()];
    let mut open: Vec<usize> = Vec::new();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'{' => open.push(i),
            b'}' => {
                if let Some(j) = open.pop() {
                    paired[i] = true;
                    paired[j] = true;
                }
            }
            _ => {}
        }
    }
    Some(paired)
}

/// The BibTeX title value without its outer braces: `{` + TeX + `}` when the raw title is
/// safe TeX, else `{` + escaped plain text + `}`; empty when there is no title at all.
fn bib_title(raw: &str, text: &str) -> String {
    let body = match tex_title(raw) {
        Some(tex) => tex,
        None => {
            let escaped = bib_escape(text);
            if escaped.is_empty() {
                bib_escape(raw)
            } else {
                escaped
            }
        }
    };
    if body.is_empty() {
        String::new()
    } else {
        format!("{{{body}}}")
    }
}

/// The raw title as TeX for BibTeX, or None when it cannot be kept safely: braces that
/// do not balance (counted both as BibTeX does, every brace, and as TeX does, escaped ones
/// not), unclosed or misnested math (`$…$`, `$$…$$`, `\(…\)`, `\[…\]`), a trailing
/// backslash, a backslash before a digit, space-like or non-ASCII character, an accent
/// (`\'`, `\"`, …) before anything but a letter, digit, group or command, `\$` inside `$`
/// math, or a `$` run into a command name (`\LaTeX$x$`): TeX a reader could take two ways.
/// Unescaped `% & #` are escaped (they are never meant as TeX in a title), and so are
/// `_ ^` outside math.
fn tex_title(raw: &str) -> Option<String> {
    let raw = clean_text(raw);
    if raw.is_empty() || !bibtex_braces_balance(&raw) {
        return None;
    }
    // Math mode: the delimiter that closes it and the brace depth at which it opened.
    let mut math: Option<(MathDelimiter, i64)> = None;
    let mut out = String::with_capacity(raw.len() + 8);
    let mut depth = 0i64;
    for Spanned { token, end, .. } in Tokens::new(&raw) {
        // Inside `$` math, readers take everything up to the closing `$` as is.
        let in_dollar_math = matches!(
            math,
            Some((MathDelimiter::Dollar | MathDelimiter::DoubleDollar, _))
        );
        if let Some(delimiter) = token.math_delimiter() {
            math = match math {
                None => Some((delimiter.closer()?, depth)),
                Some((closer, at)) if closer == delimiter && at == depth => None,
                Some(_) => return None,
            };
        }
        if !in_dollar_math && dollar_in_lenient_name(token, &raw[end..]) {
            return None;
        }
        match token {
            Token::Text(run) => push_title_text(&mut out, run, math.is_none()),
            Token::BeginGroup => {
                depth += 1;
                out.push('{');
            }
            Token::EndGroup => {
                depth -= 1;
                if depth < 0 {
                    return None;
                }
                out.push('}');
            }
            Token::Dollar => out.push('$'),
            Token::DoubleDollar => out.push_str("$$"),
            Token::ControlWord(name) => {
                out.push('\\');
                out.push_str(name);
            }
            Token::ControlSymbol(symbol) => {
                if !title_symbol_is_safe(symbol, math.is_some(), &raw[end..]) {
                    return None;
                }
                out.push('\\');
                out.push(symbol);
            }
            Token::LoneBackslash => return None,
        }
    }
    if depth != 0 || math.is_some() {
        return None;
    }
    Some(out)
}

/// Whether every brace of `text` has a partner, counted as BibTeX counts them: every `{` and
/// `}`, escaped or not.
fn bibtex_braces_balance(text: &str) -> bool {
    let mut depth = 0i64;
    for b in text.bytes() {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

/// Whether the control symbol `\` + `symbol`, followed by `rest`, can stay in a BibTeX
/// title: not before a digit, space-like or non-ASCII character, not `\$` in math (math
/// ends at the next `$` for some readers, escaped or not), and an accent only before a
/// letter, digit, group or command (anything else reads differently in each tool).
fn title_symbol_is_safe(symbol: char, in_math: bool, rest: &str) -> bool {
    if !symbol.is_ascii_graphic() || symbol.is_ascii_digit() || (symbol == '$' && in_math) {
        return false;
    }
    if symbol_accent(symbol).is_none() {
        return true;
    }
    match Tokens::new(rest).next().map(|spanned| spanned.token) {
        Some(Token::BeginGroup | Token::ControlWord(_)) => true,
        Some(Token::Text(run)) => run.starts_with(char::is_alphanumeric),
        _ => false,
    }
}

/// Appends the title text run `run` to `out`, with `% & #` escaped, and `_ ^` too when
/// outside math.
fn push_title_text(out: &mut String, run: &str, outside_math: bool) {
    for c in run.chars() {
        match c {
            '%' | '&' | '#' => out.push('\\'),
            '_' if outside_math => out.push('\\'),
            '^' if outside_math => {
                out.push_str("\\textasciicircum{}");
                continue;
            }
            _ => {}
        }
        out.push(c);
    }
}

// ---------------------------------------------------------------------------------------
// Keys

/// Words skipped when picking a key's title word: English articles, prepositions and
/// conjunctions, and the commonest ones of a few other languages.
const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "across", "after", "against", "al", "along", "am", "amid", "among",
    "an", "and", "are", "as", "at", "be", "before", "behind", "below", "beneath", "beside",
    "between", "beyond", "but", "by", "d", "da", "das", "de", "dei", "del", "della", "dem", "den",
    "der", "des", "di", "die", "do", "du", "during", "ein", "eine", "einer", "el", "en", "et",
    "for", "from", "il", "in", "inside", "into", "is", "it", "its", "l", "la", "las", "le", "les",
    "lo", "los", "near", "nor", "of", "off", "on", "onto", "or", "over", "per", "so", "than",
    "the", "through", "to", "toward", "towards", "un", "una", "und", "une", "under", "until", "up",
    "upon", "versus", "via", "vs", "with", "within", "without", "yet", "zu", "zum", "zur",
];

fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.contains(&word)
}

/// A paper's citation key before any suffix: family name, year and first significant
/// title word (see [`citation_keys`]).
pub fn citation_base_key(name: Option<&str>, year: u16, title: &str) -> String {
    let mut key = family_key(name);
    if year != 0 {
        key.push_str(&year.to_string());
    }
    key.push_str(&title_word(title));
    key
}

/// The first author's family name as ASCII lowercase letters and digits, or "anon".
fn family_key(name: Option<&str>) -> String {
    let family = name
        .and_then(parse_name)
        .map(|n| n.family)
        .unwrap_or_default();
    let letters: String = family.chars().filter(|c| c.is_alphanumeric()).collect();
    let key: String = deunicode::deunicode(&letters)
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    if key.is_empty() {
        "anon".to_string()
    } else {
        key
    }
}

/// The first significant title word as ASCII lowercase, or "" when there is none.
fn title_word(title: &str) -> String {
    // Symbols and emoji would transliterate to words (":slight_smile:"): make them spaces.
    let text: String = strip_tex(title)
        .chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' => '\'',
            c if c.is_ascii() || c.is_alphanumeric() || is_combining_mark(c) => c,
            _ => ' ',
        })
        .collect();
    let plain = deunicode::deunicode(&text).to_ascii_lowercase();
    for token in plain.split_whitespace() {
        let token: String = token.chars().filter(|&c| c != '\'').collect();
        let segments: Vec<&str> = token
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|s| !s.is_empty())
            .collect();
        let Some(first) = segments.first() else {
            continue;
        };
        let mut word = first.to_string();
        if segments.len() > 1 && (word.len() == 1 || is_stop_word(&word)) {
            word = segments.concat();
        }
        if is_stop_word(&word) || word.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        return word;
    }
    String::new()
}

/// Combining diacritical marks (a decomposed "é" is "e" + U+0301).
fn is_combining_mark(c: char) -> bool {
    matches!(c, '\u{0300}'..='\u{036f}' | '\u{1ab0}'..='\u{1aff}' | '\u{1dc0}'..='\u{1dff}' | '\u{20d0}'..='\u{20ff}' | '\u{fe20}'..='\u{fe2f}')
}

/// Drops TeX markup for key purposes. Braces and `$` go, and so do accents (`\'e`, `\v{r}`
/// and any other one-letter command word), so that the accented letter stays part of its
/// word. The letters of plain TeX's fonts written as commands (`\ss`, `\o`, `\aa`) are kept
/// as the letters of their names; any other command (`\&`, `\LaTeX{}Tools`, and the letters
/// only the T1 encoding has, such as `\th`) ends a word.
fn strip_tex(title: &str) -> String {
    let mut out = String::with_capacity(title.len());
    for Spanned { token, .. } in Tokens::new(title) {
        match token {
            Token::Text(run) => out.push_str(run),
            Token::ControlWord(name)
                if letter_command(name).is_some_and(|letter| letter.in_ot1) =>
            {
                out.push_str(name);
            }
            // Other one-letter commands are accents (\v{r}): part of the word.
            Token::ControlWord(name) if name.len() == 1 => {}
            Token::ControlSymbol(symbol) if symbol_accent(symbol).is_some() => {}
            Token::ControlWord(_) | Token::ControlSymbol(_) => out.push(' '),
            Token::LoneBackslash
            | Token::BeginGroup
            | Token::EndGroup
            | Token::Dollar
            | Token::DoubleDollar => {}
        }
    }
    out
}

/// Whether `base` is `root` or `root` followed by lowercase ASCII letters: the only
/// way two papers' keys can meet ([`citation_keys`]). A key is a base, or a base with a
/// suffix of such letters, so a key made from one base can be
/// another base, or a key made from it, only when one base is the other with letters
/// after it.
pub fn may_share_keys(base: &str, root: &str) -> bool {
    (base.strip_prefix(root)).is_some_and(|rest| rest.bytes().all(|b| b.is_ascii_lowercase()))
}

/// 0 -> "a", 25 -> "z", 26 -> "aa", 27 -> "ab", …
fn alpha_suffix(mut n: usize) -> String {
    let mut letters = Vec::new();
    loop {
        letters.push(char::from(b'a' + (n % 26) as u8));
        if n < 26 {
            break;
        }
        n = n / 26 - 1;
    }
    letters.iter().rev().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use biblatex::{Bibliography, ChunksExt, EntryType, Person};
    use std::collections::BTreeMap;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    /// Owned data behind a `CitationInput`, so tests can build and tweak inputs freely.
    #[derive(Clone)]
    struct Paper {
        key: String,
        title: String,
        title_text: String,
        authors: Vec<String>,
        year: u16,
        source: String,
        subjects: Vec<String>,
        abstract_text: Option<String>,
        url: Option<String>,
        language: String,
    }

    impl Paper {
        fn input(&self) -> CitationInput<'_> {
            CitationInput {
                key: &self.key,
                title: &self.title,
                title_text: &self.title_text,
                authors: self.authors.iter().map(String::as_str).collect(),
                year: self.year,
                source: &self.source,
                subjects: &self.subjects,
                abstract_text: self.abstract_text.as_deref(),
                url: self.url.clone(),
                language: &self.language,
            }
        }
    }

    const SAMPLE_TITLE: &str = "Scalable Training of Mixture-of-Experts Models with Megatron Core";

    fn sample() -> Paper {
        Paper {
            key: "zhu2026scalable".into(),
            title: SAMPLE_TITLE.into(),
            title_text: SAMPLE_TITLE.into(),
            authors: strings(&["Zhongbo Zhu", "Shunkang Zhang"]),
            year: 2026,
            source: "arXiv".into(),
            subjects: strings(&["cs.DC"]),
            abstract_text: Some(
                "Scaling Mixture-of-Experts (MoE) training introduces systems challenges.".into(),
            ),
            url: Some("https://example.org/papers/scalable-training-of-moe/".into()),
            language: "en".into(),
        }
    }

    /// Parses one BibTeX entry with the `biblatex` crate, failing the test on any error.
    fn parse_bib(bib: &str) -> biblatex::Entry {
        let parsed = Bibliography::parse(bib)
            .unwrap_or_else(|e| panic!("BibTeX does not parse ({e}):\n{bib}"));
        assert_eq!(parsed.len(), 1, "expected one entry in:\n{bib}");
        parsed.iter().next().unwrap().clone()
    }

    fn field(entry: &biblatex::Entry, name: &str) -> Option<String> {
        entry.get(name).map(|chunks| chunks.format_verbatim())
    }

    /// Splits one RIS record into (tag, value) pairs, checking the line syntax.
    fn parse_ris(ris: &str) -> Vec<(String, String)> {
        assert!(
            ris.ends_with("ER  - \n"),
            "record must end with ER: {ris:?}"
        );
        assert!(!ris.contains('\r'));
        let body = ris.strip_suffix('\n').unwrap();
        body.split('\n')
            .map(|line| {
                let (tag, value) = line
                    .split_once("  - ")
                    .unwrap_or_else(|| panic!("bad RIS line {line:?}"));
                assert_eq!(tag.len(), 2, "bad tag in {line:?}");
                assert!(tag
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()));
                (tag.to_string(), value.to_string())
            })
            .collect()
    }

    fn ris_values(pairs: &[(String, String)], tag: &str) -> Vec<String> {
        pairs
            .iter()
            .filter(|(t, _)| t == tag)
            .map(|(_, v)| v.clone())
            .collect()
    }

    fn person(family: &str, given: &str) -> (String, String) {
        (family.to_string(), given.to_string())
    }

    fn people(entry: &biblatex::Entry) -> Vec<(String, String)> {
        let persons: Vec<Person> = entry.author().expect("author field");
        persons
            .into_iter()
            .map(|p| {
                let family = if p.prefix.is_empty() {
                    p.name
                } else {
                    format!("{} {}", p.prefix, p.name)
                };
                (family, p.given_name)
            })
            .collect()
    }

    // --- BibTeX ---------------------------------------------------------------------

    #[test]
    fn bibtex_sample_parses_with_all_fields() {
        let paper = sample();
        let bib = bibtex_entry(&paper.input());
        assert!(bib.starts_with("@misc{zhu2026scalable,\n"));
        assert!(bib.ends_with("}\n"));
        assert!(bib.contains(&format!("  title = {{{{{SAMPLE_TITLE}}}}},\n")));
        assert!(bib.contains("  author = {Zhu, Zhongbo and Zhang, Shunkang and others},\n"));

        let entry = parse_bib(&bib);
        assert_eq!(entry.key, "zhu2026scalable");
        assert_eq!(entry.entry_type, EntryType::Misc);
        assert_eq!(field(&entry, "title").unwrap(), SAMPLE_TITLE);
        assert_eq!(
            people(&entry),
            vec![
                person("Zhu", "Zhongbo"),
                person("Zhang", "Shunkang"),
                person("others", "")
            ]
        );
        assert_eq!(field(&entry, "year").unwrap(), "2026");
        assert_eq!(field(&entry, "archiveprefix").unwrap(), "arXiv");
        assert_eq!(field(&entry, "primaryclass").unwrap(), "cs.DC");
        assert_eq!(field(&entry, "keywords").unwrap(), "cs.DC");
        assert_eq!(
            field(&entry, "abstract").unwrap(),
            paper.abstract_text.as_deref().unwrap()
        );
        assert_eq!(field(&entry, "url").unwrap(), paper.url.unwrap());
        assert_eq!(field(&entry, "language").unwrap(), "en");
        assert!(entry.get("howpublished").is_none());
    }

    #[test]
    fn bibtex_other_source_uses_howpublished() {
        let mut paper = sample();
        paper.source = "bioRxiv".into();
        paper.subjects = strings(&["q-bio.NC", "cs.LG"]);
        let entry = parse_bib(&bibtex_entry(&paper.input()));
        assert_eq!(field(&entry, "howpublished").unwrap(), "bioRxiv");
        assert!(entry.get("archiveprefix").is_none());
        assert!(entry.get("primaryclass").is_none());
        assert_eq!(field(&entry, "keywords").unwrap(), "q-bio.NC, cs.LG");
    }

    #[test]
    fn bibtex_optional_fields_are_left_out() {
        let mut paper = sample();
        paper.abstract_text = None;
        paper.url = None;
        paper.subjects.clear();
        paper.language = String::new();
        paper.year = 0;
        let bib = bibtex_entry(&paper.input());
        let entry = parse_bib(&bib);
        for name in [
            "abstract",
            "url",
            "primaryclass",
            "keywords",
            "language",
            "year",
        ] {
            assert!(entry.get(name).is_none(), "{name} in {bib}");
        }
        assert_eq!(field(&entry, "archiveprefix").unwrap(), "arXiv");
    }

    #[test]
    fn bibtex_escapes_specials_and_round_trips() {
        let text =
            r"50% of {x} & $y$ # a_b ~c^d \e } { \ <script>alert(1)</script> @misc{evil, x--y---z";
        let mut paper = sample();
        paper.abstract_text = Some(text.into());
        paper.language = "en_{&%}".into();
        let bib = bibtex_entry(&paper.input());
        assert!(
            bib.contains(r"50\% of \{x\} \& \$y\$ \# a\_b \textasciitilde{}c\textasciicircum{}d")
        );
        assert!(
            bib.contains(r"\textbackslash{}e \textbraceright{} \textbraceleft{} \textbackslash{}")
        );
        assert!(bib.contains("x-{}-y-{}-{}-z"));
        assert_braces_balanced(&bib);
        let entry = parse_bib(&bib);
        assert_eq!(field(&entry, "abstract").unwrap(), text);
        assert_eq!(field(&entry, "language").unwrap(), "en_{&%}");
    }

    #[test]
    fn escaping_and_cleaning_keep_non_ascii_text() {
        assert_eq!(
            bib_escape("Łódź {x} 50%--é ~ naïve_ü }"),
            r"Łódź \{x\} 50\%-{}-é \textasciitilde{} naïve\_ü \textbraceright{}"
        );
        assert_eq!(bib_escape("Zoë Müller"), "Zoë Müller");
        assert_eq!(clean_text("Zoë\u{a0}Müller"), "Zoë Müller");
        assert_eq!(
            clean_text("a\u{2028}b\u{85}c\u{feff}d\u{200b}e"),
            "a b cd\u{200b}e"
        );
        assert_eq!(clean_text(" Łukasz  Nowak\u{3000}"), "Łukasz Nowak");
        assert!(is_clean("Łukasz Nowak, 東京"));
        assert!(!is_clean("Łukasz\u{a0}Nowak"));
        assert!(!is_clean("é\u{9f}"));
        assert!(!is_clean("a  b"));
    }

    #[test]
    fn bibtex_newlines_in_values_become_spaces() {
        let mut paper = sample();
        paper.abstract_text = Some("First paragraph.\r\n\r\nSecond\tparagraph.\n".into());
        let bib = bibtex_entry(&paper.input());
        let entry = parse_bib(&bib);
        assert_eq!(
            field(&entry, "abstract").unwrap(),
            "First paragraph. Second paragraph."
        );
    }

    #[test]
    fn bibtex_title_keeps_tex_and_protects_case() {
        let mut paper = sample();
        paper.title = r"\textbf{V}ariational Inference with $P_Z$ Priors".into();
        paper.title_text = "Variational Inference with P_Z Priors".into();
        let bib = bibtex_entry(&paper.input());
        assert!(bib.contains(r"  title = {{\textbf{V}ariational Inference with $P_Z$ Priors}},"));
        let entry = parse_bib(&bib);
        let title = field(&entry, "title").unwrap();
        assert!(
            title.contains(r"\textbf{V}ariational Inference with"),
            "{title}"
        );
        assert!(title.contains("$P_Z$"), "{title}");
    }

    #[test]
    fn bibtex_title_escapes_stray_specials_in_tex() {
        assert_eq!(
            tex_title("Q&A at 99% for #1 snake_case a^2 $x^2_i$").unwrap(),
            r"Q\&A at 99\% for \#1 snake\_case a\textasciicircum{}2 $x^2_i$"
        );
        assert_eq!(
            tex_title(r"Already \& escaped \% fine").unwrap(),
            r"Already \& escaped \% fine"
        );
        assert_eq!(
            tex_title(r"Display $$a_b$$ and \(c_d\)").unwrap(),
            r"Display $$a_b$$ and \(c_d\)"
        );
        let mut paper = sample();
        paper.title = "Q&A at 99% for #1".into();
        paper.title_text = "Q&A at 99% for #1".into();
        let entry = parse_bib(&bibtex_entry(&paper.input()));
        assert_eq!(field(&entry, "title").unwrap(), "Q&A at 99% for #1");
    }

    #[test]
    fn bibtex_unsafe_tex_title_falls_back_to_escaped_text() {
        let cases = [
            ("Unbalanced {brace", "Unbalanced {brace"),
            ("Closing} first{", "Closing} first{"),
            (r"Escaped \{ brace alone", "Escaped { brace alone"),
            (r"{Mismatched\}", "Mismatched}"),
            ("Open $math", "Open $math"),
            ("Trailing backslash \\", "Trailing backslash \\"),
            (
                "}, author = {Evil}, note = {",
                "}, author = {Evil}, note = {",
            ),
            ("@misc{evil, title={x}}}", "@misc{evil, title={x}}}"),
            ("Mixed ${x$}", "Mixed ${x$}"),
            (r"Bad \) math", "Bad ) math"),
        ];
        for (raw, text) in cases {
            let mut paper = sample();
            paper.title = raw.into();
            paper.title_text = text.into();
            let bib = bibtex_entry(&paper.input());
            assert_braces_balanced(&bib);
            let entry = parse_bib(&bib);
            assert_eq!(field(&entry, "title").unwrap(), text, "raw title {raw:?}");
            assert_eq!(people(&entry).len(), 3, "{bib}");
        }
    }

    #[test]
    fn bibtex_empty_title_is_left_out() {
        let mut paper = sample();
        paper.title = "  ".into();
        paper.title_text = String::new();
        let entry = parse_bib(&bibtex_entry(&paper.input()));
        assert!(entry.get("title").is_none());
    }

    #[test]
    fn bibtex_names() {
        let mut paper = sample();
        paper.authors = strings(&[
            "Łukasz Nowak",
            "Staša Milojević",
            "Zoë",
            "王小明",
            "van der Berg, Jan",
            "Martin Luther King Jr.",
            "Smith and Wesson",
            "Others",
            "Jean-Pierre  O'Neil",
            "A{B}_c D",
            "   ",
        ]);
        let bib = bibtex_entry(&paper.input());
        assert!(bib.contains("author = {Nowak, Łukasz and Milojević, Staša and Zoë and 王小明 and van der Berg, Jan and King, Jr., Martin Luther and Wesson, {Smith and} and {Others} and O'Neil, Jean-Pierre and D, A\\{B\\}\\_c and others}"), "{bib}");
        let entry = parse_bib(&bib);
        let got = people(&entry);
        assert_eq!(
            got,
            vec![
                person("Nowak", "Łukasz"),
                person("Milojević", "Staša"),
                person("Zoë", ""),
                person("王小明", ""),
                person("van der Berg", "Jan"),
                person("King", "Martin Luther"),
                person("Wesson", "Smith and"),
                person("Others", ""),
                person("O'Neil", "Jean-Pierre"),
                person("D", "A{B}_c"),
                person("others", ""),
            ]
        );
        let persons: Vec<Person> = entry.author().unwrap();
        assert_eq!(persons[5].suffix, "Jr.");
    }

    #[test]
    fn bibtex_without_authors_has_no_author_field() {
        let mut paper = sample();
        paper.authors = strings(&["", " , "]);
        let entry = parse_bib(&bibtex_entry(&paper.input()));
        assert!(entry.get("author").is_none());
    }

    #[test]
    fn bibtex_key_and_url_are_made_safe() {
        let mut paper = sample();
        paper.key = "bad key,{}%é".into();
        paper.url = Some("https://example.org/a b/{x}|\\\"é?q=1&r=50%25#frag_~".into());
        let bib = bibtex_entry(&paper.input());
        assert!(bib.starts_with("@misc{badkey,\n"), "{bib}");
        let entry = parse_bib(&bib);
        assert_eq!(
            field(&entry, "url").unwrap(),
            "https://example.org/a%20b/%7Bx%7D%7C%5C%22%C3%A9?q=1&r=50%25#frag_~"
        );
        paper.key = "}{".into();
        assert!(bibtex_entry(&paper.input()).starts_with("@misc{paper,\n"));
    }

    #[test]
    fn bibtex_file_joins_entries_with_a_blank_line() {
        let a = sample();
        let mut b = sample();
        b.key = "zhu2026scalablea".into();
        let file = bibtex_file(&[a.input(), b.input()]);
        assert!(file.contains("}\n\n@misc{zhu2026scalablea,"));
        assert!(file.ends_with("}\n"));
        let parsed = Bibliography::parse(&file).unwrap();
        assert_eq!(parsed.len(), 2);
        assert_eq!(bibtex_file(&[]), "");
    }

    /// BibTeX's own view: every brace counts, escaped or not, and depth never dips below 0.
    fn assert_braces_balanced(bib: &str) {
        for line in bib.lines().filter(|l| l.starts_with("  ")) {
            let value = line
                .split_once(" = ")
                .map(|(_, v)| v.trim_end_matches(','))
                .unwrap();
            let mut depth = 0i64;
            for c in value.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
                assert!(depth >= 0, "unbalanced {line:?}");
            }
            assert_eq!(depth, 0, "unbalanced {line:?}");
        }
    }

    // --- RIS ------------------------------------------------------------------------

    #[test]
    fn ris_sample() {
        let paper = sample();
        let ris = ris_entry(&paper.input());
        let pairs = parse_ris(&ris);
        assert_eq!(
            pairs.first().unwrap(),
            &("TY".to_string(), "GEN".to_string())
        );
        assert_eq!(pairs.last().unwrap(), &("ER".to_string(), String::new()));
        assert_eq!(ris_values(&pairs, "TI"), vec![SAMPLE_TITLE.to_string()]);
        assert_eq!(
            ris_values(&pairs, "AU"),
            strings(&["Zhu, Zhongbo", "Zhang, Shunkang"])
        );
        assert_eq!(ris_values(&pairs, "PY"), strings(&["2026"]));
        assert_eq!(ris_values(&pairs, "KW"), strings(&["cs.DC"]));
        assert_eq!(ris_values(&pairs, "T2"), strings(&["arXiv"]));
        assert_eq!(ris_values(&pairs, "DB"), strings(&["arXiv"]));
        assert_eq!(ris_values(&pairs, "LA"), strings(&["en"]));
        assert_eq!(ris_values(&pairs, "UR"), vec![paper.url.clone().unwrap()]);
        assert_eq!(
            ris_values(&pairs, "AB"),
            vec![paper.abstract_text.clone().unwrap()]
        );
    }

    #[test]
    fn ris_values_stay_on_one_line() {
        let mut paper = sample();
        paper.title_text = "Title\nER  - \nTY  - JOUR".into();
        paper.abstract_text =
            Some("Line one\r\nLine two\n\n<script>alert('x')</script> & }".into());
        paper.authors = strings(&["Zhongbo\nZhu", "Zoë", "King, Jr., Martin"]);
        paper.subjects = strings(&["cs.DC", "", "cs.DC", "cs.LG"]);
        paper.source = "bio\nRxiv".into();
        let pairs = parse_ris(&ris_entry(&paper.input()));
        assert_eq!(ris_values(&pairs, "TI"), strings(&["Title ER - TY - JOUR"]));
        assert_eq!(
            ris_values(&pairs, "AB"),
            strings(&["Line one Line two <script>alert('x')</script> & }"])
        );
        assert_eq!(
            ris_values(&pairs, "AU"),
            strings(&["Zhu, Zhongbo", "Zoë", "King, Martin, Jr."])
        );
        assert_eq!(ris_values(&pairs, "KW"), strings(&["cs.DC", "cs.LG"]));
        assert_eq!(ris_values(&pairs, "DB"), strings(&["bio Rxiv"]));
        assert_eq!(ris_values(&pairs, "TY"), strings(&["GEN"]));
        assert_eq!(ris_values(&pairs, "ER"), strings(&[""]));
    }

    #[test]
    fn ris_falls_back_to_raw_title_and_skips_empty_values() {
        let mut paper = sample();
        paper.title_text = String::new();
        paper.abstract_text = Some("  ".into());
        paper.url = None;
        paper.year = 0;
        let pairs = parse_ris(&ris_entry(&paper.input()));
        assert_eq!(ris_values(&pairs, "TI"), vec![SAMPLE_TITLE.to_string()]);
        for tag in ["AB", "UR", "PY"] {
            assert!(ris_values(&pairs, tag).is_empty(), "{tag}");
        }
    }

    #[test]
    fn ris_file_separates_records() {
        let a = sample();
        let file = ris_file(&[a.input(), a.input()]);
        let records: Vec<&str> = file.split("ER  - \n").filter(|r| !r.is_empty()).collect();
        assert_eq!(records.len(), 2);
        assert!(file.contains("ER  - \n\nTY  - GEN\n"));
        assert!(file.ends_with("ER  - \n"));
    }

    // --- CSL-JSON -------------------------------------------------------------------

    #[test]
    fn csl_sample() {
        let paper = sample();
        let item = csl_item(&paper.input());
        let expected = serde_json::json!({
            "id": "zhu2026scalable",
            "type": "article",
            "genre": "preprint",
            "title": SAMPLE_TITLE,
            "author": [
                {"family": "Zhu", "given": "Zhongbo"},
                {"family": "Zhang", "given": "Shunkang"}
            ],
            "issued": {"date-parts": [[2026]]},
            "abstract": paper.abstract_text.as_deref().unwrap(),
            "URL": paper.url.as_deref().unwrap(),
            "keyword": "cs.DC",
            "publisher": "arXiv",
            "language": "en"
        });
        assert_eq!(item, expected);
    }

    #[test]
    fn csl_names_and_hostile_text() {
        let mut paper = sample();
        paper.authors = strings(&[
            "Łukasz Nowak",
            "Zoë",
            "van der Berg, Jan",
            "King, Jr., Martin",
            "",
        ]);
        paper.title_text = "Quotes \" and \\ backslash\n<script>}".into();
        paper.subjects = strings(&["cs.DC", "cs.LG"]);
        paper.year = 0;
        paper.url = None;
        let file = csl_file(&[paper.input()]);
        assert!(file.ends_with("]\n"));
        let parsed: Value = serde_json::from_str(&file).unwrap();
        let item = &parsed.as_array().unwrap()[0];
        assert_eq!(
            item["author"],
            serde_json::json!([
                {"family": "Nowak", "given": "Łukasz"},
                {"family": "Zoë"},
                {"family": "van der Berg", "given": "Jan"},
                {"family": "King", "given": "Martin", "suffix": "Jr."}
            ])
        );
        assert_eq!(item["title"], "Quotes \" and \\ backslash <script>}");
        assert_eq!(item["keyword"], "cs.DC, cs.LG");
        assert!(item.get("issued").is_none());
        assert!(item.get("URL").is_none());
    }

    #[test]
    fn csl_file_is_a_pretty_array() {
        let a = sample();
        let file = csl_file(&[a.input(), a.input()]);
        assert!(file.starts_with("[\n  {\n"));
        let parsed: Value = serde_json::from_str(&file).unwrap();
        assert_eq!(parsed.as_array().unwrap().len(), 2);
        assert_eq!(csl_file(&[]), "[]\n");
    }

    // --- Keys -----------------------------------------------------------------------

    #[test]
    fn keys_basic() {
        let keys = citation_keys(&[
            (Some("Zhongbo Zhu"), 2026, SAMPLE_TITLE, "p1"),
            (
                Some("Łukasz Nowak"),
                2024,
                "The Art of Computer Programming",
                "p2",
            ),
            (
                Some("Nowak, Łukasz"),
                2024,
                "On the Origin of Species",
                "p3",
            ),
            (
                Some("Staša Milojević"),
                2019,
                "Towards a Theory of Everything",
                "p4",
            ),
            (Some("王小明"), 2020, "深度学习", "p5"),
            (None, 2021, "An Introduction", "p6"),
            (Some("Zoë"), 2022, "", "p7"),
            (Some("Zoë"), 2022, "The Of And", "p8x"),
            (Some("A B"), 0, r"\textbf{V}ariational $P_Z$ Models", "p9"),
            (Some("A B"), 2020, "X-ray Vision", "p10"),
            (Some("A B"), 2020, "On-Device Learning", "p11"),
            (Some("A B"), 2020, "2019 Workshop Report", "p12"),
            (Some("A B"), 2020, "Don't Stop", "p13"),
            (Some("A B"), 2020, r#"Na\"{i}ve Dvo\v{r}\'ak Models"#, "p14"),
            (Some("🙂"), 2020, "🙂", "p15"),
        ]);
        assert_eq!(
            keys,
            strings(&[
                "zhu2026scalable",
                "nowak2024art",
                "nowak2024origin",
                "milojevic2019theory",
                "wangxiaoming2020shen",
                "anon2021introduction",
                "zoe2022",
                "zoe2022a",
                "bvariational",
                "b2020xray",
                "b2020ondevice",
                "b2020workshop",
                "b2020dont",
                "b2020naive",
                "anon2020",
            ])
        );
    }

    #[test]
    fn keys_collisions_are_independent_of_input_order() {
        let papers = [
            (Some("Zhongbo Zhu"), 2026u16, "Scalable Training", "id-c"),
            (Some("Zhongbo Zhu"), 2026, "Scalable Inference", "id-a"),
            (Some("Z. Zhu"), 2026, "Scalable Serving", "id-b"),
            (Some("Zhongbo Zhu"), 2026, "Scalable Things", "id-d"),
            (Some("Other Person"), 2026, "Scalable Training", "id-e"),
        ];
        let expected: BTreeMap<&str, &str> = [
            ("id-a", "zhu2026scalable"),
            ("id-b", "zhu2026scalablea"),
            ("id-c", "zhu2026scalableb"),
            ("id-d", "zhu2026scalablec"),
            ("id-e", "person2026scalable"),
        ]
        .into_iter()
        .collect();
        // Every rotation and the reversal of the input.
        let mut orders: Vec<Vec<usize>> = (0..papers.len())
            .map(|r| (0..papers.len()).map(|i| (i + r) % papers.len()).collect())
            .collect();
        orders.push((0..papers.len()).rev().collect());
        orders.push(vec![3, 0, 4, 2, 1]);
        for order in orders {
            let input: Vec<_> = order.iter().map(|&i| papers[i]).collect();
            let keys = citation_keys(&input);
            for (paper, key) in input.iter().zip(&keys) {
                assert_eq!(expected[paper.3], key, "order {order:?}");
            }
        }
    }

    #[test]
    fn keys_suffixes_never_take_another_papers_key() {
        // Base "zhu2026" collides three times; "zhu2026b" is another paper's base key.
        let keys = citation_keys(&[
            (Some("Zhongbo Zhu"), 2026, "", "1"),
            (Some("Zhongbo Zhu"), 2026, "The", "2"),
            (Some("Zhongbo Zhu"), 2026, "", "3"),
            (Some("Zhongbo Zhu"), 2026, "B", "4"),
            (Some("Zhongbo Zhu"), 2026, "Of", "5"),
        ]);
        assert_eq!(
            keys,
            strings(&["zhu2026", "zhu2026a", "zhu2026c", "zhu2026b", "zhu2026d"])
        );
    }

    #[test]
    fn keys_are_unique_for_many_collisions() {
        let ids: Vec<String> = (0..800).map(|i| format!("{i:04}")).collect();
        let papers: Vec<_> = ids
            .iter()
            .map(|id| (Some("Ann Lee"), 2020u16, "Same", id.as_str()))
            .collect();
        let keys = citation_keys(&papers);
        let unique: HashSet<&String> = keys.iter().collect();
        assert_eq!(unique.len(), keys.len());
        assert_eq!(keys[0], "lee2020same");
        assert_eq!(keys[1], "lee2020samea");
        assert_eq!(keys[26], "lee2020samez");
        assert_eq!(keys[27], "lee2020sameaa");
        assert_eq!(alpha_suffix(26 + 26 * 26), "aaa");
        assert!(citation_keys(&[]).is_empty());
    }

    #[test]
    fn keys_identical_papers_still_get_distinct_keys() {
        let keys = citation_keys(&[(None, 0, "", ""), (None, 0, "", "")]);
        assert_eq!(keys, strings(&["anon", "anona"]));
    }

    // --- Never panic, always parse ----------------------------------------------------

    /// A small deterministic generator (xorshift) so the fuzz test needs no extra crate.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn text(&mut self, max_len: u64) -> String {
            const PIECES: &[&str] = &[
                "a",
                "Z",
                "é",
                "Ł",
                "王",
                " ",
                "  ",
                "\n",
                "\r\n",
                "\t",
                "{",
                "}",
                "\\",
                "$",
                "&",
                "%",
                "#",
                "_",
                "~",
                "^",
                "-",
                "--",
                ",",
                " and ",
                "others",
                "@misc{",
                "\"",
                "'",
                "<script>",
                "=",
                "\\textbf{",
                "\\&",
                "\u{0}",
                "\u{7}",
                "\u{feff}",
                "\u{2028}",
                "0",
                "2019",
                "ER  - ",
                "=}",
                "$$",
                "\\(",
                "\\)",
                "%7B",
                "\\,",
                "\\'",
                "\\LaTeX",
                "\\\"",
                "\\alpha",
                "e",
                "\\i",
                "\\ ",
                "🙂",
            ];
            let len = self.next() % (max_len + 1);
            (0..len)
                .map(|_| PIECES[(self.next() % PIECES.len() as u64) as usize])
                .collect()
        }
    }

    #[test]
    fn hostile_inputs_never_panic_and_always_parse() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for round in 0..3000 {
            let paper = Paper {
                key: rng.text(4),
                title: rng.text(12),
                title_text: rng.text(12),
                authors: (0..rng.next() % 4).map(|_| rng.text(6)).collect(),
                year: (rng.next() % 3000) as u16,
                source: if round % 3 == 0 {
                    "arXiv".into()
                } else {
                    rng.text(3)
                },
                subjects: (0..rng.next() % 3).map(|_| rng.text(3)).collect(),
                abstract_text: (round % 5 != 0).then(|| rng.text(30)),
                url: (round % 4 != 0).then(|| rng.text(8)),
                language: rng.text(2),
            };
            let input = paper.input();

            let bib = bibtex_entry(&input);
            assert_braces_balanced(&bib);
            let entry = parse_bib(&bib);
            if let Some(abstract_text) = paper.abstract_text.as_deref() {
                let expected = clean_text(abstract_text);
                assert_eq!(
                    field(&entry, "abstract").unwrap_or_default(),
                    expected,
                    "{bib}"
                );
            }
            if tex_title(&paper.title).is_none() {
                let text = clean_text(&paper.title_text);
                if !text.is_empty() {
                    assert_eq!(field(&entry, "title").unwrap(), text, "{bib}");
                }
            }
            let named = paper
                .authors
                .iter()
                .filter(|a| parse_name(a).is_some())
                .count();
            if named > 0 {
                let persons: Vec<Person> = entry.author().unwrap();
                assert_eq!(persons.len(), named + 1, "{bib}");
            }

            let pairs = parse_ris(&ris_entry(&input));
            assert_eq!(pairs[0].0, "TY");
            assert_eq!(ris_values(&pairs, "AU").len(), named);

            let json = csl_file(&[input]);
            let parsed: Value = serde_json::from_str(&json).unwrap();
            assert_eq!(parsed[0]["type"], "article");

            let title = paper.title.clone();
            let keys = citation_keys(&[
                (
                    paper.authors.first().map(String::as_str),
                    paper.year,
                    &title,
                    &paper.key,
                ),
                (None, paper.year, &paper.title_text, ""),
            ]);
            assert_eq!(keys.len(), 2);
            assert_ne!(keys[0], keys[1]);
            assert!(keys.iter().all(|k| !k.is_empty()
                && k.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())));
        }
    }
}
