//! Incremental builds: after any sequence of changes to record files, templates,
//! configuration, bios and static files, the output of a build that uses the cache
//! equals a clean build byte for byte; files that did not change keep their
//! modification time; a killed build leaves only whole files.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use common::{arxiv_slice, record_file, tree, Site};
use profilegen::build::BuildMemo;
use profilegen::build::{build_with, BuildOptions};
use proptest::prelude::*;

const AUTHORS: [&str; 6] = [
    "Ada Lovelace",
    "Łukasz Nowak",
    "Zoë Ærøskøbing",
    "Wei Zhang",
    "Grace Hopper",
    "Staša Milojević",
];

/// `(year, title, abstract, subject)`; papers shared when several files list them.
const PAPERS: [(u16, &str, &str, &str); 10] = [
    (2026, "Scaling Sparse Experts", "We scale experts.", "cs.DC"),
    (
        2025,
        "Notes on $P_Z$ Priors",
        "The prior $P_Z$ matters.",
        "cs.LG",
    ),
    (
        2025,
        "Notes on $P_Z$ Priors",
        "A different paper, same title.",
        "cs.LG",
    ),
    (
        2024,
        "\\textbf{V}ariational Flows",
        "Flows -- with TeX.",
        "stat.ML",
    ),
    (
        2023,
        "Graphs <of> & Things",
        "Escaping \"matters\".",
        "cs.DS",
    ),
    (2022, "Quiet Paper", "", "physics.soc-ph"),
    (2021, "Older Work", "Old.", "cs.DC"),
    (2020, "Oldest Work", "Oldest.", "hep-ex"),
    (
        2019,
        "Proceedings of the Workshop 2019",
        "Ends in a year.",
        "cs.CL",
    ),
    (2026, "Newest Preprint", "Fresh.", "q-fin.GN"),
];

/// Templates a change may override: pages, a feed, and fragments rendered once per build.
const TEMPLATES: &[&str] = &[
    "paper.html",
    "author.html",
    "atom.xml",
    "macros/paper_item.html",
    "macros/feed_entry.xml",
];

#[derive(Debug, Clone)]
enum Change {
    /// Write record file `file` for an author listing some papers (a bit mask).
    WriteRecords {
        file: u8,
        author: usize,
        papers: u16,
    },
    /// Remove record file `file` (if it exists, and it is not the last one).
    RemoveRecords { file: u8 },
    /// Replace a template (of [`TEMPLATES`]) with one of a few variants (0: the default).
    Template { name: usize, variant: u8 },
    /// Replace the configuration with one of a few variants.
    Config { variant: u8 },
    /// Add, change or remove an author's bio.
    Bio { author: usize, variant: u8 },
    /// Add, change or remove a static file.
    Static { variant: u8 },
    /// Nothing at all.
    Nothing,
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        4 => (0u8..5, 0..AUTHORS.len(), 1u16..1024).prop_map(|(file, author, papers)| Change::WriteRecords { file, author, papers }),
        1 => (0u8..5).prop_map(|file| Change::RemoveRecords { file }),
        1 => (0..TEMPLATES.len(), 0u8..3).prop_map(|(name, variant)| Change::Template { name, variant }),
        1 => (0u8..5).prop_map(|variant| Change::Config { variant }),
        1 => (0..AUTHORS.len(), 0u8..3).prop_map(|(author, variant)| Change::Bio { author, variant }),
        1 => (0u8..3).prop_map(|variant| Change::Static { variant }),
        1 => Just(Change::Nothing),
    ]
}

fn records(author: usize, papers: u16) -> String {
    let chosen: Vec<(u16, &str, &str, &str)> = PAPERS
        .iter()
        .enumerate()
        .filter(|(i, _)| papers & (1 << i) != 0)
        .map(|(_, p)| *p)
        .collect();
    record_file(AUTHORS[author], &chosen)
}

