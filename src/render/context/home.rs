//! The home page: the site's numbers, its most prolific authors, newest papers and
//! largest subjects.

use super::{
    AuthorCount, OutputBuilder, PageContext, PageData, Reads, SubjectLink, HOME_AUTHORS,
    HOME_NEWEST_PAPERS,
};
use crate::graph::AuthorId;

/// The home page summarizes the whole site.
pub(super) fn reads() -> Reads<'static> {
    Reads {
        newest: HOME_NEWEST_PAPERS,
        all_subject_counts: true,
        ..Reads::whole_site()
    }
}

impl OutputBuilder<'_> {
    pub(super) fn home(&self) -> PageContext {
        let ix = self.v.whole_site();
        let graph = ix.graph;
        let config = self.v.config();
        let description = if config.description.is_empty() {
            format!(
                "{} authors, {} papers",
                graph.authors.len(),
                graph.papers.len()
            )
        } else {
            config.description.clone()
        };
        let mut context = self.page("", config.title.clone(), description, |linker| {
            let mut by_count: Vec<AuthorId> = (0..graph.authors.len()).collect();
            // Most papers first, then by slug (the order of the ids).
            by_count.sort_unstable_by_key(|&id| {
                (std::cmp::Reverse(graph.authors[id].papers.len()), id)
            });
            let authors = by_count
                .iter()
                .take(HOME_AUTHORS)
                .map(|&id| AuthorCount {
                    name: ix.profiles[id].name.clone(),
                    href: linker.href(&ix.author_paths[id]),
                    count: graph.authors[id].papers.len(),
                })
                .collect();
            let mut subjects: Vec<SubjectLink> = self
                .v
                .subject_counts()
                .map(|(code, count)| self.subject_link(code, Some(count), linker))
                .collect();
            subjects.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.code.cmp(&b.code)));
            subjects.truncate(12);
            PageData::Home {
                author_count: graph.authors.len(),
                paper_count: graph.papers.len(),
                shared_count: graph.shared_paper_count(),
                subject_count: ix.subjects.len(),
                authors,
                all_authors_listed: graph.authors.len() <= HOME_AUTHORS,
                authors_href: linker.href("authors/"),
                newest: self
                    .v
                    .newest(HOME_NEWEST_PAPERS)
                    .iter()
                    .map(|&id| self.list_item(id, linker))
                    .collect(),
                subjects,
            }
        });
        context.page.meta.jsonld = Some(self.website_jsonld());
        context
    }
}
