//! Scholarly output end to end: citation tags, JSON-LD, feeds, sitemap, exports and
//! math, each read back with a real parser.

mod common;

use common::{record_file, Site};
use scraper::{Html, Selector};
use serde_json::Value;

const BASE: &str = "https://example.org/lab/";
const MEGATRON: &str = "scalable-training-of-mixture-of-experts-models-with-megatron-core-2026";
const WASSERSTEIN: &str = "wasserstein-wasserstein-auto-encoders-2019";

fn seed_site() -> Site {
    let site = Site::seeds();
    site.file(
        "profilegen.yaml",
        format!("title: Lab\ndescription: Our papers\nbase_url: {BASE}\n"),
    );
    site.file(
        "content/authors/zhongbo-zhu.md",
        "---\naffiliation: Example Institute\nhomepage: https://example.org/zhu\norcid: 0000-0002-1825-0097\n---\nBio.\n",
    );
    let run = site.build();
    // One warning: `\shadowsync`, a macro only the paper's own source defines.
    assert!(run.stderr.contains("1 warning, 0 errors"), "{}", run.stderr);
    site
}

fn select<'a>(html: &'a Html, css: &str) -> Vec<scraper::ElementRef<'a>> {
    html.select(&Selector::parse(css).unwrap()).collect()
}

fn meta(html: &Html, name: &str) -> Vec<String> {
    select(html, &format!("meta[name=\"{name}\"]"))
        .iter()
        .map(|e| e.value().attr("content").unwrap().to_string())
        .collect()
}

fn jsonld(html: &Html) -> Value {
    let scripts = select(html, "script[type=\"application/ld+json\"]");
    assert_eq!(scripts.len(), 1);
    let text: String = scripts[0].text().collect();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("JSON-LD does not parse: {e}\n{text}"))
}