fn apply(site: &Site, change: &Change) {
    let records_dir = site.root().join("content/records");
    match change {
        Change::WriteRecords {
            file,
            author,
            papers,
        } => {
            site.file(
                &format!("content/records/f{file}.txt"),
                records(*author, *papers),
            );
        }
        Change::RemoveRecords { file } => {
            let path = records_dir.join(format!("f{file}.txt"));
            let count = fs::read_dir(&records_dir).map(|d| d.count()).unwrap_or(0);
            if path.exists() && count > 1 {
                fs::remove_file(path).unwrap();
            }
        }
        Change::Template { name, variant } => {
            let name = TEMPLATES[*name];
            let path = format!("templates/{name}");
            let default =
                fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(&path)).unwrap();
            match variant {
                0 => {
                    let _ = fs::remove_file(site.root().join(&path));
                }
                v => {
                    let marker = format!("<!-- variant {v} -->");
                    let text = if name.starts_with("macros/") {
                        // A fragment: its marker shows wherever it is used.
                        format!("{marker}{default}")
                    } else if name.ends_with(".xml") {
                        default.replace("<generator", &format!("{marker}<generator"))
                    } else {
                        default.replace(
                            "{%- endblock content %}",
                            &format!("{marker}{{%- endblock content %}}"),
                        )
                    };
                    site.file(&path, text);
                }
            }
        }
        Change::Config { variant } => {
            let text = match variant {
                0 => "title: Lab\n",
                1 => "title: Lab\nbase_url: https://example.org/lab/\n",
                2 => "title: Other Lab\ndescription: Changed\n",
                3 => "title: Lab\npage_layout: files\nexports: files\n",
                _ => "title: Lab\nauthors:\n  wei-zhang:\n    name: Dr. Wei Zhang\n    affiliation: Somewhere\n",
            };
            site.file("profilegen.yaml", text);
        }
        Change::Bio { author, variant } => {
            let slug = [
                "ada-lovelace",
                "lukasz-nowak",
                "zoe-aeroskobing",
                "wei-zhang",
                "grace-hopper",
                "stasa-milojevic",
            ][*author];
            let path = format!("content/authors/{slug}.md");
            match variant {
                0 => {
                    let _ = fs::remove_file(site.root().join(&path));
                }
                v => {
                    site.file(
                        &path,
                        format!("---\naffiliation: Place {v}\n---\nBio version *{v}*.\n"),
                    );
                }
            }
        }
        Change::Static { variant } => match variant {
            0 => {
                let _ = fs::remove_file(site.root().join("static/extra.txt"));
            }
            v => {
                site.file("static/extra.txt", format!("static {v}"));
            }
        },
        Change::Nothing => {}
    }
}

/// The site each property test starts from: two record files sharing three papers.
fn starting_site() -> Site {
    let site = Site::new();
    site.file("profilegen.yaml", "title: Lab\n");
    site.file("content/records/f0.txt", records(0, 0b11_1111_1111));
    site.file("content/records/f1.txt", records(3, 0b00_0000_0111));
    site
}

/// Whether two output folders hold the same files with the same bytes.
fn same_trees(built: &Path, clean: &Path, change: &Change) -> Result<(), TestCaseError> {
    let incremental = tree(built);
    let reference = tree(clean);
    let paths = |t: &[(String, Vec<u8>)]| t.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>();
    prop_assert_eq!(paths(&incremental), paths(&reference), "after {:?}", change);
    for ((path, a), (_, b)) in incremental.iter().zip(&reference) {
        prop_assert!(a == b, "{} differs after {:?}", path, change);
    }
    Ok(())
}

fn build(site: &Site, args: &[&str]) -> (i32, String) {
    let run = site.run(args);
    (run.code, run.stderr)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn incremental_output_equals_a_clean_build(changes in proptest::collection::vec(change(), 1..7)) {
        let site = starting_site();
        let (code, err) = build(&site, &["build"]);
        prop_assert_eq!(code, 0, "{}", err);
        // The reference folder sees every input the site sees, so that both start each
        // build from the same slug history (what keeps old URLs working).
        let (code, err) = build(&site, &["build", "--force", "--output", "clean"]);
        prop_assert_eq!(code, 0, "{}", err);
        for change in &changes {
            apply(&site, change);
            let (code, err) = build(&site, &["build"]);
            let clean = site.root().join("clean");
            let _ = fs::remove_dir_all(&clean);
            let (clean_code, clean_err) = build(&site, &["build", "--force", "--output", "clean"]);
            prop_assert_eq!(code, clean_code, "{:?}\n{}\n{}", change, err, clean_err);
            same_trees(&site.public(), &clean, change)?;
        }
    }
}

