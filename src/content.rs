//! Author bios (`content/authors/<slug>.md`) and extra pages (`content/pages/*.md`):
//! YAML front matter plus a Markdown body.
//!
//! Markdown is rendered with pulldown-cmark. Raw HTML in Markdown is shown as text,
//! never passed through, and links with scripting schemes are neutralized: the site
//! contains no markup that did not come from its templates.

use std::path::{Path, PathBuf};

use pulldown_cmark::{html, CowStr, Event, Options, Parser, Tag};
use serde::Deserialize;

use crate::config::{locate_keys, yaml_diagnostic, AuthorDetails};
use crate::diagnostics::{Diagnostic, Location};

/// An author bio, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bio {
    /// The file's stem: the author slug it belongs to.
    pub slug: String,
    /// The file, for diagnostics.
    pub path: PathBuf,
    /// Front matter.
    pub front: AuthorDetails,
    /// The body rendered to safe HTML.
    pub body_html: String,
}

/// Front matter of an extra page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PageFrontMatter {
    /// Page title (defaults to the file name).
    pub title: Option<String>,
    /// Position in the navigation: lower first, then by title.
    pub weight: i64,
    /// One-sentence description for the page's meta tags.
    pub description: Option<String>,
}

/// An extra page, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtraPage {
    /// URL segment: `/<slug>/`.
    pub slug: String,
    /// The file, for diagnostics.
    pub path: PathBuf,
    /// Title.
    pub title: String,
    /// Navigation order.
    pub weight: i64,
    /// Description for meta tags.
    pub description: Option<String>,
    /// The body rendered to safe HTML.
    pub body_html: String,
}

/// Splits `---\nYAML\n---\nbody` into front matter text, the number of lines before it,
/// and the body. Files without front matter are all body.
pub fn split_front_matter(text: &str) -> (Option<&str>, usize, &str) {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return (None, 0, text);
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            let front = &rest[..offset];
            let body = &rest[offset + line.len()..];
            return (Some(front), 1, body);
        }
        offset += line.len();
    }
    (None, 0, text)
}

/// Parses a bio file. `slug` is the file stem.
pub fn parse_bio(path: &Path, slug: &str, text: &str) -> Result<Bio, Diagnostic> {
    let (front, offset, body) = split_front_matter(text);
    let front: AuthorDetails = match front {
        Some(front) if !front.trim().is_empty() => {
            let mut details: AuthorDetails = serde_yaml::from_str(front)
                .map_err(|err| yaml_diagnostic(path, front, offset, &err))?;
            details.written_at = locate_keys(path, front, offset, &[]);
            details
                .written_at
                .insert(String::new(), Location::at_line(path, 1, 1, "---", 3));
            details
        }
        _ => AuthorDetails::default(),
    };
    Ok(Bio {
        slug: slug.to_string(),
        path: path.to_path_buf(),
        front,
        body_html: markdown_to_html(body),
    })
}

/// Parses an extra page. `slug` is the URL segment derived from the file stem.
pub fn parse_page(path: &Path, slug: &str, text: &str) -> Result<ExtraPage, Diagnostic> {
    let (front, offset, body) = split_front_matter(text);
    let front: PageFrontMatter = match front {
        Some(front) if !front.trim().is_empty() => {
            serde_yaml::from_str(front).map_err(|err| yaml_diagnostic(path, front, offset, &err))?
        }
        _ => PageFrontMatter::default(),
    };
    let title = front.title.unwrap_or_else(|| {
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or(slug);
        let mut chars = stem.chars();
        chars
            .next()
            .map(|c| c.to_uppercase().chain(chars).collect())
            .unwrap_or_default()
    });
    Ok(ExtraPage {
        slug: slug.to_string(),
        path: path.to_path_buf(),
        title,
        weight: front.weight,
        description: front.description,
        body_html: markdown_to_html(body),
    })
}

