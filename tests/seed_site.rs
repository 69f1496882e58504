//! End to end on the three seed record files: the example site.

mod common;

use common::{pages_in, Site};

const MEGATRON: &str =
    "papers/scalable-training-of-mixture-of-experts-models-with-megatron-core-2026/index.html";

fn built() -> Site {
    let site = Site::seeds();
    site.build();
    site
}

#[test]
fn seed_site_has_3_author_pages_and_13_paper_pages() {
    let site = built();
    let files = site.output_tree();
    let authors = pages_in(&files, "authors");
    let papers = pages_in(&files, "papers");
    assert_eq!(
        authors,
        [
            "authors/bor-yiing-su/index.html",
            "authors/shunkang-zhang/index.html",
            "authors/zhongbo-zhu/index.html"
        ]
    );
    assert_eq!(papers.len(), 13, "{papers:#?}");
    for page in [
        "index.html",
        "404.html",
        "authors/index.html",
        "subjects/index.html",
        "subjects/cs.DC/index.html",
        "subjects/eess.SY/index.html",
        "years/index.html",
        "years/2019/index.html",
        "style.css",
        "data/authors.json",
        "data/papers.json",
    ] {
        assert!(files.iter().any(|(p, _)| p == page), "missing {page}");
    }
}

#[test]
fn megatron_is_one_page_linking_both_authors_and_both_link_it() {
    let site = built();
    let page = site.output(MEGATRON);
    assert!(
        page.contains("<h1>Scalable Training of Mixture-of-Experts Models with Megatron Core</h1>")
    );
    assert!(page.contains(r#"href="../../authors/zhongbo-zhu/index.html">Zhongbo Zhu</a>"#));
    assert!(page.contains(r#"href="../../authors/shunkang-zhang/index.html">Shunkang Zhang</a>"#));
    assert!(
        !page.contains("Bor-Yiing Su</a>, "),
        "Su is not an author of this paper's byline"
    );
    assert!(page.contains("Distributed, Parallel, and Cluster Computing"));
    for author in ["zhongbo-zhu", "shunkang-zhang"] {
        let author_page = site.output(&format!("authors/{author}/index.html"));
        assert!(
            author_page.contains(
                r#"href="../../papers/scalable-training-of-mixture-of-experts-models-with-megatron-core-2026/index.html""#
            ),
            "{author} does not link the Megatron paper"
        );
    }
    let su = site.output("authors/bor-yiing-su/index.html");
    assert!(!su.contains("megatron-core"));
}

#[test]
fn zhu_links_both_coauthors_with_shared_counts() {
    let site = built();
    let page = site.output("authors/zhongbo-zhu/index.html");
    let coauthors = &page[page.find("Co-authors</h2>").expect("co-author section")..];
    let coauthors = &coauthors[..coauthors.find("</section>").unwrap()];
    assert!(coauthors.contains(r#"<a href="../../authors/bor-yiing-su/index.html">Bor-Yiing Su</a> <span class="count">1 shared paper</span>"#), "{coauthors}");
    assert!(coauthors.contains(r#"<a href="../../authors/shunkang-zhang/index.html">Shunkang Zhang</a> <span class="count">1 shared paper</span>"#), "{coauthors}");
    assert!(page.contains("3 papers · active 2021–2026"));
    // Su and Zhang share nothing.
    let su = site.output("authors/bor-yiing-su/index.html");
    assert!(su.contains("Zhongbo Zhu</a>"));
    assert!(!su.contains("Shunkang Zhang</a>"));
}

#[test]
fn data_files_describe_the_graph() {
    let site = built();
    let authors: serde_json::Value = site.data("authors");
    let papers: serde_json::Value = site.data("papers");
    let authors = authors.as_array().unwrap();
    let papers = papers.as_array().unwrap();
    assert_eq!(authors.len(), 3);
    assert_eq!(papers.len(), 13);
    // The index files list the shards: one of each on a small site.
    let index: serde_json::Value = serde_json::from_str(&site.output("data/papers.json")).unwrap();
    assert_eq!(
        index,
        serde_json::json!({"count": 13, "shards": [{"url": "/data/papers/0.json", "count": 13}]})
    );
    let ids: Vec<&str> = papers.iter().map(|p| p["id"].as_str().unwrap()).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    assert_eq!(ids, sorted, "a shard is in id order");
    let zhu = authors.iter().find(|a| a["id"] == "zhongbo-zhu").unwrap();
    assert_eq!(zhu["name"], "Zhongbo Zhu");
    assert_eq!(zhu["url"], "/authors/zhongbo-zhu/");
    assert_eq!(zhu["papers"].as_array().unwrap().len(), 3);
    let megatron = papers
        .iter()
        .find(|p| {
            p["id"] == "scalable-training-of-mixture-of-experts-models-with-megatron-core-2026"
        })
        .unwrap();
    assert_eq!(megatron["year"], 2026);
    assert_eq!(megatron["source"], "arXiv");
    assert_eq!(megatron["subjects"], serde_json::json!(["cs.DC"]));
    assert_eq!(
        megatron["authors"],
        serde_json::json!(["zhongbo-zhu", "shunkang-zhang"])
    );
    assert!(megatron["abstract"]
        .as_str()
        .unwrap()
        .starts_with("Scaling Mixture-of-Experts (MoE)"));
    // Every paper id a data file names exists, both ways.
    for author in authors {
        for id in author["papers"].as_array().unwrap() {
            let paper = papers
                .iter()
                .find(|p| &p["id"] == id)
                .expect("paper exists");
            assert!(paper["authors"].as_array().unwrap().contains(&author["id"]));
        }
    }
}

#[test]
fn every_internal_link_resolves() {
    let (checked, broken) = common::broken_links(&built().output_tree());
    assert_eq!(broken, Vec::<String>::new());
    assert!(checked > 300, "only {checked} links checked");
}

#[test]
fn output_is_identical_across_runs_and_thread_counts() {
    let site = Site::seeds();
    let one = site.run_with_env(
        &["build", "--output", "out1"],
        &[("RAYON_NUM_THREADS", "1")],
    );
    assert_eq!(one.code, 0, "{}", one.stderr);
    let many = site.run_with_env(
        &["build", "--output", "out8"],
        &[("RAYON_NUM_THREADS", "8")],
    );
    assert_eq!(many.code, 0, "{}", many.stderr);
    let a = common::tree(&site.root().join("out1"));
    let b = common::tree(&site.root().join("out8"));
    assert!(a.len() > 30);
    assert_eq!(a, b);
}

#[test]
fn snapshot_of_the_rendered_seed_site() {
    let site = built();
    for (path, bytes) in site.output_tree() {
        if path.ends_with(".css") || path.ends_with(".svg") || path.ends_with(".js") {
            continue;
        }
        let name = path.replace(['/', '.'], "_");
        insta::assert_snapshot!(name, String::from_utf8(bytes).unwrap());
    }
    // The downloads that are data: links in the pages, under the names a browser
    // saves them as.
    for page in [
        "authors/bor-yiing-su/index.html",
        &format!("papers/{CPR}/index.html"),
    ] {
        let dir = std::path::Path::new(page).parent().unwrap();
        for format in ["BibTeX", "RIS", "CSL-JSON"] {
            let (file_name, text) = site.download(page, format);
            let name =
                format!("download {}/{file_name}", dir.display()).replace(['/', '.', ' '], "_");
            insta::assert_snapshot!(name, text);
        }
    }
}

/// A paper whose citation downloads are snapshotted.
const CPR: &str = "cpr-understanding-and-improving-failure-tolerant-training-for-deep-2020";

/// The record of [`output_revision_moves_with_the_output`]: `OUTPUT_REVISION`, a hash
/// of the default templates and a hash of the seed site's generated output.
const OUTPUT_REVISION_RECORD: &str = "tests/fixtures/output_revision.txt";

/// An earlier build's outputs are kept while their fingerprints are the same, and a
/// fingerprint reads the inputs, the settings, the templates and `OUTPUT_REVISION`, not
/// the code that renders them: a change to that code must bump the revision, or sites
/// built before keep outputs the new code would make otherwise. So the revision is
/// recorded with the seed site's generated output (its files but the theme's static
/// ones, which are copied as they are); that output changing under the same revision
/// and the same templates fails. (A change of a template is fingerprinted: it needs
/// only the record updated.)
#[test]
fn output_revision_moves_with_the_output() {
    use profilegen::render::{default_templates_hash, files_hash, DEFAULT_STATIC};
    let templates = default_templates_hash();
    let site = built();
    let tree = site.output_tree();
    let is_static = |path: &str| DEFAULT_STATIC.iter().any(|(name, _)| *name == path);
    let generated = files_hash(
        (tree.iter())
            .filter(|(path, _)| !is_static(path))
            .map(|(path, file)| (path.as_str(), file.as_slice())),
    );
    let now = format!(
        "{} {templates:016x} {generated:016x}",
        profilegen::render::context::reads::OUTPUT_REVISION
    );
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(OUTPUT_REVISION_RECORD);
    let text = std::fs::read_to_string(&path).expect("the record");
    let recorded = text
        .lines()
        .find(|l| !l.starts_with('#'))
        .expect("a record line");
    let (was, is): (Vec<&str>, Vec<&str>) =
        (recorded.split(' ').collect(), now.split(' ').collect());
    assert!(
        !(was[0] == is[0] && was[1] == is[1] && was[2] != is[2]),
        "the seed site comes out differently under the same OUTPUT_REVISION and templates: \
         the code that renders changed, so bump OUTPUT_REVISION \
         (src/render/context/reads.rs), then record `<revision> {} {}` in {OUTPUT_REVISION_RECORD}",
        is[1],
        is[2]
    );
    assert_eq!(
        recorded, now,
        "record the new revision, templates or output in {OUTPUT_REVISION_RECORD}"
    );
}
