//! Where things are: the site path of every page, the links between pages (relative, so
//! that a site works under any path and from disk) and the published URLs.

use rayon::prelude::*;

use crate::config::{PageLayout, SiteConfig};
use crate::graph::SiteGraph;
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

/// Site path of the page of the author with slug `slug`: `authors/<slug>/`, or
/// `authors/<slug>.html` in the [`PageLayout::Files`] layout.
pub fn author_path(slug: &str, layout: PageLayout) -> String {
    entity_path("authors", slug, layout)
}

/// Site path of the page of the paper with slug `slug`: `papers/<slug>/`, or
/// `papers/<slug>.html` in the [`PageLayout::Files`] layout.
pub fn paper_path(slug: &str, layout: PageLayout) -> String {
    entity_path("papers", slug, layout)
}

/// The site path of each author's page and of each paper's page, by id, made on every
/// thread (on one, the 700,000 paths of a 500,000-paper site took a tenth of a second
/// of each rebuild).
pub fn page_paths(graph: &SiteGraph, layout: PageLayout) -> (Vec<String>, Vec<String>) {
    let authors = (graph.authors.par_iter())
        .map(|author| author_path(&author.slug, layout))
        .collect();
    let papers = (graph.papers.par_iter())
        .map(|paper| paper_path(&paper.slug, layout))
        .collect();
    (authors, papers)
}

/// `<folder>/<slug>/` or `<folder>/<slug>.html`, joined into one allocation of the
/// right size rather than through the formatting machinery.
fn entity_path(folder: &str, slug: &str, layout: PageLayout) -> String {
    let end = match layout {
        PageLayout::Folders => "/",
        PageLayout::Files => ".html",
    };
    let mut path = String::with_capacity(folder.len() + 1 + slug.len() + end.len());
    for part in [folder, "/", slug, end] {
        path.push_str(part);
    }
    path
}

/// The slug of an author's or paper's page path in either layout (`authors/<slug>/`,
/// `papers/<slug>.html`), if it is one.
pub fn entity_slug(path: &str) -> Option<&str> {
    let rest = (path.strip_prefix("authors/")).or_else(|| path.strip_prefix("papers/"))?;
    let slug = (rest.strip_suffix('/')).or_else(|| rest.strip_suffix(".html"))?;
    crate::slug::is_slug(slug).then_some(slug)
}

/// The site path of a file that belongs to the page at `page_path`: `name` inside the
/// page's folder (`authors/x/atom.xml`), or beside a page that is a file, after its
/// name (`authors/x.atom.xml`).
pub fn beside(page_path: &str, name: &str) -> String {
    match page_path.strip_suffix(".html") {
        Some(stem) => format!("{stem}.{name}"),
        None => format!("{page_path}{name}"),
    }
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

/// A page's citation downloads, when they are files: what they are named, and where
/// they go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Download {
    /// A paper's citation: `cite.<extension>`.
    PaperCitation,
    /// An author's publication list: `publications.<extension>`.
    AuthorPublications,
}

impl Download {
    /// The file name of the download in the format of `extension` (`cite.bib`).
    pub fn file_name(self, extension: &str) -> String {
        let stem = match self {
            Download::PaperCitation => "cite",
            Download::AuthorPublications => "publications",
        };
        format!("{stem}.{extension}")
    }

    /// The site path of the download of the page at `page_path`, [`beside`] the page.
    pub fn path(self, page_path: &str, extension: &str) -> String {
        beside(page_path, &self.file_name(extension))
    }
}

