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
use crate::tex::{render_tex_with, Definitions};

/// A paper's title and abstract after TeX conversion.
#[derive(Debug, Clone, Default)]
pub struct PaperText {
    /// Title as safe HTML (math as MathML).
    pub title_html: String,
    /// Title as clean text.
    pub title_text: String,
    /// Abstract paragraphs as safe HTML.
    pub abstract_html: Vec<String>,
    /// Abstract as clean text.
    pub abstract_text: Option<String>,
    /// What could not be converted (shown as its source text).
    pub warnings: Vec<String>,
}

/// Converts a title and an abstract, starting from the site's macros; macros defined in
/// one apply to what follows.
fn convert_text(title: &str, abstract_text: Option<&str>, site_macros: &Definitions) -> PaperText {
    let mut warnings = Vec::new();
    let mut definitions = site_macros.clone();
    let title = render_tex_with(title, &mut definitions);
    warnings.extend(title.warnings);
    let mut abstract_html = Vec::new();
    let mut paragraphs = Vec::new();
    for paragraph in abstract_text.iter().flat_map(|a| a.split("\n\n")) {
        let rendered = render_tex_with(paragraph, &mut definitions);
        abstract_html.push(rendered.html);
        paragraphs.push(rendered.text);
        warnings.extend(rendered.warnings);
    }
    warnings.sort();
    warnings.dedup();
    PaperText {
        title_html: title.html,
        title_text: title.text,
        abstract_html,
        abstract_text: (!paragraphs.is_empty()).then(|| paragraphs.join("\n\n")),
        warnings,
    }
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
            let abstract_text = paper.abstract_text.as_deref();
            let key = || hash::key("tex", &(macros_key, &paper.title, abstract_text));
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
