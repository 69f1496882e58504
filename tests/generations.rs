//! `build --generations`: the output path is a link to a whole build, switched in one
//! rename. The sites built so are the plain mode's, byte for byte; the switch is one
//! rename; a kill at any moment leaves the link at a whole old or a whole new site.

mod common;

use std::fs;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{record_file, tree, Site};

const FIRST: &str = "content/records/000_bba791200e6c06d7.txt";
const SECOND: &str = "content/records/002_47da8d48adb540e8.txt";

/// Sets the seed site's input to the old version (the seeds) or the new one, which edits
/// one record file, removes another and adds an author.
fn set_version(site: &Site, new: bool) {
    let first = common::seed("000_bba791200e6c06d7.txt");
    let added = site.root().join("content/records/090_new.txt");
    if !new {
        site.file(FIRST, first);
        site.file(SECOND, common::seed("002_47da8d48adb540e8.txt"));
        let _ = fs::remove_file(added);
        return;
    }
    site.file(FIRST, first.replacen("arXiv20", "arXiv19", 1));
    let _ = fs::remove_file(site.root().join(SECOND));
    site.file(
        "content/records/090_new.txt",
        record_file(
            "New Q. Author",
            &[(2026, "A new paper", "Its abstract.", "cs.DC")],
        ),
    );
}