fn text_of(element: &scraper::ElementRef) -> String {
    element
        .text()
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn every_paper_page_carries_google_scholar_tags_and_json_ld() {
    let site = seed_site();
    let papers: serde_json::Value = site.data("papers");
    let authors: serde_json::Value = site.data("authors");
    let name_of = |id: &Value| {
        authors
            .as_array()
            .unwrap()
            .iter()
            .find(|a| &a["id"] == id)
            .unwrap()["name"]
            .as_str()
            .unwrap()
            .to_string()
    };
    for paper in papers.as_array().unwrap() {
        let slug = paper["id"].as_str().unwrap();
        let html = Html::parse_document(&site.output(&format!("papers/{slug}/index.html")));
        let expected_authors: Vec<String> = paper["authors"]
            .as_array()
            .unwrap()
            .iter()
            .map(name_of)
            .collect();
        let title = meta(&html, "citation_title");
        assert_eq!(title.len(), 1, "{slug}");
        assert_eq!(
            title[0],
            text_of(&select(&html, "h1")[0]),
            "{slug}: title tag equals the visible title"
        );
        assert!(
            !title[0].contains('\\') && !title[0].contains('$'),
            "{slug}: clean text"
        );
        assert_eq!(
            meta(&html, "citation_author"),
            expected_authors,
            "{slug}: authors in order"
        );
        assert_eq!(
            meta(&html, "citation_publication_date"),
            [paper["year"].to_string()]
        );
        let abstract_tag = meta(&html, "citation_abstract");
        assert_eq!(abstract_tag.len(), 1);
        assert!(
            abstract_tag[0].len() > 100,
            "{slug}: abstract visible and tagged"
        );
        let keywords = meta(&html, "citation_keywords");
        assert!(
            keywords[0].contains(paper["subjects"][0].as_str().unwrap()),
            "{slug}"
        );
        // Canonical and OpenGraph, absolute.
        let canonical = select(&html, "link[rel=canonical]")[0]
            .value()
            .attr("href")
            .unwrap()
            .to_string();
        assert_eq!(canonical, format!("{BASE}papers/{slug}/"));
        let og_url = select(&html, "meta[property=\"og:url\"]")[0]
            .value()
            .attr("content")
            .unwrap();
        assert_eq!(og_url, canonical);
        assert_eq!(
            select(&html, "meta[property=\"og:type\"]")[0]
                .value()
                .attr("content"),
            Some("article")
        );
        assert_eq!(meta(&html, "twitter:card"), ["summary"]);
        // Cards read the OpenGraph title and description: no tag repeats them.
        assert!(meta(&html, "twitter:title").is_empty());
        assert!(meta(&html, "twitter:description").is_empty());
        let description = meta(&html, "description");
        assert_eq!(
            select(&html, "meta[property=\"og:description\"]")[0]
                .value()
                .attr("content"),
            Some(description[0].as_str())
        );
        assert!(
            description[0].chars().count() <= 201,
            "a snippet, not the abstract"
        );
        // JSON-LD.
        let ld = jsonld(&html);
        assert_eq!(ld["@context"], "https://schema.org");
        assert_eq!(ld["@type"], "ScholarlyArticle");
        assert_eq!(ld["name"], title[0].as_str());
        assert_eq!(ld["url"], canonical.as_str());
        assert_eq!(ld["datePublished"], paper["year"].to_string());
        assert_eq!(ld["inLanguage"], "en");
        let ld_authors: Vec<&str> = ld["author"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["name"].as_str().unwrap())
            .collect();
        assert_eq!(ld_authors, expected_authors);
        assert!(ld["author"][0]["url"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{BASE}authors/")));
        assert!(ld["abstract"].as_str().unwrap().len() > 100);
        assert!(ld["keywords"]
            .as_str()
            .unwrap()
            .contains(paper["subjects"][0].as_str().unwrap()));
    }
}

#[test]
fn author_and_home_pages_carry_profile_and_website_json_ld() {
    let site = seed_site();
    let html = Html::parse_document(&site.output("authors/zhongbo-zhu/index.html"));
    let ld = jsonld(&html);
    assert_eq!(ld["@type"], "ProfilePage");
    assert_eq!(ld["mainEntity"]["@type"], "Person");
    assert_eq!(ld["mainEntity"]["name"], "Zhongbo Zhu");
    assert_eq!(
        ld["mainEntity"]["url"],
        format!("{BASE}authors/zhongbo-zhu/")
    );
    assert_eq!(ld["mainEntity"]["affiliation"]["name"], "Example Institute");
    assert_eq!(
        ld["mainEntity"]["sameAs"],
        serde_json::json!([
            "https://example.org/zhu",
            "https://orcid.org/0000-0002-1825-0097"
        ])
    );
    assert_eq!(
        select(&html, "meta[property=\"og:type\"]")[0]
            .value()
            .attr("content"),
        Some("profile")
    );
    let home = Html::parse_document(&site.output("index.html"));
    let ld = jsonld(&home);
    assert_eq!(ld["@type"], "WebSite");
    assert_eq!(ld["url"], BASE);
    assert_eq!(ld["name"], "Lab");
}

#[test]
fn feeds_parse_and_are_advertised() {
    let site = seed_site();
    let parse = |path: &str| {
        let bytes = site.output(path);
        feed_rs::parser::parse(bytes.as_bytes()).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let all = parse("atom.xml");
    assert_eq!(all.entries.len(), 13);
    assert_eq!(all.id, format!("{BASE}atom.xml"));
    assert_eq!(
        all.updated.unwrap().to_rfc3339(),
        "2026-01-01T00:00:00+00:00",
        "from the data"
    );
    let megatron = all
        .entries
        .iter()
        .find(|e| e.id == format!("{BASE}papers/{MEGATRON}/"))
        .unwrap();
    assert_eq!(
        megatron.title.as_ref().unwrap().content,
        "Scalable Training of Mixture-of-Experts Models with Megatron Core"
    );
    let names: Vec<&str> = megatron
        .authors
        .iter()
        .map(|a| a.name.as_deref().unwrap_or(""))
        .collect();
    assert_eq!(names, ["Zhongbo Zhu", "Shunkang Zhang"]);
    assert!(megatron
        .summary
        .as_ref()
        .unwrap()
        .content
        .starts_with("Scaling Mixture-of-Experts"));
    assert_eq!(megatron.links[0].href, format!("{BASE}papers/{MEGATRON}/"));
    assert_eq!(megatron.categories[0].term, "cs.DC");
    // Newest first.
    let years: Vec<i32> = all
        .entries
        .iter()
        .map(|e| e.updated.unwrap().format("%Y").to_string().parse().unwrap())
        .collect();
    assert!(years.windows(2).all(|w| w[0] >= w[1]), "{years:?}");

    let zhu = parse("authors/zhongbo-zhu/atom.xml");
    assert_eq!(zhu.entries.len(), 3);
    let dc = parse("subjects/cs.DC/atom.xml");
    assert_eq!(dc.entries.len(), 2);

    let page = Html::parse_document(&site.output("authors/zhongbo-zhu/index.html"));
    let feeds: Vec<&str> = select(&page, "link[rel=alternate][type=\"application/atom+xml\"]")
        .iter()
        .map(|l| l.value().attr("href").unwrap())
        .collect();
    assert_eq!(feeds, ["../../atom.xml", "atom.xml"]);
    let subject = Html::parse_document(&site.output("subjects/cs.DC/index.html"));
    assert_eq!(select(&subject, "link[rel=alternate]").len(), 2);
    // Same input, same bytes: nothing comes from the clock.
    let before = site.output("atom.xml");
    std::thread::sleep(std::time::Duration::from_millis(1100));
    site.run(&["build", "--output", "again"]);
    assert_eq!(
        std::fs::read_to_string(site.root().join("again/atom.xml")).unwrap(),
        before
    );
}

#[test]
fn sitemap_lists_every_page_and_robots_points_to_it() {
    let site = seed_site();
    let xml = site.output("sitemap.xml");
    let mut reader = quick_xml::Reader::from_str(&xml);
    let mut locs = Vec::new();
    let mut in_loc = false;
    loop {
        match reader.read_event().expect("sitemap is well-formed XML") {
            quick_xml::events::Event::Start(e) if e.name().as_ref() == "loc" => in_loc = true,
            quick_xml::events::Event::End(e) if e.name().as_ref() == "loc" => in_loc = false,
            quick_xml::events::Event::Text(t) if in_loc => {
                locs.push(t.xml10_content().into_owned())
            }
            quick_xml::events::Event::Eof => break,
            _ => {}
        }
    }
    let pages: Vec<String> = site
        .output_tree()
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| p.ends_with("index.html") && p != "search/index.html")
        .collect();
    assert_eq!(locs.len(), pages.len(), "every page once");
    for loc in &locs {
        let path = loc
            .strip_prefix(BASE)
            .unwrap_or_else(|| panic!("absolute: {loc}"));
        assert!(
            pages.contains(&format!("{path}index.html")),
            "{loc} is a page"
        );
    }
    assert_eq!(
        site.output("robots.txt"),
        format!("User-agent: *\nAllow: /\n\nSitemap: {BASE}sitemap.xml\n")
    );
}

#[test]
fn without_base_url_the_build_warns_once() {
    let site = Site::seeds();
    let run = site.build();
    assert_eq!(
        run.stderr.matches("base_url is not set").count(),
        1,
        "{}",
        run.stderr
    );
    assert!(site.output("sitemap.xml").contains("<loc>/papers/"));
}

#[test]
fn citation_exports_parse() {
    let site = seed_site();
    let dir = format!("papers/{MEGATRON}");
    let page_path = format!("{dir}/index.html");
    let (bib_name, bib) = site.download(&page_path, "BibTeX");
    assert_eq!(bib_name, "zhu2026scalable.bib");
    let parsed = biblatex::Bibliography::parse(&bib).unwrap_or_else(|e| panic!("{e:?}\n{bib}"));
    assert_eq!(parsed.len(), 1);
    let entry = parsed.iter().next().unwrap();
    assert_eq!(entry.key, "zhu2026scalable");
    assert!(bib.contains("and others}"), "{bib}");
    assert!(bib.contains("archivePrefix = {arXiv}"), "{bib}");
    assert!(bib.contains("primaryClass = {cs.DC}"), "{bib}");
    let (ris_name, ris) = site.download(&page_path, "RIS");
    assert_eq!(ris_name, "zhu2026scalable.ris");
    let tags: Vec<&str> = ris.lines().map(|l| &l[..2]).collect();
    assert_eq!(tags.first(), Some(&"TY"));
    assert_eq!(tags.last(), Some(&"ER"));
    assert_eq!(ris.lines().filter(|l| l.starts_with("AU  - ")).count(), 2);
    let csl: Value = serde_json::from_str(&site.download(&page_path, "CSL-JSON").1).unwrap();
    assert_eq!(csl["id"], "zhu2026scalable");
    assert_eq!(csl["author"][0]["family"], "Zhu");
    assert_eq!(csl["issued"]["date-parts"][0][0], 2026);
    // The page shows the same BibTeX as text, with the downloads as data: links (no
    // file each).
    // file each). Neither carries the abstract, which is on the page and in its
    // `citation_abstract`.
    let page = Html::parse_document(&site.output(&page_path));
    let shown: String = select(&page, "pre.bibtex")[0].text().collect();
    assert_eq!(shown, bib, "the page shows the entry it offers");
    assert!(!bib.contains("abstract ="), "{bib}");
    assert!(!ris.contains("\nAB  - "), "{ris}");
    assert!(csl.get("abstract").is_none(), "{csl}");
    assert!(meta(&page, "citation_abstract")[0].starts_with("Scaling Mixture-of-Experts"));
    let downloads: Vec<&str> = select(&page, ".exports a")
        .iter()
        .map(|a| a.value().attr("href").unwrap())
        .collect();
    let media_types: Vec<&str> = downloads
        .iter()
        .map(|href| href.split(';').next().unwrap())
        .collect();
    assert_eq!(
        media_types,
        [
            "data:application/x-bibtex",
            "data:application/x-research-info-systems",
            "data:application/vnd.citationstyles.csl+json"
        ]
    );
    assert!(!site.public().join(&dir).join("cite.bib").exists());
    // Per author: every paper.
    let su_page = "authors/bor-yiing-su/index.html";
    let (su_name, su) = site.download(su_page, "BibTeX");
    assert_eq!(su_name, "bor-yiing-su.bib");
    assert_eq!(biblatex::Bibliography::parse(&su).unwrap().len(), 7);
    let su_csl: Value = serde_json::from_str(&site.download(su_page, "CSL-JSON").1).unwrap();
    assert_eq!(su_csl.as_array().unwrap().len(), 7);
    let su_ris = site.download(su_page, "RIS").1;
    assert_eq!(
        su_ris.lines().filter(|l| l.starts_with("TY  - ")).count(),
        7
    );
    // Citation keys are unique across the site.
    let papers: Value = site.data("papers");
    let mut keys: Vec<String> = papers
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let page = format!("papers/{}/index.html", p["id"].as_str().unwrap());
            let csl: Value = serde_json::from_str(&site.download(&page, "CSL-JSON").1).unwrap();
            csl["id"].as_str().unwrap().to_string()
        })
        .collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), 13);
}