/// Renders Markdown to HTML with raw HTML shown as text and unsafe link schemes removed.
pub fn markdown_to_html(markdown: &str) -> String {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_SMART_PUNCTUATION;
    let events = Parser::new_ext(markdown, options).map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url: safe_url(dest_url),
            title,
            id,
        }),
        Event::Start(Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Image {
            link_type,
            dest_url: safe_url(dest_url),
            title,
            id,
        }),
        other => other,
    });
    let mut out = String::new();
    html::push_html(&mut out, events);
    out
}

fn safe_url(url: CowStr<'_>) -> CowStr<'_> {
    if is_safe_url(&url) {
        url
    } else {
        CowStr::Borrowed("#")
    }
}

/// Whether a link target is safe to put in an `href`/`src`: relative, or http(s),
/// mailto. Scripting schemes (`javascript:`, `vbscript:`, `data:`) are not.
pub fn is_safe_url(url: &str) -> bool {
    let cleaned: String = url
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .collect::<String>()
        .to_ascii_lowercase();
    match cleaned.find(':') {
        None => true,
        Some(colon) => {
            let scheme = &cleaned[..colon];
            // A colon after a path or query character is not a scheme separator.
            if scheme.contains(['/', '?', '#']) {
                return true;
            }
            matches!(scheme, "http" | "https" | "mailto")
        }
    }
}

/// Whether `url` is an absolute http(s) URL, for homepages.
pub fn is_web_url(url: &str) -> bool {
    let url = url.trim();
    (url.starts_with("https://") || url.starts_with("http://"))
        && url.len() > 8
        && !url.contains(char::is_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_split() {
        let (front, offset, body) = split_front_matter("---\na: 1\n---\nBody\n");
        assert_eq!(front, Some("a: 1\n"));
        assert_eq!(offset, 1);
        assert_eq!(body, "Body\n");
        assert_eq!(
            split_front_matter("No front matter"),
            (None, 0, "No front matter")
        );
        assert_eq!(split_front_matter("---\nunclosed").0, None);
    }

    #[test]
    fn bio_parses_and_renders_markdown() {
        let bio = parse_bio(
            Path::new("content/authors/zoe.md"),
            "zoe",
            "---\naffiliation: ETH Zürich\norcid: 0000-0002-1825-0097\n---\nWorks on *graphs*.\n",
        )
        .unwrap();
        assert_eq!(bio.front.affiliation.as_deref(), Some("ETH Zürich"));
        assert_eq!(bio.body_html, "<p>Works on <em>graphs</em>.</p>\n");
    }

    #[test]
    fn bio_front_matter_errors_point_into_the_file() {
        let err = parse_bio(
            Path::new("b.md"),
            "b",
            "---\naffiliation: X\nphone: 1\n---\n",
        )
        .unwrap_err();
        assert!(
            err.message.contains("unknown field `phone`"),
            "{}",
            err.message
        );
        assert_eq!(err.location.unwrap().line, 3);
    }

    #[test]
    fn raw_html_and_script_links_are_neutralized() {
        let html = markdown_to_html(
            "<script>alert(1)</script>\n\nHi <img src=x onerror=alert(1)> [x](javascript:alert(1)) [y]( JaVa\tScRiPt:alert(1)) ![i](data:text/html,x) [ok](https://example.org/a:b)",
        );
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img src=x"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
        assert!(!html.to_lowercase().contains("javascript:"), "{html}");
        assert!(!html.contains("data:text"), "{html}");
        assert!(html.contains("href=\"https://example.org/a:b\""), "{html}");
    }

    #[test]
    fn url_safety() {
        assert!(is_safe_url("/a/b"));
        assert!(is_safe_url("https://x.org"));
        assert!(is_safe_url("page?x=a:b"));
        assert!(!is_safe_url("javascript:alert(1)"));
        assert!(!is_safe_url(" java\nscript:x"));
        assert!(!is_safe_url("vbscript:x"));
        assert!(is_web_url("https://x.org/"));
        assert!(!is_web_url("ftp://x.org"));
        assert!(!is_web_url("https://"));
    }

    #[test]
    fn page_title_defaults_to_file_name() {
        let page = parse_page(Path::new("content/pages/about.md"), "about", "Hello").unwrap();
        assert_eq!(page.title, "About");
        assert_eq!(page.body_html, "<p>Hello</p>\n");
    }
}
