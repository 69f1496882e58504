//! How profilegen renders the TeX of a folder of record files, as JSON lines.
//!
//! ```text
//! cargo run --release --example tex_report -- RECORDS_DIR [--config profilegen.yaml]
//! ```
//!
//! Reads every `*.txt` under `RECORDS_DIR` (subfolders included), links the records into
//! papers as a build does, and converts each paper's title and abstract (macros that a
//! paper defines apply to its later texts, as in a build; with `--config`, the site's
//! `tex_macros` apply to every paper, as in a build of that site). It prints one
//! JSON object a line, in a fixed order, so that the same input gives the same bytes:
//!
//! - `{"fragment": SOURCE, "tex": TEX, "display": BOOL, "error": null | REASON}` for each
//!   distinct math fragment (`$...$`, `$$...$$`, `\(...\)`, `\[...\]`,
//!   `\ensuremath{...}`), sorted by its source; `error` says why it is shown as source;
//! - `{"page": SLUG, "commands": [...]}` for each paper whose title or abstract shows a
//!   TeX command (`\name`) in its visible text, outside MathML, with the commands;
//! - last, `{"papers": N, "fragments": M}`.
//!
//! `tests/tex/katex_compare.mjs` reads this output and compares it with KaTeX.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use profilegen::config::parse_config;
use profilegen::graph::link;
use profilegen::records::parse_record_file;
use profilegen::tex::{math_fragments_with, render_tex_with, Definitions};
use serde_json::json;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (dir, site_macros) = match args.as_slice() {
        [dir] => (dir, Definitions::new()),
        [dir, flag, config] if flag == "--config" => (dir, site_macros(Path::new(config))),
        _ => {
            eprintln!("usage: tex_report RECORDS_DIR [--config profilegen.yaml]");
            std::process::exit(2);
        }
    };
    let files = read_records(Path::new(dir));
    if files.is_empty() {
        eprintln!("tex_report: no readable record file under {dir}");
        std::process::exit(1);
    }
    let graph = link(&files);

    let mut fragments = BTreeMap::new();
    let mut pages = Vec::new();
    for paper in &graph.papers {
        let abstract_text = paper.abstract_text.as_ref().map(|a| a.load());
        let paragraphs = abstract_text.iter().flat_map(|a| a.split("\n\n"));
        let mut commands = BTreeSet::new();
        // Macros a paper defines apply to its later texts (one set for each reader).
        let (mut for_fragments, mut for_pages) = (site_macros.clone(), site_macros.clone());
        for text in std::iter::once(paper.title.as_str()).chain(paragraphs) {
            for fragment in math_fragments_with(text, &mut for_fragments) {
                fragments.entry(fragment.source.clone()).or_insert(fragment);
            }
            let html = render_tex_with(text, &mut for_pages).html;
            commands.extend(visible_commands(&html));
        }
        if !commands.is_empty() {
            pages.push((paper.slug.clone(), commands));
        }
    }

    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut line = |value: serde_json::Value| {
        writeln!(out, "{value}").expect("write to stdout");
    };
    for fragment in fragments.values() {
        line(json!({
            "fragment": fragment.source,
            "tex": fragment.tex,
            "display": fragment.display,
            "error": fragment.error,
        }));
    }
    for (slug, commands) in &pages {
        line(json!({ "page": slug, "commands": commands }));
    }
    line(json!({ "papers": graph.papers.len(), "fragments": fragments.len() }));
}

/// The `tex_macros` of the site configuration at `path`; exits on an unusable one.
fn site_macros(path: &Path) -> Definitions {
    let text = std::fs::read_to_string(path).unwrap_or_else(|err| {
        eprintln!("tex_report: cannot read {}: {err}", path.display());
        std::process::exit(1);
    });
    match parse_config(path, &text) {
        Ok(config) => config.tex_definitions,
        Err(diagnostic) => {
            eprintln!("{}", diagnostic.render());
            std::process::exit(1);
        }
    }
}

/// The parsed record files under `dir`, in path order; unreadable ones are skipped.
fn read_records(dir: &Path) -> Vec<profilegen::records::RecordFile> {
    let mut paths: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "txt"))
        .map(walkdir::DirEntry::into_path)
        .collect();
    paths.sort();
    paths
        .iter()
        .filter_map(|path| {
            let bytes = std::fs::read(path).ok()?;
            parse_record_file(path, &bytes).0
        })
        .collect()
}

/// The TeX commands (`\name`) in the visible text of `html`: outside tags and outside
/// `<math>` elements.
fn visible_commands(html: &str) -> Vec<String> {
    let mut visible = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        visible.push_str(&rest[..open]);
        rest = &rest[open..];
        if rest.starts_with("<math") {
            let close = rest
                .find("</math>")
                .map_or(rest.len(), |i| i + "</math>".len());
            rest = &rest[close..];
        } else {
            let close = rest.find('>').map_or(rest.len(), |i| i + 1);
            rest = &rest[close..];
        }
    }
    visible.push_str(rest);
    let mut commands = Vec::new();
    let mut chars = visible.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '\\' {
            continue;
        }
        let name_len: usize = visible[i + 1..]
            .chars()
            .take_while(char::is_ascii_alphabetic)
            .count();
        if name_len > 0 {
            commands.push(visible[i..i + 1 + name_len].to_owned());
            for _ in 0..name_len {
                chars.next();
            }
        }
    }
    commands
}