/// Tells `memo` what the watcher would have seen of `change`: a record file written or
/// removed is the only change, so the other record files are taken from the last
/// build's listing without looking at them.
fn report(memo: &mut BuildMemo, change: &Change) {
    if let Change::WriteRecords { file, .. } | Change::RemoveRecords { file } = change {
        let path = PathBuf::from(format!("content/records/f{file}.txt"));
        memo.records.reported_changes.insert(path);
        memo.records.only_reported_changed = true;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, failure_persistence: None, .. ProptestConfig::default() })]

    /// What `build --watch` and `serve` do: many builds in one process, each reusing the
    /// last one's parsed files, TeX conversions, search terms and cache. The output must
    /// still equal a clean build after every change.
    #[test]
    fn builds_reusing_a_memo_equal_a_clean_build(changes in proptest::collection::vec(change(), 1..7)) {
        let site = starting_site();
        let options = BuildOptions::new(site.root());
        let mut memo = BuildMemo::long_running();
        prop_assert!(build_with(&options, &mut memo).is_ok());
        prop_assert_eq!(memo.records.parsed.len(), 2, "both record files are kept for reuse");
        let clean = site.root().join("clean");
        let clean_options = BuildOptions {
            output: Some(clean.clone()),
            force: true,
            ..BuildOptions::new(site.root())
        };
        // As above: the reference sees every input, for the same slug history.
        prop_assert!(profilegen::build::build(&clean_options).is_ok());
        for change in &changes {
            apply(&site, change);
            report(&mut memo, change);
            let reused = build_with(&options, &mut memo);
            let _ = fs::remove_dir_all(&clean);
            let reference_result = profilegen::build::build(&clean_options);
            prop_assert_eq!(reused.is_ok(), reference_result.is_ok(), "after {:?}", change);
            if let (Ok(a), Ok(b)) = (&reused, &reference_result) {
                prop_assert_eq!(&a.diagnostics, &b.diagnostics, "after {:?}", change);
            }
            same_trees(&site.public(), &clean, change)?;
        }
    }
}

/// `build --watch` and `serve` started on a site already built: the first build finds
/// it unchanged and returns early, leaving the memo cold; the warm-up runs the whole
/// pipeline and writes nothing, and the rebuild after a change still equals a clean one.
#[test]
fn a_long_running_process_warms_up_on_an_unchanged_site_without_writing() {
    let site = starting_site();
    let options = BuildOptions::new(site.root());
    assert!(
        !BuildMemo::default().is_cold(),
        "a one-off build's memo never is"
    );
    build_with(&options, &mut BuildMemo::default()).expect("the first build");
    let times = modification_times(&site.public());
    let mut memo = BuildMemo::long_running();
    assert!(memo.is_cold());
    let unchanged = build_with(&options, &mut memo).expect("the unchanged build");
    assert_eq!(unchanged.write.written, 0);
    assert!(
        memo.is_cold(),
        "an unchanged site leaves the stages nothing"
    );
    let warm = profilegen::build::warm_up(&options, &mut memo).expect("the warm-up");
    assert_eq!(warm.write.written, 0);
    assert_eq!(warm.write.unchanged, unchanged.write.unchanged);
    assert!(!memo.is_cold());
    assert_eq!(
        modification_times(&site.public()),
        times,
        "nothing rewritten"
    );
    memo.saved.wait();

    let change = Change::WriteRecords {
        file: 1,
        author: 3,
        papers: 0b10_0000_0111,
    };
    apply(&site, &change);
    let rebuilt = build_with(&options, &mut memo).expect("the rebuild");
    assert!(rebuilt.write.written > 0);
    let clean = site.root().join("clean");
    let clean_options = BuildOptions {
        output: Some(clean.clone()),
        force: true,
        ..BuildOptions::new(site.root())
    };
    profilegen::build::build(&clean_options).expect("the clean build");
    same_trees(&site.public(), &clean, &change).unwrap();
}

/// A long-running process writes its build cache once it has been quiet for a moment
/// or when it ends, not after each build; a build that fails in between writes the
/// cache it started from, so that the file never falls behind the last successful
/// build: a one-off build then finds nothing to do.
#[test]
fn a_failed_build_of_a_long_running_process_writes_the_cache_it_started_from() {
    let site = starting_site();
    let cache_files = || -> Vec<PathBuf> {
        (fs::read_dir(site.root().join(".profilegen"))
            .into_iter()
            .flatten()
            .flatten())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "cache"))
        .collect()
    };
    let options = BuildOptions::new(site.root());
    let mut memo = BuildMemo::long_running();
    build_with(&options, &mut memo).expect("the first build");
    assert!(cache_files().is_empty(), "not written yet");

    // A file whose header miscounts its records: a warning, which fails a strict build.
    let miscounted = records(2, 0b101).replacen("2 records", "3 records", 1);
    site.file("content/records/f2.txt", miscounted);
    let strict = BuildOptions {
        strict: true,
        ..BuildOptions::new(site.root())
    };
    assert!(
        build_with(&strict, &mut memo).is_err(),
        "a strict build fails"
    );
    assert_eq!(
        cache_files().len(),
        1,
        "the cache it started from is written"
    );

    fs::remove_file(site.root().join("content/records/f2.txt")).unwrap();
    let one_off = build_with(&options, &mut BuildMemo::default()).expect("a one-off build");
    assert_eq!(one_off.write.written, 0, "the cache was the first build's");
    assert!(one_off.write.unchanged > 10, "{:?}", one_off.write);
}

