//! Likely duplicate authors: pairs of authors that are probably one person under two
//! spellings of the name, for `profilegen check --authors` to suggest. Nothing here
//! merges anything; the site's `aliases` do, once someone has looked.
//!
//! Two authors are a pair when their names
//! * are one spelling: equal once transliterated (`Jürgen` ~ `Jurgen`, German umlauts
//!   also as `ue`: `Juergen`, and a written-out `ue` also as `u`: `Juergen` ~ `Jurgen`), with hyphens, dots, spaces, case and stray control
//!   characters ignored (`Jean-Pierre` ~ `Jean Pierre`, `Van de Sompel` ~ `van de
//!   Sompel`), or
//! * agree up to initials: the same family name (particles such as `van`, `de`, `von`
//!   belong to it) and given names that agree where both are written out, and where one
//!   is an initial, the other starts with it (`H. Van de Sompel` ~ `Herbert Van de
//!   Sompel`; not `Wei Wang` ~ `Wen Wang`). Such a pair is suggested only when the two
//!   share a paper or a co-author: initials alone say little about common names.
//!
//! Pairs are ranked by what the authors share (papers and co-authors), then one
//! spelling before initials, then by name. Shared papers are a sign either way: the
//! same person listed twice, or two people who write together (siblings, spouses); the
//! report says how many, for a person to decide.

use std::collections::{HashMap, HashSet};

use crate::graph::{AuthorId, SiteGraph};

/// Why two authors look like one person.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Likeness {
    /// The same name in another spelling.
    Spelling,
    /// The same family name, given names that agree up to initials.
    Initials,
}

/// Two authors that are probably one person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suggestion {
    /// The author that would keep its page: the one with more papers (ties: the first by
    /// slug).
    pub keep: AuthorId,
    /// The author whose files would join it.
    pub join: AuthorId,
    /// Why they look alike.
    pub likeness: Likeness,
    /// Papers both list.
    pub shared_papers: usize,
    /// Co-authors both have (the two themselves aside).
    pub shared_coauthors: usize,
}

impl Suggestion {
    /// How strongly what the two share says they are one person.
    pub fn evidence(&self) -> usize {
        self.shared_papers + self.shared_coauthors
    }
}

/// Name particles that belong to the family name when they come before it.
const PARTICLES: &[&str] = &[
    "van", "von", "de", "der", "den", "del", "della", "di", "da", "du", "dos", "das", "le", "la",
    "ten", "ter", "zu", "af", "al", "el", "bin", "ibn",
];

/// Suffixes that are not part of a name's identity.
const SUFFIXES: &[&str] = &["jr", "sr", "ii", "iii", "iv"];

/// A name, taken apart for comparison; every part in each of its spellings.
#[derive(Debug, Clone, PartialEq, Eq)]
struct NameParts {
    /// The given names, each in its spellings.
    given: Vec<Vec<String>>,
    /// The family name with its particles, letters only, in its spellings.
    family: Vec<String>,
    /// The whole name, letters only, in its spellings.
    whole: Vec<String>,
}

