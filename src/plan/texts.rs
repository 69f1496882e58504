//! The TeX fan-out: every paper's title and abstract converted once, to safe HTML
//! (math as MathML) and to clean text, in parallel, with a warning for each fragment
//! that could not be read.

use std::sync::{Arc, Mutex};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::config::SiteConfig;
use crate::diagnostics::{Diagnostic, Location};
use crate::graph::{Paper, SiteGraph};
use crate::hash;
use crate::kept_file::KeptFile;
use crate::reuse::Reuse;
use crate::tex::{has_tex, render_plain, render_tex_with, Definitions, TexRendering};
use crate::text_store::{Text, TextStore};
use crate::threads::{free_in_background, lock};

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

/// A conversion as a [`KeptFile`] holds it for the next build: the [`PaperText`] with
/// the converted abstract's text itself.
#[derive(Debug, Serialize, Deserialize)]
struct KeptConversion {
    title_html: String,
    title_text: String,
    /// The abstract as converted, when conversion changed it (else it is the paper's).
    abstract_text: Option<String>,
    warnings: Vec<String>,
}

/// The key of a paper's conversion: a hash of all it reads (the site's macros, the
/// title, and the abstract, by the hash it keeps: one found again is not read).
fn conversion_key(macros_key: u64, paper: &Paper) -> u64 {
    let abstract_hash = paper.abstract_text.as_ref().map(Text::content_hash);
    hash::key("tex", &(macros_key, &paper.title, abstract_hash))
}

/// The key of the site's macros, part of every conversion's key.
fn macros_key(config: &SiteConfig) -> u64 {
    hash::key("tex macros", &config.tex_macros)
}

/// The conversion `earlier` keeps under `key`, for a paper whose abstract is
/// `abstract_text`; a converted abstract goes to `store`.
fn kept_conversion(
    earlier: Option<&KeptFile>,
    key: u64,
    abstract_text: Option<&Text>,
    store: &TextStore,
) -> Option<PaperText> {
    let kept: KeptConversion = postcard::from_bytes(&earlier?.get(key)?).ok()?;
    Some(PaperText {
        title_html: kept.title_html,
        title_text: kept.title_text,
        abstract_text: match kept.abstract_text {
            Some(converted) => Some(store.put(&converted)),
            None => abstract_text.cloned(),
        },
        warnings: kept.warnings,
    })
}

/// Converts each paper's title and abstract (in parallel, taking the conversion of a
/// paper the link took from the previous build by its id there, else reusing one of
/// the same texts with the same site macros from `memo`, or from what an earlier build
/// kept in `earlier`), reporting TeX that could not be read with the record it comes
/// from.
pub fn convert_texts(
    graph: &SiteGraph,
    config: &SiteConfig,
    memo: &TextsMemo,
    earlier: Option<&KeptFile>,
) -> (Vec<Arc<PaperText>>, Vec<Diagnostic>) {
    let site_macros = &config.tex_definitions;
    let store = &graph.texts;
    let macros_key = macros_key(config);
    let previous = memo.take_previous(macros_key);
    let conversions = &memo.conversions;
    let converted: Vec<(Arc<PaperText>, Vec<Diagnostic>)> = (graph.papers.par_iter().enumerate())
        .map(|(id, paper)| {
            let was = graph.lineage.previous_id(id, previous.link);
            if let Some(text) = was.and_then(|was| previous.texts.get(was)) {
                return (Arc::clone(text), tex_diagnostics(paper, text));
            }
            let abstract_text = paper.abstract_text.as_ref();
            if !has_tex(&paper.title) && !abstract_text.is_some_and(Text::has_tex) {
                return (Arc::new(unconverted(paper)), Vec::new());
            }
            let key = conversion_key(macros_key, paper);
            let text = conversions.get_or(
                || key,
                || {
                    kept_conversion(earlier, key, abstract_text, store).unwrap_or_else(|| {
                        let loaded = abstract_text.map(Text::load);
                        let source = (abstract_text, loaded.as_deref());
                        convert_text(&paper.title, source, site_macros, store)
                    })
                },
            );
            (Arc::clone(&text), tex_diagnostics(paper, &text))
        })
        .collect();
    let mut texts = Vec::with_capacity(converted.len());
    let mut diagnostics = Vec::new();
    for (text, mut diags) in converted {
        texts.push(text);
        diagnostics.append(&mut diags);
    }
    free_in_background(previous);
    memo.keep_by_paper(graph.lineage.link, macros_key, &texts);
    (texts, diagnostics)
}

/// The TeX conversions a long-running process keeps from one build to the next: by
/// the hash of what they read ([`Reuse`]), and each paper's by its id, for the papers
/// the next link takes from this one ([`crate::graph::PaperLineage`]), which then need
/// neither a hash of their texts nor a look-up.
#[derive(Default)]
pub struct TextsMemo {
    conversions: Reuse<PaperText>,
    by_paper: Mutex<TextsByPaper>,
}

