//! The years: the index of all of them, and each year's page of papers by title.

use super::{OutputBuilder, PageContext, PageData, Reads, YearLink};
use crate::plan::paths::{paged_path, year_path};

/// The index lists every year with its number of papers.
pub(super) fn index_reads() -> Reads<'static> {
    Reads {
        all_year_counts: true,
        ..Reads::default()
    }
}

/// A year's page lists its papers, and links to the years before and after it.
pub(super) fn page_reads(year: u16) -> Reads<'static> {
    Reads {
        year_lists: vec![year],
        adjacent_years: Some(year),
        ..Reads::default()
    }
}

impl OutputBuilder<'_> {
    pub(super) fn years_index(&self) -> PageContext {
        self.page(
            "years/",
            "Years".into(),
            "Papers by year".into(),
            |linker| PageData::Years {
                years: self
                    .v
                    .year_counts()
                    .rev()
                    .map(|(year, count)| YearLink {
                        year,
                        href: linker.href(&year_path(year)),
                        count,
                    })
                    .collect(),
            },
        )
    }

    pub(super) fn year_page(&self, year: u16, page: usize) -> PageContext {
        let papers = self.v.year_papers(year);
        let base = year_path(year);
        let title = if page == 0 {
            format!("Papers from {year}")
        } else {
            format!("Papers from {year} (page {})", page + 1)
        };
        self.page(
            &paged_path(&base, page),
            title,
            format!("{} papers from {year}", papers.len()),
            |linker| {
                let link = |(y, count): (u16, usize)| YearLink {
                    year: y,
                    href: linker.href(&year_path(y)),
                    count,
                };
                let (previous, next) = self.v.adjacent_years(year);
                let (slice, pagination, _) = self.paging(&base, papers, page, linker);
                PageData::Year {
                    year,
                    papers: slice.iter().map(|&p| self.list_item(p, linker)).collect(),
                    paper_count: papers.len(),
                    pagination,
                    previous: previous.map(link),
                    next: next.map(link),
                }
            },
        )
    }
}
