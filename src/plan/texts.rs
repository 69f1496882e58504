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
    /// conversion leaves it as it is.
    pub abstract_text: Option<Arc<str>>,
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

/// Converts a title and an abstract, starting from the site's macros.
fn convert_text(
    title: &str,
    abstract_text: Option<&Arc<str>>,
    site_macros: &Definitions,
) -> PaperText {
    let converted = convert(title, abstract_text.map(|a| &**a), site_macros);
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
        abstract_text: match (text, abstract_text) {
            (Some(text), Some(source)) if *text == **source => Some(Arc::clone(source)),
            (text, _) => text.map(Arc::from),
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
    let macros_key = hash::key("tex macros", &config.tex_macros);
    let converted: Vec<(Arc<PaperText>, Vec<Diagnostic>)> = graph
        .papers
        .par_iter()
        .map(|paper| {
            let abstract_text = paper.abstract_text.as_ref();
            let source = (&paper.title, paper.abstract_text.as_deref());
            let key = || hash::key("tex", &(macros_key, source.0, source.1));
            let text = memo.get_or(key, || {
                convert_text(&paper.title, abstract_text, site_macros)
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

    fn shared(source: &str) -> (Arc<str>, PaperText) {
        let source: Arc<str> = Arc::from(source);
        let text = convert_text("A title", Some(&source), &Definitions::new());
        (source, text)
    }

    #[test]
    fn an_abstract_conversion_leaves_as_it_is_is_shared_not_copied() {
        let (source, text) = shared("Plain words.\n\nA second paragraph.");
        let converted = text.abstract_text.expect("an abstract");
        assert!(Arc::ptr_eq(&source, &converted));
        assert_eq!(&*converted, "Plain words.\n\nA second paragraph.");
    }

    #[test]
    fn an_abstract_conversion_changes_is_its_own_text() {
        let (source, text) = shared(r"Bounds in $\alpha$ --- and more.");
        let converted = text.abstract_text.expect("an abstract");
        assert!(!Arc::ptr_eq(&source, &converted));
        assert_eq!(&*converted, "Bounds in α — and more.");
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
