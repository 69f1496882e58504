//! Metadata for search engines, reference managers and link previews: canonical links,
//! OpenGraph and Twitter tags, Highwire Press `citation_*` tags (Google Scholar), and
//! schema.org JSON-LD.

use serde::Serialize;
use serde_json::json;

use super::OutputBuilder;
use crate::graph::{AuthorId, PaperId};
use crate::plan::paths::{subject_name, Linker};
use crate::plan::FeedKind;

/// Metadata of one page, for `base.html`'s `<head>`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PageMeta {
    /// Canonical URL (absolute with a base URL, root-relative otherwise).
    pub canonical: String,
    /// Whether the canonical URL is absolute.
    pub absolute: bool,
    /// OpenGraph type: `website`, `profile` or `article`.
    pub og_type: &'static str,
    /// Feeds to advertise with `<link rel="alternate">`.
    pub feeds: Vec<FeedLink>,
    /// Extra `<meta name=… content=…>` tags (Google Scholar's `citation_*`), in order.
    pub tags: Vec<MetaTag>,
    /// schema.org JSON-LD, already safe to place inside a `<script>` element.
    pub jsonld: Option<String>,
}

/// A feed advertised by a page.
#[derive(Debug, Clone, Serialize)]
pub struct FeedLink {
    /// Feed title.
    pub title: String,
    /// Link to the feed, relative to the page.
    pub href: String,
}

/// One `<meta name content>` tag.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MetaTag {
    /// The `name` attribute.
    pub name: &'static str,
    /// The `content` attribute (plain text; the template escapes it).
    pub content: String,
}

/// Serializes JSON-LD for a `<script type="application/ld+json">` element: `<`, `>` and
/// `&` become `\u003c`, `\u003e`, `\u0026` (and U+2028/U+2029 are escaped), so no input
/// can close the element or start a comment in it.
pub fn script_safe_json<T: Serialize + ?Sized>(value: &T) -> String {
    let text = serde_json::to_string(value).unwrap_or_else(|_| "{}".into());
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 16);
    // Copies the text in runs between the characters to escape, which are rare.
    let mut copied = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let (escape, len) = match (b, bytes.get(i + 1..i + 3)) {
            (b'<', _) => ("\\u003c", 1),
            (b'>', _) => ("\\u003e", 1),
            (b'&', _) => ("\\u0026", 1),
            // U+2028 and U+2029 in UTF-8.
            (0xE2, Some([0x80, 0xA8])) => ("\\u2028", 3),
            (0xE2, Some([0x80, 0xA9])) => ("\\u2029", 3),
            _ => continue,
        };
        out.push_str(&text[copied..i]);
        out.push_str(escape);
        copied = i + len;
    }
    out.push_str(&text[copied..]);
    out
}

