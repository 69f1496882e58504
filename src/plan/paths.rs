//! Where things are: the site path of every page, the links between pages (relative, so
//! that a site works under any path and from disk) and the published URLs.

use crate::config::SiteConfig;
use crate::graph::{Author, Paper};
use crate::slug::subject_segment;
use crate::taxonomy::category_name;

/// How many papers a page lists at most; longer lists (an author's, a subject's, a
/// year's) continue on `page/2/`, `page/3/`, ...
pub const PAGE_SIZE: usize = 400;

/// Resolves site paths to links relative to one page.
#[derive(Debug, Clone)]
pub struct Linker {
    /// Prefix from the page to the site root: `""`, `"../"`, `"../../"`, or an absolute
    /// base path for pages served at any depth (404).
    pub root: String,
    /// The folder of the page (`papers/x/`), for short links to files beside it; empty
    /// for pages linked absolutely.
    pub here: String,
    /// Whether directories are linked as `x/` (else `x/index.html`).
    pub pretty: bool,
}

impl Linker {
    /// Links from the page at site path `path`.
    pub fn for_path(path: &str, pretty: bool) -> Linker {
        let depth = path.matches('/').count();
        let here = path.rfind('/').map_or("", |i| &path[..=i]);
        Linker {
            root: "../".repeat(depth),
            here: here.to_string(),
            pretty,
        }
    }

    /// Links from a page served at any depth, through the absolute `base_path`.
    pub fn absolute(base_path: &str, pretty: bool) -> Linker {
        Linker {
            root: base_path.to_string(),
            here: String::new(),
            pretty,
        }
    }

    /// Link to a site path such as `authors/x/` (directories end in `/`) or `style.css`.
    pub fn href(&self, site_path: &str) -> String {
        let is_dir = site_path.is_empty() || site_path.ends_with('/');
        let (prefix, rest) = match site_path.strip_prefix(self.here.as_str()) {
            Some(rest) if !self.here.is_empty() => ("", rest),
            _ => (self.root.as_str(), site_path),
        };
        if rest.is_empty() && prefix.is_empty() && self.pretty {
            return "./".to_string();
        }
        let mut href = String::with_capacity(prefix.len() + rest.len() + 10);
        href.push_str(prefix);
        href.push_str(rest);
        if is_dir && !self.pretty {
            href.push_str("index.html");
        }
        href
    }
}

/// Site path of an author page.
pub fn author_path(author: &Author) -> String {
    format!("authors/{}/", author.slug)
}

/// Site path of a paper page.
pub fn paper_path(paper: &Paper) -> String {
    format!("papers/{}/", paper.slug)
}

/// Site path of a subject page.
pub fn subject_path(code: &str) -> String {
    format!("subjects/{}/", subject_segment(code))
}

/// Site path of the page of the authors whose family names start with `letter` (`A`
/// to `Z`, or `#`): `authors/_a/`, `authors/_other/`. Slugs have no `_`, so it is never
/// an author's path.
pub fn letter_path(letter: &str) -> String {
    match letter {
        "#" => "authors/_other/".to_string(),
        letter => format!("authors/_{}/", letter.to_ascii_lowercase()),
    }
}

/// Site path of a year page.
pub fn year_path(year: u16) -> String {
    format!("years/{year:04}/")
}

/// The output file of a site path (`authors/x/` -> `authors/x/index.html`).
pub fn output_path(site_path: &str) -> String {
    if site_path.is_empty() || site_path.ends_with('/') {
        format!("{site_path}index.html")
    } else {
        site_path.to_string()
    }
}

/// The full name of a subject code, or the code itself when unknown.
pub fn subject_name(code: &str) -> String {
    category_name(code).unwrap_or(code).to_string()
}

/// Number of pages a list of `len` papers takes (at least one).
pub fn page_count(len: usize) -> usize {
    len.div_ceil(PAGE_SIZE).max(1)
}

/// The items on page `page` (from 0) of a paginated `list` ([`PAGE_SIZE`] a page; none
/// past the last page).
pub fn page_of<T>(list: &[T], page: usize) -> &[T] {
    let start = page.saturating_mul(PAGE_SIZE).min(list.len());
    &list[start..start.saturating_add(PAGE_SIZE).min(list.len())]
}

/// Site path of page `page` (from 0) of a list whose first page is `base`.
pub fn paged_path(base: &str, page: usize) -> String {
    if page == 0 {
        base.to_string()
    } else {
        format!("{base}page/{}/", page + 1)
    }
}

/// The URL a site path is published at: absolute with a base URL, root-relative
/// otherwise.
pub fn public_url(config: &SiteConfig, site_path: &str) -> String {
    match &config.base_url {
        Some(base) => format!("{base}{site_path}"),
        None => format!("/{site_path}"),
    }
}

/// An identifier for a site path: its absolute URL with a base URL, a `urn:` otherwise.
pub fn stable_id(config: &SiteConfig, site_path: &str) -> String {
    match &config.base_url {
        Some(base) => format!("{base}{site_path}"),
        None => format!(
            "urn:profilegen:{}",
            site_path.trim_end_matches('/').replace('/', ":")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_relative_to_the_page() {
        let deep = Linker::for_path("authors/x/", true);
        assert_eq!(deep.href("papers/p/"), "../../papers/p/");
        assert_eq!(deep.href(""), "../../");
        let home = Linker::for_path("", true);
        assert_eq!(home.href(""), "./");
        assert_eq!(home.href("authors/"), "authors/");
        let files = Linker::for_path("authors/x/", false);
        assert_eq!(files.href("papers/p/"), "../../papers/p/index.html");
        assert_eq!(
            files.href("authors/x/atom.xml"),
            "atom.xml",
            "files beside the page"
        );
        assert_eq!(files.href("authors/x/"), "index.html");
        assert_eq!(deep.href("authors/x/"), "./");
        assert_eq!(deep.href("authors/xy/"), "../../authors/xy/");
        assert_eq!(files.href("style.css"), "../../style.css");
        assert_eq!(Linker::for_path("", false).href(""), "index.html");
        assert_eq!(
            Linker::absolute("/lab/", true).href("authors/"),
            "/lab/authors/"
        );
    }

    #[test]
    fn output_paths() {
        assert_eq!(output_path(""), "index.html");
        assert_eq!(output_path("authors/x/"), "authors/x/index.html");
        assert_eq!(output_path("404.html"), "404.html");
        assert_eq!(subject_path("cs.DC"), "subjects/cs.DC/");
        assert_eq!(letter_path("A"), "authors/_a/");
        assert_eq!(letter_path("#"), "authors/_other/");
        assert!(!crate::slug::is_slug("_a"), "never an author's slug");
        assert_eq!(year_path(2026), "years/2026/");
    }
}