/// A long-running process writes its cache once it is quiet, away from any build; a
/// write that fails is a warning of the next build (once), and the next quiet spell
/// writes the cache again.
#[test]
fn a_save_of_a_long_running_process_that_fails_is_a_warning_of_the_next_build() {
    let site = starting_site();
    let options = BuildOptions::new(site.root());
    let cache_file =
        profilegen::build::cache::cache_file(site.root(), &options.output_dir(), false);
    let save_warnings = |report: &profilegen::build::BuildReport| -> Vec<String> {
        (report.diagnostics.iter())
            .map(|d| d.message.clone())
            .filter(|m| m.contains("cannot save the build cache"))
            .collect()
    };
    let mut memo = BuildMemo::long_running();
    build_with(&options, &mut memo).expect("the first build");
    // A folder, not empty, where the cache file goes: renaming the new file there fails.
    fs::create_dir_all(cache_file.join("in the way")).unwrap();
    memo.when_quiet(std::time::Instant::now() + Duration::from_secs(5));

    site.file("content/records/f2.txt", records(2, 0b101));
    let next = build_with(&options, &mut memo).expect("a build after the failed save");
    let warnings = save_warnings(&next);
    assert_eq!(warnings.len(), 1, "{:?}", next.diagnostics);
    assert!(
        warnings[0].contains(&cache_file.display().to_string()),
        "{warnings:?}"
    );

    fs::remove_dir_all(&cache_file).unwrap();
    memo.when_quiet(std::time::Instant::now() + Duration::from_secs(5));
    fs::remove_file(site.root().join("content/records/f2.txt")).unwrap();
    let after = build_with(&options, &mut memo).expect("a build after a good save");
    assert!(save_warnings(&after).is_empty(), "reported once");
    assert!(cache_file.is_file(), "the quiet spell wrote the cache");
}

/// Each overridable template, fragments included, reaches every output that uses it in
/// an incremental build: overriding it, then removing the override, gives what a clean
/// build gives.
#[test]
fn each_template_change_reaches_every_output_that_uses_it() {
    let site = starting_site();
    assert_eq!(build(&site, &["build"]).0, 0);
    for name in 0..TEMPLATES.len() {
        for variant in [1, 0] {
            let change = Change::Template { name, variant };
            apply(&site, &change);
            let (code, err) = build(&site, &["build"]);
            assert_eq!(code, 0, "{err}");
            let clean = site.root().join("clean");
            let _ = fs::remove_dir_all(&clean);
            let (code, err) = build(&site, &["build", "--force", "--output", "clean"]);
            assert_eq!(code, 0, "{err}");
            same_trees(&site.public(), &clean, &change).unwrap();
        }
    }
}

fn modification_times(dir: &Path) -> BTreeMap<String, SystemTime> {
    walk(dir)
        .into_iter()
        .map(|p| {
            let time = fs::metadata(dir.join(&p)).unwrap().modified().unwrap();
            (p, time)
        })
        .collect()
}

fn walk(dir: &Path) -> Vec<String> {
    tree(dir).into_iter().map(|(p, _)| p).collect()
}

/// A site with 30 authors and 120 papers, many shared.
fn medium_site() -> Site {
    let site = Site::new();
    site.file(
        "profilegen.yaml",
        "title: Medium\nbase_url: https://example.org/\n",
    );
    for author in 0..30 {
        let papers: Vec<(u16, String, String, &str)> = (0..12)
            .map(|k| {
                let paper = (author * 4 + k) % 120;
                (
                    1990 + (paper % 37) as u16,
                    format!("Paper number {paper}"),
                    format!("Abstract of paper {paper}, with $x_{paper}$."),
                    ["cs.DC", "cs.LG", "math.OC"][paper % 3],
                )
            })
            .collect();
        site.file(
            &format!("content/records/a{author:02}.txt"),
            record_file(&format!("Author {author}"), &papers),
        );
    }
    site
}

