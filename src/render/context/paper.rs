//! A paper's page: title and abstract (math as MathML), authors, subjects, more by each
//! author, the citation block and exports, and the metadata scholarly engines read.

use super::{
    snippet, MoreBy, OutputBuilder, PageContext, PageData, Reads, MORE_BY_AUTHORS,
    MORE_PAPERS_PER_AUTHOR,
};
use crate::graph::PaperId;
use crate::plan::paths::year_path;
use crate::plan::texts::abstract_html;
use crate::plan::SiteIndex;
use crate::text_store::Text;

/// How many characters of the abstract a paper page's `description` keeps at most.
const DESCRIPTION_CHARS: usize = 200;

/// A paper's page shows the paper (with its authors and subjects) and the papers near
/// it in each author's list.
pub(super) fn reads<'k>(ix: &'k SiteIndex<'k>, id: PaperId) -> Reads<'k> {
    let paper = &ix.graph.papers[id];
    Reads {
        papers: vec![id],
        nearby: paper
            .authors
            .iter()
            .map(|&a| (a, id, MORE_PAPERS_PER_AUTHOR))
            .collect(),
        ..Reads::default()
    }
}

impl OutputBuilder<'_> {
    pub(super) fn paper_page(&self, id: PaperId) -> PageContext {
        let card = self.v.paper(id);
        let paper = card.paper;
        let text = card.text;
        // Read once (it may be in a text store): the description, JSON-LD and
        // `citation_abstract` each show it.
        let clean_abstract = text.abstract_text.as_ref().map(Text::load);
        let description = clean_abstract
            .as_deref()
            .map(|a| snippet(a, DESCRIPTION_CHARS))
            .unwrap_or_else(|| format!("{} ({})", text.title_text, paper.year));
        let site_path = card.path;
        let mut context = self.page(site_path, text.title_text.clone(), description, |linker| {
            PageData::Paper {
                title_html: text.title_html.clone(),
                year: paper.year,
                year_href: linker.href(&year_path(paper.year)),
                source: paper.source.clone(),
                subjects: paper
                    .subjects
                    .iter()
                    .map(|code| self.subject_link(code, None, linker))
                    .collect(),
                abstract_html: abstract_html(
                    &paper.title,
                    paper.abstract_text.as_ref().map(Text::load).as_deref(),
                    &self.v.config().tex_definitions,
                ),
                authors: paper
                    .authors
                    .iter()
                    .map(|&a| self.shared_author_link(a, linker))
                    .collect(),
                more_by: paper
                    .authors
                    .iter()
                    .filter_map(|&a| {
                        let (nearby, more) = self.v.nearby(a, id, MORE_PAPERS_PER_AUTHOR);
                        (!nearby.is_empty()).then(|| MoreBy {
                            author: self.shared_author_link(a, linker),
                            papers: nearby.iter().map(|&p| self.paper_ref(p, linker)).collect(),
                            more,
                        })
                    })
                    .take(MORE_BY_AUTHORS)
                    .collect(),
                bibtex: self.bibtex_for(id),
                exports: self.paper_downloads(id, linker),
            }
        });
        let meta = &mut context.page.meta;
        meta.og_type = "article";
        meta.tags = self.citation_tags(id, clean_abstract.as_deref());
        meta.jsonld = Some(self.article_jsonld(id, clean_abstract.as_deref()));
        context
    }
}