/// Each paper's conversion in one build, by paper id, with the number of the link that
/// made the ids and the key of the site's macros they were converted with.
#[derive(Default)]
struct TextsByPaper {
    link: u64,
    macros_key: u64,
    texts: Vec<Arc<PaperText>>,
}

impl TextsMemo {
    /// Starts keeping conversions for the next build.
    pub fn enable(&mut self) {
        self.conversions.enable();
    }

    /// Ends a build: see [`Reuse::finish_build`].
    pub fn finish_build(&mut self) {
        self.conversions.finish_build();
    }

    /// The last build's conversions by paper, if they were made with the macros of
    /// `macros_key` (else none, under link 0, which no paper was taken from).
    fn take_previous(&self, macros_key: u64) -> TextsByPaper {
        let previous = std::mem::take(&mut *lock(&self.by_paper));
        match previous.macros_key == macros_key {
            true => previous,
            false => TextsByPaper::default(),
        }
    }

    /// Keeps `texts`, by paper, of the papers of link `link` (nothing for link 0).
    fn keep_by_paper(&self, link: u64, macros_key: u64, texts: &[Arc<PaperText>]) {
        if link != 0 && self.conversions.is_enabled() {
            *lock(&self.by_paper) = TextsByPaper {
                link,
                macros_key,
                texts: texts.to_vec(),
            };
        }
    }
}

/// What conversion makes of a paper without TeX ([`has_tex`]): its title escaped for
/// HTML and its own texts, found without reading the abstract.
fn unconverted(paper: &Paper) -> PaperText {
    let title = render_plain(&paper.title);
    PaperText {
        title_html: title.html,
        title_text: title.text,
        abstract_text: paper.abstract_text.clone(),
        warnings: Vec::new(),
    }
}

/// A warning for each fragment of `paper` that `text` could not convert, at the record
/// it comes from.
fn tex_diagnostics(paper: &Paper, text: &PaperText) -> Vec<Diagnostic> {
    let at = &paper.occurrences[0];
    let record_line = format!("{}{}", paper.source, paper.year);
    text.warnings
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
        .collect()
}

/// Whether conversion changed anything of `paper` (as `text`): only such conversions
/// are worth keeping for the next build, the others cost little to make again.
fn worth_keeping(paper: &Paper, text: &PaperText) -> bool {
    let abstract_changed = converted_abstract(paper, text).is_some()
        || text.abstract_text.is_none() != paper.abstract_text.is_none();
    abstract_changed || text.title_text != paper.title || !text.warnings.is_empty()
}

/// The abstract conversion made of `paper`'s (as `text`), if it is not the paper's own.
fn converted_abstract<'t>(paper: &Paper, text: &'t PaperText) -> Option<&'t Text> {
    let converted = text.abstract_text.as_ref()?;
    let own = paper.abstract_text.as_ref();
    (!own.is_some_and(|source| converted.same_as(source))).then_some(converted)
}

/// Papers converted a chunk at a time when kept, so that what is written is not all
/// held at once.
const KEEP_CHUNK: usize = 4096;

/// The keys of the conversions [`conversions_to_keep`] gives, in order, each once: what
/// an earlier kept file is compared with ([`crate::kept_file::KeptFile::still_serves`]).
pub fn kept_conversion_keys(
    graph: &SiteGraph,
    config: &SiteConfig,
    texts: &[Arc<PaperText>],
) -> Vec<u64> {
    let macros_key = macros_key(config);
    let mut keys: Vec<u64> = (graph.papers.par_iter().zip(texts))
        .filter(|(paper, text)| worth_keeping(paper, text))
        .map(|(paper, _)| conversion_key(macros_key, paper))
        .collect();
    keys.par_sort_unstable();
    keys.dedup();
    keys
}

