//! Who is who, end to end: aliases, splits, identifiers, redirects of old URLs and clean
//! names, each on a built site.

mod common;

use common::{record_file, Site};

const ABSTRACT: &str = "We study synchronization in networks of chaotic oscillators.";

/// The `content` of a `<meta http-equiv="refresh">` tag's URL on a redirect page.
fn refresh_target(page: &str) -> &str {
    let start = page.find("content=\"0; url=").expect("a refresh") + "content=\"0; url=".len();
    &page[start..start + page[start..].find('"').unwrap()]
}

/// Checks that every line of `_redirects` leads from a redirect page to a page of the
/// site, and that each redirect page refreshes to the same page. Returns the lines.
fn checked_redirects(site: &Site) -> Vec<(String, String)> {
    let list = site.output("_redirects");
    let mut redirects = Vec::new();
    for line in list.lines() {
        let parts: Vec<&str> = line.split(' ').collect();
        assert_eq!(parts.len(), 3, "{line}");
        assert_eq!(parts[2], "301", "{line}");
        let (from, to) = (
            parts[0].trim_start_matches('/'),
            parts[1].trim_start_matches('/'),
        );
        let page = site.output(&format!("{from}index.html"));
        assert!(
            site.public().join(format!("{to}index.html")).is_file(),
            "{line}"
        );
        let depth = from.matches('/').count();
        let expected = format!("{}{to}index.html", "../".repeat(depth));
        assert_eq!(refresh_target(&page), expected, "{line}");
        assert!(page.contains("<meta name=\"robots\" content=\"noindex\">"));
        assert!(
            page.contains(&format!("<link rel=\"canonical\" href=\"/{to}\">")),
            "{page}"
        );
        redirects.push((from.to_string(), to.to_string()));
    }
    redirects
}

fn kurths_site() -> Site {
    let site = Site::new();
    site.file(
        "content/records/kurths-1.txt",
        record_file(
            "Jürgen Kurths",
            &[(2020, "Chaos in Networks", ABSTRACT, "nlin.CD")],
        ),
    )
    .file(
        "content/records/kurths-2.txt",
        record_file(
            "Jurgen Kurths",
            &[
                (2020, "Chaos in Networks", ABSTRACT, "nlin.CD"),
                (
                    2021,
                    "Recurrence Plots",
                    "Plots of recurrences.",
                    "physics.data-an",
                ),
            ],
        ),
    )
    .file(
        "content/records/kurths-3.txt",
        record_file(
            "Juergen Kurths",
            &[(
                2022,
                "Climate Networks",
                "Networks of climate.",
                "physics.ao-ph",
            )],
        ),
    )
    // A stray DEL: dropped, so that this file is "Jürgen Kurths" as well.
    .file(
        "content/records/kurths-4.txt",
        record_file(
            "J\u{7f}ürgen Kurths",
            &[(2023, "Complex Systems", "Systems.", "nlin.AO")],
        ),
    );
    site
}

#[test]
fn without_settings_spellings_are_separate_authors_and_a_stray_del_is_dropped() {
    let site = kurths_site();
    let run = site.build();
    let authors = site.data("authors");
    let mut names: Vec<&str> = authors
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["Juergen Kurths", "Jurgen Kurths", "Jürgen Kurths"]);
    assert!(
        run.stderr.contains("1 control character; dropped"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("content/records/kurths-4.txt:3:2"),
        "{}",
        run.stderr
    );
    assert!(!site
        .output_tree()
        .iter()
        .any(|(_, bytes)| String::from_utf8_lossy(bytes).contains('\u{FFFD}')));
    assert!(!site.public().join("_redirects").exists());
}

/// Rewrites the version that wrote each build cache of `site` (one of the same length),
/// as if another profilegen had built the site.
fn caches_from_another_version(site: &Site) {
    let dir = site.root().join(profilegen::build::cache::CACHE_DIR);
    let version = env!("CARGO_PKG_VERSION").as_bytes();
    let other: Vec<u8> = version
        .iter()
        .map(|&b| if b == b'.' { b'.' } else { b'9' })
        .collect();
    assert_ne!(version, other.as_slice());
    let mut rewritten = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "cache") {
            let mut bytes = std::fs::read(&path).unwrap();
            let at = (bytes.windows(version.len()))
                .position(|w| w == version)
                .expect("the version in the cache's head");
            bytes[at..at + version.len()].copy_from_slice(&other);
            std::fs::write(&path, bytes).unwrap();
            rewritten += 1;
        }
    }
    assert_eq!(rewritten, 1);
}

