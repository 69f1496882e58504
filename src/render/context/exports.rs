//! Machine-readable outputs: the site's JSON data and citation exports.

use rayon::prelude::*;
use serde::Serialize;

use base64::Engine;
use std::sync::Arc;

use super::{ExportLink, OutputBuilder};
use crate::cite::{bibtex_entry, csl_item, ris_entry, CitationInput};
use crate::config::ExportsMode;
use crate::graph::{AuthorId, PaperId};
use crate::hash;
use crate::plan::paths::{Download, Linker};
use crate::plan::{data_shard_path, CitationFormat};
use crate::text_store::Text;

impl OutputBuilder<'_> {
    /// `/data/authors.json` or `/data/papers.json`: how many items there are, and the
    /// URL and number of items of each shard.
    pub(super) fn data_index(&self, kind: DataKind) -> Vec<u8> {
        #[derive(Serialize)]
        struct Shard {
            url: String,
            count: usize,
        }
        #[derive(Serialize)]
        struct DataIndex {
            count: usize,
            shards: Vec<Shard>,
        }
        let ix = self.v.whole_site();
        let (what, shards) = match kind {
            DataKind::Authors => ("authors", &ix.author_shards),
            DataKind::Papers => ("papers", &ix.paper_shards),
        };
        let index = DataIndex {
            count: shards.iter().map(Vec::len).sum(),
            shards: shards
                .iter()
                .enumerate()
                .map(|(n, items)| Shard {
                    url: ix.public_url(&data_shard_path(what, n)),
                    count: items.len(),
                })
                .collect(),
        };
        let mut bytes = serde_json::to_vec_pretty(&index).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }

    /// `/data/authors/<n>.json`: `[{id, name, disambiguation?, url, homepage?,
    /// identifiers: {orcid?, dblp?, ...}, papers: [paper ids]}]`, for the authors of
    /// shard `n`.
    pub(super) fn authors_json(&self, n: usize) -> Vec<u8> {
        #[derive(Serialize, Hash)]
        struct AuthorJson<'a> {
            id: &'a str,
            name: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            disambiguation: Option<&'a str>,
            url: String,
            #[serde(skip_serializing_if = "Option::is_none")]
            homepage: Option<&'a str>,
            identifiers: std::collections::BTreeMap<&'static str, &'a str>,
            papers: Vec<&'a str>,
        }
        let v = &self.v;
        let list: Vec<AuthorJson> = v
            .author_shard(n)
            .par_iter()
            .map(|&id| {
                let author = v.author(id);
                let profile = author.profile;
                AuthorJson {
                    id: author.slug,
                    name: &profile.name,
                    disambiguation: profile.disambiguation.as_deref(),
                    url: v.public_url(author.path),
                    homepage: profile.homepage.as_deref(),
                    identifiers: profile
                        .identifiers
                        .iter()
                        .map(|(registry, id)| (registry.key(), id.as_str()))
                        .collect(),
                    papers: v
                        .author_papers(id)
                        .iter()
                        .map(|&p| v.paper(p).paper.slug.as_str())
                        .collect(),
                }
            })
            .collect();
        json_array_bytes(&list, |item| {
            self.memo
                .data_items
                .get_or(|| hash::key("authors.json", item), || array_item_json(item))
        })
    }

    /// `/data/papers/<n>.json`: `[{id, title, year, source, subjects, abstract,
    /// authors, url}]` for the papers of shard `n`, texts as in the record files.
    pub(super) fn papers_json(&self, n: usize) -> Vec<u8> {
        #[derive(Serialize, Hash)]
        struct PaperJson<'a> {
            id: &'a str,
            title: &'a str,
            year: u16,
            source: &'a str,
            subjects: &'a [String],
            #[serde(rename = "abstract")]
            abstract_text: Option<&'a str>,
            authors: Vec<&'a str>,
            url: String,
        }
        let v = &self.v;
        let shard = v.paper_shard(n);
        let abstracts: Vec<Option<Arc<str>>> = shard
            .par_iter()
            .map(|&id| v.paper(id).paper.abstract_text.as_ref().map(Text::load))
            .collect();
        let list: Vec<PaperJson> = shard
            .par_iter()
            .zip(&abstracts)
            .map(|(&id, abstract_text)| {
                let card = v.paper(id);
                let p = card.paper;
                PaperJson {
                    id: &p.slug,
                    title: &p.title,
                    year: p.year,
                    source: &p.source,
                    subjects: &p.subjects,
                    abstract_text: abstract_text.as_deref(),
                    authors: p.authors.iter().map(|&a| v.author(a).slug).collect(),
                    url: card.url(),
                }
            })
            .collect();
        json_array_bytes(&list, |item| {
            self.memo
                .data_items
                .get_or(|| hash::key("papers.json", item), || array_item_json(item))
        })
    }

    /// What a citation of paper `id` needs, with its abstract as clean text (loaded by
    /// the caller, or `None` to leave it out).
    pub(super) fn citation_input<'s>(
        &'s self,
        id: PaperId,
        abstract_text: Option<&'s str>,
    ) -> CitationInput<'s> {
        let card = self.v.paper(id);
        let (paper, text) = (card.paper, card.text);
        let config = self.v.config();
        CitationInput {
            key: card.citation_key,
            title: &paper.title,
            title_text: &text.title_text,
            authors: card.author_names(),
            year: paper.year,
            source: &paper.source,
            subjects: &paper.subjects,
            abstract_text,
            url: config.base_url.is_some().then(|| card.url()),
            language: &config.language,
        }
    }

    /// A paper's citation without its abstract, in every format: computed once and shared
    /// by the paper page's "Cite" block and the publication lists of all its authors.
    /// Reused from the previous build in this process when the input is the same.
    fn brief_citation(&self, id: PaperId) -> Arc<BriefCitation> {
        self.fragments.brief_citations.get_or_make(id as u64, || {
            let input = self.citation_input(id, None);
            let citation = self.memo.citations.get_or(
                || hash::key("brief citation", &input),
                || BriefCitation {
                    bibtex: bibtex_entry(&input),
                    ris: ris_entry(&input),
                    csl: serde_json::to_vec(&csl_item(&input)).unwrap_or_default(),
                },
            );
            let bytes = citation.bibtex.len() + citation.ris.len() + citation.csl.len();
            (citation, bytes)
        })
    }

    /// The BibTeX entry shown in the paper page's "Cite" block (the abstract is on the
    /// page already, and in `cite.bib` with `exports: files`).
    pub(super) fn bibtex_for(&self, id: PaperId) -> String {
        self.brief_citation(id).bibtex.clone()
    }

    /// Paper `id`'s citation without its abstract, in `format`, as a download.
    fn brief_citation_bytes(&self, id: PaperId, format: CitationFormat) -> Vec<u8> {
        let brief = self.brief_citation(id);
        match format {
            CitationFormat::Bibtex => brief.bibtex.clone().into_bytes(),
            CitationFormat::Ris => brief.ris.clone().into_bytes(),
            CitationFormat::CslJson => {
                let mut bytes = brief.csl.clone();
                bytes.push(b'\n');
                bytes
            }
        }
    }

    /// The downloads of paper `id`'s citation, one per format: `data:` links named
    /// after its citation key, without the abstract (as arXiv's and Google Scholar's
    /// exports; a link's bytes are in the page, and the abstract is in the page's
    /// `citation_abstract` and JSON-LD for reference managers), or links to
    /// `cite.{bib,ris,json}` beside the page, with it.
    pub(super) fn paper_downloads(&self, id: PaperId, linker: &Linker) -> Vec<ExportLink> {
        let card = self.v.paper(id);
        match self.v.config().exports {
            ExportsMode::Inline => {
                data_links(card.citation_key, |f| self.brief_citation_bytes(id, f))
            }
            ExportsMode::Files => file_links(linker, card.path, Download::PaperCitation),
        }
    }

    /// The downloads of author `id`'s publication lists, one per format: `data:` links
    /// named after the author when the lists are small, else links to
    /// `publications.{bib,ris,json}` beside the author's page.
    pub(super) fn author_downloads(&self, id: AuthorId, linker: &Linker) -> Vec<ExportLink> {
        let author = self.v.author(id);
        if self.v.author_lists_inline(id) {
            data_links(author.slug, |f| self.author_citations(id, f))
        } else {
            file_links(linker, author.path, Download::AuthorPublications)
        }
    }

    /// `papers/<slug>/cite.{bib,ris,json}`.
    pub(super) fn paper_citation(&self, id: PaperId, format: CitationFormat) -> Vec<u8> {
        let card = self.v.paper(id);
        let abstract_text = card.text.abstract_text.as_ref().map(Text::load);
        let input = self.citation_input(id, abstract_text.as_deref());
        match format {
            CitationFormat::Bibtex => bibtex_entry(&input).into_bytes(),
            CitationFormat::Ris => ris_entry(&input).into_bytes(),
            CitationFormat::CslJson => {
                let mut bytes = serde_json::to_vec(&csl_item(&input)).unwrap_or_default();
                bytes.push(b'\n');
                bytes
            }
        }
    }

    /// `authors/<slug>/publications.{bib,ris,json}`: all of an author's papers, newest
    /// first, without abstracts (each paper's page has its own), so the lists of
    /// prolific authors stay small.
    pub(super) fn author_citations(&self, id: AuthorId, format: CitationFormat) -> Vec<u8> {
        let citations: Vec<Arc<BriefCitation>> = self
            .v
            .author_papers(id)
            .iter()
            .map(|&p| self.brief_citation(p))
            .collect();
        let entries = citations.iter();
        match format {
            CitationFormat::Bibtex => join_entries(entries.map(|c| c.bibtex.as_str())),
            CitationFormat::Ris => join_entries(entries.map(|c| c.ris.as_str())),
            CitationFormat::CslJson => join_array_items(entries.map(|c| c.csl.as_slice())),
        }
    }
}

