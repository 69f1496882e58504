//! Redirect pages of old URLs, and `_redirects` for static hosts.

use super::{OutputBuilder, Reads};
use crate::plan::paths::Linker;
use crate::plan::redirects::RedirectTarget;
use crate::plan::SiteIndex;
use crate::tex::push_escaped;

/// What the redirect page `n` reads: the card of the page it leads to.
pub(super) fn reads(ix: &SiteIndex, n: usize) -> Reads<'static> {
    match ix.redirects[n].to {
        RedirectTarget::Author(id) => Reads {
            authors: vec![id],
            ..Reads::default()
        },
        RedirectTarget::Paper(id) => Reads {
            papers: vec![id],
            ..Reads::default()
        },
    }
}

impl OutputBuilder<'_> {
    /// The site path and the title of the page a redirect leads to.
    fn redirect_target(&self, to: RedirectTarget) -> (&str, String) {
        match to {
            RedirectTarget::Author(id) => {
                let author = self.v.author(id);
                (author.path, author.profile.name.clone())
            }
            RedirectTarget::Paper(id) => {
                let paper = self.v.paper(id);
                (paper.path, paper.text.title_text.clone())
            }
        }
    }

    /// The page at an old URL: an immediate refresh to the new one, its canonical link,
    /// and a link for readers whose browsers do not follow the refresh. Search engines
    /// are asked not to index it.
    pub(super) fn redirect_page(&self, n: usize) -> Vec<u8> {
        let redirect = self.v.redirect(n);
        let (path, title) = self.redirect_target(redirect.to);
        let href = Linker::for_path(&redirect.from, self.v.pretty()).href(path);
        let canonical = self.v.public_url(path);
        let mut html = String::from("<!DOCTYPE html>\n<html lang=\"");
        push_escaped(&mut html, &self.v.config().language);
        html.push_str("\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
        push_escaped(&mut html, &title);
        html.push_str(
            "</title>\n<meta name=\"robots\" content=\"noindex\">\n<link rel=\"canonical\" href=\"",
        );
        push_escaped(&mut html, &canonical);
        html.push_str("\">\n<meta http-equiv=\"refresh\" content=\"0; url=");
        push_escaped(&mut html, &href);
        html.push_str("\">\n</head>\n<body>\n<p>This page has moved to <a href=\"");
        push_escaped(&mut html, &href);
        html.push_str("\">");
        push_escaped(&mut html, &title);
        html.push_str("</a>.</p>\n</body>\n</html>\n");
        html.into_bytes()
    }

    /// `/_redirects`: one line per redirect, `<old path> <new path> 301`, as Netlify,
    /// Cloudflare Pages and other static hosts read it (paths under the base URL's).
    pub(super) fn redirects_list(&self) -> Vec<u8> {
        let ix = self.v.whole_site();
        let base = ix
            .config
            .base_url
            .as_deref()
            .and_then(|url| url.splitn(4, '/').nth(3))
            .unwrap_or("");
        let absolute = |path: &str| format!("/{base}{path}");
        let mut text = String::new();
        for redirect in &ix.redirects {
            let to = match redirect.to {
                RedirectTarget::Author(id) => &ix.author_paths[id],
                RedirectTarget::Paper(id) => &ix.paper_paths[id],
            };
            text.push_str(&format!(
                "{} {} 301\n",
                absolute(&redirect.from),
                absolute(to)
            ));
        }
        text.into_bytes()
    }
}