/// Renames a paper of [`kurths_site`] and builds: only the build cache's slug history
/// knows its old URL then.
fn rename_a_paper(site: &Site) {
    site.file(
        "content/records/kurths-3.txt",
        record_file(
            "Juergen Kurths",
            &[(
                2022,
                "Climate Networks Revisited",
                "Networks of climate.",
                "physics.ao-ph",
            )],
        ),
    );
    site.build();
}

/// [`kurths_site`] built, then built again with a paper renamed, and the redirect that
/// leaves: the one old URL that now leads to the renamed paper's page.
fn site_with_a_moved_paper() -> (Site, Vec<(String, String)>) {
    let site = kurths_site();
    site.build();
    rename_a_paper(&site);
    let moved = checked_redirects(&site);
    let expected = [(
        "papers/climate-networks-2022/",
        "papers/climate-networks-revisited-2022/",
    )];
    assert_eq!(
        moved
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect::<Vec<_>>(),
        expected
    );
    (site, moved)
}

#[test]
fn old_urls_keep_redirecting_after_a_build_by_another_version() {
    let (site, moved) = site_with_a_moved_paper();
    // The next profilegen cannot vouch for this one's outputs and builds them all again,
    // but the URLs the site had still lead to their pages.
    caches_from_another_version(&site);
    let run = site.build();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(checked_redirects(&site), moved);
    // And the build after it is an ordinary one.
    site.build();
    assert_eq!(checked_redirects(&site), moved);
}

#[test]
fn old_urls_keep_redirecting_when_the_output_folder_was_emptied() {
    let (site, moved) = site_with_a_moved_paper();
    let before = site.output_tree();
    // The build into an emptied folder takes only the slug history from the last
    // build's cache: it makes every file again, the redirect among them.
    std::fs::remove_dir_all(site.public()).unwrap();
    let run = site.build();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(checked_redirects(&site), moved);
    assert_eq!(site.output_tree(), before);
}