#[test]
fn math_and_text_mode_tex_render_at_build_time() {
    let site = seed_site();
    let page = site.output(&format!("papers/{WASSERSTEIN}/index.html"));
    let html = Html::parse_document(&page);
    let abstract_html = select(&html, "p.abstract")[0].html();
    assert!(abstract_html.contains("<math"), "{abstract_html}");
    assert!(abstract_html.contains("<msub>"), "{abstract_html}");
    assert!(!abstract_html.contains("$P_Z$"), "{abstract_html}");
    let tag = &meta(&html, "citation_abstract")[0];
    assert!(
        !tag.contains('$') && !tag.contains('<'),
        "clean text: {tag}"
    );
    let vgrow =
        Html::parse_document(&site.output(
            "papers/deep-generative-learning-via-variational-gradient-flow-2019/index.html",
        ));
    let abstract_html = select(&vgrow, "p.abstract")[0].html();
    assert!(
        abstract_html.contains("<b>V</b>ariational"),
        "{abstract_html}"
    );
    assert!(meta(&vgrow, "citation_abstract")[0].contains("Variational Gradient Flow (VGrow)"));
    let (_, ris) = site.download(
        "papers/deep-generative-learning-via-variational-gradient-flow-2019/index.html",
        "RIS",
    );
    assert!(
        ris.contains("TI  - Deep Generative Learning via Variational Gradient Flow"),
        "clean title: {ris}"
    );
}

