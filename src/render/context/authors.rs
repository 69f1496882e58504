//! The authors: the A-Z index of all of them, and each author's page (profile,
//! papers by year, subjects, co-authors and their graph, publication lists).

use std::collections::BTreeMap;

use super::{
    export_links, AuthorCount, LetterGroup, OutputBuilder, PageContext, PageData, Reads,
    SubjectLink,
};
use crate::coauthor_graph::{coauthor_svg, GraphNode};
use crate::content::is_web_url;
use crate::graph::AuthorId;
use crate::plan::paths::{paged_path, Linker};
use crate::plan::FeedKind;

/// The index lists every author with their number of papers.
pub(super) fn index_reads() -> Reads<'static> {
    Reads {
        whole_site: true,
        ..Reads::default()
    }
}

/// An author's page shows their card, their papers and co-authors.
pub(super) fn page_reads(id: AuthorId) -> Reads<'static> {
    Reads {
        author_lists: vec![id],
        ..Reads::default()
    }
}

impl OutputBuilder<'_> {
    pub(super) fn authors_index(&self) -> PageContext {
        let ix = self.v.whole_site();
        let graph = ix.graph;
        self.page(
            "authors/",
            "Authors".into(),
            format!("All {} authors, A to Z", graph.authors.len()),
            |linker| {
                let mut sorted: Vec<(String, AuthorId)> = (0..graph.authors.len())
                    .map(|id| (family_sort_key(&ix.profiles[id].name), id))
                    .collect();
                sorted.sort();
                let mut letters: Vec<LetterGroup> = Vec::new();
                for (key, id) in sorted {
                    let letter = key
                        .chars()
                        .next()
                        .filter(char::is_ascii_alphabetic)
                        .map(|c| c.to_ascii_uppercase().to_string())
                        .unwrap_or_else(|| "#".into());
                    if letters.last().is_none_or(|g| g.letter != letter) {
                        letters.push(LetterGroup {
                            letter: letter.clone(),
                            authors: Vec::new(),
                        });
                    }
                    if let Some(group) = letters.last_mut() {
                        group.authors.push(AuthorCount {
                            name: ix.profiles[id].name.clone(),
                            href: linker.href(&ix.author_paths[id]),
                            count: graph.authors[id].papers.len(),
                        });
                    }
                }
                // `#` (names that transliterate to no letter) goes last.
                letters.sort_by_key(|g| g.letter == "#");
                PageData::Authors {
                    letters,
                    author_count: graph.authors.len(),
                }
            },
        )
    }

    pub(super) fn author_page(&self, id: AuthorId, page: usize) -> PageContext {
        let card = self.v.author(id);
        let profile = card.profile;
        let papers = self.v.author_papers(id);
        let (first, last) = papers
            .iter()
            .map(|&p| self.v.paper(p).paper.year)
            .fold((u16::MAX, 0), |(lo, hi), y| (lo.min(y), hi.max(y)));
        let years_active = match papers.len() {
            0 => String::new(),
            _ if first == last => first.to_string(),
            _ => format!("{first}–{last}"),
        };
        let description = format!(
            "{}: {} paper{}{}",
            profile.name,
            papers.len(),
            if papers.len() == 1 { "" } else { "s" },
            if years_active.is_empty() {
                String::new()
            } else {
                format!(", {years_active}")
            }
        );
        let base = card.path;
        let site_path = &paged_path(base, page);
        let title = if page == 0 {
            profile.name.clone()
        } else {
            format!("{} (page {})", profile.name, page + 1)
        };
        let mut context = self.page(site_path, title, description, |linker| {
            let (slice, pagination, year_index) = self.paging(base, papers, page, linker);
            let mut subject_counts: BTreeMap<&str, usize> = BTreeMap::new();
            for &p in papers {
                for s in &self.v.paper(p).paper.subjects {
                    *subject_counts.entry(s.as_str()).or_default() += 1;
                }
            }
            let mut subjects: Vec<SubjectLink> = subject_counts
                .into_iter()
                .map(|(code, n)| self.subject_link(code, n, linker))
                .collect();
            subjects.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.code.cmp(&b.code)));
            let coauthors: Vec<AuthorCount> = self
                .v
                .coauthors(id)
                .iter()
                .map(|&(other, shared)| {
                    let other = self.v.author(other);
                    AuthorCount {
                        name: other.profile.name.clone(),
                        href: linker.href(other.path),
                        count: shared,
                    }
                })
                .collect();
            PageData::Author {
                name: profile.name.clone(),
                bio_html: profile.bio_html.clone(),
                affiliation: profile.affiliation.clone(),
                homepage: profile.homepage.clone(),
                orcid: profile.orcid.clone(),
                photo: profile.photo.as_ref().map(|photo| {
                    if is_web_url(photo) {
                        photo.clone()
                    } else {
                        linker.href(photo.trim_start_matches('/'))
                    }
                }),
                paper_count: papers.len(),
                years_active,
                subjects,
                years: self.by_year(slice, linker),
                year_index,
                pagination,
                coauthors: coauthors.clone(),
                coauthor_graph: {
                    let nodes: Vec<GraphNode> = coauthors
                        .iter()
                        .map(|c| GraphNode {
                            name: &c.name,
                            href: &c.href,
                            shared: c.count,
                        })
                        .collect();
                    coauthor_svg(&profile.name, &nodes, "#coauthors-heading")
                },
                exports: export_links(linker, site_path, "publications"),
            }
        });
        let linker = Linker::for_path(site_path, self.v.pretty());
        let meta = &mut context.page.meta;
        meta.og_type = "profile";
        meta.feeds
            .push(self.feed_link(&FeedKind::Author(id), &linker));
        meta.jsonld = Some(self.profile_jsonld(id));
        context
    }
}

/// Sort key for the A-Z index: transliterated family name (last word), then the rest.
fn family_sort_key(name: &str) -> String {
    let ascii = deunicode::deunicode(name).to_lowercase();
    let mut words: Vec<&str> = ascii.split_whitespace().collect();
    match words.pop() {
        Some(last) => format!("{last} {}", words.join(" ")),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn family_name_sorting() {
        assert_eq!(family_sort_key("Zhongbo Zhu"), "zhu zhongbo");
        assert_eq!(family_sort_key("Łukasz Nowak"), "nowak lukasz");
        assert_eq!(family_sort_key(""), "");
    }
}
