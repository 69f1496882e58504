//! The subjects: the index of all of them by arXiv group, and each subject's page of
//! papers by year.

use std::collections::BTreeMap;

use super::{OutputBuilder, PageContext, PageData, Reads, SubjectGroup, SubjectLink};
use crate::plan::paths::{paged_path, subject_name, subject_path, Linker};
use crate::plan::FeedKind;
use crate::taxonomy::category_group;

/// The index lists every subject with its number of papers.
pub(super) fn index_reads() -> Reads<'static> {
    Reads {
        all_subject_counts: true,
        ..Reads::default()
    }
}

/// A page of a subject lists its papers on that page, the subject's number of papers
/// and pages, and where each year starts among them.
pub(super) fn page_reads(code: &str, page: usize) -> Reads<'_> {
    Reads {
        subject_pages: vec![(code, page)],
        ..Reads::default()
    }
}

impl OutputBuilder<'_> {
    pub(super) fn subjects_index(&self) -> PageContext {
        self.page(
            "subjects/",
            "Subjects".into(),
            format!(
                "Papers in {} arXiv subjects",
                self.v.subject_counts().count()
            ),
            |linker| {
                let mut groups: BTreeMap<String, Vec<SubjectLink>> = BTreeMap::new();
                for (code, count) in self.v.subject_counts() {
                    let group = category_group(code).unwrap_or("Other").to_string();
                    let link = self.subject_link(code, Some(count), linker);
                    groups.entry(group).or_default().push(link);
                }
                let mut groups: Vec<SubjectGroup> = groups
                    .into_iter()
                    .map(|(name, subjects)| SubjectGroup { name, subjects })
                    .collect();
                groups.sort_by_key(|g| g.name == "Other");
                PageData::Subjects { groups }
            },
        )
    }

    pub(super) fn subject_page(&self, code: &str, page: usize) -> PageContext {
        let list = self.v.subject_page(code, page);
        let name = subject_name(code);
        let title = if name == code {
            code.to_string()
        } else {
            format!("{name} ({code})")
        };
        let base = subject_path(code);
        let site_path = paged_path(&base, page);
        let title = if page == 0 {
            title
        } else {
            format!("{title} (page {})", page + 1)
        };
        let mut context = self.page(
            &site_path,
            title,
            format!("{} papers in {name}", list.count),
            |linker| {
                let (pagination, year_index) = Self::paging(&base, &list, page, linker);
                PageData::Subject {
                    code: code.to_string(),
                    name: name.clone(),
                    paper_count: list.count,
                    years: self.by_year(list.papers, linker),
                    year_index,
                    pagination,
                }
            },
        );
        let linker = Linker::for_path(&site_path, self.v.pretty());
        let feed = self.feed_link(&FeedKind::Subject(code.to_string()), &linker);
        context.page.meta.feeds.push(feed);
        context
    }
}