#[test]
fn one_new_record_file_rewrites_few_files_and_leaves_the_rest_untouched() {
    let site = medium_site();
    let first = site.build();
    assert!(first.stderr.contains("0 unchanged"), "{}", first.stderr);
    let before = modification_times(&site.public());
    std::thread::sleep(Duration::from_millis(20));
    // Nothing changed: nothing written.
    let again = site.build();
    assert!(
        again.stderr.contains("; 0 files written"),
        "{}",
        again.stderr
    );
    assert_eq!(modification_times(&site.public()), before);
    // A new author with two papers, one shared with Author 0.
    site.file(
        "content/records/new.txt",
        record_file(
            "New Comer",
            &[
                (
                    1990,
                    "Paper number 0",
                    "Abstract of paper 0, with $x_0$.",
                    "cs.DC",
                ),
                (2026, "A brand new paper", "New.", "cs.DC"),
            ],
        ),
    );
    let run = site.build();
    let after = modification_times(&site.public());
    let changed: Vec<&String> = after
        .keys()
        .filter(|p| before.get(*p) != after.get(*p) && !is_manifest(p))
        .collect();
    let total = after.len();
    // The search index shifts document numbers: its few files change with any change.
    let (search, changed): (Vec<&String>, Vec<&String>) =
        changed.into_iter().partition(|p| p.starts_with("search/"));
    let index_files = after.keys().filter(|p| p.starts_with("search/")).count();
    assert!(search.len() <= index_files);
    assert!(
        changed.len() * 10 < total,
        "{} of {total} files changed: {changed:?}",
        changed.len()
    );
    assert!(changed
        .iter()
        .any(|p| p.as_str() == "authors/new-comer/index.html"));
    assert!(
        changed
            .iter()
            .any(|p| p.as_str() == "authors/author-0/index.html"),
        "the co-author's page"
    );
    assert!(
        !changed
            .iter()
            .any(|p| p.as_str() == "authors/author-10/index.html"),
        "an unrelated author"
    );
    assert!(
        run.stderr
            .contains(&format!("{} files written", changed.len() + search.len())),
        "{}\n{changed:?}",
        run.stderr
    );
    // And it equals a clean build.
    let clean = site.run(&["build", "--force", "--output", "clean"]);
    assert_eq!(clean.code, 0);
    assert_eq!(tree(&site.public()), tree(&site.root().join("clean")));
    // A removed record file removes its pages.
    site.remove("content/records/new.txt");
    site.build();
    assert!(!site.public().join("authors/new-comer").exists());
    assert!(!site.public().join("papers/a-brand-new-paper-2026").exists());
}

#[test]
fn the_build_after_a_first_build_into_a_new_folder_uses_its_cache() {
    let site = medium_site();
    site.build();
    let cache_files = || {
        fs::read_dir(site.root().join(".profilegen"))
            .unwrap()
            .count()
    };
    let first = cache_files();
    let run = site.run_with_env(&["build"], &[("PROFILEGEN_TIMINGS", "1")]);
    assert!(run.stderr.contains("timing: unchanged"), "{}", run.stderr);
    // Each stage's line gives its wall and processor times.
    let line = run
        .stderr
        .lines()
        .find(|l| l.starts_with("timing: read"))
        .unwrap();
    assert!(
        line.contains(" ms, processor ") && line.ends_with(" MB"),
        "{line}"
    );
    assert_eq!(
        cache_files(),
        first,
        "the second build saved no cache of its own"
    );
    // A third build finds nothing changed from the cache alone.
    let run = site.run_with_env(&["build"], &[("PROFILEGEN_TIMINGS", "1")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("timing: unchanged"), "{}", run.stderr);
}

#[test]
fn a_one_off_build_keeps_its_tex_conversions_and_the_next_builds_the_same_with_them() {
    let site = Site::seeds();
    let tex_papers = |author: &str, year: u16| {
        let records = [
            (
                year,
                r"Sheaves on $\mathscr{M}_g$",
                r"We bound $\alpha \leq 2$.",
                "math.AG",
            ),
            (
                year,
                "A plain title",
                r"With $x^2$ and $\unknownmacro$.",
                "math.AG",
            ),
        ];
        record_file(author, &records)
    };
    site.file("content/records/tex.txt", tex_papers("Ada Lovelace", 2024));
    site.build();
    let kept = site.root().join(".profilegen/texts.kept");
    let first = fs::read(&kept).expect("the conversions are kept");
    assert!(first.starts_with(b"PGKEPT1\n"));
    #[cfg(unix)]
    {
        // As readable as the build cache beside it, not only by its owner.
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let cache_dir = site.root().join(".profilegen");
        let cache = fs::read_dir(&cache_dir).unwrap().map(|e| e.unwrap().path());
        let cache = cache
            .into_iter()
            .find(|p| p.extension().is_some_and(|e| e == "cache"));
        assert_eq!(mode(&kept), mode(&cache.expect("a build cache")));
    }
    let same_as_clean = |site: &Site| {
        let clean = site.run(&["build", "--force", "--output", "clean"]);
        assert_eq!(clean.code, 0, "{}", clean.stderr);
        assert!(tree(&site.public()) == tree(&site.root().join("clean")));
    };
    // The next one-off build finds them there, and builds what a clean build does.
    site.file(
        "content/records/more.txt",
        tex_papers("Mary Somerville", 2025),
    );
    let run = site.build();
    assert!(run.stderr.contains("unknownmacro"), "{}", run.stderr);
    same_as_clean(&site);
    assert_ne!(
        fs::read(&kept).unwrap(),
        first,
        "kept again with the new papers"
    );
    // A damaged file is not read, and is written whole again.
    fs::write(&kept, b"PGKEPT1\ndamaged").unwrap();
    site.remove("content/records/more.txt");
    site.build();
    same_as_clean(&site);
    assert!(fs::read(&kept).unwrap().len() > 100);
}

/// Writes the record file `name` into `site`, modified an hour ago (old enough for its
/// size and time to be trusted).
fn old_record_file(site: &Site, name: &str, text: &str) {
    let path = site.root().join("content/records").join(name);
    site.file(&format!("content/records/{name}"), text);
    let file = fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(3600))
        .unwrap();
}

