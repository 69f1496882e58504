//! The years: the index of all of them, and each year's page of papers by title.

use super::{pagination, OutputBuilder, PageContext, PageData, Reads, YearLink};
use crate::plan::page_count;
use crate::plan::paths::{paged_path, year_path};

/// The index lists every year with its number of papers.
pub(super) fn index_reads() -> Reads<'static> {
    Reads {
        all_year_counts: true,
        ..Reads::default()
    }
}

/// A page of a year lists its papers on that page, the year's number of papers and
/// pages, and links to the years before and after it.
pub(super) fn page_reads(year: u16, page: usize) -> Reads<'static> {
    Reads {
        year_pages: vec![(year, page)],
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
                        count: Some(count),
                    })
                    .collect(),
            },
        )
    }

    pub(super) fn year_page(&self, year: u16, page: usize) -> PageContext {
        let (papers, paper_count) = self.v.year_page(year, page);
        let base = year_path(year);
        let title = if page == 0 {
            format!("Papers from {year}")
        } else {
            format!("Papers from {year} (page {})", page + 1)
        };
        self.page(
            &paged_path(&base, page),
            title,
            format!("{paper_count} papers from {year}"),
            |linker| {
                let link = |y: u16| YearLink {
                    year: y,
                    href: linker.href(&year_path(y)),
                    count: None,
                };
                let (previous, next) = self.v.adjacent_years(year);
                let pages = page_count(paper_count);
                PageData::Year {
                    year,
                    papers: papers.iter().map(|&p| self.list_item(p, linker)).collect(),
                    paper_count,
                    pagination: pagination(&base, pages, page, false, linker),
                    previous: previous.map(link),
                    next: next.map(link),
                }
            },
        )
    }
}