/// Each paper's conversion (`texts`, by paper) that is worth keeping for the next
/// build, with its key, made a chunk of papers at a time, for [`KeptFile::write_to`].
pub fn conversions_to_keep<'a>(
    graph: &'a SiteGraph,
    config: &SiteConfig,
    texts: &'a [Arc<PaperText>],
) -> impl Iterator<Item = (u64, Vec<u8>)> + 'a {
    let macros_key = macros_key(config);
    let papers = &graph.papers;
    (0..papers.len())
        .step_by(KEEP_CHUNK)
        .flat_map(move |start| {
            let chunk = start..papers.len().min(start + KEEP_CHUNK);
            let kept: Vec<(u64, Vec<u8>)> = (papers[chunk.clone()].par_iter().zip(&texts[chunk]))
                .filter(|(paper, text)| worth_keeping(paper, text))
                .filter_map(|(paper, text)| {
                    let kept = KeptConversion {
                        title_html: text.title_html.clone(),
                        title_text: text.title_text.clone(),
                        abstract_text: converted_abstract(paper, text)
                            .map(|converted| converted.load().to_string()),
                        warnings: text.warnings.clone(),
                    };
                    let bytes = postcard::to_allocvec(&kept).ok()?;
                    Some((conversion_key(macros_key, paper), bytes))
                })
                .collect();
            kept
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{Record, RecordFile};

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

    fn record_file(path: &str, titles_and_abstracts: &[(&str, &str)]) -> RecordFile {
        RecordFile {
            path: path.into(),
            author_name: "Ada Lovelace".into(),
            declared_count: None,
            records: (titles_and_abstracts.iter().enumerate())
                .map(|(i, (title, abstract_text))| {
                    Record::new(
                        "arXiv".into(),
                        2024,
                        (*title).into(),
                        Some((*abstract_text).into()),
                        vec!["math.AG".into()],
                        9 + 6 * i,
                    )
                })
                .collect(),
        }
    }

    /// Each paper's converted title and abstract, as text.
    fn shown(texts: &[Arc<PaperText>]) -> Vec<(String, String, Option<String>, Vec<String>)> {
        let show = |t: &Arc<PaperText>| {
            let abstract_text = t.abstract_text.as_ref().map(|a| a.load().to_string());
            let t: PaperText = (**t).clone();
            (t.title_html, t.title_text, abstract_text, t.warnings)
        };
        texts.iter().map(show).collect()
    }

    #[test]
    fn kept_conversions_are_found_again_rather_than_made() {
        let graph = crate::graph::link(&[record_file(
            "content/records/a.txt",
            &[
                (
                    r"On $\mathscr{M}$",
                    r"Bounds in $\alpha$ and $\unknownmacro$.",
                ),
                ("Plain words", "Nothing to convert here."),
                ("Plain title", r"But $x^2$ in the abstract."),
            ],
        )]);
        let config = SiteConfig::default();
        let no_memo = TextsMemo::default();
        let (made, _) = convert_texts(&graph, &config, &no_memo, None);
        // Only what conversion changed is kept: not the plain paper.
        let keys = kept_conversion_keys(&graph, &config, &made);
        assert_eq!(keys.len(), 2, "{keys:?}");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("texts.kept");
        let write = |entries: &mut dyn Iterator<Item = (u64, Vec<u8>)>| {
            let mut bytes = Vec::new();
            KeptFile::write_to(&mut bytes, "id", entries).unwrap();
            std::fs::write(&path, bytes).unwrap();
        };
        write(&mut conversions_to_keep(&graph, &config, &made));
        let kept = KeptFile::open(&path, "id").unwrap();
        assert_eq!(kept.keys().collect::<Vec<_>>(), keys);
        // Found again, they are what conversion made, warnings included.
        let (found, diagnostics) = convert_texts(&graph, &config, &no_memo, Some(&kept));
        assert_eq!(shown(&found), shown(&made));
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        // And they are read from the file, not made: a kept title shows.
        let macros_key = macros_key(&config);
        let paper = graph
            .papers
            .iter()
            .find(|p| p.title.contains("mathscr"))
            .unwrap();
        let crafted = KeptConversion {
            title_html: "from the kept file".into(),
            title_text: "kept".into(),
            abstract_text: Some("kept abstract".into()),
            warnings: Vec::new(),
        };
        let entry = (
            conversion_key(macros_key, paper),
            postcard::to_allocvec(&crafted).unwrap(),
        );
        write(&mut [entry].into_iter());
        let kept = KeptFile::open(&path, "id").unwrap();
        let (found, _) = convert_texts(&graph, &config, &no_memo, Some(&kept));
        let crafted_shown = shown(&found).into_iter().find(|t| t.1 == "kept").unwrap();
        assert_eq!(crafted_shown.0, "from the kept file");
        assert_eq!(crafted_shown.2.as_deref(), Some("kept abstract"));
    }

    #[test]
    fn a_paper_without_tex_is_what_conversion_would_make_of_it() {
        let plain = [
            ("Plain words", "Nothing to convert here."),
            (
                "<script>Quotes' & \"tags\"</script>",
                "A < b & c > d, 'single' - dash.",
            ),
            (
                "Paragraphs",
                "One.\n\n\nTwo, after three newlines.\n\nThree.",
            ),
            ("Empty abstract", ""),
            ("Ünïcödé títle", "Ærøskøbing — already a dash, “quoted”."),
        ];
        let dir = tempfile::tempdir().unwrap();
        for store in [TextStore::default(), TextStore::in_dir(dir.path())] {
            for (title, source) in plain {
                let kept = store.put(source);
                assert!(!has_tex(title) && !kept.has_tex(), "{title:?}");
                let loaded = kept.load();
                let converted = convert_text(
                    title,
                    (Some(&kept), Some(&loaded)),
                    &Definitions::new(),
                    &store,
                );
                let mut paper = crate::graph::link(&[record_file("a.txt", &[(title, source)])])
                    .papers
                    .remove(0);
                paper.abstract_text = Some(kept.clone());
                let quick = unconverted(&paper);
                assert_eq!(quick.title_html, converted.title_html, "{title:?}");
                assert_eq!(quick.title_text, converted.title_text);
                assert!(quick.abstract_text.unwrap().same_as(&kept), "{source:?}");
                assert!(
                    converted.abstract_text.unwrap().same_as(&kept),
                    "{source:?}"
                );
                assert!(converted.warnings.is_empty() && quick.warnings.is_empty());
            }
        }
    }

    #[test]
    fn only_papers_with_tex_are_converted() {
        let graph = crate::graph::link(&[record_file(
            "content/records/a.txt",
            &[
                ("Plain words", "Nothing to convert here."),
                ("Plain title", r"But $x^2$ in the abstract."),
                (r"A $\beta$ title", "And a plain abstract."),
            ],
        )]);
        let config = SiteConfig::default();
        let mut memo = TextsMemo::default();
        memo.enable();
        let (texts, _) = convert_texts(&graph, &config, &memo, None);
        assert_eq!(shown(&texts).len(), 3);
        let by_title = |t: &str| {
            let i = graph.papers.iter().position(|p| p.title == t).unwrap();
            (&graph.papers[i], &texts[i])
        };
        let (paper, plain) = by_title("Plain words");
        assert!(plain
            .abstract_text
            .as_ref()
            .unwrap()
            .same_as(paper.abstract_text.as_ref().unwrap()));
        assert_eq!(
            by_title("Plain title")
                .1
                .abstract_text
                .as_ref()
                .unwrap()
                .load()
                .as_ref(),
            "But x^2 in the abstract."
        );
        assert_eq!(by_title(r"A $\beta$ title").1.title_text, "A β title");
        // The two with TeX went through the memo (and would be reused); the plain one
        // did not need to.
        memo.finish_build();
        assert_eq!(memo.conversions.len(), 2);
    }

    #[test]
    fn conversions_of_papers_the_next_link_takes_are_taken_by_id() {
        let ada = Arc::new(record_file(
            "content/records/a.txt",
            &[
                (
                    r"On $\mathscr{M}$",
                    r"Bounds in $\alpha$ and $\unknownmacro$.",
                ),
                ("Plain words", "Nothing to convert here."),
                ("Plain title", r"But $x^2$ in the abstract."),
            ],
        ));
        let rules = crate::identity::IdentityRules::default();
        let mut links = crate::graph::LinkMemo::default();
        links.enable();
        let mut memo = TextsMemo::default();
        memo.enable();
        let mut config = SiteConfig::default();
        // Links and converts as a long-running process's build does, keeping both.
        let mut build = |files: &[Arc<RecordFile>], config: &SiteConfig| {
            links.hold_files(files);
            let mut graph = crate::graph::link_with(files, &rules, &links);
            let (texts, diagnostics) = convert_texts(&graph, config, &memo, None);
            memo.finish_build();
            let lineage = graph.lineage.clone();
            let fresh = convert_texts(&graph, config, &TextsMemo::default(), None);
            assert_eq!(shown(&texts), shown(&fresh.0), "as converted afresh");
            assert_eq!(diagnostics, fresh.1);
            links.keep_papers(&mut graph);
            (texts, lineage)
        };
        let (first, _) = build(&[Arc::clone(&ada)], &config);

        // A paper whose title sorts first: every id moves, the three are taken by id.
        let new = Arc::new(record_file("content/records/0.txt", &[("Abel $y$", "")]));
        let files = [new, Arc::clone(&ada)];
        let (second, lineage) = build(&files, &config);
        let taken: Vec<(usize, usize)> = (0..second.len())
            .filter_map(|id| Some((id, lineage.previous_id(id, lineage.previous_link)?)))
            .collect();
        assert_eq!(taken.len(), 3, "{taken:?}");
        for (id, was) in taken {
            assert!(Arc::ptr_eq(&second[id], &first[was]), "paper {id}");
        }
        assert!(first.iter().all(|t| !Arc::ptr_eq(t, &second[0])));

        // Other site macros: the papers are taken, their conversions are not.
        config.tex_macros = r"\newcommand{\R}{\mathbb{R}}".into();
        let (third, lineage) = build(&files, &config);
        assert!(lineage.was.iter().any(Option::is_some));
        assert!(third
            .iter()
            .all(|t| second.iter().all(|s| !Arc::ptr_eq(t, s))));
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