#[test]
fn old_urls_keep_redirecting_when_the_site_moves_to_generations() {
    let (site, moved) = site_with_a_moved_paper();
    // The plain output folder moved away, as the first build in generations asks: that
    // build renders every output into a new generation (it makes the link), but keeps
    // what the plain builds knew of slugs.
    std::fs::rename(site.public(), site.root().join("public-plain")).unwrap();
    let run = site.run(&["build", "--generations"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(site.public().is_symlink(), "the output is now a link");
    assert_eq!(checked_redirects(&site), moved);
    let run = site.run(&["build", "--generations"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(checked_redirects(&site), moved);
}

#[test]
fn aliases_make_one_author_under_the_configured_name_and_old_urls_redirect() {
    let site = kurths_site();
    site.build();
    let before: Vec<String> = site
        .data("authors")
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(before.len(), 3);
    site.file(
        "profilegen.yaml",
        "authors:\n  jurgen-kurths:\n    name: Jürgen Kurths\n    aliases: [Juergen Kurths, Jürgen Kurths]\n",
    );
    let run = site.build();
    let authors = site.data("authors");
    let authors = authors.as_array().unwrap();
    assert_eq!(authors.len(), 1, "{authors:?}");
    assert_eq!(authors[0]["id"], "jurgen-kurths");
    assert_eq!(authors[0]["name"], "Jürgen Kurths");
    assert_eq!(authors[0]["papers"].as_array().unwrap().len(), 4);
    let page = site.output("authors/jurgen-kurths/index.html");
    assert!(page.contains("<h1>Jürgen Kurths</h1>"), "{page}");
    assert!(page.contains("4 papers"));
    // Each former URL leads to the one author.
    let redirects = checked_redirects(&site);
    let mut expected: Vec<(String, String)> = before
        .iter()
        .filter(|slug| *slug != "jurgen-kurths")
        .map(|slug| {
            (
                format!("authors/{slug}/"),
                "authors/jurgen-kurths/".to_string(),
            )
        })
        .collect();
    expected.sort();
    assert_eq!(redirects, expected);
    assert!(
        run.stderr.contains("2 redirects from old URLs"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("redirect /authors/juergen-kurths/ -> /authors/jurgen-kurths/"),
        "{}",
        run.stderr
    );
    // Redirect pages are no pages of the sitemap.
    assert!(!site.output("sitemap.xml").contains("juergen-kurths"));
}

#[test]
fn aliases_in_a_bio_and_by_path_and_what_matches_nothing_is_reported() {
    let site = kurths_site();
    site.file(
        "content/authors/juergen-kurths.md",
        "---\naliases:\n  - content/records/kurths-2.txt\n  - kurths-4.txt\n  - Nobody Here\n---\nClimate scientist.\n",
    );
    let run = site.build();
    let authors = site.data("authors");
    let juergen = authors
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "juergen-kurths")
        .expect("the bio's author");
    assert_eq!(juergen["papers"].as_array().unwrap().len(), 4, "{juergen}");
    assert!(
        run.stderr.contains(
            "alias `Nobody Here` of `juergen-kurths` matches no record file or author name"
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("content/authors/juergen-kurths.md:2:1"),
        "{}",
        run.stderr
    );
    // kurths-1.txt stays an author of its own.
    assert_eq!(authors.as_array().unwrap().len(), 2);
}

#[test]
fn a_split_makes_two_authors_of_one_name_with_stable_slugs() {
    let site = Site::new();
    site.file(
        "content/records/wang-1.txt",
        record_file("Wei Wang", &[(2019, "Graph Learning", "Graphs.", "cs.LG")]),
    )
    .file(
        "content/records/wang-2.txt",
        record_file(
            "Wei Wang",
            &[(2021, "Quantum Dots", "Dots.", "cond-mat.mes-hall")],
        ),
    );
    let run = site.build();
    assert!(
        run.stderr.contains("the files are merged into one author"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("record_files: {content/records/wang-2.txt: {disambiguation: ...}}"),
        "{}",
        run.stderr
    );
    assert_eq!(site.data("authors").as_array().unwrap().len(), 1);

    site.file(
        "profilegen.yaml",
        "record_files:\n  wang-2.txt:\n    disambiguation: Delft University of Technology\n",
    );
    let run = site.build();
    assert!(
        !run.stderr.contains("merged into one author"),
        "{}",
        run.stderr
    );
    let authors = site.data("authors");
    let ids: Vec<&str> = authors
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["wei-wang", "wei-wang-delft-university-of-technology"]);
    assert_eq!(
        authors[1]["disambiguation"],
        "Delft University of Technology"
    );
    let page = site.output("authors/wei-wang-delft-university-of-technology/index.html");
    assert!(
        page.contains(
            "Wei Wang <span class=\"disambiguation\">(Delft University of Technology)</span>"
        ),
        "{page}"
    );
    assert!(page.contains("\"disambiguatingDescription\":\"Delft University of Technology\""));
    assert!(page.contains("Quantum Dots") && !page.contains("Graph Learning"));
    // The first file keeps the shared URL: nothing to redirect.
    assert!(!site.public().join("_redirects").exists());

    // A setting for a file that is not there is reported where it is written.
    site.file(
        "profilegen.yaml",
        "record_files:\n  wang-9.txt:\n    name: Wei Wang\n",
    );
    let run = site.build();
    assert!(
        run.stderr
            .contains("record_files: `content/records/wang-9.txt` is no record file of the site"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("profilegen.yaml:2:3"), "{}", run.stderr);
}

#[test]
fn identifiers_are_links_json_ld_and_data_and_bad_ones_are_reported_at_their_line() {
    let site = Site::new();
    site.file(
        "content/records/ada.txt",
        record_file("Ada Lovelace", &[(2024, "Notes on the Engine", "Notes.", "cs.GL")]),
    )
    .file(
        "profilegen.yaml",
        "authors:\n  ada-lovelace:\n    orcid: https://orcid.org/0000-0002-1825-0097\n    dblp: 123/4567-1\n    openalex: A5023888391\n    google_scholar: https://scholar.google.com/citations?user=Zdc8d1YAAAAJ&hl=en\n    arxiv: lovelace_a_1\n    homepage: https://example.org/ada\n",
    );
    site.build();
    let page = site.output("authors/ada-lovelace/index.html");
    for link in [
        "<a href=\"https://orcid.org/0000-0002-1825-0097\" rel=\"me\">ORCID 0000-0002-1825-0097</a>",
        "<a href=\"https://dblp.org/pid/123/4567-1.html\" rel=\"me\">dblp 123/4567-1</a>",
        "<a href=\"https://openalex.org/A5023888391\" rel=\"me\">OpenAlex A5023888391</a>",
        "<a href=\"https://scholar.google.com/citations?user=Zdc8d1YAAAAJ\" rel=\"me\">Google Scholar Zdc8d1YAAAAJ</a>",
        "<a href=\"https://arxiv.org/a/lovelace_a_1\" rel=\"me\">arXiv lovelace_a_1</a>",
    ] {
        assert!(page.contains(link), "{link} in\n{page}");
    }
    let start = page.find("<script type=\"application/ld+json\">").unwrap();
    let end = start + page[start..].find("</script>").unwrap();
    let json = &page[start + "<script type=\"application/ld+json\">".len()..end];
    let ld: serde_json::Value = serde_json::from_str(json).unwrap();
    let person = &ld["mainEntity"];
    let same_as: Vec<&str> = person["sameAs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        same_as,
        [
            "https://example.org/ada",
            "https://orcid.org/0000-0002-1825-0097",
            "https://dblp.org/pid/123/4567-1.html",
            "https://openalex.org/A5023888391",
            "https://scholar.google.com/citations?user=Zdc8d1YAAAAJ",
            "https://arxiv.org/a/lovelace_a_1",
        ]
    );
    let ids = person["identifier"].as_array().unwrap();
    assert_eq!(ids.len(), 5);
    assert_eq!(ids[0]["@type"], "PropertyValue");
    assert_eq!(ids[0]["propertyID"], "ORCID");
    assert_eq!(ids[0]["value"], "0000-0002-1825-0097");
    let data = site.data("authors");
    assert_eq!(data[0]["identifiers"]["dblp"], "123/4567-1");
    assert_eq!(data[0]["identifiers"]["google_scholar"], "Zdc8d1YAAAAJ");
    assert_eq!(data[0]["homepage"], "https://example.org/ada");

    site.file(
        "profilegen.yaml",
        "authors:\n  ada-lovelace:\n    orcid: 0000-0002-1825-0098\n    dblp: not a pid\n    arxiv: Lovelace_A\n",
    );
    let run = site.build();
    let err = &run.stderr;
    assert!(
        err.contains("orcid: `0000-0002-1825-0098` is not a valid ORCID id"),
        "{err}"
    );
    assert!(err.contains("profilegen.yaml:3:5"), "{err}");
    assert!(
        err.contains("dblp: `not a pid` is not a valid dblp id"),
        "{err}"
    );
    assert!(err.contains("profilegen.yaml:4:5"), "{err}");
    assert!(err.contains("dblp: not a pid"), "the line is shown: {err}");
    assert!(err.contains("profilegen.yaml:5:5"), "{err}");
    let page = site.output("authors/ada-lovelace/index.html");
    assert!(
        !page.contains("orcid.org") && !page.contains("dblp.org"),
        "{page}"
    );
}

#[test]
fn a_corrected_title_keeps_the_old_paper_url_working_in_later_builds() {
    let site = Site::new();
    let text = |title: &str| {
        record_file(
            "Ada Lovelace",
            &[(2024, title, "Notes on the analytical engine.", "cs.GL")],
        )
    };
    site.file(
        "content/records/ada.txt",
        text("Notes on the Analitical Engine"),
    );
    site.build();
    assert!(site
        .public()
        .join("papers/notes-on-the-analitical-engine-2024/index.html")
        .is_file());
    site.file(
        "content/records/ada.txt",
        text("Notes on the Analytical Engine"),
    );
    let run = site.build();
    assert!(
        run.stderr.contains("1 redirect from old URLs"),
        "{}",
        run.stderr
    );
    let expected = vec![(
        "papers/notes-on-the-analitical-engine-2024/".to_string(),
        "papers/notes-on-the-analytical-engine-2024/".to_string(),
    )];
    assert_eq!(checked_redirects(&site), expected);
    let page = site.output("papers/notes-on-the-analitical-engine-2024/index.html");
    assert!(
        page.contains("<title>Notes on the Analytical Engine</title>"),
        "{page}"
    );
    // A build that changes nothing, and a forced one, keep it.
    site.build();
    assert_eq!(checked_redirects(&site), expected);
    let forced = site.run(&["build", "--force"]);
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    assert_eq!(checked_redirects(&site), expected);
    // Another edit of the same paper: both old URLs lead to the newest.
    site.file(
        "content/records/ada.txt",
        text("Notes on the Analytical Engine (1843)"),
    );
    site.build();
    let redirects = checked_redirects(&site);
    assert_eq!(redirects.len(), 2, "{redirects:?}");
    assert!(redirects
        .iter()
        .all(|(_, to)| to == "papers/notes-on-the-analytical-engine-1843-2024/"));
}

#[test]
fn check_authors_suggests_likely_duplicates_ranked_with_the_settings_that_merge_them() {
    let site = kurths_site();
    // Two co-authors, on papers of two of the spellings: shared co-authors rank that pair
    // first.
    for (file, name, title) in [
        ("marwan.txt", "Norbert Marwan", "Recurrence Plots"),
        ("donges.txt", "Jonathan Donges", "Climate Networks"),
        ("donges-2.txt", "Jonathan Donges", "Recurrence Plots"),
        ("marwan-2.txt", "Norbert Marwan", "Climate Networks"),
    ] {
        let abstract_text = if title == "Recurrence Plots" {
            "Plots of recurrences."
        } else {
            "Networks of climate."
        };
        let subject = if title == "Recurrence Plots" {
            "physics.data-an"
        } else {
            "physics.ao-ph"
        };
        site.file(
            &format!("content/records/{file}"),
            record_file(
                name,
                &[(
                    if title == "Recurrence Plots" {
                        2021
                    } else {
                        2022
                    },
                    title,
                    abstract_text,
                    subject,
                )],
            ),
        );
    }
    site.file(
        "content/records/vds-1.txt",
        record_file(
            "Herbert Van de Sompel",
            &[(2008, "Memento", "Time travel for the web.", "cs.DL")],
        ),
    )
    .file(
        "content/records/vds-2.txt",
        record_file("H. Van de Sompel", &[(2001, "OpenURL", "Links.", "cs.DL")]),
    )
    // Initials alone, with nothing shared: not suggested.
    .file(
        "content/records/wang-1.txt",
        record_file("Wei Wang", &[(2019, "Graph Learning", "Graphs.", "cs.LG")]),
    )
    .file(
        "content/records/wang-2.txt",
        record_file(
            "W. Wang",
            &[(2020, "Quantum Dots", "Dots.", "cond-mat.mes-hall")],
        ),
    );
    let run = site.run(&["check", "--authors"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = &run.stdout;
    assert!(
        out.starts_with("3 likely duplicate authors (not merged):"),
        "{out}"
    );
    assert!(!out.contains("Wang"), "{out}");
    assert!(
        !out.contains("Van de Sompel"),
        "no shared paper or co-author: {out}"
    );
    // Jurgen (2 papers) and Juergen share Jonathan Donges; Jürgen shares nothing.
    let first = out.find("1. Jurgen Kurths (/authors/jurgen-kurths/, 2 papers) ~ Juergen Kurths (/authors/juergen-kurths/, 1 paper)").expect(out);
    let second = out.find("2. ").unwrap();
    assert!(first < second);
    assert!(
        out.contains("one name in two spellings; 0 shared papers, 2 shared co-authors"),
        "{out}"
    );
    assert!(
        out.contains(
            "     authors:\n       jurgen-kurths:\n         aliases: [\"Juergen Kurths\"]\n"
        ),
        "{out}"
    );
    assert_eq!(
        out.matches("Kurths (/authors/").count(),
        6,
        "three pairs of three spellings: {out}"
    );

    // The suggested settings merge what they say; then nothing is left to suggest.
    site.file(
        "profilegen.yaml",
        "authors:\n  jurgen-kurths:\n    aliases: [\"Juergen Kurths\", \"Jürgen Kurths\"]\n",
    );
    let run = site.run(&["check", "--authors"]);
    assert_eq!(
        run.stdout, "No likely duplicate authors.\n",
        "{}",
        run.stderr
    );
}
