//! The command line end to end: exit codes, diagnostics, escaping, strictness, init.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::{record_file, Site};

#[test]
fn build_summary_counts_the_site() {
    let site = Site::seeds();
    let run = site.build();
    let summary = run.stderr.lines().last().unwrap();
    assert!(
        summary.starts_with("Built 3 authors, 13 papers (2 shared by several authors), 35 pages;"),
        "{summary}"
    );
    // The seed site has two warnings: no base_url, and a TeX macro (`\shadowsync`)
    // that only the paper's own source defines.
    assert!(summary.contains("2 warnings, 0 errors in "), "{summary}");
    assert!(run.stderr.contains("base_url is not set"), "{}", run.stderr);
    assert!(
        run.stderr.contains("unknown command: \"\\\\shadowsync\""),
        "{}",
        run.stderr
    );
    // A second build changes nothing on disk.
    let again = site.build();
    assert!(again.stderr.contains("0 files written"), "{}", again.stderr);
}

#[test]
fn invalid_utf8_and_truncated_record_beside_good_files() {
    let site = Site::seeds();
    let mut bad =
        record_file("Broken Encoding", &[(2020, "Good Title", "Fine.", "cs.LG")]).into_bytes();
    let at = bad.windows(4).position(|w| w == b"Good").unwrap();
    bad.insert(at + 1, 0xC3); // a lone UTF-8 lead byte
    site.file("content/records/bad_utf8.txt", bad);
    let truncated = record_file(
        "Cut Short",
        &[
            (2021, "Whole Paper", "Whole.", "cs.AI"),
            (2022, "Cut Paper", "This abstract stops", "cs.AI"),
        ],
    );
    let cut = truncated.find("This abstract stops").unwrap() + "This abstract stops".len();
    site.file("content/records/truncated.txt", &truncated[..cut]);

    let run = site.run(&["build"]);
    assert_eq!(
        run.code, 0,
        "warnings and record errors do not fail the build:\n{}",
        run.stderr
    );
    let err = &run.stderr;
    // Invalid UTF-8: file, line, column, and the line shown.
    assert!(err.contains("error: file is not valid UTF-8"), "{err}");
    assert!(err.contains("content/records/bad_utf8.txt:11:2"), "{err}");
    assert!(err.contains("G\u{FFFD}ood Title"), "{err}");
    // Truncated record: named with its line.
    assert!(
        err.contains("record `Cut Paper` ends without its subject block (truncated file?)"),
        "{err}"
    );
    assert!(err.contains("content/records/truncated.txt:17:1"), "{err}");
    assert!(err.contains("arXiv2022"), "{err}");
    // Good files still built, and the readable records of the bad ones too.
    assert!(site
        .public()
        .join("authors/zhongbo-zhu/index.html")
        .exists());
    assert!(site.public().join("authors/cut-short/index.html").exists());
    assert!(site
        .public()
        .join("papers/whole-paper-2021/index.html")
        .exists());
    assert!(site
        .public()
        .join("papers/cut-paper-2022/index.html")
        .exists());
    assert!(site
        .output("authors/broken-encoding/index.html")
        .contains("G\u{FFFD}ood Title"));
    // `check` reports the same and fails because there are errors.
    let check = site.run(&["check"]);
    assert_eq!(check.code, 1, "{}", check.stderr);
    assert!(check.stderr.contains("bad_utf8.txt:11:2"));
}