impl OutputBuilder<'_> {
    /// The metadata every page has: canonical URL and the site feed.
    pub(super) fn base_meta(&self, site_path: &str, linker: &Linker) -> PageMeta {
        PageMeta {
            canonical: self.v.public_url(site_path),
            absolute: self.v.config().base_url.is_some(),
            og_type: "website",
            feeds: vec![self.feed_link(&FeedKind::Site, linker)],
            tags: Vec::new(),
            jsonld: None,
        }
    }

    pub(super) fn feed_link(&self, kind: &FeedKind, linker: &Linker) -> FeedLink {
        FeedLink {
            title: self.feed_title(kind),
            href: linker.href(&self.v.feed_path(kind)),
        }
    }

    /// JSON-LD `WebSite` for the home page.
    pub(super) fn website_jsonld(&self) -> String {
        let config = self.v.config();
        script_safe_json(&json!({
            "@context": "https://schema.org",
            "@type": "WebSite",
            "name": config.title,
            "description": config.description,
            "url": self.v.public_url(""),
            "inLanguage": config.language,
            "potentialAction": {
                "@type": "SearchAction",
                "target": {
                    "@type": "EntryPoint",
                    "urlTemplate": format!("{}?q={{search_term_string}}", self.v.public_url("search/")),
                },
                "query-input": "required name=search_term_string",
            },
        }))
    }

    /// JSON-LD `ProfilePage` with its `Person` for an author page.
    pub(super) fn profile_jsonld(&self, id: AuthorId) -> String {
        let author = self.v.author(id);
        let profile = author.profile;
        let url = self.v.public_url(author.path);
        let mut person = json!({
            "@type": "Person",
            "name": profile.name,
            "url": url,
        });
        if let Some(affiliation) = &profile.affiliation {
            person["affiliation"] = json!({"@type": "Organization", "name": affiliation});
        }
        let same_as: Vec<String> = profile
            .homepage
            .iter()
            .cloned()
            .chain(profile.identifiers.iter().map(|(r, id)| r.url(id)))
            .collect();
        if !same_as.is_empty() {
            person["sameAs"] = json!(same_as);
        }
        if !profile.identifiers.is_empty() {
            let identifiers: Vec<_> = profile
                .identifiers
                .iter()
                .map(|(registry, id)| {
                    json!({
                        "@type": "PropertyValue",
                        "propertyID": registry.label(),
                        "value": id,
                        "url": registry.url(id),
                    })
                })
                .collect();
            person["identifier"] = json!(identifiers);
        }
        if let Some(disambiguation) = &profile.disambiguation {
            person["disambiguatingDescription"] = json!(disambiguation);
        }
        if let Some(photo) = &profile.photo {
            person["image"] = json!(if crate::content::is_web_url(photo) {
                photo.clone()
            } else {
                self.v.public_url(photo.trim_start_matches('/'))
            });
        }
        script_safe_json(&json!({
            "@context": "https://schema.org",
            "@type": "ProfilePage",
            "url": url,
            "inLanguage": self.v.config().language,
            "mainEntity": person,
        }))
    }

    /// JSON-LD `ScholarlyArticle` for a paper page, with the paper's abstract as plain
    /// text (`clean_abstract`, read by the caller).
    pub(super) fn article_jsonld(&self, id: PaperId, clean_abstract: Option<&str>) -> String {
        // Fields in name order, as a JSON object map would write them.
        #[derive(Serialize)]
        struct Article<'a> {
            #[serde(rename = "@context")]
            context: &'static str,
            #[serde(rename = "@type")]
            kind: &'static str,
            #[serde(skip_serializing_if = "Vec::is_empty")]
            about: Vec<Thing<'a>>,
            #[serde(rename = "abstract", skip_serializing_if = "Option::is_none")]
            abstract_text: Option<&'a str>,
            author: Vec<Person<'a>>,
            #[serde(rename = "datePublished")]
            date_published: String,
            headline: &'a str,
            #[serde(rename = "inLanguage")]
            in_language: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            keywords: Option<String>,
            name: &'a str,
            publisher: Organization<'a>,
            url: String,
        }
        #[derive(Serialize)]
        struct Thing<'a> {
            #[serde(rename = "@type")]
            kind: &'static str,
            identifier: &'a str,
            name: String,
        }
        #[derive(Serialize)]
        struct Person<'a> {
            #[serde(rename = "@type")]
            kind: &'static str,
            name: &'a str,
            url: String,
        }
        #[derive(Serialize)]
        struct Organization<'a> {
            #[serde(rename = "@type")]
            kind: &'static str,
            name: &'a str,
        }
        let card = self.v.paper(id);
        let (paper, text) = (card.paper, card.text);
        script_safe_json(&Article {
            context: "https://schema.org",
            kind: "ScholarlyArticle",
            about: paper
                .subjects
                .iter()
                .map(|code| Thing {
                    kind: "Thing",
                    identifier: code,
                    name: subject_name(code),
                })
                .collect(),
            abstract_text: clean_abstract,
            author: paper
                .authors
                .iter()
                .map(|&a| {
                    let author = self.v.author(a);
                    Person {
                        kind: "Person",
                        name: &author.profile.name,
                        url: self.v.public_url(author.path),
                    }
                })
                .collect(),
            date_published: paper.year.to_string(),
            headline: &text.title_text,
            in_language: &self.v.config().language,
            keywords: (!paper.subjects.is_empty()).then(|| paper.subjects.join(", ")),
            name: &text.title_text,
            publisher: Organization {
                kind: "Organization",
                name: &paper.source,
            },
            url: card.url(),
        })
    }

    /// Google Scholar's Highwire Press tags for a paper page, authors in the paper's
    /// order, with its abstract as plain text (`clean_abstract`, read by the caller).
    pub(super) fn citation_tags(&self, id: PaperId, clean_abstract: Option<&str>) -> Vec<MetaTag> {
        let card = self.v.paper(id);
        let (paper, text) = (card.paper, card.text);
        let mut tags = vec![MetaTag {
            name: "citation_title",
            content: text.title_text.clone(),
        }];
        tags.extend(card.author_names().into_iter().map(|name| MetaTag {
            name: "citation_author",
            content: name.to_string(),
        }));
        tags.push(MetaTag {
            name: "citation_publication_date",
            content: paper.year.to_string(),
        });
        if let Some(abstract_text) = clean_abstract {
            tags.push(MetaTag {
                name: "citation_abstract",
                content: abstract_text.to_string(),
            });
        }
        if !paper.subjects.is_empty() {
            tags.push(MetaTag {
                name: "citation_keywords",
                content: paper
                    .subjects
                    .iter()
                    .map(|code| format!("{}; {code}", subject_name(code)))
                    .collect::<Vec<_>>()
                    .join("; "),
            });
        }
        tags.push(MetaTag {
            name: "citation_language",
            content: self.v.config().language.clone(),
        });
        tags.push(MetaTag {
            name: "citation_abstract_html_url",
            content: card.url(),
        });
        tags
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn json_ld_cannot_close_its_script_element() {
        let value = json!({"name": "</script><script>alert(1)</script> <!-- & \u{2028}"});
        let text = script_safe_json(&value);
        assert!(
            !text.contains('<') && !text.contains('>') && !text.contains('&'),
            "{text}"
        );
        assert!(!text.contains('\u{2028}'));
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, value, "still the same JSON");
    }

    #[test]
    fn json_ld_escapes_only_what_it_must() {
        let value = json!({"a": "x<y>&\u{2028}\u{2029}é\u{2027}€<", "b": "Łódź"});
        assert_eq!(
            script_safe_json(&value),
            "{\"a\":\"x\\u003cy\\u003e\\u0026\\u2028\\u2029é\u{2027}€\\u003c\",\"b\":\"Łódź\"}"
        );
    }
}
