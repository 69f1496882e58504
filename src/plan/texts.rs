//! The TeX fan-out: every paper's title and abstract converted once, to safe HTML
//! (math as MathML) and to clean text, in parallel, with a warning for each fragment
//! that could not be read.

use std::sync::Arc;

use rayon::prelude::*;

use crate::config::SiteConfig;
use crate::diagnostics::{Diagnostic, Location};
use crate::graph::SiteGraph;
use crate::hash;
use crate::reuse::Reuse;
use crate::tex::{render_tex_with, Definitions, TexRendering};
use crate::text_store::{Text, TextStore};

/// A paper's title and abstract after TeX conversion, as every output but the paper's
/// own page shows them. The abstract's HTML (the largest text, MathML for math) is made
/// by [`abstract_html`] when the page is rendered rather than kept for the whole build.
#[derive(Debug, Clone, Default)]
pub struct PaperText {
    /// Title as safe HTML (math as MathML).
    pub title_html: String,
    /// Title as clean text.
    pub title_text: String,
    /// Abstract as clean text: the paper's own abstract (shared, not copied) when
    /// conversion leaves it as it is, and otherwise put in the graph's text store.
    pub abstract_text: Option<Text>,
    /// What could not be converted (shown as its source text).
    pub warnings: Vec<String>,
}

/// A title and an abstract, converted in order: macros defined in one apply to what
/// follows.
struct Converted {
    title: TexRendering,
    paragraphs: Vec<TexRendering>,
}

/// Converts a title, then each paragraph of an abstract, starting from the site's macros.
fn convert(title: &str, abstract_text: Option<&str>, site_macros: &Definitions) -> Converted {
    let mut definitions = site_macros.clone();
    let title = render_tex_with(title, &mut definitions);
    let paragraphs = abstract_text
        .iter()
        .flat_map(|a| a.split("\n\n"))
        .map(|paragraph| render_tex_with(paragraph, &mut definitions))
        .collect();
    Converted { title, paragraphs }
}

/// Converts a title and an abstract (`source` is the abstract's text, `abstract_text`
/// where it is kept), starting from the site's macros; an abstract that conversion
/// changes is put in `store`.
fn convert_text(
    title: &str,
    (abstract_text, source): (Option<&Text>, Option<&str>),
    site_macros: &Definitions,
    store: &TextStore,
) -> PaperText {
    let converted = convert(title, source, site_macros);
    let mut warnings = converted.title.warnings;
    let mut paragraphs = Vec::with_capacity(converted.paragraphs.len());
    for rendered in converted.paragraphs {
        paragraphs.push(rendered.text);
        warnings.extend(rendered.warnings);
    }
    warnings.sort();
    warnings.dedup();
    let text = (!paragraphs.is_empty()).then(|| paragraphs.join("\n\n"));
    PaperText {
        title_html: converted.title.html,
        title_text: converted.title.text,
        abstract_text: match (text, abstract_text, source) {
            (Some(text), Some(kept), Some(source)) if text == source => Some(kept.clone()),
            (text, _, _) => text.map(|text| store.put(&text)),
        },
        warnings,
    }
}

/// The abstract's paragraphs as safe HTML (math as MathML), converted as
/// [`convert_texts`] converts them (after the title, from the site's macros).
pub fn abstract_html(
    title: &str,
    abstract_text: Option<&str>,
    site_macros: &Definitions,
) -> Vec<String> {
    convert(title, abstract_text, site_macros)
        .paragraphs
        .into_iter()
        .map(|p| p.html)
        .collect()
}

/// Converts each paper's title and abstract (in parallel, reusing conversions of the
/// same texts with the same site macros from `memo`), reporting TeX that could not be
/// read with the record it comes from.
pub fn convert_texts(
    graph: &SiteGraph,
    config: &SiteConfig,
    memo: &Reuse<PaperText>,
) -> (Vec<Arc<PaperText>>, Vec<Diagnostic>) {
    let site_macros = &config.tex_definitions;
    let store = &graph.texts;
    let macros_key = hash::key("tex macros", &config.tex_macros);
    let converted: Vec<(Arc<PaperText>, Vec<Diagnostic>)> = graph
        .papers
        .par_iter()
        .map(|paper| {
            let abstract_text = paper.abstract_text.as_ref();
            // Keyed by the hash the abstract keeps: one found again is not read.
            let key = || {
                let abstract_hash = abstract_text.map(Text::content_hash);
                hash::key("tex", &(macros_key, &paper.title, abstract_hash))
            };
            let text = memo.get_or(key, || {
                let loaded = abstract_text.map(Text::load);
                let source = (abstract_text, loaded.as_deref());
                convert_text(&paper.title, source, site_macros, store)
            });
            let at = &paper.occurrences[0];
            let record_line = format!("{}{}", paper.source, paper.year);
            let diagnostics = text
                .warnings
                .iter()
                .map(|warning| {
                    Diagnostic::warning(
                        format!("TeX in `{}`: {warning}", paper.title),
                        Some(Location::at_line(
                            &at.path,
                            at.line,
                            1,
                            &record_line,
                            record_line.chars().count(),
                        )),
                    )
                    .with_note("the fragment is shown as its source text")
                })
                .collect();
            (text, diagnostics)
        })
        .collect();
    let mut texts = Vec::with_capacity(converted.len());
    let mut diagnostics = Vec::new();
    for (text, mut diags) in converted {
        texts.push(text);
        diagnostics.append(&mut diags);
    }
    (texts, diagnostics)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(source: &str, store: &TextStore) -> (Text, PaperText) {
        let kept = store.put(source);
        let loaded = kept.load();
        let abstract_text = (Some(&kept), Some(&*loaded));
        let text = convert_text("A title", abstract_text, &Definitions::new(), store);
        (kept, text)
    }

    #[test]
    fn an_abstract_conversion_leaves_as_it_is_is_shared_not_copied() {
        let dir = tempfile::tempdir().unwrap();
        for store in [TextStore::default(), TextStore::in_dir(dir.path())] {
            let (source, text) = shared("Plain words.\n\nA second paragraph.", &store);
            let converted = text.abstract_text.expect("an abstract");
            assert!(source.same_as(&converted));
            assert_eq!(&*converted.load(), "Plain words.\n\nA second paragraph.");
        }
    }

    #[test]
    fn an_abstract_conversion_changes_is_its_own_text() {
        let dir = tempfile::tempdir().unwrap();
        for store in [TextStore::default(), TextStore::in_dir(dir.path())] {
            let (source, text) = shared(r"Bounds in $\alpha$ --- and more.", &store);
            let converted = text.abstract_text.expect("an abstract");
            assert!(!source.same_as(&converted));
            assert_eq!(&*converted.load(), "Bounds in α — and more.");
        }
    }

    #[test]
    fn abstract_html_is_converted_after_the_title_and_escaped() {
        let title = r"\newcommand{\cM}{\mathcal{M}}On $\cM$";
        let html = abstract_html(
            title,
            Some("Spaces $\\cM$ & <more>.\n\nEnd."),
            &Definitions::new(),
        );
        assert_eq!(html.len(), 2, "{html:?}");
        // The title's macro applies: math, with its source only as the annotation.
        assert!(html[0].contains("<mi>ℳ</mi>"), "{}", html[0]);
        assert!(!html[0].contains('$'), "{}", html[0]);
        assert!(html[0].contains("&amp; &lt;more&gt;"), "{}", html[0]);
        assert_eq!(html[1], "End.");
        assert!(abstract_html(title, None, &Definitions::new()).is_empty());
    }
}