/// Which of the site's data.
#[derive(Debug, Clone, Copy)]
pub(super) enum DataKind {
    /// `/data/authors.json` and its shards.
    Authors,
    /// `/data/papers.json` and its shards.
    Papers,
}

/// A paper's citation without abstract, in each format.
#[derive(Debug)]
pub(super) struct BriefCitation {
    bibtex: String,
    ris: String,
    /// The CSL-JSON item, compact.
    csl: Vec<u8>,
}

/// Links to the files of `download` (`cite.{bib,ris,json}`, ...) beside the page at
/// `site_path`.
fn file_links(linker: &Linker, site_path: &str, download: Download) -> Vec<ExportLink> {
    CitationFormat::ALL
        .iter()
        .map(|f| ExportLink {
            format: f.label(),
            href: linker.href(&download.path(site_path, f.extension())),
            file_name: download.file_name(f.extension()),
        })
        .collect()
}

/// `data:` links holding each format's bytes (base64, which needs no escaping in HTML),
/// saved as `<name>.{bib,ris,json}`.
fn data_links(name: &str, bytes: impl Fn(CitationFormat) -> Vec<u8>) -> Vec<ExportLink> {
    CitationFormat::ALL
        .iter()
        .map(|&f| ExportLink {
            format: f.label(),
            href: data_url(f.media_type(), &bytes(f)),
            file_name: format!("{name}.{}", f.extension()),
        })
        .collect()
}