/// `profilegen build --quiet --output OUT [--generations]`, asserting success.
fn build(site: &Site, out: &str, generations: bool, threads: &str) {
    let mut args = vec!["build", "--quiet", "--output", out];
    if generations {
        args.push("--generations");
    }
    let run = site.run_with_env(&args, &[("RAYON_NUM_THREADS", threads)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// The generations in `<out>.generations`, sorted. Besides them the folder holds only
/// the output's lock file.
fn generations(site: &Site, out: &str) -> Vec<u64> {
    let mut numbers: Vec<u64> = fs::read_dir(site.root().join(format!("{out}.generations")))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != profilegen::output::LOCK_FILE)
        .map(|name| name.parse().unwrap())
        .collect();
    numbers.sort();
    numbers
}

#[test]
fn generations_hold_the_plain_builds_bytes_and_leave_the_previous_untouched() {
    let site = Site::seeds();
    build(&site, "plain", false, "8");
    build(&site, "live", true, "1");
    let link = site.root().join("live");
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        fs::read_link(&link).unwrap(),
        Path::new("live.generations/1")
    );
    assert_eq!(tree(&link), tree(&site.root().join("plain")));
    // A file put there by hand is carried from one generation to the next.
    fs::write(link.join("CNAME"), "example.org\n").unwrap();
    let first = tree(&site.root().join("live.generations/1"));

    set_version(&site, true);
    build(&site, "plain", false, "1");
    build(&site, "live", true, "8");
    fs::write(site.root().join("plain/CNAME"), "example.org\n").unwrap();
    assert_eq!(
        fs::read_link(&link).unwrap(),
        Path::new("live.generations/2")
    );
    assert_eq!(tree(&link), tree(&site.root().join("plain")));
    assert_eq!(
        tree(&site.root().join("live.generations/1")),
        first,
        "the previous generation is as it was"
    );
    // An incremental build in generations equals a clean build.
    let run = site.run(&["build", "--quiet", "--force", "--output", "clean"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    fs::write(site.root().join("clean/CNAME"), "example.org\n").unwrap();
    assert_eq!(tree(&link), tree(&site.root().join("clean")));

    // Later builds into the link stay in generations without the option, and keep the
    // one before the current.
    set_version(&site, false);
    build(&site, "live", false, "4");
    assert_eq!(
        fs::read_link(&link).unwrap(),
        Path::new("live.generations/3")
    );
    assert_eq!(generations(&site, "live"), [2, 3]);
    // Nothing changed: nothing is built, no generation is made.
    build(&site, "live", false, "4");
    assert_eq!(generations(&site, "live"), [2, 3]);
}

/// How many files a build's summary says it wrote.
fn written(run: &common::Run) -> usize {
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stderr
        .split("; ")
        .find(|part| part.contains(" written, "))
        .and_then(|part| part.split(' ').next()?.parse().ok())
        .expect("the summary says how many files were written")
}

#[test]
fn a_rebuild_in_generations_uses_the_build_cache_and_links_unchanged_files() {
    let site = Site::seeds();
    build(&site, "plain", false, "4");
    build(&site, "live", true, "4");
    site.file(
        "content/records/090_new.txt",
        record_file(
            "New Q. Author",
            &[(2026, "A new paper", "Its abstract.", "cs.DC")],
        ),
    );
    let plain = written(&site.run(&["build", "--output", "plain"]));
    let live = written(&site.run(&["build", "--output", "live"]));
    assert_eq!(
        live, plain,
        "the same files are written as in the plain mode"
    );
    let total = tree(&site.root().join("live")).len();
    assert!(live < total, "{live} of {total} files written");
    // The others are the same files (hard links), not copies.
    use std::os::unix::fs::MetadataExt;
    let one = tree(&site.root().join("live.generations/1"));
    let shared = one
        .iter()
        .filter(|(path, _)| {
            let a = site.root().join("live.generations/1").join(path);
            let b = site.root().join("live.generations/2").join(path);
            fs::metadata(&b).is_ok_and(|b| b.ino() == fs::metadata(&a).unwrap().ino())
        })
        .count();
    // The manifest is rewritten too: the list of files changed.
    assert_eq!(shared, total - live - 1, "every other file is shared");
}

#[test]
fn an_output_path_that_cannot_become_a_link_is_refused() {
    let site = Site::seeds();
    site.build();
    let run = site.run(&["build", "--generations"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("public") && run.stderr.contains("folder with files"),
        "{}",
        run.stderr
    );
    std::os::unix::fs::symlink(site.root().join("public"), site.root().join("elsewhere")).unwrap();
    let run = site.run(&["build", "--generations", "--output", "elsewhere"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("not to a generation"), "{}", run.stderr);
}

#[test]
fn a_failed_build_leaves_the_link_and_removes_its_generation() {
    let site = Site::seeds();
    build(&site, "live", true, "4");
    let before = tree(&site.root().join("live"));
    site.file("templates/paper.html", "{% broken");
    let run = site.run(&["build", "--output", "live"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(tree(&site.root().join("live")), before);
    assert_eq!(generations(&site, "live"), [1]);
}

/// The names `strace` shows renamed onto, unlinked or removed, for paths ending in
/// `/live"` (the link itself).
fn calls_on_the_link(trace: &str) -> Vec<String> {
    trace
        .lines()
        .filter(|line| line.contains("/live\"") || line.contains("\"live\""))
        .filter(|line| {
            ["rename", "unlink", "rmdir", "symlink"]
                .iter()
                .any(|call| line.contains(call))
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn the_switch_is_one_rename_and_the_link_is_never_missing() {
    let site = Arc::new(Site::seeds());
    build(&site, "live", true, "4");
    let trace_file = site.root().join("trace.txt");
    let traced = Command::new("strace")
        .args(["-f", "-qq", "-o"])
        .arg(&trace_file)
        .args([
            "-e",
            "trace=rename,renameat,renameat2,unlink,unlinkat,rmdir,symlink,symlinkat",
        ])
        .arg(env!("CARGO_BIN_EXE_profilegen"))
        .args(["build", "--quiet", "--force", "--output", "live"])
        .current_dir(site.root())
        .status();
    match traced {
        Ok(status) if status.success() => {
            let trace = fs::read_to_string(&trace_file).unwrap();
            let calls = calls_on_the_link(&trace);
            assert_eq!(calls.len(), 1, "one call on the link: {calls:#?}");
            assert!(calls[0].contains("rename"), "{calls:?}");
        }
        _ => {
            // Written to stderr itself, which the test harness does not capture.
            use std::io::Write;
            let why = "SKIPPED the strace check: strace is not installed or may not trace";
            let _ = writeln!(std::io::stderr(), "{why}");
        }
    }

    // A reader reads the link's home page all the while builds switch it.
    let stop = Arc::new(AtomicBool::new(false));
    let (reads, failures) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let reader = {
        let (site, stop) = (Arc::clone(&site), Arc::clone(&stop));
        let (reads, failures) = (Arc::clone(&reads), Arc::clone(&failures));
        std::thread::spawn(move || {
            let page = site.root().join("live/index.html");
            while !stop.load(Ordering::Relaxed) {
                match fs::read(&page) {
                    Ok(bytes) if !bytes.is_empty() => reads.fetch_add(1, Ordering::Relaxed),
                    _ => failures.fetch_add(1, Ordering::Relaxed),
                };
            }
        })
    };
    for i in 0..6 {
        let flag = if i % 2 == 0 { "--force" } else { "--verbose" };
        let run = site.run(&["build", "--quiet", flag, "--output", "live"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    stop.store(true, Ordering::Relaxed);
    reader.join().unwrap();
    assert_eq!(
        failures.load(Ordering::Relaxed),
        0,
        "the page was always there"
    );
    assert!(reads.load(Ordering::Relaxed) > 100);
}

/// A clean build of the site in `root`, as a tree.
fn clean_tree(site: &Site, name: &str) -> Vec<(String, Vec<u8>)> {
    let run = site.run(&["build", "--quiet", "--force", "--output", name]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    tree(&site.root().join(name))
}

#[test]
fn a_build_killed_at_any_moment_leaves_a_whole_old_or_new_site() {
    let site = Site::seeds();
    let old = clean_tree(&site, "clean-old");
    set_version(&site, true);
    let new = clean_tree(&site, "clean-new");
    set_version(&site, false);
    build(&site, "live", true, "4");
    let started = Instant::now();
    let run = site.run(&["build", "--quiet", "--force", "--output", "live"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let took = started.elapsed().max(Duration::from_millis(20));

    let mut shows_new = false;
    let (mut saw_old, mut saw_new) = (0, 0);
    // Kills at 0 to 2.3 times a whole build's time; on a busy machine, each eight kills
    // that found no build finished make the next eight's delays twice as long.
    let mut scale = 1;
    for i in 0..32u32 {
        if i >= 16 && saw_new > 0 {
            break;
        }
        if i > 0 && i % 8 == 0 && saw_new == 0 {
            scale *= 2;
        }
        set_version(&site, !shows_new);
        let delay = took * (i % 8) * scale / 3;
        let mut child = Command::new(env!("CARGO_BIN_EXE_profilegen"))
            .args(["build", "--quiet", "--output", "live"])
            .current_dir(site.root())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = child.kill();
        let _ = child.wait();
        let got = tree(&site.root().join("live"));
        if got == old {
            saw_old += 1;
            shows_new = false;
        } else if got == new {
            saw_new += 1;
            shows_new = true;
        } else {
            panic!("kill {i} after {delay:?}: the link leads to neither build");
        }
    }
    eprintln!("after the kills: {saw_old} old sites, {saw_new} new ones");
    assert!(saw_new > 0, "some builds finished before the kill");
}