/// A large site's one-off build keeps its parsed record files (`records.kept`), and
/// the next one-off build parses only the files that changed, and builds what a clean
/// build does. A kept abstract damaged on disk fails the build before anything is
/// written; the build after it reads every file again.
#[test]
fn a_one_off_build_parses_only_the_record_files_changed_since_the_kept_ones() {
    // Abstracts in a text store, as a large site's are.
    let env = [
        ("PROFILEGEN_TIMINGS", "1"),
        ("PROFILEGEN_TEXT_STORE_MIN_BYTES", "0"),
    ];
    let files = arxiv_slice();
    let site = Site::new();
    for (name, text) in &files {
        old_record_file(&site, name, text);
    }
    let parsed = |run: &common::Run, of: usize, all: usize| {
        let line = format!("read and parse ({of} of {all} record files parsed)");
        assert!(run.stderr.contains(&line), "{line}: {}", run.stderr);
    };
    let first = site.run_with_env(&["build", "--quiet"], &env);
    assert_eq!(first.code, 0, "{}", first.stderr);
    parsed(&first, files.len(), files.len());
    let kept = site.root().join(".profilegen/records.kept");
    assert!(kept.is_file());

    // One file changes (a word of an abstract), one is new (another author's copy).
    let (name, text) = &files[0];
    let changed = text.replacen(" the ", " a ", 1);
    assert_ne!(&changed, text);
    old_record_file(&site, name, &changed);
    let author = files[1].1.lines().nth(2).unwrap();
    let newcomer = files[1].1.replace(author, "Nova Newcomer");
    old_record_file(&site, "zz_newcomer.txt", &newcomer);
    let second = site.run_with_env(&["build", "--quiet"], &env);
    assert_eq!(second.code, 0, "{}", second.stderr);
    parsed(&second, 2, files.len() + 1);
    let clean = site.run(&["build", "--force", "--output", "clean"]);
    assert_eq!(clean.code, 0, "{}", clean.stderr);
    assert!(tree(&site.public()) == tree(&site.root().join("clean")));
    assert!(tree(&site.public()).len() > 100);

    // An abstract damaged in the kept file.
    let abstract_text = files[2].1.lines().find(|line| line.len() > 300).unwrap();
    let mut raw = fs::read(&kept).unwrap();
    let needle = &abstract_text.as_bytes()[..60];
    let at = raw.windows(60).position(|w| w == needle).unwrap();
    raw[at] ^= 0x20;
    fs::write(&kept, &raw).unwrap();
    let before = tree(&site.public());
    let everything = ["build", "--quiet", "--base-url", "https://example.org/"];
    let damaged = site.run_with_env(&everything, &env);
    assert_ne!(damaged.code, 0, "{}", damaged.stderr);
    assert!(damaged.stderr.contains("damaged"), "{}", damaged.stderr);
    assert!(tree(&site.public()) == before, "nothing was written");
    assert!(!kept.exists());
    let again = site.run_with_env(&everything, &env);
    assert_eq!(again.code, 0, "{}", again.stderr);
    parsed(&again, files.len() + 1, files.len() + 1);
    assert!(kept.is_file());

    // The build of an unchanged site keeps them too when they are missing.
    fs::remove_file(&kept).unwrap();
    let unchanged = site.run_with_env(&everything, &env);
    assert!(
        unchanged.stderr.contains("timing: unchanged"),
        "{}",
        unchanged.stderr
    );
    assert!(kept.is_file());
    let unchanged = site.run_with_env(&everything, &env);
    assert!(
        unchanged.stderr.contains("timing: unchanged"),
        "{}",
        unchanged.stderr
    );
    parsed(&unchanged, 0, files.len() + 1);
}

