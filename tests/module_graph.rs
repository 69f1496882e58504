//! The crate's module graph follows the pipeline: a module uses only modules of its own
//! layer or of the layers below it, and no modules use each other in a cycle.
//!
//! The graph is read from the sources: every `crate::<module>` path outside comments
//! (in `use` lines, grouped `use crate::{a, b::c}` lines, and paths written in place).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// The layers, bottom first; a module may use modules of its own layer and below.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "shared leaves",
        &[
            "hash",
            "threads",
            "reuse",
            "text_store",
            "kept_file",
            "diagnostics",
            "normalize",
            "slug",
            "taxonomy",
            "tex",
            "url",
            "cite",
            "coauthor_graph",
            "identifiers",
        ],
    ),
    (
        "read sources",
        &["ignore", "config", "records", "content", "sources"],
    ),
    ("link", &["identity", "graph", "suggest"]),
    ("plan", &["plan"]),
    ("search", &["search"]),
    ("render", &["render"]),
    ("output", &["output"]),
    ("build", &["build"]),
    ("watch and serve", &["watch", "serve", "live"]),
    ("command line", &["init", "cli"]),
];

/// Top-level module of each source file (`src/plan/feeds.rs` -> `plan`); `lib.rs` and
/// `main.rs` are the crate root, which may use anything.
fn top_module(relative: &Path) -> Option<String> {
    let first = relative.components().next()?.as_os_str().to_string_lossy();
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_string();
    (name != "lib" && name != "main").then_some(name)
}

/// The code of a source file without its comments (line comments, doc comments, and
/// `/* */` blocks), so that paths named in documentation do not count as uses.
fn without_comments(source: &str) -> String {
    let mut code = String::with_capacity(source.len());
    let mut rest = source;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.find('\n').map_or("", |end| &after[end..]);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.find("*/").map_or("", |end| &after[end + 2..]);
        } else if let Some(quote) = ["'\"'", "'\\\"'"].iter().find(|q| rest.starts_with(**q)) {
            // A quote character is not the start of a string.
            code.push_str(quote);
            rest = &rest[quote.len()..];
        } else if rest.starts_with('"') {
            // Strings are kept whole, so a `//` inside one is not taken as a comment.
            let end = string_end(rest);
            code.push_str(&rest[..end]);
            rest = &rest[end..];
        } else {
            let c = rest.chars().next().unwrap();
            code.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    code
}

/// The length of the string literal `text` starts with, its quotes included.
fn string_end(text: &str) -> usize {
    let mut escaped = false;
    for (i, c) in text.char_indices().skip(1) {
        match c {
            '\\' if !escaped => escaped = true,
            '"' if !escaped => return i + 1,
            _ => escaped = false,
        }
    }
    text.len()
}

/// The top-level modules `code` uses through `crate::` paths, groups included.
fn used_modules(code: &str) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `my_crate::`, not `crate::`
        }
        let path = &code[at + "crate::".len()..];
        if let Some(group) = path.strip_prefix('{') {
            used.extend(group_heads(group));
        } else {
            used.extend(identifier(path));
        }
    }
    used
}

/// The first identifier of each item of a `{a, b::{c, d}, e}` group (its text after `{`).
fn group_heads(group: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut at_item_start = true;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => at_item_start = true,
            c if at_item_start && !c.is_whitespace() => {
                heads.extend(identifier(&group[i..]));
                at_item_start = false;
            }
            _ => {}
        }
    }
    heads
}

fn identifier(text: &str) -> Option<String> {
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    (end > 0).then(|| text[..end].to_string())
}

/// Every top-level module and the modules it uses (itself left out).
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for entry in walkdir::WalkDir::new(src) {
        let entry = entry.unwrap();
        if entry.path().extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let relative = entry.path().strip_prefix(src).unwrap();
        let Some(module) = top_module(relative) else {
            continue;
        };
        let code = without_comments(&fs::read_to_string(entry.path()).unwrap());
        let uses = graph.entry(module.clone()).or_default();
        uses.extend(used_modules(&code).into_iter().filter(|m| *m != module));
    }
    graph
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS
        .iter()
        .position(|(_, modules)| modules.contains(&module))
}

/// A cycle in `graph`, as the modules along it, if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        module: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|m| m == module) {
            let mut cycle = path[start..].to_vec();
            cycle.push(module.to_string());
            return Some(cycle);
        }
        if done.contains(module) {
            return None;
        }
        path.push(module.to_string());
        for used in graph.get(module).into_iter().flatten() {
            if let Some(cycle) = visit(used, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(module.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|module| visit(module, graph, &mut Vec::new(), &mut done))
}

#[test]
fn modules_use_only_their_own_layer_and_the_layers_below() {
    let graph = module_graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(graph.contains_key("plan") && graph.contains_key("build"));
    let mut problems = Vec::new();
    for (module, uses) in &graph {
        let Some(layer) = layer_of(module) else {
            problems.push(format!("`{module}` is in no layer of LAYERS"));
            continue;
        };
        for used in uses {
            match layer_of(used) {
                Some(used_layer) if used_layer > layer => problems.push(format!(
                    "`{module}` ({}) uses `{used}`, which is above it ({})",
                    LAYERS[layer].0, LAYERS[used_layer].0
                )),
                Some(_) => {}
                None => problems.push(format!("`{module}` uses `{used}`, in no layer")),
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_modules_use_each_other_in_a_cycle() {
    let graph = module_graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    if let Some(cycle) = find_cycle(&graph) {
        panic!("import cycle: {}", cycle.join(" -> "));
    }
}

#[test]
fn the_reader_sees_grouped_uses_and_skips_comments_and_strings() {
    let code = without_comments(
        "use crate::{graph::{A, B}, plan::C};\n\
         // use crate::cli;\n\
         /* crate::serve */ let s = \"// not a comment\"; crate::records::parse();\n\
         /// [`crate::watch`]\n\
         let q = '\"'; let x = my_crate::build; crate::slug::f(\"\\\"\");",
    );
    let used: Vec<String> = used_modules(&code).into_iter().collect();
    assert_eq!(used, ["graph", "plan", "records", "slug"]);
    assert!(code.contains("\"// not a comment\""));

    let mut cyclic = BTreeMap::new();
    cyclic.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    cyclic.insert("b".to_string(), BTreeSet::from(["c".to_string()]));
    cyclic.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(find_cycle(&cyclic).unwrap(), ["a", "b", "c", "a"]);
    cyclic.get_mut("c").unwrap().clear();
    assert_eq!(find_cycle(&cyclic), None);
}
