//! Author identifiers: what each scholarly registry's ids look like, how they are
//! written in settings (the id or its profile URL), and the profile URL of each.
//!
//! | key | registry | id, e.g. |
//! | --- | --- | --- |
//! | `orcid` | ORCID | `0000-0002-1825-0097` (ISO 7064 11,2 check digit) |
//! | `dblp` | dblp | `123/4567`, `123/4567-1`, `s/JohnSmith` (a person id, "pid") |
//! | `openalex` | OpenAlex | `A5023888391` |
//! | `google_scholar` | Google Scholar | `Zdc8d1YAAAAJ` (12 characters, a user id) |
//! | `arxiv` | arXiv author id | `vandesompel_h_1` |

/// A registry of author identifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Registry {
    /// ORCID.
    Orcid,
    /// dblp computer science bibliography.
    Dblp,
    /// OpenAlex.
    OpenAlex,
    /// Google Scholar.
    GoogleScholar,
    /// arXiv's author identifiers.
    Arxiv,
}

/// Every registry, in the order profiles show them.
pub const REGISTRIES: [Registry; 5] = [
    Registry::Orcid,
    Registry::Dblp,
    Registry::OpenAlex,
    Registry::GoogleScholar,
    Registry::Arxiv,
];

impl Registry {
    /// The settings key (`orcid`, `dblp`, `openalex`, `google_scholar`, `arxiv`).
    pub fn key(self) -> &'static str {
        match self {
            Registry::Orcid => "orcid",
            Registry::Dblp => "dblp",
            Registry::OpenAlex => "openalex",
            Registry::GoogleScholar => "google_scholar",
            Registry::Arxiv => "arxiv",
        }
    }

    /// The registry's name, as shown on a profile and as JSON-LD's `propertyID`.
    pub fn label(self) -> &'static str {
        match self {
            Registry::Orcid => "ORCID",
            Registry::Dblp => "dblp",
            Registry::OpenAlex => "OpenAlex",
            Registry::GoogleScholar => "Google Scholar",
            Registry::Arxiv => "arXiv",
        }
    }

    /// The profile URL of a checked id.
    pub fn url(self, id: &str) -> String {
        match self {
            Registry::Orcid => format!("https://orcid.org/{id}"),
            Registry::Dblp => format!("https://dblp.org/pid/{id}.html"),
            Registry::OpenAlex => format!("https://openalex.org/{id}"),
            Registry::GoogleScholar => format!("https://scholar.google.com/citations?user={id}"),
            Registry::Arxiv => format!("https://arxiv.org/a/{id}"),
        }
    }

    /// Reads an id as written in settings: the id itself or its profile URL. Returns the
    /// id in its canonical form, or why it is not one.
    pub fn parse(self, written: &str) -> Result<String, String> {
        let written = written.trim();
        let id = self.strip_url(written);
        let valid = match self {
            Registry::Orcid => is_orcid(id),
            Registry::Dblp => is_dblp_pid(id),
            Registry::OpenAlex => is_openalex_author(id),
            Registry::GoogleScholar => is_scholar_user(id),
            Registry::Arxiv => is_arxiv_author(id),
        };
        if valid {
            Ok(id.to_string())
        } else {
            Err(format!(
                "`{written}` is not a valid {} id ({})",
                self.label(),
                self.expected()
            ))
        }
    }

    /// The id inside a profile URL, or `written` when it is not one.
    fn strip_url(self, written: &str) -> &str {
        let without_scheme = written
            .strip_prefix("https://")
            .or_else(|| written.strip_prefix("http://"))
            .map(|rest| rest.strip_prefix("www.").unwrap_or(rest));
        let Some(rest) = without_scheme else {
            return written;
        };
        let inner = match self {
            Registry::Orcid => rest.strip_prefix("orcid.org/"),
            Registry::Dblp => rest
                .strip_prefix("dblp.org/pid/")
                .or_else(|| rest.strip_prefix("dblp.uni-trier.de/pid/"))
                .map(|pid| pid.strip_suffix(".html").unwrap_or(pid)),
            Registry::OpenAlex => rest
                .strip_prefix("openalex.org/authors/")
                .or_else(|| rest.strip_prefix("openalex.org/")),
            Registry::GoogleScholar => rest
                .strip_prefix("scholar.google.com/citations?")
                .and_then(|query| query.split('&').find_map(|p| p.strip_prefix("user="))),
            Registry::Arxiv => rest.strip_prefix("arxiv.org/a/").map(|id| {
                id.strip_suffix(".html")
                    .or_else(|| id.strip_suffix(".atom"))
                    .unwrap_or(id)
            }),
        };
        inner.map_or(written, |id| id.trim_end_matches('/'))
    }

    /// What an id of this registry looks like, for diagnostics.
    fn expected(self) -> &'static str {
        match self {
            Registry::Orcid => {
                "16 digits in groups of four, e.g. 0000-0002-1825-0097, with a valid check digit"
            }
            Registry::Dblp => {
                "a dblp person id, e.g. 123/4567 or s/JohnSmith, or its dblp.org/pid/ URL"
            }
            Registry::OpenAlex => "A followed by digits, e.g. A5023888391, or its openalex.org URL",
            Registry::GoogleScholar => {
                "the 12-character user id of a profile URL's user=, e.g. Zdc8d1YAAAAJ"
            }
            Registry::Arxiv => "an arXiv author id, e.g. vandesompel_h_1, or its arxiv.org/a/ URL",
        }
    }
}