/// `serve` or `build --watch` started on a site a one-off build left: its first build
/// takes the search terms that build kept (`search.kept`), and it and the rebuilds
/// after it (from the terms in memory) build what a clean build does.
#[test]
fn a_long_running_process_starts_from_the_search_terms_a_one_off_build_kept() {
    let site = starting_site();
    site.build();
    let kept = site.root().join(".profilegen/search.kept");
    assert!(fs::read(&kept).unwrap().starts_with(b"PGKEPT1\n"));
    let options = BuildOptions::new(site.root());
    let mut memo = BuildMemo::long_running();
    let clean = site.root().join("clean");
    let clean_options = BuildOptions {
        output: Some(clean.clone()),
        force: true,
        ..BuildOptions::new(site.root())
    };
    let new_file = "content/records/f2.txt";
    for n in 0..3 {
        match n {
            0 => site.file(new_file, records(5, 0b11_0000_0001)),
            1 => site.file("content/records/f1.txt", records(3, 0b00_1000_0110)),
            _ => site.remove(new_file),
        };
        let built = build_with(&options, &mut memo).expect("the rebuild");
        assert!(built.write.written > 0, "change {n}");
        let _ = fs::remove_dir_all(&clean);
        profilegen::build::build(&clean_options).expect("the clean build");
        assert!(tree(&site.public()) == tree(&clean), "change {n}");
    }
    // A long-running process writes no kept file: the one-off build's is still there.
    assert!(kept.exists());
}

/// A search terms file that is not whole (garbage, cut short, a blob changed on disk)
/// costs the next build only time: it builds what a clean build does, and keeps the
/// file whole again when it cannot read it or the documents changed (a file with one
/// blob changed on disk would otherwise serve on: that document's terms are made
/// again in each build until the file is written anew).
#[test]
fn a_damaged_search_terms_file_is_not_trusted_and_is_kept_whole_again() {
    let site = starting_site();
    site.build();
    let kept = site.root().join(".profilegen/search.kept");
    let whole = fs::read(&kept).unwrap();
    let mut changed_blob = whole.clone();
    changed_blob[whole.len() / 3] ^= 0x55;
    let damages = [
        b"PGKEPT1\ndamaged".to_vec(),
        whole[..whole.len() / 2].to_vec(),
        changed_blob,
    ];
    for (n, damaged) in damages.iter().enumerate() {
        fs::write(&kept, damaged).unwrap();
        match n % 2 {
            0 => site.file("content/records/f2.txt", records(4, 0b01_0010_0011)),
            _ => site.remove("content/records/f2.txt"),
        };
        site.build();
        let clean = site.run(&["build", "--force", "--output", "clean"]);
        assert_eq!(clean.code, 0, "{}", clean.stderr);
        assert!(
            tree(&site.public()) == tree(&site.root().join("clean")),
            "damage {n}"
        );
        fs::remove_dir_all(site.root().join("clean")).unwrap();
        let again = fs::read(&kept).unwrap();
        assert!(
            again.starts_with(b"PGKEPT1\n") && again.len() > 100,
            "damage {n}"
        );
        assert_ne!(&again, damaged, "damage {n}");
    }
}