/// A `data:` URL of UTF-8 `bytes` of the media type `media_type` (RFC 2397).
fn data_url(media_type: &str, bytes: &[u8]) -> String {
    let mut url = format!("data:{media_type};charset=utf-8;base64,");
    base64::engine::general_purpose::STANDARD.encode_string(bytes, &mut url);
    url
}

/// Entries separated by a blank line (each entry ends with a newline), as in
/// [`crate::cite::bibtex_file`] and [`crate::cite::ris_file`].
fn join_entries<'e>(entries: impl Iterator<Item = &'e str>) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, entry) in entries.enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        out.extend_from_slice(entry.as_bytes());
    }
    out
}

/// Pretty JSON of `value` as an element of a pretty JSON array: every line indented
/// one level (JSON strings hold no raw line breaks, so every line break starts a line of
/// structure). See [`join_array_items`].
fn array_item_json<T: Serialize>(value: &T) -> Vec<u8> {
    let json = serde_json::to_vec_pretty(value).unwrap_or_default();
    let mut out = Vec::with_capacity(json.len() + json.len() / 8 + 2);
    for (i, line) in json.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        out.extend_from_slice(b"  ");
        out.extend_from_slice(line);
    }
    out
}

/// A JSON array with a final newline, one item a line: from items made by
/// [`array_item_json`], the same bytes as [`json_bytes`] of the array; from compact
/// items (CSL-JSON lists), a compact array that is still easy to read and to diff.
fn join_array_items<'i>(items: impl Iterator<Item = &'i [u8]> + Clone) -> Vec<u8> {
    let mut out = Vec::with_capacity(items.clone().map(|i| i.len() + 2).sum::<usize>() + 4);
    out.push(b'[');
    for (i, item) in items.enumerate() {
        out.extend_from_slice(if i == 0 { b"\n" } else { b",\n" });
        out.extend_from_slice(item);
    }
    out.extend_from_slice(if out.len() == 1 { b"]\n" } else { b"\n]\n" });
    out
}

/// Pretty JSON of an array with a final newline, the same bytes as [`json_bytes`]; each
/// item's JSON comes from `item_json` (which must return [`array_item_json`] of the
/// item), in parallel: the site's data files run to megabytes.
fn json_array_bytes<T, P>(items: &[T], item_json: impl Fn(&T) -> P + Sync) -> Vec<u8>
where
    T: Serialize + Sync,
    P: std::ops::Deref<Target = Vec<u8>> + Send,
{
    let parts: Vec<P> = items.par_iter().map(&item_json).collect();
    join_array_items(parts.iter().map(|p| p.as_slice()))
}

/// Pretty JSON with a final newline.
#[cfg(test)]
fn json_bytes<T: Serialize>(value: &T) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(value).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parallel_arrays_are_the_bytes_serde_writes() {
        let cases = [
            json!([]),
            json!([1]),
            json!([{"a": "line\nbreak \"quoted\"", "b": [1, 2, {"c": []}]}, {}, [], "x"]),
            json!([{"nested": {"deep": [[], [{"e": null}]]}}, 3.5]),
        ];
        for case in cases {
            let items = case.as_array().unwrap();
            assert_eq!(
                String::from_utf8(json_array_bytes(items, |item| Box::new(array_item_json(
                    item
                ))))
                .unwrap(),
                String::from_utf8(json_bytes(items)).unwrap(),
                "{case}"
            );
        }
    }
}
