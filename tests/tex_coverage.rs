//! TeX coverage on real data: a slice of an arXiv corpus (`tests/fixtures/arxiv-math/`,
//! CC0) is built, and at most 0.5% of its distinct math fragments may be shown as source,
//! and at most 0.5% of its paper pages may show a TeX command (`\name`) in their visible
//! text. A few of its formula-heavy pages are also kept as snapshots. Every command KaTeX
//! renders is rendered too, but for a list of forms with their reasons.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use common::{arxiv_slice, pages_in, Site};
use profilegen::graph::link;
use profilegen::records::parse_record_file;
use profilegen::tex::{math_fragments_with, Definitions};
use scraper::{ElementRef, Html, Node, Selector};

/// The largest share of fragments shown as source, and of pages showing TeX commands.
const TARGET_RATE: f64 = 0.005;

#[test]
fn few_math_fragments_are_shown_as_source() {
    let records: Vec<_> = arxiv_slice()
        .iter()
        .filter_map(|(name, text)| parse_record_file(Path::new(name), text.as_bytes()).0)
        .collect();
    let graph = link(&records);
    let mut fragments = BTreeMap::new();
    for paper in &graph.papers {
        let abstract_text = paper.abstract_text.as_ref().map(|a| a.load());
        let texts = std::iter::once(paper.title.as_str()).chain(abstract_text.as_deref());
        let mut definitions = Definitions::new();
        for text in texts.flat_map(|t| t.split("\n\n")) {
            for fragment in math_fragments_with(text, &mut definitions) {
                fragments.insert(fragment.source.clone(), fragment.error);
            }
        }
    }
    assert!(fragments.len() > 500, "{} fragments", fragments.len());
    let source: Vec<(&String, &Option<String>)> = fragments
        .iter()
        .filter(|(_, error)| error.is_some())
        .collect();
    assert!(
        source.len() as f64 <= TARGET_RATE * fragments.len() as f64,
        "{} of {} fragments are shown as source: {source:#?}",
        source.len(),
        fragments.len()
    );
}

/// The visible text of `element`, without MathML and without the BibTeX block (which keeps
/// the title's TeX on purpose).
fn visible_text(element: ElementRef<'_>, out: &mut String) {
    for child in element.children() {
        match child.value() {
            Node::Text(text) => out.push_str(text),
            Node::Element(e) if e.name() == "math" || e.name() == "pre" => {}
            Node::Element(_) => visible_text(ElementRef::wrap(child).unwrap(), out),
            _ => {}
        }
    }
}

/// The TeX commands (`\name`) in `text`.
fn commands(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (i, _) in text.match_indices('\\') {
        let name: String = text[i + 1..]
            .chars()
            .take_while(char::is_ascii_alphabetic)
            .collect();
        if !name.is_empty() {
            found.push(format!("\\{name}"));
        }
    }
    found
}

#[test]
fn few_paper_pages_show_tex_commands_and_formula_pages_match_snapshots() {
    let site = Site::new();
    for (name, text) in arxiv_slice() {
        site.file(&format!("content/records/{name}"), text);
    }
    site.build();
    let files = site.output_tree();
    let pages = pages_in(&files, "papers");
    assert!(pages.len() > 150, "{} paper pages", pages.len());
    let article = Selector::parse("article.paper").unwrap();
    let mut showing = Vec::new();
    for page in &pages {
        let html = Html::parse_document(&site.output(page));
        let mut text = String::new();
        for element in html.select(&article) {
            visible_text(element, &mut text);
        }
        let found = commands(&text);
        if !found.is_empty() {
            showing.push((page.clone(), found));
        }
    }
    assert!(
        showing.len() as f64 <= TARGET_RATE * pages.len() as f64,
        "{} of {} paper pages show TeX commands: {showing:#?}",
        showing.len(),
        pages.len()
    );

    // Pages with rewritten commands (`\mathscr`, `\frak`, `\over`) and math in text.
    for slug in [
        "an-equivalence-between-truncations-of-categorified-quantum-groups-and-2017",
        "noncommutative-spherically-symmetric-spacetimes-at-semiclassical-order-2016",
        "diffusive-shock-re-acceleration-2018",
    ] {
        let path = format!("papers/{slug}/index.html");
        if !pages.contains(&path) {
            panic!("no page {path}; pages: {pages:?}");
        }
        let html = Html::parse_document(&site.output(&path));
        let article = html.select(&article).next().unwrap().html();
        insta::assert_snapshot!(format!("arxiv_math_{slug}"), article);
    }
}