/// A one-off build leaves the search terms and conversions an earlier one kept as they
/// are while they hold all but one in twenty of its documents' terms and papers'
/// conversions, and builds what a clean build does with them; past that it keeps
/// them anew.
#[test]
fn kept_files_that_still_serve_are_not_written_again() {
    let site = medium_site();
    site.build();
    let kept = ["search.kept", "texts.kept"].map(|name| site.root().join(".profilegen").join(name));
    let read = || {
        kept.clone()
            .map(|path| fs::read(path).expect("a kept file"))
    };
    let new_author = |n: usize| {
        let papers = [(
            2026,
            format!("A new paper {n}"),
            format!("With $y^{n}$."),
            "cs.DC",
        )];
        record_file(&format!("Newcomer {n}"), &papers)
    };
    // A clean build (`--force`: it reads no kept file, and keeps both anew) into
    // another folder; the files it kept.
    let same_as_clean = |site: &Site| {
        let clean = site.run(&["build", "--force", "--output", "clean"]);
        assert_eq!(clean.code, 0, "{}", clean.stderr);
        assert!(tree(&site.public()) == tree(&site.root().join("clean")));
        fs::remove_dir_all(site.root().join("clean")).unwrap();
        read()
    };
    // One new author and paper: 2 new documents of 152, 1 new conversion of 121.
    let before = read();
    site.file("content/records/new-0.txt", new_author(0));
    site.build();
    assert!(read() == before, "the kept files stay as they were");
    let before = same_as_clean(&site);
    // Ten more: 20 of 172 documents are not in the file, so it is kept anew.
    for n in 1..=10 {
        site.file(&format!("content/records/new-{n}.txt"), new_author(n));
    }
    site.build();
    let after = read();
    assert_ne!(after[0], before[0], "the search terms kept anew");
    assert_ne!(after[1], before[1], "the conversions kept anew");
    let after = same_as_clean(&site);
    // One author and paper fewer: the files still serve.
    site.remove("content/records/new-3.txt");
    site.build();
    assert!(read() == after, "the kept files stay as they were");
    same_as_clean(&site);
}

#[test]
fn output_changed_by_hand_is_repaired() {
    let site = medium_site();
    site.build();
    let page = site.public().join("authors/author-3/index.html");
    let original = fs::read(&page).unwrap();
    fs::write(&page, "tampered").unwrap();
    fs::remove_file(site.public().join("papers/paper-number-5-1995/index.html")).unwrap();
    let run = site.build();
    assert!(run.stderr.contains("2 files written"), "{}", run.stderr);
    assert_eq!(fs::read(&page).unwrap(), original);

    // A written file's state is its size and the span of time the build wrote in: the
    // same number of bytes saved later is still seen as a change.
    let mut tampered = original.clone();
    let at = tampered.len() / 2;
    tampered[at] = if tampered[at] == b'x' { b'y' } else { b'x' };
    fs::write(&page, &tampered).unwrap();
    let later = SystemTime::now() + Duration::from_secs(5);
    let file = fs::File::options().write(true).open(&page).unwrap();
    file.set_modified(later).unwrap();
    let run = site.build();
    assert!(run.stderr.contains("1 file written"), "{}", run.stderr);
    assert_eq!(fs::read(&page).unwrap(), original);
}

#[test]
fn a_killed_build_leaves_only_whole_files() {
    let site = medium_site();
    site.build();
    let old = tree(&site.public());
    // The next state: every page changes (a new title), and a reference build of it.
    site.file(
        "profilegen.yaml",
        "title: Renamed\nbase_url: https://example.org/\n",
    );
    let reference_run = site.run(&["build", "--force", "--output", "reference"]);
    assert_eq!(reference_run.code, 0);
    let new = tree(&site.root().join("reference"));
    let old_map: BTreeMap<_, _> = old.into_iter().collect();
    let new_map: BTreeMap<_, _> = new.into_iter().collect();
    for delay_ms in [2u64, 8, 15, 30, 60] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_profilegen"))
            .args(["build", "--quiet"])
            .current_dir(site.root())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        for (path, bytes) in tree(&site.public()) {
            if is_manifest(&path) || path.starts_with(".profilegen-staging/") {
                continue;
            }
            let whole = old_map.get(&path) == Some(&bytes) || new_map.get(&path) == Some(&bytes);
            assert!(
                whole,
                "{path} is neither the old nor the new file after a kill at {delay_ms} ms"
            );
        }
    }
    let finished = site.build();
    assert!(finished.stderr.contains("0 errors"), "{}", finished.stderr);
    let final_tree: BTreeMap<_, _> = tree(&site.public()).into_iter().collect();
    assert_eq!(final_tree, new_map, "a finished build equals the clean one");
}

/// Whether `path` (in an output folder) is the manifest or its changes file.
fn is_manifest(path: &str) -> bool {
    use profilegen::output::{MANIFEST, MANIFEST_CHANGES};
    path == MANIFEST || path == MANIFEST_CHANGES
}