/// Whether `id` is a well-formed ORCID iD (`0000-0002-1825-0097`, last digit may be `X`),
/// checksum included.
pub fn is_orcid(id: &str) -> bool {
    let bytes = id.as_bytes();
    let shape_ok = bytes.len() == 19
        && bytes.iter().enumerate().all(|(i, &c)| match i {
            4 | 9 | 14 => c == b'-',
            18 => c.is_ascii_digit() || c == b'X',
            _ => c.is_ascii_digit(),
        });
    if !shape_ok {
        return false;
    }
    let digits: Vec<u8> = bytes.iter().copied().filter(|&c| c != b'-').collect();
    let total = digits[..15]
        .iter()
        .fold(0u32, |total, &d| (total + u32::from(d - b'0')) * 2);
    let check = (12 - total % 11) % 11;
    let expected = if check == 10 {
        b'X'
    } else {
        b'0' + check as u8
    };
    digits[15] == expected
}

/// dblp person ids: `<digits>/<digits>` with an optional `-<digits>` (new style), or
/// `<lowercase letter>/<name>` with letters, digits, `_` and `-` (old style, e.g.
/// `s/JohnSmith`, `v/HerbertVandeSompel`).
fn is_dblp_pid(id: &str) -> bool {
    let Some((head, tail)) = id.split_once('/') else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let new_style = digits(head)
        && match tail.split_once('-') {
            Some((number, suffix)) => digits(number) && digits(suffix),
            None => digits(tail),
        };
    let old_style = head.len() == 1
        && head.bytes().all(|b| b.is_ascii_lowercase())
        && !tail.is_empty()
        && tail.len() <= 80
        && tail
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'=');
    new_style || old_style
}

/// OpenAlex author ids: `A` and 4 to 12 digits.
fn is_openalex_author(id: &str) -> bool {
    id.strip_prefix('A').is_some_and(|digits| {
        (4..=12).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit())
    })
}

/// Google Scholar user ids: 12 characters of letters, digits, `-` and `_`.
fn is_scholar_user(id: &str) -> bool {
    id.len() == 12
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// arXiv author ids: lowercase words joined by `_`, ending in `_<number>`
/// (`vandesompel_h_1`).
fn is_arxiv_author(id: &str) -> bool {
    let Some((words, number)) = id.rsplit_once('_') else {
        return false;
    };
    !number.is_empty()
        && number.bytes().all(|b| b.is_ascii_digit())
        && !words.is_empty()
        && words.len() <= 80
        && words
            .split('_')
            .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orcid_checksum_and_shape() {
        assert!(is_orcid("0000-0002-1825-0097"));
        assert!(is_orcid("0000-0001-5109-3700"));
        assert!(is_orcid("0000-0002-1694-233X"));
        assert!(!is_orcid("0000-0002-1825-0098"));
        assert!(!is_orcid("0000000218250097"));
        assert!(!is_orcid("0000-0002-1825-009"));
        assert!(!is_orcid("<script>"));
        assert!(!is_orcid("0000-0002-1825-00９7"));
    }

    #[test]
    fn ids_are_read_from_urls_too() {
        let ok = |r: Registry, written: &str| r.parse(written).unwrap();
        assert_eq!(
            ok(Registry::Orcid, "https://orcid.org/0000-0002-1825-0097"),
            "0000-0002-1825-0097"
        );
        assert_eq!(
            ok(Registry::Dblp, "https://dblp.org/pid/123/4567-1.html"),
            "123/4567-1"
        );
        assert_eq!(ok(Registry::Dblp, "s/JohnSmith"), "s/JohnSmith");
        assert_eq!(
            ok(
                Registry::OpenAlex,
                "https://openalex.org/authors/A5023888391"
            ),
            "A5023888391"
        );
        assert_eq!(
            ok(
                Registry::GoogleScholar,
                "https://scholar.google.com/citations?hl=en&user=Zdc8d1YAAAAJ"
            ),
            "Zdc8d1YAAAAJ"
        );
        assert_eq!(
            ok(Registry::Arxiv, "https://arxiv.org/a/vandesompel_h_1.html"),
            "vandesompel_h_1"
        );
    }

    #[test]
    fn malformed_ids_are_refused_with_what_was_expected() {
        let cases = [
            (Registry::Dblp, "123"),
            (Registry::Dblp, "12a/34"),
            (Registry::Dblp, "ab/Smith"),
            (Registry::Dblp, "s/John Smith"),
            (Registry::OpenAlex, "W2741809807"),
            (Registry::OpenAlex, "A12"),
            (Registry::GoogleScholar, "Zdc8d1YAAAA"),
            (Registry::GoogleScholar, "Zdc8d1YAAA<J"),
            (Registry::Arxiv, "vandesompel_h"),
            (Registry::Arxiv, "VanDeSompel_h_1"),
            (Registry::Orcid, "https://example.org/0000-0002-1825-0097"),
        ];
        for (registry, written) in cases {
            let err = registry.parse(written).unwrap_err();
            assert!(err.contains(registry.label()), "{err}");
            assert!(err.contains("e.g."), "{err}");
        }
    }

    #[test]
    fn urls_are_the_registries_profile_pages() {
        assert_eq!(
            Registry::Dblp.url("123/4567"),
            "https://dblp.org/pid/123/4567.html"
        );
        assert_eq!(
            Registry::GoogleScholar.url("Zdc8d1YAAAAJ"),
            "https://scholar.google.com/citations?user=Zdc8d1YAAAAJ"
        );
        assert_eq!(
            Registry::Arxiv.url("vandesompel_h_1"),
            "https://arxiv.org/a/vandesompel_h_1"
        );
    }
}
