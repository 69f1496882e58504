//! The authors: the A-Z index of all of them, and each author's page (profile,
//! papers by year, subjects, co-authors and their graph, publication lists).

use std::collections::BTreeMap;

use super::{
    pagination, AuthorCount, IdentifierLink, LetterGroup, LetterLink, OutputBuilder, PageContext,
    PageData, Reads, SubjectLink, COAUTHORS_LISTED,
};
use crate::coauthor_graph::{coauthor_svg, GraphNode};
use crate::content::is_web_url;
use crate::graph::AuthorId;
use crate::plan::paths::{letter_path, paged_path, Linker};
use crate::plan::{FeedKind, SiteIndex};

/// The index lists every author with their number of papers; when it is split, the
/// letters with their numbers of authors.
pub(super) fn index_reads(ix: &SiteIndex) -> Reads<'static> {
    if ix.splits_authors_index() {
        return Reads {
            author_letters: true,
            ..Reads::default()
        };
    }
    Reads::whole_site()
}

/// A letter's page lists its authors (with their numbers of papers), its number of
/// authors and pages, and links to the other letters (without their numbers).
pub(super) fn letter_reads(ix: &SiteIndex, i: usize, page: usize) -> Reads<'static> {
    Reads {
        author_lists: ix.letter_page(i, page).to_vec(),
        letter_names: true,
        letter: Some(i),
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
        let author_count: usize = self.v.author_letters().map(|(_, n)| n).sum();
        self.page(
            "authors/",
            "Authors".into(),
            format!("All {author_count} authors, A to Z"),
            |linker| {
                if self.v.splits_authors_index() {
                    PageData::Authors {
                        letters: Vec::new(),
                        author_count,
                        letter_pages: self.letter_links(linker),
                    }
                } else {
                    PageData::Authors {
                        letters: self.letter_groups(linker),
                        author_count,
                        letter_pages: Vec::new(),
                    }
                }
            },
        )
    }

    /// Every letter with every one of its authors (for an index on one page).
    fn letter_groups(&self, linker: &Linker) -> Vec<LetterGroup> {
        let ix = self.v.whole_site();
        ix.author_letters
            .iter()
            .map(|letter| LetterGroup {
                letter: letter.letter.clone(),
                authors: letter
                    .authors
                    .iter()
                    .map(|&id| self.author_count(id, linker))
                    .collect(),
            })
            .collect()
    }

    /// An author's name and link with their number of papers.
    fn author_count(&self, id: AuthorId, linker: &Linker) -> AuthorCount {
        let author = self.v.author(id);
        AuthorCount {
            name: author.profile.name.clone(),
            href: linker.href(author.path),
            count: self.v.author_papers(id).len(),
        }
    }

    /// Links to every letter's page with its number of authors, for the authors index.
    fn letter_links(&self, linker: &Linker) -> Vec<LetterLink> {
        (self.v.author_letters())
            .map(|(letter, count)| letter_link(letter, Some(count), false, linker))
            .collect()
    }

    /// Links to every letter's page, on the page of letter `current`.
    fn other_letter_links(&self, current: &str, linker: &Linker) -> Vec<LetterLink> {
        (self.v.letter_names())
            .map(|letter| letter_link(letter, None, letter == current, linker))
            .collect()
    }

    /// Page `page` of the authors of letter `i`, when the authors index is split.
    pub(super) fn letter_page(&self, i: usize, page: usize) -> PageContext {
        let (letter, count) = self.v.letter(i);
        let base = letter_path(letter);
        let total = self.v.letter_page_count(i);
        let title = match (letter, page) {
            ("#", 0) => "Authors: other names".to_string(),
            ("#", _) => format!("Authors: other names (page {})", page + 1),
            (_, 0) => format!("Authors: {letter}"),
            _ => format!("Authors: {letter} (page {})", page + 1),
        };
        let description = format!("{count} authors whose family names start with {letter}");
        self.page(&paged_path(&base, page), title, description, |linker| {
            PageData::AuthorsLetter {
                letter: letter.to_string(),
                author_count: count,
                authors: self
                    .v
                    .letter_authors(i, page)
                    .iter()
                    .map(|&id| self.author_count(id, linker))
                    .collect(),
                letter_pages: self.other_letter_links(letter, linker),
                pagination: pagination(&base, total, page, true, linker),
            }
        })
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
            let list = self.v.author_page(id, page);
            let (pagination, year_index) = Self::paging(base, &list, page, linker);
            let slice = list.papers;
            let mut subject_counts: BTreeMap<&str, usize> = BTreeMap::new();
            for &p in papers {
                for s in &self.v.paper(p).paper.subjects {
                    *subject_counts.entry(s.as_str()).or_default() += 1;
                }
            }
            let mut subjects: Vec<SubjectLink> = subject_counts
                .into_iter()
                .map(|(code, n)| self.subject_link(code, Some(n), linker))
                .collect();
            subjects.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.code.cmp(&b.code)));
            let all_coauthors = self.v.coauthors(id);
            let coauthors: Vec<AuthorCount> = all_coauthors
                .iter()
                .take(COAUTHORS_LISTED)
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
                disambiguation: profile.disambiguation.clone(),
                identifiers: profile
                    .identifiers
                    .iter()
                    .map(|(registry, id)| IdentifierLink {
                        label: registry.label(),
                        id: id.clone(),
                        url: registry.url(id),
                    })
                    .collect(),
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
                more_coauthors: all_coauthors.len() - coauthors.len(),
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
                exports: self.author_downloads(id, linker),
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

/// A link to the page of `letter`, with its number of authors if given.
fn letter_link(letter: &str, count: Option<usize>, current: bool, linker: &Linker) -> LetterLink {
    LetterLink {
        letter: letter.to_string(),
        href: linker.href(&letter_path(letter)),
        count,
        current,
    }
}