/// The paper page of the one paper in `site`'s output.
fn only_paper_page(site: &Site) -> String {
    let pages = pages_in(&site.output_tree(), "papers");
    assert_eq!(pages.len(), 1, "{pages:?}");
    site.output(&pages[0])
}

#[test]
fn site_tex_macros_give_author_macros_a_meaning_and_a_bad_one_is_reported_at_its_line() {
    let record = common::record_file(
        "Ada Lovelace",
        &[(
            2021,
            r"Sheaves $\mO_X$ on $\CK$",
            r"We study $\Spf \CK$ where $\CK$ is a field; the paper writes $\renewcommand{\mO}{\mathbb{O}}\mO$ itself.",
            "math.AG",
        )],
    );
    let site = Site::new();
    site.file("content/records/ada.txt", &record);
    let run = site.build();
    assert!(
        run.stderr.contains(r"unknown primitive command"),
        "{}",
        run.stderr
    );
    let page = only_paper_page(&site);
    assert!(
        page.contains(r"$\CK$"),
        "without tex_macros the fragment stays source"
    );

    site.file(
        "profilegen.yaml",
        "title: Lab\ntex_macros: |\n  % the group's notation\n  \\newcommand{\\CK}{\\mathcal{K}}\n  \\def\\mO{\\mathcal{O}}\n  \\DeclareMathOperator{\\Spf}{Spf}\n",
    );
    let run = site.build();
    assert!(!run.stderr.contains("TeX in"), "{}", run.stderr);
    let page = only_paper_page(&site);
    let html = Html::parse_document(&page);
    let identifiers: Vec<String> = html
        .select(&Selector::parse("main math mi").unwrap())
        .map(|mi| mi.text().collect::<String>())
        .collect();
    // `\CK`, `\mO` and `\Spf` as the site defines them; the paper's own redefinition of
    // `\mO` wins over the site's for the rest of that paper.
    for expected in ["𝒦", "𝒪", "Spf", "𝕆"] {
        assert!(
            identifiers.iter().any(|t| t == expected),
            "{expected}: {identifiers:?}"
        );
    }
    let mut visible = String::new();
    let main = html
        .select(&Selector::parse("main").unwrap())
        .next()
        .unwrap();
    visible_text(main, &mut visible);
    assert_eq!(commands(&visible), Vec::<String>::new());

    site.file(
        "profilegen.yaml",
        "title: Lab\ntex_macros: |\n  \\newcommand{\\CK}{\\mathcal{K}}\n  \\mathcal{O}\n",
    );
    let run = site.run(&["build"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("tex_macros: only macro definitions may be given"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("profilegen.yaml:4:3"), "{}", run.stderr);
    assert!(run.stderr.contains(r"\mathcal{O}"), "{}", run.stderr);
}

/// Abstracts kept in a text store on disk (as a large site's are, whose build also has
/// the allocator give freed memory back) give the same site, byte for byte, as
/// abstracts kept in memory; the store leaves no file behind.
#[test]
fn abstracts_in_a_text_store_give_the_same_site_as_in_memory() {
    let sites = [Site::new(), Site::new()];
    for site in &sites {
        for (name, text) in arxiv_slice() {
            site.file(&format!("content/records/{name}"), text);
        }
    }
    let timings = ("PROFILEGEN_TIMINGS", "1");
    let stored = sites[0].run_with_env(
        &["build", "--quiet"],
        &[timings, ("PROFILEGEN_TEXT_STORE_MIN_BYTES", "0")],
    );
    let held = sites[1].run_with_env(&["build", "--quiet"], &[timings]);
    assert_eq!(
        (stored.code, held.code),
        (0, 0),
        "{}{}",
        stored.stderr,
        held.stderr
    );
    assert!(
        stored.stderr.contains("timing: link (stored)"),
        "{}",
        stored.stderr
    );
    assert!(!held.stderr.contains("(stored)"), "{}", held.stderr);
    let (stored_tree, held_tree) = (sites[0].output_tree(), sites[1].output_tree());
    assert!(stored_tree.len() > 100, "{} files", stored_tree.len());
    assert!(stored_tree == held_tree, "the outputs differ");
    // The stored abstracts are on the pages: visible, and in the citation tags.
    let papers = pages_in(&stored_tree, "papers");
    let with_abstract = stored_tree
        .iter()
        .filter(|(path, _)| papers.contains(path))
        .map(|(_, bytes)| String::from_utf8_lossy(bytes))
        .filter(|page| {
            page.contains("name=\"citation_abstract\" content=\"")
                && page.contains("<p class=\"abstract\">")
        })
        .count();
    assert!(
        with_abstract * 10 > papers.len() * 9,
        "{with_abstract} of {}",
        papers.len()
    );
    let cache: Vec<String> = fs::read_dir(sites[0].root().join(".profilegen"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let kept = ["texts.kept", "search.kept", "records.kept", ".gitignore"];
    assert!(
        (cache.iter()).all(|name| name.ends_with(".cache") || kept.contains(&name.as_str())),
        "{cache:?}"
    );

    // `check` stores them too, outside the site: it writes nothing into it.
    let site = Site::new();
    for (name, text) in arxiv_slice() {
        site.file(&format!("content/records/{name}"), text);
    }
    let checked = site.run_with_env(
        &["check"],
        &[timings, ("PROFILEGEN_TEXT_STORE_MIN_BYTES", "0")],
    );
    assert!(
        checked.stderr.contains("timing: link (stored)"),
        "{}",
        checked.stderr
    );
    assert!(!site.root().join(".profilegen").exists());
    assert!(!site.public().exists());
}

/// Every command KaTeX renders (`tests/fixtures/katex_commands.txt`, made by
/// `tests/tex/katex_commands.mjs` from KaTeX's source), in its first form KaTeX
/// renders, is rendered by profilegen too, but for the forms listed with their reasons
/// in `tests/fixtures/katex_commands_not_rendered.txt`: exactly those.
#[test]
fn every_command_katex_renders_renders_but_the_listed_ones() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let forms = fs::read_to_string(fixtures.join("katex_commands.txt")).unwrap();
    let listed = fs::read_to_string(fixtures.join("katex_commands_not_rendered.txt")).unwrap();
    let listed: std::collections::BTreeSet<&str> = listed
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .collect();
    let forms: Vec<&str> = forms.lines().filter(|line| !line.is_empty()).collect();
    assert!(forms.len() > 900, "{} forms", forms.len());
    assert!(forms.contains(&r"\ket{x}") && forms.contains(&r"\xmapsto{x}"));
    let mut unexpected = Vec::new();
    for form in &forms {
        let fragments = math_fragments_with(&format!("${form}$"), &mut Definitions::new());
        let rendered = fragments.len() == 1 && fragments[0].error.is_none();
        if rendered == listed.contains(form) {
            let error = fragments.first().and_then(|f| f.error.clone());
            let what = match rendered {
                true => "renders, but is listed".to_string(),
                false => format!("is not listed, and does not render: {error:?}"),
            };
            unexpected.push(format!("{form} {what}"));
        }
    }
    assert!(
        unexpected.is_empty(),
        "KaTeX's commands against the list:\n{}",
        unexpected.join("\n")
    );
    assert!(
        listed.iter().all(|form| forms.contains(form)),
        "a listed form is not among KaTeX's"
    );
}