/// Site path of page `page` (from 0) of a list whose first page is `base`: `base`
/// itself, then `<base>page/2/` (or `<stem>/page/2.html` after a page that is a file,
/// `authors/x.html`).
pub fn paged_path(base: &str, page: usize) -> String {
    match (page, base.strip_suffix(".html")) {
        (0, _) => base.to_string(),
        (_, Some(stem)) => format!("{stem}/page/{}.html", page + 1),
        (_, None) => format!("{base}page/{}/", page + 1),
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

/// The path of the same page or file in the [`PageLayout::Folders`] layout:
/// `papers/x.html` -> `papers/x/`, `authors/x.atom.xml` -> `authors/x/atom.xml`; any
/// other path is itself.
fn in_folders(site_path: &str) -> std::borrow::Cow<'_, str> {
    let Some((folder, name)) = site_path.split_once('/') else {
        return site_path.into();
    };
    let beside_page = (name.split_once('.'))
        .filter(|(slug, _)| matches!(folder, "authors" | "papers") && crate::slug::is_slug(slug));
    match beside_page {
        Some((slug, "html")) => format!("{folder}/{slug}/").into(),
        Some((slug, file)) => format!("{folder}/{slug}/{file}").into(),
        None => site_path.into(),
    }
}

/// An identifier for a site path: its absolute URL with a base URL, a `urn:` otherwise.
pub fn stable_id(config: &SiteConfig, site_path: &str) -> String {
    match &config.base_url {
        Some(base) => format!("{base}{site_path}"),
        // The same in either page layout: a feed and its entries keep their ids.
        None => format!(
            "urn:profilegen:{}",
            in_folders(site_path)
                .trim_end_matches('/')
                .replace('/', ":")
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

    #[test]
    fn pages_as_folders_or_files() {
        let (folders, files) = (PageLayout::Folders, PageLayout::Files);
        assert_eq!(author_path("ada", folders), "authors/ada/");
        assert_eq!(author_path("ada", files), "authors/ada.html");
        assert_eq!(paper_path("notes-2024", folders), "papers/notes-2024/");
        assert_eq!(paper_path("notes-2024", files), "papers/notes-2024.html");
        assert_eq!(
            output_path("papers/notes-2024.html"),
            "papers/notes-2024.html"
        );
        // What belongs to a page goes inside its folder or beside its file.
        assert_eq!(beside("authors/ada/", "atom.xml"), "authors/ada/atom.xml");
        assert_eq!(
            beside("authors/ada.html", "atom.xml"),
            "authors/ada.atom.xml"
        );
        assert_eq!(
            Download::PaperCitation.path("papers/n.html", "bib"),
            "papers/n.cite.bib"
        );
        assert_eq!(
            Download::PaperCitation.path("papers/n/", "bib"),
            "papers/n/cite.bib"
        );
        assert_eq!(
            Download::AuthorPublications.path("authors/ada.html", "ris"),
            "authors/ada.publications.ris"
        );
        assert_eq!(
            beside("subjects/cs.DC/", "atom.xml"),
            "subjects/cs.DC/atom.xml"
        );
        // Further pages of a list.
        assert_eq!(paged_path("authors/ada/", 0), "authors/ada/");
        assert_eq!(paged_path("authors/ada/", 2), "authors/ada/page/3/");
        assert_eq!(paged_path("authors/ada.html", 0), "authors/ada.html");
        assert_eq!(paged_path("authors/ada.html", 1), "authors/ada/page/2.html");
        // A file is linked as itself, whether directories are linked pretty or not.
        for pretty in [true, false] {
            let linker = Linker::for_path("papers/n.html", pretty);
            assert_eq!(linker.href("authors/ada.html"), "../authors/ada.html");
            assert_eq!(linker.href("papers/m.html"), "m.html");
            assert_eq!(linker.href("papers/n.cite.bib"), "n.cite.bib");
        }
        let paged = Linker::for_path("authors/ada/page/2.html", false);
        assert_eq!(paged.href("authors/ada.html"), "../../../authors/ada.html");
        assert_eq!(paged.href("papers/n.html"), "../../../papers/n.html");
        // Slugs read back from either layout; nothing else is a page's path.
        assert_eq!(entity_slug("authors/ada/"), Some("ada"));
        assert_eq!(entity_slug("papers/notes-2024.html"), Some("notes-2024"));
        for other in [
            "authors/_a/",
            "authors/ada",
            "authors/a/b/",
            "subjects/x/",
            "papers/.html",
        ] {
            assert_eq!(entity_slug(other), None, "{other}");
        }
        // A feed entry's id does not depend on the layout.
        let config = SiteConfig::default();
        for (file, folder) in [
            ("papers/notes-2024.html", "papers/notes-2024/"),
            ("authors/ada.atom.xml", "authors/ada/atom.xml"),
        ] {
            assert_eq!(stable_id(&config, file), stable_id(&config, folder));
        }
        assert_eq!(
            stable_id(&config, "authors/ada.atom.xml"),
            "urn:profilegen:authors:ada:atom.xml"
        );
        for other in [
            "subjects/cs.DC/atom.xml",
            "atom.xml",
            "authors/_a/",
            "404.html",
        ] {
            assert_eq!(in_folders(other), other);
        }
    }
}