/// The spellings of `text`, lowercase ASCII letters only: transliterated, and with German
/// umlauts as `ae`, `oe`, `ue` (and `ß` as `ss`) when it has any.
fn spellings(text: &str) -> Vec<String> {
    let letters = |t: &str| -> String {
        deunicode::deunicode(t)
            .chars()
            .filter(char::is_ascii_alphabetic)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let plain = letters(text);
    // An umlaut already written out (`Juergen`) is also read as the bare vowel.
    let collapsed = plain
        .replace("ae", "a")
        .replace("oe", "o")
        .replace("ue", "u");
    let mut forms = vec![plain, collapsed];
    if text.contains(['ä', 'ö', 'ü', 'Ä', 'Ö', 'Ü']) {
        let expanded = text
            .replace(['ä', 'Ä'], "ae")
            .replace(['ö', 'Ö'], "oe")
            .replace(['ü', 'Ü'], "ue");
        forms.push(letters(&expanded));
    }
    forms.sort();
    forms.dedup();
    forms
}

impl NameParts {
    /// Takes a name apart; `None` for a name of one word (no given name to compare).
    fn of(name: &str) -> Option<NameParts> {
        let cleaned: String = name
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || c == '\'' {
                    c
                } else {
                    ' '
                }
            })
            .collect();
        let mut words: Vec<&str> = cleaned.split_whitespace().collect();
        while words.len() > 2
            && words
                .last()
                .is_some_and(|w| SUFFIXES.contains(&w.to_lowercase().as_str()))
        {
            words.pop();
        }
        if words.len() < 2 {
            return None;
        }
        let mut family_start = words.len() - 1;
        while family_start > 1
            && PARTICLES.contains(&words[family_start - 1].to_lowercase().as_str())
        {
            family_start -= 1;
        }
        let family = spellings(&words[family_start..].concat());
        let given: Vec<Vec<String>> = words[..family_start]
            .iter()
            .map(|w| spellings(w))
            .filter(|forms| forms.iter().any(|f| !f.is_empty()))
            .collect();
        if given.is_empty() || family.iter().all(String::is_empty) {
            return None;
        }
        Some(NameParts {
            given,
            family,
            whole: spellings(&words.concat()),
        })
    }

    /// The first letter of the first given name: names that can be alike share it.
    fn initial(&self) -> Option<char> {
        self.given[0].iter().find_map(|f| f.chars().next())
    }

    /// How the two names are alike, if they are.
    fn likeness(&self, other: &NameParts) -> Option<Likeness> {
        let overlap = |a: &[String], b: &[String]| a.iter().any(|x| b.contains(x));
        if overlap(&self.whole, &other.whole) {
            return Some(Likeness::Spelling);
        }
        if !overlap(&self.family, &other.family) {
            return None;
        }
        let mut initials = false;
        for (a, b) in self.given.iter().zip(&other.given) {
            if overlap(a, b) {
                continue;
            }
            let initial_of = |short: &[String], long: &[String]| {
                short.iter().any(|s| {
                    s.len() == 1
                        && long
                            .iter()
                            .any(|l| l.len() > 1 && l.starts_with(s.as_str()))
                })
            };
            if initial_of(a, b) || initial_of(b, a) {
                initials = true;
            } else {
                return None;
            }
        }
        let one_side_has_more = self.given.len() != other.given.len();
        (initials || one_side_has_more).then_some(Likeness::Initials)
    }
}

/// Every likely duplicate among the authors of `graph`, best first.
pub fn suggest_duplicates(graph: &SiteGraph) -> Vec<Suggestion> {
    let parts: Vec<Option<NameParts>> = graph
        .authors
        .iter()
        .map(|a| NameParts::of(&a.name))
        .collect();
    let mut blocks: HashMap<(&str, char), Vec<AuthorId>> = HashMap::new();
    for (id, p) in parts.iter().enumerate() {
        let Some(p) = p else { continue };
        let Some(initial) = p.initial() else { continue };
        for family in &p.family {
            blocks
                .entry((family.as_str(), initial))
                .or_default()
                .push(id);
        }
    }
    let mut seen: HashSet<(AuthorId, AuthorId)> = HashSet::new();
    let mut suggestions = Vec::new();
    let mut block_list: Vec<_> = blocks.into_iter().collect();
    block_list.sort();
    for (_, members) in block_list {
        for (i, &a) in members.iter().enumerate() {
            for &b in &members[i + 1..] {
                let pair = (a.min(b), a.max(b));
                if a == b || !seen.insert(pair) {
                    continue;
                }
                let (Some(pa), Some(pb)) = (&parts[a], &parts[b]) else {
                    continue;
                };
                if let Some(likeness) = pa.likeness(pb) {
                    let suggestion = suggestion(graph, pair, likeness);
                    if likeness == Likeness::Spelling || suggestion.evidence() > 0 {
                        suggestions.push(suggestion);
                    }
                }
            }
        }
    }
    suggestions.sort_by(|x, y| {
        y.evidence()
            .cmp(&x.evidence())
            .then_with(|| x.likeness.cmp(&y.likeness))
            .then_with(|| graph.authors[x.keep].name.cmp(&graph.authors[y.keep].name))
            .then_with(|| (x.keep, x.join).cmp(&(y.keep, y.join)))
    });
    suggestions
}