#[test]
fn strict_fails_on_any_diagnostic_and_writes_nothing() {
    let site = Site::seeds();
    let text =
        common::seed("000_bba791200e6c06d7.txt").replace("3 recordsLinked", "4 recordsLinked");
    site.file("content/records/000_bba791200e6c06d7.txt", text);
    let run = site.run(&["build", "--strict"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("header declares 4 records, but the file has 3"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("000_bba791200e6c06d7.txt:7:1"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("nothing was written"));
    assert!(!site.public().exists());
    // Without --strict it builds, with the warning.
    let run = site.run(&["build"]);
    assert_eq!(run.code, 0);
    assert!(
        run.stderr.contains("3 warnings, 0 errors"),
        "{}",
        run.stderr
    );
    assert_eq!(site.run(&["check"]).code, 0);
    assert_eq!(site.run(&["check", "--strict"]).code, 1);
    // With nothing changed, the cached diagnostics still make --strict fail.
    let again = site.run(&["build", "--strict"]);
    assert_eq!(again.code, 1, "{}", again.stderr);
    assert!(
        again.stderr.contains("header declares 4 records"),
        "{}",
        again.stderr
    );
}

#[test]
fn injected_markup_comes_out_escaped_everywhere() {
    let site = Site::new();
    site.file(
        "content/records/x.txt",
        record_file(
            "Mallory <img src=x onerror=alert(1)>",
            &[(
                2024,
                "<script>alert('t')</script> & \"Quotes\"",
                "Abstract </p><script>alert(2)</script> a<b && c>d",
                "cs.CR",
            )],
        ),
    );
    site.build();
    let files = site.output_tree();
    let mut pages = 0;
    for (path, bytes) in &files {
        let text = String::from_utf8_lossy(bytes);
        if path.ends_with(".html") {
            pages += 1;
            assert!(!text.contains("<script>alert"), "{path} has live script");
            assert!(!text.contains("<img src=x"), "{path} has live img");
        }
    }
    assert!(pages > 5);
    let paper = files
        .iter()
        .find(|(p, _)| p.starts_with("papers/") && p.ends_with("index.html"))
        .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
        .unwrap();
    assert!(
        paper.contains(
            "&lt;script&gt;alert(&#x27;t&#x27;)&lt;&#x2F;script&gt; &amp; &quot;Quotes&quot;"
        ) || paper
            .contains("&lt;script&gt;alert(&#39;t&#39;)&lt;/script&gt; &amp; &quot;Quotes&quot;"),
        "{paper}"
    );
    assert!(paper.contains("a&lt;b &amp;&amp; c&gt;d"), "{paper}");
    // JSON keeps the text as text.
    let papers: serde_json::Value = site.data("papers");
    assert_eq!(
        papers[0]["title"],
        "<script>alert('t')</script> & \"Quotes\""
    );
}

#[test]
fn fatal_errors_exit_1_and_keep_the_previous_site_whole() {
    let site = Site::seeds();
    site.build();
    let before = site.output_tree();
    // A config with an unknown key.
    site.file("profilegen.yaml", "title: Lab\ntitel: typo\n");
    let run = site.run(&["build"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("unknown field `titel`"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("profilegen.yaml:2:1"), "{}", run.stderr);
    assert_eq!(site.output_tree(), before, "failed build wrote nothing");
    // A template that does not parse.
    site.file("profilegen.yaml", "title: Lab\n");
    site.file(
        "templates/author.html",
        "{% extends \"base.html\" %}{% block content %}{{ name {% endblock content %}",
    );
    let run = site.run(&["build"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("author.html"), "{}", run.stderr);
    assert_eq!(site.output_tree(), before);
    // A template that fails while rendering.
    site.file("templates/author.html", "{% extends \"base.html\" %}{% block content %}{{ no_such_variable.field }}{% endblock content %}");
    let run = site.run(&["build"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("rendering authors/"), "{}", run.stderr);
    assert_eq!(site.output_tree(), before);
}

#[test]
fn no_readable_record_is_fatal() {
    let site = Site::new();
    site.file("content/records/empty.txt", "");
    let run = site.run(&["build"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("file is empty"), "{}", run.stderr);
    assert!(run.stderr.contains("no readable record"), "{}", run.stderr);
    let run = Site::new().run(&["build"]);
    assert_eq!(run.code, 1);
}

#[test]
fn template_override_by_file_name() {
    let site = Site::seeds();
    site.file(
        "templates/paper.html",
        "{% extends \"base.html\" %}{% block content %}<h1 class=\"custom\">{{ title_html | safe }}</h1>{% endblock content %}",
    );
    site.file("static/extra.txt", "copied as is");
    site.file("static/.git/config", "not part of the site");
    site.file("static/.well-known/security.txt", "Contact: x");
    site.file("content/records/.drafts/draft.txt", "not read");
    site.build();
    let megatron = site.output(
        "papers/scalable-training-of-mixture-of-experts-models-with-megatron-core-2026/index.html",
    );
    assert!(
        megatron.contains("<h1 class=\"custom\">Scalable Training"),
        "{megatron}"
    );
    assert!(
        site.output("authors/zhongbo-zhu/index.html")
            .contains("Co-authors"),
        "others keep the default"
    );
    assert_eq!(site.output("extra.txt"), "copied as is");
    assert!(
        !site.public().join(".git").exists(),
        "hidden folders are not published"
    );
    assert_eq!(site.output(".well-known/security.txt"), "Contact: x");
}

#[test]
fn hidden_temporary_and_editor_files_are_not_part_of_the_site() {
    let site = Site::seeds();
    site.file("static/css/keep.css", "a { color: red }");
    site.file("content/pages/about.md", "About us.\n");
    site.build();
    let before = site.output_tree();
    assert!(before.iter().any(|(path, _)| path == "css/keep.css"));

    // What the watcher never reacts to, the build never reads.
    site.file("static/x.tmp", "half a download");
    site.file("static/X.TMP", "half a download");
    site.file("static/.htaccess", "Deny from all");
    site.file("static/css/keep.css~", "a backup");
    site.file("static/css/.DS_Store", b"\0\0\0\x01Bud1\xff\xfe\x80");
    site.file("static/paper.pdf.crdownload", "partial");
    site.file("static/4913", "");
    site.file("static/#notes.txt#", "autosave");
    site.file("content/records/.#lock.txt", "not a record");
    site.file("content/pages/.draft.md", "# Draft\n");
    site.file("content/pages/about.md.swp", "swap");
    site.file("content/authors/.zhongbo-zhu.md", "Hidden bio.\n");
    // Garbage bytes where a template would be, and a file that is not valid Tera.
    site.file("templates/macros/.DS_Store", b"\0\0\0\x01Bud1\xff\xfe{% if");
    site.file("templates/macros/paper_item.html.tmp", "{% if %}");
    site.file("templates/paper.html___jb_old___", "{{ broken");
    site.file("templates/.idea/workspace.xml", "{% endblock %}");

    let run = site.run(&["build", "--force"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for name in [
        ".DS_Store",
        "x.tmp",
        ".draft",
        ".zhongbo-zhu",
        "___jb_old___",
    ] {
        assert!(!run.stderr.contains(name), "{name}: {}", run.stderr);
    }
    let after = site.output_tree();
    let paths = |tree: &[(String, Vec<u8>)]| -> Vec<String> {
        tree.iter().map(|(path, _)| path.clone()).collect()
    };
    assert_eq!(paths(&after), paths(&before));
    assert!(after == before, "the same bytes as without those files");
}

#[test]
fn fragment_templates_rendered_once_can_be_overridden() {
    let site = Site::seeds();
    site.file(
        "templates/macros/paper_item.html",
        "<li class=\"mine\">{{ paper.year }}: {{ paper.title_html | safe }}</li>",
    );
    site.file(
        "templates/macros/feed_entry.xml",
        "<entry><id>{{ entry.id }}</id><title>{{ entry.title }} (mine)</title><updated>{{ entry.updated }}</updated></entry>",
    );
    site.build();
    let megatron = "2026: Scalable Training of Mixture-of-Experts Models with Megatron Core";
    // The one fragment of a paper at depth two is on every page that lists it there.
    for page in [
        "authors/zhongbo-zhu/index.html",
        "authors/shunkang-zhang/index.html",
        "years/2026/index.html",
    ] {
        let html = site.output(page);
        assert!(
            html.contains(&format!("<li class=\"mine\">{megatron}</li>")),
            "{page}: {html}"
        );
        assert!(!html.contains("paper-item"), "{page}: {html}");
    }
    // The home page (another depth) uses the same template.
    assert!(site.output("index.html").contains("<li class=\"mine\">"));
    for feed in ["atom.xml", "authors/zhongbo-zhu/atom.xml"] {
        let xml = site.output(feed);
        assert!(
            xml.contains("<title>Scalable Training of Mixture-of-Experts Models with Megatron Core (mine)</title>"),
            "{feed}: {xml}"
        );
        assert!(!xml.contains("<summary"), "{feed}: {xml}");
    }
    // A fragment that renders itself fails the build with a diagnostic, not a crash.
    let before = site.output_tree();
    site.file(
        "templates/macros/paper_item.html",
        "<li>{{ render_cached(template=\"macros/paper_item.html\", key=paper.href, paper=paper) }}</li>",
    );
    let run = site.run(&["build"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("fragments nested more than 16 deep"),
        "{}",
        run.stderr
    );
    assert_eq!(site.output_tree(), before, "failed build wrote nothing");
}

#[test]
fn config_bios_and_pages() {
    let site = Site::seeds();
    site.file(
        "profilegen.yaml",
        "title: Systems Lab\ndescription: Papers of the lab\nbase_url: https://lab.example.org/group\nauthors:\n  shunkang-zhang:\n    affiliation: Somewhere University\n",
    );
    site.file(
        "content/authors/zhongbo-zhu.md",
        "---\naffiliation: NVIDIA\nhomepage: https://example.org/zhu\norcid: 0000-0002-1825-0097\n---\nWorks on **training at scale**. <script>alert(1)</script>\n",
    );
    site.file(
        "content/pages/about.md",
        "---\ntitle: About the lab\n---\nWe build *systems*.\n",
    );
    site.file("content/authors/nobody.md", "Nobody.");
    let run = site.build();
    assert!(
        run.stderr
            .contains("bio `content/authors/nobody.md` matches no author"),
        "{}",
        run.stderr
    );
    let zhu = site.output("authors/zhongbo-zhu/index.html");
    assert!(zhu.contains("<p class=\"affiliation\">NVIDIA</p>"));
    assert!(zhu.contains("<strong>training at scale</strong>"));
    assert!(
        zhu.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{zhu}"
    );
    assert!(zhu.contains("href=\"https://orcid.org/0000-0002-1825-0097\""));
    assert!(zhu.contains("<title>Zhongbo Zhu · Systems Lab</title>"));
    // base_url set: pretty directory links.
    assert!(
        zhu.contains("href=\"../../authors/shunkang-zhang/\""),
        "{zhu}"
    );
    assert!(site
        .output("authors/shunkang-zhang/index.html")
        .contains("Somewhere University"));
    let about = site.output("about/index.html");
    assert!(about.contains("<h1>About the lab</h1>"));
    assert!(about.contains("<em>systems</em>"));
    assert!(
        zhu.contains(">About the lab</a>"),
        "navigation links the page"
    );
    let authors: serde_json::Value = site.data("authors");
    assert_eq!(
        authors[2]["url"],
        "https://lab.example.org/group/authors/zhongbo-zhu/"
    );
    assert!(site.output("404.html").contains("href=\"/group/authors/\""));
}

#[test]
fn output_folder_may_not_overwrite_sources() {
    let site = Site::seeds();
    for output in [".", "content", "content/records/out"] {
        let run = site.run(&["build", "--output", output]);
        assert_eq!(run.code, 1, "--output {output}: {}", run.stderr);
        assert!(
            run.stderr.contains("would overwrite the site's sources"),
            "{}",
            run.stderr
        );
    }
    assert_eq!(site.run(&["build", "--output", "elsewhere/site"]).code, 0);
}

#[test]
fn removed_record_file_removes_its_pages() {
    let site = Site::seeds();
    site.build();
    assert!(site
        .public()
        .join("authors/bor-yiing-su/index.html")
        .exists());
    site.remove("content/records/004_319f2dba6a6eb82d.txt");
    let run = site.build();
    assert!(
        !site.public().join("authors/bor-yiing-su").exists(),
        "{}",
        run.stderr
    );
    assert!(!site
        .public()
        .join("papers/llama-nemotron-efficient-reasoning-models-2025")
        .exists());
    assert!(
        site.public()
            .join("papers/pretraining-large-language-models-with-nvfp4-2026/index.html")
            .exists(),
        "still listed by Zhu"
    );
}

#[test]
fn init_creates_a_site_that_builds() {
    let site = Site::new();
    let run = site.run(&["init", "newsite"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let readme = std::fs::read_to_string(site.root().join("newsite/README.md")).unwrap();
    assert!(
        readme.contains("templates/"),
        "README explains overriding templates"
    );
    let run = site.run(&["build", "--root", "newsite"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("1 warning, 0 errors"),
        "only base_url: {}",
        run.stderr
    );
    let run = site.run(&[
        "build",
        "--root",
        "newsite",
        "--strict",
        "--base-url",
        "https://example.org/",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(site
        .root()
        .join("newsite/public/authors/ada-lovelace/index.html")
        .exists());
    let again = site.run(&["init", "newsite"]);
    assert_eq!(again.code, 1, "refuses a non-empty folder");
}

#[test]
fn help_on_every_command_and_usage_errors() {
    let site = Site::new();
    for args in [
        &["--help"][..],
        &["build", "--help"],
        &["check", "--help"],
        &["init", "--help"],
    ] {
        let run = site.run(args);
        assert_eq!(run.code, 0, "{args:?}");
        assert!(
            run.stdout.contains("Usage: profilegen"),
            "{args:?}: {}",
            run.stdout
        );
    }
    assert!(site.run(&["build", "--help"]).stdout.contains("--strict"));
    assert_eq!(site.run(&["build", "--no-such-flag"]).code, 2);
    assert_eq!(site.run(&[]).code, 2);
}

#[test]
fn quiet_prints_nothing_on_success() {
    let site = Site::seeds();
    let run = site.run(&["build", "--quiet"]);
    assert_eq!(run.code, 0);
    assert_eq!(run.stderr, "");
    assert_eq!(run.stdout, "");
}

/// 450 papers `Numbered Paper <i>`, 30 a year from 2000: more than a page lists.
fn numbered_papers() -> Vec<(u16, String, String, &'static str)> {
    (0..450)
        .map(|i| {
            let (year, title) = (2000 + (i / 30) as u16, format!("Numbered Paper {i}"));
            (year, title, format!("Abstract {i}."), "cs.LG")
        })
        .collect()
}

/// The record file of `Pro Lific`, the author of [`numbered_papers`].
fn prolific_author() -> String {
    record_file("Pro Lific", &numbered_papers())
}

/// The two pages of [`prolific_author`]'s list, at `first` and `second`, after checking
/// that they list 400 and 50 papers and link to each other by `next` and `prev`.
fn prolific_pages(
    site: &Site,
    (first, next): (&str, &str),
    (second, prev): (&str, &str),
) -> (String, String) {
    let (first, second) = (site.output(first), site.output(second));
    assert_eq!(first.matches("class=\"paper-item\"").count(), 400);
    assert_eq!(second.matches("class=\"paper-item\"").count(), 50);
    let next = format!("href=\"{next}\" rel=\"next\">Older →</a>");
    assert!(first.contains(&next), "{next} in {first}");
    let prev = format!("href=\"{prev}\" rel=\"prev\">← Newer</a>");
    assert!(second.contains(&prev), "{prev} in {second}");
    (first, second)
}

#[test]
fn long_lists_are_paginated_with_a_year_index() {
    let site = Site::new();
    site.file("content/records/p.txt", prolific_author());
    site.file("profilegen.yaml", "base_url: https://example.org/\n");
    site.build();
    let (first, second) = prolific_pages(
        &site,
        ("authors/pro-lific/index.html", "page/2/"),
        (
            "authors/pro-lific/page/2/index.html",
            "../../../../authors/pro-lific/",
        ),
    );
    // Newest first: 2014 opens page 1; 2000 (the oldest) is on page 2, and page 1's year
    // index links there.
    assert!(first.contains("<a href=\"#y2014\">2014</a>"));
    assert!(first.contains("<a href=\"page/2/#y2000\">2000</a>"));
    assert!(second.contains("<h3 id=\"y2000\">2000</h3>"));
    assert!(site
        .output("subjects/cs.LG/page/2/index.html")
        .contains("Numbered Paper"));
    assert!(site.output("years/2000/index.html").contains("30 papers"));
    assert!(site
        .output("sitemap.xml")
        .contains("<loc>https://example.org/authors/pro-lific/page/2/</loc>"));
}

#[test]
fn many_diagnostics_of_one_kind_are_shown_a_few_times_then_counted() {
    let site = Site::new();
    let records: Vec<(u16, String)> = (0..40)
        .map(|i| {
            (
                2000 + (i % 20) as u16,
                format!("Paper {i} on \\frob{{{i}}} spaces"),
            )
        })
        .collect();
    let records: Vec<(u16, &str, &str, &str)> = records
        .iter()
        .map(|(year, title)| (*year, title.as_str(), "An abstract.", "math.AG"))
        .collect();
    site.file(
        "content/records/a.txt",
        record_file("Ada Lovelace", &records),
    );
    let run = site.run(&["build"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let full = run.stderr.matches("warning: TeX in `Paper").count();
    assert_eq!(full, 3, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("... and 37 more like this: warning: TeX in `…`: unknown command: \"…\""),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("--verbose prints every diagnostic"));
    let summary = run.stderr.lines().last().unwrap();
    assert!(summary.contains("41 warnings, 0 errors"), "{summary}");

    let verbose = site.run(&["build", "--verbose"]);
    assert_eq!(verbose.stderr.matches("warning: TeX in `Paper").count(), 40);
    assert!(!verbose.stderr.contains("more like this"));
    let check = site.run(&["check", "--verbose"]);
    assert_eq!(check.stderr.matches("warning: TeX in `Paper").count(), 40);
}

#[test]
fn a_long_authors_index_is_split_into_a_page_per_letter() {
    let site = Site::new();
    // 1,100 family names starting with A (two pages of that letter), 950 with B, and a
    // few with no letter at all: 2,053 authors, more than one index page holds.
    let mut names: Vec<String> = (0..1100).map(|i| format!("Ann Adams{i:04}")).collect();
    names.extend((0..950).map(|i| format!("Bo Baker{i:04}")));
    names.extend(["Cy 42", "Di 7", "Ed 9"].map(String::from));
    for (i, name) in names.iter().enumerate() {
        let title = format!("Paper number {i}");
        site.file(
            &format!("content/records/a{i:05}.txt"),
            record_file(name, &[(2020, &title, "An abstract.", "cs.LG")]),
        );
    }
    site.build();
    let index = site.output("authors/index.html");
    assert!(index.contains("All 2053 authors") || index.contains("2053 authors"));
    for (href, count) in [
        ("_a/index.html", 1100),
        ("_b/index.html", 950),
        ("_other/index.html", 3),
    ] {
        assert!(
            index.contains(&format!("<a href=\"{href}\">"))
                && index.contains(&format!("{count}</span>")),
            "{href} with {count} in the index"
        );
    }
    assert!(
        !index.contains("Adams0001"),
        "the index itself lists no authors"
    );

    let a1 = site.output("authors/_a/index.html");
    let a2 = site.output("authors/_a/page/2/index.html");
    assert_eq!(a1.matches("paper</span>").count(), 1000);
    assert_eq!(a2.matches("paper</span>").count(), 100);
    assert!(a1.contains("Ann Adams0000") && !a1.contains("Ann Adams1000"));
    assert!(a2.contains("Ann Adams1099"));
    assert!(
        a1.contains("rel=\"next\">Next →</a>"),
        "pages of a letter run A to Z"
    );
    assert!(a2.contains("rel=\"prev\">← Previous</a>"));
    assert!(a1.contains("aria-current=\"page\">A</a>"));
    let other = site.output("authors/_other/index.html");
    assert!(other.contains("Authors: other names") && other.contains("Cy 42"));
    for file in ["authors/_b/index.html", "authors/_other/index.html"] {
        assert!(site
            .output("sitemap.xml")
            .contains(file.trim_end_matches("index.html")));
    }

    // A new author shows on their letter's page after an incremental build.
    site.file(
        "content/records/zz.txt",
        record_file("Al Abbot", &[(2021, "A new paper", "New.", "cs.LG")]),
    );
    site.build();
    let a1 = site.output("authors/_a/index.html");
    assert!(a1.contains("Al Abbot"), "the first of the A page now");
    assert!(site.output("authors/index.html").contains("1101</span>"));
}

#[test]
fn a_paper_by_500_authors_keeps_small_readable_pages() {
    let site = Site::new();
    // 500 members of a collaboration list the same two papers; each also has a paper
    // of their own, so every member has "more" papers to show.
    let shared = [
        (
            2024,
            "Observation of a Collaboration Signal",
            "We observe it.",
            "hep-ex",
        ),
        (
            2023,
            "Search for a Collaboration Signal",
            "We searched.",
            "hep-ex",
        ),
    ];
    for i in 0..500 {
        let name = format!("Member{i:03} Physicist");
        let own = format!("Note number {i} on detectors");
        let mut records = shared.to_vec();
        records.push((2022, &own, "A note.", "physics.ins-det"));
        site.file(
            &format!("content/records/m{i:03}.txt"),
            record_file(&name, &records),
        );
    }
    site.build();
    let paper = site.output("papers/observation-of-a-collaboration-signal-2024/index.html");
    let author = site.output("authors/member000-physicist/index.html");
    for (what, page) in [("paper", &paper), ("author", &author)] {
        assert!(page.len() < 300_000, "{what} page is {} bytes", page.len());
    }
    // The byline and the metadata name every author.
    assert_eq!(paper.matches("<meta name=\"citation_author\"").count(), 500);
    assert!(paper.contains("Member499 Physicist</a>"));
    // "More by" for the first ten authors only.
    assert_eq!(paper.matches("<section class=\"more-by\"").count(), 10);
    assert!(paper.contains("More by <a href=\"../../authors/member009-physicist/index.html\""));
    assert!(!paper.contains("More by <a href=\"../../authors/member010-physicist/index.html\""));
    // A list item names ten authors, then how many more.
    let item = &author[author
        .find("Observation of a Collaboration Signal</a>")
        .unwrap()..];
    let item = &item[..item.find("</li>").unwrap()];
    assert_eq!(item.matches("<a href=").count(), 10, "{item}");
    assert!(item.contains(" and 490 more · 2024"), "{item}");
    // The co-author list shows the first hundred, then the count.
    let coauthors = &author[author.find("<ul class=\"coauthors\">").unwrap()..];
    let coauthors = &coauthors[..coauthors.find("</ul>").unwrap()];
    assert_eq!(coauthors.matches("<li>").count(), 100);
    assert!(author.contains("and 399 more co-authors"));
    // The downloads still hold every author.
    let (_, bib) = site.download(
        "papers/observation-of-a-collaboration-signal-2024/index.html",
        "BibTeX",
    );
    assert!(
        bib.contains("Physicist, Member499 and others}"),
        "{}",
        &bib[..300]
    );
}

#[test]
fn a_fragment_that_cannot_render_is_one_warning_per_paper_and_stays_escaped_source() {
    let site = Site::new();
    let paper = (
        2021,
        "Bounds on $\\CK(x) < 1$ for all x",
        "An abstract.",
        "math.CO",
    );
    for (file, name) in [
        ("a.txt", "Ann Author"),
        ("b.txt", "Bo Author"),
        ("c.txt", "Cy Author"),
    ] {
        site.file(
            &format!("content/records/{file}"),
            record_file(name, &[paper]),
        );
    }
    let run = site.build();
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("warning") && l.contains("TeX"))
        .collect();
    assert_eq!(
        warnings.len(),
        1,
        "one warning for three files listing the paper:\n{}",
        run.stderr
    );
    let page = site.output("papers/bounds-on-ck-x-1-for-all-x-2021/index.html");
    assert!(page.contains("\\CK(x) &lt; 1"), "shown as escaped source");
    assert!(!page.contains("\\CK(x) < 1"));
}

#[test]
fn tex_that_trips_the_math_parser_prints_a_warning_and_no_panic() {
    let site = Site::new();
    site.file(
        "content/records/a.txt",
        record_file(
            "Ann Author",
            &[
                (
                    2020,
                    "A title with $\\charé$ in it",
                    "An abstract $\\char é$.",
                    "math.CO",
                ),
                (
                    2021,
                    "A title that ends in \\let",
                    "An abstract with $\\newcommand{}{x}$ in it.",
                    "math.CO",
                ),
            ],
        ),
    );
    let run = site.run_with_env(&["build"], &[("RUST_BACKTRACE", "1")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    assert!(!run.stderr.contains("backtrace"), "{}", run.stderr);
    assert!(run.stderr.contains("character code"), "{}", run.stderr);
    let mut papers = common::pages_in(&site.output_tree(), "papers");
    papers.sort();
    assert_eq!(papers.len(), 2, "{papers:?}");
    let pages: Vec<String> = papers.iter().map(|p| site.output(p)).collect();
    assert!(
        pages.iter().any(|p| p.contains("\\charé")),
        "kept as its source"
    );
    assert!(
        pages.iter().any(|p| p.contains("ends in \\let")),
        "kept as its source"
    );
    assert!(
        pages.iter().any(|p| p.contains("$\\newcommand{}{x}$")),
        "kept as its source"
    );
}

#[test]
fn a_build_into_a_folder_another_process_is_writing_is_refused_and_touches_nothing() {
    let site = Site::seeds();
    site.build();
    let before = site.output_tree();
    // This test process stands for a build in progress: it holds the folder's lock.
    let held = profilegen::output::OutputLock::acquire(&site.public()).unwrap();
    site.file(
        "content/records/new.txt",
        record_file("New Author", &[(2024, "A New Paper", "New.", "cs.AI")]),
    );
    let refused = site.run(&["build"]);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    let pid = std::process::id();
    assert!(
        refused
            .stderr
            .contains(&format!("profilegen process {pid} is writing it")),
        "{}",
        refused.stderr
    );
    assert!(
        site.output_tree() == before,
        "the refused build changed the output"
    );
    drop(held);
    let run = site.build();
    assert!(run.stderr.contains("Built 4 authors"), "{}", run.stderr);
    assert!(site.output("index.html").contains("New Author"));
}

#[test]
fn home_lists_authors_by_paper_count_then_by_slug() {
    let site = Site::new();
    // Files in an order unlike the slugs'; "Émile" sorts after "Zoe" as text, but its slug
    // `emile-zola` comes before `zoe-adams`.
    let authors = [
        ("a.txt", "Zoe Adams", 2),
        ("b.txt", "Émile Zola", 2),
        ("c.txt", "Ann Many", 3),
        ("d.txt", "Bob Brown", 2),
        ("e.txt", "Al Few", 1),
    ];
    for (file, name, count) in authors {
        let records: Vec<(u16, String, String, &str)> = (0..count)
            .map(|i| {
                let title = format!("{name} paper {i}");
                (2020, title, format!("About {name}, {i}."), "cs.AI")
            })
            .collect();
        site.file(
            &format!("content/records/{file}"),
            record_file(name, &records),
        );
    }
    site.build();
    let home = scraper::Html::parse_document(&site.output("index.html"));
    let links = scraper::Selector::parse("ul.author-grid a").unwrap();
    let listed: Vec<String> = home
        .select(&links)
        .map(|a| a.value().attr("href").unwrap().to_string())
        .collect();
    assert_eq!(
        listed,
        [
            "authors/ann-many/index.html",
            "authors/bob-brown/index.html",
            "authors/emile-zola/index.html",
            "authors/zoe-adams/index.html",
            "authors/al-few/index.html",
        ]
    );
}

#[test]
fn pages_as_files_keep_links_downloads_feeds_further_pages_and_redirects() {
    let papers = numbered_papers();
    let site = Site::seeds();
    site.file("content/records/p.txt", prolific_author());
    site.build();
    let feed_ids = |feed: &str| -> Vec<String> {
        (feed.split("<id>").skip(1))
            .map(|rest| rest[..rest.find("</id>").unwrap()].to_string())
            .collect()
    };
    let ids_in_folders = feed_ids(&site.output("authors/pro-lific/atom.xml"));
    assert!(ids_in_folders.len() > 10);

    // The same site laid out a file a page, built over the folders.
    site.file("profilegen.yaml", "page_layout: files\nexports: files\n");
    site.build();
    let files = site.output_tree();
    let folders: std::collections::BTreeSet<&str> = (files.iter())
        .filter_map(|(path, _)| path.rsplit_once('/').map(|(folder, _)| folder))
        .filter(|folder| folder.starts_with("authors") || folder.starts_with("papers"))
        .collect();
    assert_eq!(
        folders.into_iter().collect::<Vec<_>>(),
        ["authors", "authors/pro-lific/page", "papers"],
        "no folder an author or paper, but for an author's further pages"
    );
    let papers_data = site.data("papers");
    for paper in papers_data.as_array().unwrap() {
        let slug = paper["id"].as_str().unwrap();
        let page = site.output(&format!("papers/{slug}.html"));
        assert!(page.contains("<article class=\"paper\">"), "{slug}");
        assert!(
            page.contains(&format!("href=\"{slug}.cite.bib\"")),
            "downloads beside the page: {slug}"
        );
        assert!(site
            .output(&format!("papers/{slug}.cite.ris"))
            .contains("TY  - "));
    }
    let (first, _) = prolific_pages(
        &site,
        ("authors/pro-lific.html", "pro-lific/page/2.html"),
        (
            "authors/pro-lific/page/2.html",
            "../../../authors/pro-lific.html",
        ),
    );
    assert!(
        first.contains("href=\"pro-lific.atom.xml\""),
        "the feed beside the page"
    );
    assert!(site
        .output("authors/pro-lific.publications.bib")
        .contains("Numbered Paper 449"));
    assert_eq!(
        feed_ids(&site.output("authors/pro-lific.atom.xml")),
        ids_in_folders,
        "a feed entry keeps its id in either layout"
    );
    assert!(site
        .output("sitemap.xml")
        .contains("<loc>/authors/pro-lific/page/2.html</loc>"));
    let (checked, broken) = common::broken_links(&files);
    assert_eq!(broken, Vec::<String>::new());
    assert!(checked > 5000, "only {checked} links checked");
    let without_page: Vec<_> = (files.iter())
        .filter(|(path, _)| path != "authors/pro-lific.html")
        .cloned()
        .collect();
    assert!(!common::broken_links(&without_page).1.is_empty());

    // Built over the folders, the site is what a clean build makes.
    let clean = Site::seeds();
    clean.file("content/records/p.txt", prolific_author());
    clean.file("profilegen.yaml", "page_layout: files\nexports: files\n");
    clean.build();
    assert!(clean.output_tree() == files, "the same as a clean build");

    // A paper whose title changes leaves a redirect file at its old page.
    let mut renamed = papers.clone();
    renamed[7].1 = "Renamed Paper Seven".to_string();
    site.file("content/records/p.txt", record_file("Pro Lific", &renamed));
    site.build();
    let old = site.output("papers/numbered-paper-7-2000.html");
    assert!(
        old.contains("content=\"0; url=renamed-paper-seven-2000.html\""),
        "{old}"
    );
    assert_eq!(
        site.output("_redirects"),
        "/papers/numbered-paper-7-2000.html /papers/renamed-paper-seven-2000.html 301\n"
    );
}

/// `bytes` gzip-decompressed.
fn gunzip(path: &str, bytes: &[u8]) -> Vec<u8> {
    use std::io::Read;
    let mut plain = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut plain)
        .unwrap_or_else(|err| panic!("{path} is not gzip: {err}"));
    plain
}

#[test]
fn a_precompressed_site_holds_each_text_output_gzipped_and_the_same_site_inside() {
    let manifest = |path: &str| path.starts_with(".profilegen-manifest");
    let site_of = |config: &str| {
        let site = Site::seeds();
        site.file("content/records/p.txt", prolific_author());
        site.file("profilegen.yaml", config);
        // A static file at a generated page's URL loses to the page, compressed or not.
        site.file("static/index.html", "not the home page");
        let said = site.build().stderr;
        assert!(
            said.contains("static/index.html has the same path as a generated file"),
            "{said}"
        );
        site
    };
    let plain_site = site_of("exports: files\n");
    let plain: BTreeMap<String, Vec<u8>> = plain_site.output_tree().into_iter().collect();
    let site = site_of("exports: files\nprecompress: gzip\n");
    let files: BTreeMap<String, Vec<u8>> = site.output_tree().into_iter().collect();

    // Each file of the plain site is there as it is, or gzipped under its name with
    // `.gz` added (and not as it is); nothing else is.
    let mut compressed = BTreeSet::new();
    for (path, bytes) in plain.iter().filter(|(path, _)| !manifest(path)) {
        let gz = format!("{path}.gz");
        match files.get(&gz) {
            Some(gzipped) => {
                assert!(!files.contains_key(path), "{path} beside {gz}");
                assert!(gunzip(&gz, gzipped) == *bytes, "{gz} holds {path}");
                compressed.insert(path.rsplit_once('.').unwrap().1.to_string());
            }
            None => assert_eq!(files.get(path), Some(bytes), "{path} as it is"),
        }
    }
    let sorts: Vec<&str> = compressed.iter().map(String::as_str).collect();
    assert_eq!(sorts, ["bib", "html", "json", "ris", "xml"]);
    for plain_file in [
        "robots.txt",
        "_redirects",
        "style.css",
        "search.js",
        "favicon.svg",
    ] {
        let path = plain_file.to_string();
        assert!(
            !plain.contains_key(&path) || files.contains_key(&path),
            "{path}"
        );
    }
    let count = |tree: &BTreeMap<String, Vec<u8>>| tree.keys().filter(|p| !manifest(p)).count();
    assert_eq!(count(&files), count(&plain));
    let listed = String::from_utf8(files[".profilegen-manifest"].clone()).unwrap();
    assert!(
        listed.lines().any(|line| line == "index.html.gz"),
        "{listed}"
    );
    assert!(!listed.lines().any(|line| line == "index.html"));

    // The next build keeps every file; a change rewrites the files it rewrites in the
    // plain site, and leaves what a clean build makes.
    let run = site.build();
    assert!(run.stderr.contains("0 files written"), "{}", run.stderr);
    let written = |site: &Site| {
        site.file(
            "content/records/late.txt",
            record_file("Late Author", &[(2022, "Late Paper", "L.", "cs.DC")]),
        );
        let summary = site.build().stderr;
        let (count, _) = summary.split_once(" files written").expect(&summary);
        let count = count.rsplit(' ').next().unwrap().to_string();
        count.parse::<usize>().expect(&summary)
    };
    let (plain_written, gzip_written) = (written(&plain_site), written(&site));
    assert_eq!(gzip_written, plain_written);
    assert!(plain_written > 3, "{plain_written}");
    let clean = site_of("exports: files\nprecompress: gzip\n");
    clean.file(
        "content/records/late.txt",
        record_file("Late Author", &[(2022, "Late Paper", "L.", "cs.DC")]),
    );
    clean.build();
    let without_manifest = |site: &Site| -> Vec<(String, Vec<u8>)> {
        let tree = site.output_tree().into_iter();
        tree.filter(|(path, _)| !manifest(path)).collect()
    };
    assert!(without_manifest(&site) == without_manifest(&clean));
    let late = site.public().join("authors/late-author/index.html.gz");
    let late = gunzip("late", &std::fs::read(late).unwrap());
    assert!(String::from_utf8(late).unwrap().contains("Late Paper"));

    // Back to plain files: every compressed file goes, the plain ones come back.
    site.file("profilegen.yaml", "exports: files\n");
    site.build();
    let back = without_manifest(&site);
    assert!(back.iter().all(|(path, _)| !path.ends_with(".gz")));
    assert!(back
        .iter()
        .any(|(path, _)| path == "authors/late-author/index.html"));
}
