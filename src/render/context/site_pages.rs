//! The site's own pages: extra pages from `content/pages/`, the search page and the 404
//! page.

use super::{OutputBuilder, PageContext, PageData, Reads};
use crate::plan::paths::Linker;

/// The search page gives the numbers of authors and papers.
pub(super) fn search_reads() -> Reads<'static> {
    Reads::whole_site()
}

impl OutputBuilder<'_> {
    pub(super) fn extra_page(&self, i: usize) -> PageContext {
        let page = self.v.extra_pages()[i];
        let site_path = format!("{}/", page.slug);
        self.page(
            &site_path,
            page.title.clone(),
            page.description
                .clone()
                .unwrap_or_else(|| page.title.clone()),
            |_| PageData::Extra {
                body_html: page.body_html.clone(),
            },
        )
    }

    pub(super) fn search_page(&self) -> PageContext {
        self.page(
            "search/",
            "Search".into(),
            format!(
                "Search {} authors and {} papers",
                self.v.whole_site().graph.authors.len(),
                self.v.whole_site().graph.papers.len()
            ),
            |linker| PageData::Search {
                root: linker.root.clone(),
                authors_href: linker.href("authors/"),
            },
        )
    }

    pub(super) fn not_found(&self) -> PageContext {
        let base_path = self
            .v
            .config()
            .base_url
            .as_deref()
            .and_then(|url| url.find("://").map(|i| &url[i + 3..]))
            .and_then(|rest| rest.find('/').map(|i| rest[i..].to_string()))
            .unwrap_or_else(|| "/".to_string());
        let linker = Linker::absolute(&base_path, self.v.pretty());
        self.page_with(
            "404.html",
            linker,
            "Page not found".into(),
            "This page does not exist.".into(),
            |linker| PageData::NotFound {
                authors_href: linker.href("authors/"),
            },
        )
    }
}