/// The suggestion for a pair, with what the two share.
fn suggestion(graph: &SiteGraph, (a, b): (AuthorId, AuthorId), likeness: Likeness) -> Suggestion {
    let (author_a, author_b) = (&graph.authors[a], &graph.authors[b]);
    let shared_papers = author_a
        .coauthors
        .iter()
        .find(|(other, _)| *other == b)
        .map_or(0, |(_, n)| *n);
    let (small, large) = if author_a.coauthors.len() <= author_b.coauthors.len() {
        (author_a, author_b)
    } else {
        (author_b, author_a)
    };
    let theirs: HashSet<AuthorId> = large.coauthors.iter().map(|(c, _)| *c).collect();
    let shared_coauthors = small
        .coauthors
        .iter()
        .filter(|(c, _)| *c != a && *c != b && theirs.contains(c))
        .count();
    let keep_a = (author_a.papers.len(), std::cmp::Reverse(a))
        >= (author_b.papers.len(), std::cmp::Reverse(b));
    let (keep, join) = if keep_a { (a, b) } else { (b, a) };
    Suggestion {
        keep,
        join,
        likeness,
        shared_papers,
        shared_coauthors,
    }
}

/// The `profilegen.yaml` lines that would merge a suggestion's authors: the joining
/// author's name as an alias of the kept one, or its record files when it has a
/// disambiguation (a name alias would not reach it).
pub fn merge_yaml(graph: &SiteGraph, suggestion: &Suggestion) -> String {
    let keep = &graph.authors[suggestion.keep];
    let join = &graph.authors[suggestion.join];
    let quoted = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let aliases: Vec<String> = if join.disambiguation.is_some() {
        join.files
            .iter()
            .map(|f| quoted(&f.to_string_lossy().replace('\\', "/")))
            .collect()
    } else {
        vec![quoted(&join.name)]
    };
    format!(
        "authors:\n  {}:\n    aliases: [{}]\n",
        keep.slug,
        aliases.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alike(a: &str, b: &str) -> Option<Likeness> {
        NameParts::of(a)?.likeness(&NameParts::of(b)?)
    }

    #[test]
    fn spellings_that_are_one_name() {
        for (a, b) in [
            ("Jürgen Kurths", "Jurgen Kurths"),
            ("Jürgen Kurths", "Juergen Kurths"),
            ("Jurgen Kurths", "Juergen Kurths"),
            ("Jürgen Kurths", "JÜRGEN KURTHS"),
            ("Herbert Van de Sompel", "Herbert van de Sompel"),
            ("Herbert Van de Sompel", "Herbert Vandesompel"),
            ("Jean-Pierre Serre", "Jean Pierre Serre"),
            ("Łukasz Nowak", "Lukasz Nowak"),
            ("J\u{7f}ürgen Kurths", "Jürgen Kurths"),
        ] {
            assert_eq!(alike(a, b), Some(Likeness::Spelling), "{a} ~ {b}");
        }
    }

    #[test]
    fn initials_and_middle_names() {
        for (a, b) in [
            ("H. Van de Sompel", "Herbert Van de Sompel"),
            ("J. Kurths", "Jürgen Kurths"),
            ("J. A. Smith", "John Smith"),
            ("John Smith", "John Adam Smith"),
            ("B.-Y. Su", "Bor-Yiing Su"),
        ] {
            assert_eq!(alike(a, b), Some(Likeness::Initials), "{a} ~ {b}");
        }
    }

    #[test]
    fn different_people_are_not_alike() {
        for (a, b) in [
            ("Wei Wang", "Wen Wang"),
            ("Wei Wang", "Wei Zhang"),
            ("H. Van de Sompel", "K. Van de Sompel"),
            ("John Smith", "Jane Smith"),
            ("Zoë Li", "Zhao Li"),
            ("Plato", "Plato"),
        ] {
            assert_eq!(alike(a, b), None, "{a} ~ {b}");
        }
    }

    #[test]
    fn particles_belong_to_the_family_name_and_suffixes_are_dropped() {
        let p = NameParts::of("Ludwig van der Waals Jr.").unwrap();
        assert_eq!(p.family, vec!["vanderwaals"]);
        assert_eq!(p.given, vec![vec!["ludwig".to_string()]]);
        assert_eq!(spellings("Müller"), vec!["mueller", "muller"]);
        assert_eq!(spellings("Mueller"), vec!["mueller", "muller"]);
    }
}