#[test]
fn hostile_text_in_every_field_stays_inert() {
    let site = Site::new();
    site.file(
        "profilegen.yaml",
        format!("title: \"Lab </title><script>alert(0)</script>\"\nbase_url: {BASE}\n"),
    );
    let nasty = "</script><script>alert(1)</script> \" ' <!-- & ]]> $<img src=x onerror=alert(2)>$";
    site.file(
        "content/records/x.txt",
        record_file(
            "Eve </script> \"Quote\"",
            &[
                (2024, nasty, nasty, "cs.CR"),
                (2023, "Plain", "Plain abstract.", "cs.CR"),
            ],
        ),
    );
    let run = site.run(&["build"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for (path, bytes) in site.output_tree() {
        let text = String::from_utf8_lossy(&bytes);
        if path.ends_with(".html") {
            assert!(!text.contains("<script>alert"), "{path}");
            assert!(!text.contains("<img src=x"), "{path}");
            let html = Html::parse_document(&text);
            for script in select(&html, "script[type=\"application/ld+json\"]") {
                let json: String = script.text().collect();
                let value: Value =
                    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{path}: {e}"));
                assert!(value.is_object());
            }
            // Only the theme's own scripts exist.
            for script in select(&html, "script") {
                let kind = script.value().attr("type");
                assert!(
                    kind == Some("application/ld+json") || script.value().attr("src").is_some(),
                    "{path}"
                );
            }
        }
        if path.ends_with(".xml") {
            let mut reader = quick_xml::Reader::from_str(&text);
            loop {
                match reader.read_event() {
                    Ok(quick_xml::events::Event::Eof) => break,
                    Ok(_) => {}
                    Err(e) => panic!("{path} is not well-formed: {e}"),
                }
            }
        }
    }
    let feed = feed_rs::parser::parse(site.output("atom.xml").as_bytes()).unwrap();
    assert!(feed
        .entries
        .iter()
        .any(|e| e.title.as_ref().unwrap().content.contains("</script>")));
    let paper_json: Value = site.data("papers");
    let slug = paper_json[0]["id"].as_str().unwrap().to_string();
    let (_, bib) = site.download(&format!("papers/{slug}/index.html"), "BibTeX");
    biblatex::Bibliography::parse(&bib).unwrap_or_else(|e| panic!("{e:?}\n{bib}"));
}

/// A citation file's abstract (its BibTeX `abstract`, RIS `AB` or CSL-JSON `abstract`
/// value) and the file without it.
fn without_abstract(file: &str) -> (String, String) {
    if file.starts_with('{') {
        let mut csl: Value = serde_json::from_str(file).unwrap();
        let value = csl.as_object_mut().unwrap().remove("abstract");
        let text = value.map_or(String::new(), |v| v.as_str().unwrap().to_owned());
        return (text, format!("{}\n", serde_json::to_string(&csl).unwrap()));
    }
    let mut found = String::new();
    let mut rest = String::new();
    for line in file.lines() {
        let value = line
            .strip_prefix("  abstract = {")
            .map(|v| v.trim_end_matches(['}', ',']))
            .or_else(|| line.strip_prefix("AB  - "));
        match value {
            Some(v) => found.push_str(v),
            None => rest.push_str(&format!("{line}\n")),
        }
    }
    (found, rest)
}

#[test]
fn exports_files_writes_every_download_as_a_file_with_the_same_contents() {
    let site = seed_site();
    let pages = [
        format!("papers/{MEGATRON}/index.html"),
        "authors/bor-yiing-su/index.html".to_string(),
    ];
    let formats = ["BibTeX", "RIS", "CSL-JSON"];
    let inline: Vec<(String, String)> = pages
        .iter()
        .flat_map(|page| formats.map(|f| site.download(page, f)))
        .collect();
    site.file(
        "profilegen.yaml",
        format!("title: Lab\ndescription: Our papers\nbase_url: {BASE}\nexports: files\n"),
    );
    site.build();
    let files: Vec<(String, String)> = pages
        .iter()
        .flat_map(|page| formats.map(|f| site.download(page, f)))
        .collect();
    let names: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        [
            "cite.bib",
            "cite.ris",
            "cite.json",
            "publications.bib",
            "publications.ris",
            "publications.json"
        ]
    );
    // A data: link holds what the file holds, less a paper's abstract.
    for ((_, data), (name, file)) in inline.iter().zip(&files) {
        let (file_abstract, file_rest) = without_abstract(file);
        if name.starts_with("cite.") {
            assert!(
                file_abstract.contains("Scaling Mixture-of-Experts"),
                "{name}: {file}"
            );
        } else {
            assert_eq!(file_abstract, "", "{name}: lists carry no abstracts");
        }
        assert_eq!(
            data, &file_rest,
            "{name}: the data: link is the file less its abstract"
        );
    }
    let page = Html::parse_document(&site.output(&pages[0]));
    let hrefs: Vec<&str> = select(&page, ".exports a")
        .iter()
        .map(|a| a.value().attr("href").unwrap())
        .collect();
    assert_eq!(hrefs, ["cite.bib", "cite.ris", "cite.json"]);
    let run = site.run(&["build"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    site.file("profilegen.yaml", "exports: zip\n");
    let run = site.run(&["build"]);
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("profilegen.yaml:1:"), "{}", run.stderr);
    assert!(run.stderr.contains("inline"), "{}", run.stderr);
}

#[test]
fn search_index_finds_papers_by_title_word_and_ranks_titles_first() {
    let site = seed_site();
    let meta: Value = serde_json::from_str(&site.output("search/meta.json")).unwrap();
    let shards: Vec<String> = meta["shards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap().to_string())
        .collect();
    let chunk = meta["chunk"].as_u64().unwrap() as usize;
    let doc = |id: usize| -> Value {
        let docs: Value =
            serde_json::from_str(&site.output(&format!("search/docs-{}.json", id / chunk)))
                .unwrap();
        docs[id.to_string()].clone()
    };
    // The shard of a word: the hex of its longest prefix that names a shard.
    let postings = |word: &str| -> Vec<(usize, u64)> {
        let key = (1..=word.len())
            .rev()
            .map(|n| {
                word[..n]
                    .bytes()
                    .map(|b| format!("{b:02x}"))
                    .collect::<String>()
            })
            .find(|k| shards.contains(k))
            .expect("a shard");
        let shard: Value =
            serde_json::from_str(&site.output(&format!("search/terms/{key}.json"))).unwrap();
        shard[word]
            .as_array()
            .map(|flat| {
                flat.chunks(2)
                    .map(|p| (p[0].as_u64().unwrap() as usize, p[1].as_u64().unwrap()))
                    .collect()
            })
            .unwrap_or_default()
    };
    let megatron = postings("megatron");
    assert!(!megatron.is_empty());
    let found = doc(megatron[0].0);
    assert_eq!(
        found["t"],
        "Scalable Training of Mixture-of-Experts Models with Megatron Core"
    );
    assert_eq!(found["k"], "p");
    assert!(megatron[0].1 >= 10, "a title match weighs most");
    // An author by name, transliterated or not; weights put title matches before
    // abstract matches.
    let zhu = postings("zhu");
    assert!(zhu
        .iter()
        .any(|(d, w)| doc(*d)["t"] == "Zhongbo Zhu" && *w == 10));
    let training = postings("training");
    assert!(training.windows(2).all(|w| w[0].1 >= w[1].1), "best first");
    // No index file is large.
    for (path, bytes) in site.output_tree() {
        if path.starts_with("search/") {
            assert!(bytes.len() < 1_000_000, "{path}");
        }
    }
    // The home page declares the search.
    let home = Html::parse_document(&site.output("index.html"));
    let ld = jsonld(&home);
    assert_eq!(ld["potentialAction"]["@type"], "SearchAction");
    assert_eq!(
        ld["potentialAction"]["target"]["urlTemplate"],
        format!("{BASE}search/?q={{search_term_string}}")
    );
}

/// The search documents come in files of `chunk` ids each, keyed by id: every author
/// and every paper is listed once, authors' ids before papers', each in the file of its
/// id, and each links to its page. Ids follow from slugs: another author leaves the
/// other documents' ids as they were.
#[test]
fn search_documents_fill_chunks_by_id_with_every_author_and_paper_once() {
    let site = Site::new();
    // 260 authors with 3 papers each, the third shared with the next author: 260
    // authors and 520 papers, 780 documents, more than one chunk.
    let title = |i: usize| format!("Chunked Result Number {i}");
    for a in 0..260usize {
        let own = [title(2 * a), title(2 * a + 1), title((2 * a + 2) % 520)];
        let records: Vec<(u16, &str, &str, &str)> = own
            .iter()
            .map(|t| (2020, t.as_str(), "An abstract.", "cs.DL"))
            .collect();
        let name = format!("Author Number {a}");
        site.file(
            &format!("content/records/{a:03}.txt"),
            record_file(&name, &records),
        );
    }
    let docs_by_id = || -> Vec<(u64, Value)> {
        let meta: Value = serde_json::from_str(&site.output("search/meta.json")).unwrap();
        let chunk = meta["chunk"].as_u64().unwrap();
        let mut docs: Vec<(u64, Value)> = Vec::new();
        for (path, bytes) in site.output_tree() {
            let Some(n) = path
                .strip_prefix("search/docs-")
                .and_then(|p| p.strip_suffix(".json"))
            else {
                continue;
            };
            let n: u64 = n.parse().unwrap();
            let file: serde_json::Map<String, Value> = serde_json::from_slice(&bytes).unwrap();
            assert!(!file.is_empty(), "{path} lists no document");
            for (id, doc) in file {
                let id: u64 = id.parse().unwrap();
                assert_eq!(id / chunk, n, "document {id} is in {path}");
                docs.push((id, doc));
            }
        }
        docs.sort_by_key(|(id, _)| *id);
        assert_eq!(meta["docs"].as_u64().unwrap() as usize, docs.len());
        docs
    };
    let run = site.run(&["build", "--quiet"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let by_id = docs_by_id();
    assert_eq!(by_id.len(), 780);
    let files = |site: &Site| -> Vec<(String, Vec<u8>)> {
        let tree = site.output_tree().into_iter();
        let index = |p: &str| p.starts_with("search/") && p.ends_with(".json");
        tree.filter(|(p, _)| index(p)).collect()
    };
    let before = files(&site);
    let chunks = before.iter().filter(|(p, _)| p.contains("docs-")).count();
    assert!(chunks > 1, "the site needs more than one chunk");
    let docs: Vec<Value> = by_id.iter().map(|(_, d)| d.clone()).collect();
    let kinds: String = docs.iter().map(|d| d["k"].as_str().unwrap()).collect();
    assert_eq!(kinds, format!("{}{}", "a".repeat(260), "p".repeat(520)));
    let mut titles: Vec<&str> = docs.iter().map(|d| d["t"].as_str().unwrap()).collect();
    titles.sort_unstable();
    titles.dedup();
    assert_eq!(titles.len(), 780, "each document once");
    for (i, doc) in docs.iter().enumerate() {
        let href = doc["u"].as_str().unwrap();
        let mut page = site.public().join(href.trim_start_matches('/'));
        if href.ends_with('/') {
            page.push("index.html");
        }
        assert!(page.is_file(), "document {i} links to {href}, no page");
    }
    let shared = docs
        .iter()
        .find(|d| d["t"] == title(2))
        .expect("a shared paper");
    assert_eq!(shared["d"], "Author Number 0, Author Number 1 · 2020");

    // A new author with a new paper: the others keep their ids (but for the rare one
    // whose slot a newcomer takes), and a search file changes only when it lists a
    // newcomer: a terms file with a posting of one, a documents file with one.
    let ids = |by_id: &[(u64, Value)]| -> std::collections::HashMap<String, u64> {
        let titles = by_id
            .iter()
            .map(|(id, d)| (d["t"].as_str().unwrap().to_string(), *id));
        titles.collect()
    };
    let old_ids = ids(&by_id);
    site.file(
        "content/records/zzz.txt",
        record_file(
            "Zed Newcomer",
            &[(2021, "Quokka Zebra Yodel", "An abstract.", "cs.DL")],
        ),
    );
    let run = site.run(&["build", "--quiet"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let new_ids = ids(&docs_by_id());
    assert_eq!(new_ids.len(), 782);
    let moved = old_ids.iter().filter(|(t, id)| new_ids[*t] != **id).count();
    assert!(moved <= 2, "{moved} documents moved");
    let newcomers: Vec<u64> = (new_ids.iter())
        .filter(|(t, id)| old_ids.get(*t) != Some(id))
        .map(|(_, id)| *id)
        .collect();
    assert!(newcomers.len() >= 2);
    let after = files(&site);
    let mut unchanged_terms = 0;
    for (path, bytes) in &after {
        if before.iter().any(|(p, b)| p == path && b == bytes) {
            unchanged_terms += usize::from(path.starts_with("search/terms/"));
            continue;
        }
        let file: serde_json::Map<String, Value> = serde_json::from_slice(bytes).unwrap();
        let lists_a_newcomer = if path.starts_with("search/terms/") {
            let postings = file.values().flat_map(|p| p.as_array().unwrap().chunks(2));
            postings
                .map(|p| p[0].as_u64().unwrap())
                .any(|doc| newcomers.contains(&doc))
        } else if path.contains("docs-") {
            (file.keys()).any(|id| newcomers.contains(&id.parse().unwrap()))
        } else {
            path == "search/meta.json"
        };
        assert!(lists_a_newcomer, "{path} changed but lists no newcomer");
    }
    assert!(unchanged_terms > 0, "some terms file is unchanged");
}

#[test]
fn feeds_list_the_newest_papers_up_to_the_feed_limit() {
    let site = Site::new();
    let titles: Vec<String> = (0..60).map(|i| format!("Result Number {i}")).collect();
    let records: Vec<(u16, &str, &str, &str)> = titles
        .iter()
        .enumerate()
        .map(|(i, t)| (1970 + i as u16, t.as_str(), "An abstract.", "cs.LG"))
        .collect();
    site.file(
        "content/records/a.txt",
        record_file("Ada Lovelace", &records),
    );
    let entries = |site: &Site, path: &str| {
        let feed = feed_rs::parser::parse(site.output(path).as_bytes()).unwrap();
        let first = feed.entries[0].title.as_ref().unwrap().content.clone();
        (feed.entries.len(), first)
    };
    site.build();
    for feed in [
        "atom.xml",
        "authors/ada-lovelace/atom.xml",
        "subjects/cs.LG/atom.xml",
    ] {
        assert_eq!(
            entries(&site, feed),
            (50, "Result Number 59".to_string()),
            "{feed}: the newest 50 by default"
        );
    }
    // The full list stays in the publication exports (a file: 60 papers make a list
    // too long for a data: link).
    let bib = site.output("authors/ada-lovelace/publications.bib");
    assert_eq!(bib.matches("@misc{").count(), 60);

    site.file("profilegen.yaml", "feed_limit: 5\n");
    site.build();
    assert_eq!(entries(&site, "atom.xml"), (5, "Result Number 59".into()));
    assert_eq!(entries(&site, "subjects/cs.LG/atom.xml").0, 5);
    site.file("profilegen.yaml", "feed_limit: 0\n");
    site.build();
    assert_eq!(entries(&site, "atom.xml").0, 60, "0: every paper");
    assert_eq!(entries(&site, "authors/ada-lovelace/atom.xml").0, 60);
}

#[test]
fn feed_summaries_are_snippets_unless_the_whole_abstract_is_asked_for() {
    let site = Site::new();
    let long = "Sentence with several words in it. ".repeat(30);
    let long = long.trim();
    let short = "A short abstract.";
    site.file(
        "content/records/a.txt",
        record_file(
            "Ada Lovelace",
            &[
                (2020, "Long Abstract Paper", long, "cs.LG"),
                (2019, "Short Abstract Paper", short, "cs.LG"),
            ],
        ),
    );
    let summaries = |site: &Site, path: &str| -> Vec<(String, String)> {
        let feed = feed_rs::parser::parse(site.output(path).as_bytes()).unwrap();
        feed.entries
            .iter()
            .map(|e| {
                let title = e.title.as_ref().unwrap().content.clone();
                (title, e.summary.as_ref().unwrap().content.clone())
            })
            .collect()
    };
    site.build();
    for feed in [
        "atom.xml",
        "authors/ada-lovelace/atom.xml",
        "subjects/cs.LG/atom.xml",
    ] {
        let entries = summaries(&site, feed);
        let (title, snippet) = &entries[0];
        assert_eq!(title, "Long Abstract Paper");
        assert!(snippet.ends_with('…'), "{feed}: {snippet}");
        assert!(snippet.chars().count() <= 301, "{feed}: {snippet}");
        assert!(snippet.chars().count() > 200, "{feed}: {snippet}");
        let kept = snippet.trim_end_matches('…');
        assert!(long.starts_with(kept), "{feed}: cut at a word: {snippet}");
        assert!(long[kept.len()..].starts_with(' '), "{feed}: {snippet}");
        assert_eq!(entries[1].1, short, "{feed}: a short abstract stays whole");
    }
    // The paper's page still shows the whole abstract.
    let page = site.output("papers/long-abstract-paper-2020/index.html");
    assert!(page.contains(long));

    site.file("profilegen.yaml", "feed_summary: abstract\n");
    site.build();
    assert_eq!(summaries(&site, "atom.xml")[0].1, long);

    site.file("profilegen.yaml", "feed_summary: everything\n");
    let run = site.run(&["build"]);
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("profilegen.yaml"), "{}", run.stderr);
}

#[test]
fn feed_entries_name_the_first_ten_authors_of_a_large_collaboration() {
    let site = Site::new();
    let names: Vec<String> = (0..14).map(|i| format!("Member {i} Collab")).collect();
    for name in &names {
        let records = [(2020, "A Large Collaboration", "The result.", "hep-ex")];
        site.file(
            &format!("content/records/{}.txt", name.replace(' ', "_")),
            record_file(name, &records),
        );
    }
    site.build();
    let page = site.output("papers/a-large-collaboration-2020/index.html");
    for name in &names {
        assert!(page.contains(name.as_str()), "the page names {name}");
    }
    for path in ["atom.xml", "authors/member-13-collab/atom.xml"] {
        let feed = feed_rs::parser::parse(site.output(path).as_bytes()).unwrap();
        let authors: Vec<&str> = feed.entries[0]
            .authors
            .iter()
            .map(|a| a.name.as_deref().unwrap())
            .collect();
        assert_eq!(authors.len(), 10, "{path}: {authors:?}");
        let distinct: std::collections::BTreeSet<&str> = authors.iter().copied().collect();
        assert_eq!(distinct.len(), 10, "{path}: {authors:?}");
        assert!(
            authors.iter().all(|a| names.iter().any(|n| n == a)),
            "{authors:?}"
        );
    }
}
