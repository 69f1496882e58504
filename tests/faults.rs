//! Builds under faults: a full disk, a read-only output folder, a record file that
//! cannot be read, a record file replaced while it is read. Each runs the real binary
//! on a real site. A failed build must say why and name the file, and leave the site
//! already in the output folder exactly as it was.
//!
//! The tests that need root (to mount a small tmpfs, or to run the build as another
//! user) print why they are skipped where they cannot run.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use common::{record_file, tree, Site};

/// Whether this process runs as root (`id -u` is 0).
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}

/// A tmpfs of a given size mounted on a temporary folder, unmounted when dropped.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    /// Mounts a tmpfs of `size` (as `mount` takes it: `2m`, ...), or says why it cannot.
    fn mount(size: &str) -> Result<Tmpfs, String> {
        if !is_root() {
            return Err("not running as root".into());
        }
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .output()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "mount failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(Tmpfs { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Remounts the file system read-only.
    fn make_read_only(&self) {
        let status = Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(self.path())
            .status()
            .expect("run mount");
        assert!(status.success(), "remount read-only");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// Prints why a test does not run here, so that a skip is never taken for a pass
/// (written to stderr itself, which the test harness does not capture).
fn skip(test: &str, why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
}

/// Adds `papers` papers with long abstracts, over ten authors, to `site`.
fn add_many_papers(site: &Site, papers: usize) {
    let abstract_text =
        "A long abstract about distributed systems and the ways they fail. ".repeat(40);
    for author in 0..10 {
        let titles: Vec<String> = (0..papers / 10)
            .map(|i| format!("Paper {i} of author {author} on faults"))
            .collect();
        let records: Vec<(u16, &str, &str, &str)> = titles
            .iter()
            .map(|t| (2020, t.as_str(), abstract_text.as_str(), "cs.DC"))
            .collect();
        site.file(
            &format!("content/records/9{author:02}_extra.txt"),
            record_file(&format!("Extra Author {author}"), &records),
        );
    }
}

/// Runs `profilegen build --output OUT` in the site, returning the run.
fn build_into(site: &Site, out: &Path) -> common::Run {
    site.run(&["build", "--quiet", "--output", out.to_str().unwrap()])
}

#[test]
fn a_full_disk_fails_the_build_and_keeps_the_previous_site() {
    let disk = match Tmpfs::mount("1m") {
        Ok(disk) => disk,
        Err(why) => {
            return skip(
                "a_full_disk_fails_the_build_and_keeps_the_previous_site",
                &why,
            )
        }
    };
    let out = disk.path().join("site");
    let site = Site::seeds();
    let run = build_into(&site, &out);
    assert_eq!(run.code, 0, "the small site fits: {}", run.stderr);
    let before = tree(&out);
    assert!(before.len() > 30, "{} files", before.len());

    add_many_papers(&site, 600);
    let run = build_into(&site, &out);
    assert_eq!(run.code, 1, "the larger site does not fit: {}", run.stderr);
    assert!(
        run.stderr.contains("No space left on device"),
        "the cause is named: {}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&out.display().to_string()),
        "the file is named: {}",
        run.stderr
    );
    assert_eq!(tree(&out), before, "the previous site is intact");
    let names: Vec<_> = fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        !names
            .iter()
            .any(|n| n.to_string_lossy().contains("staging")),
        "nothing staged is left: {names:?}"
    );
}

#[test]
fn a_read_only_output_folder_fails_the_build_and_keeps_the_previous_site() {
    let disk = match Tmpfs::mount("64m") {
        Ok(disk) => disk,
        Err(why) => {
            return skip(
                "a_read_only_output_folder_fails_the_build_and_keeps_the_previous_site",
                &why,
            )
        }
    };
    let out = disk.path().join("site");
    let site = Site::seeds();
    assert_eq!(build_into(&site, &out).code, 0);
    let before = tree(&out);
    disk.make_read_only();

    add_many_papers(&site, 20);
    let run = build_into(&site, &out);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("Read-only file system"),
        "the cause is named: {}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&out.display().to_string()),
        "the folder is named: {}",
        run.stderr
    );
    assert_eq!(tree(&out), before, "the previous site is intact");
}

/// The paper pages of a built site (`papers/<slug>/index.html`).
fn paper_pages(out: &Path) -> Vec<String> {
    common::pages_in(&tree(out), "papers")
}

#[test]
fn a_record_file_that_fails_with_an_io_error_is_reported_and_the_rest_builds() {
    // Reading /proc/self/mem from its start fails with EIO, whoever reads it: a file
    // whose reading fails as on a failing disk, for root too.
    let site = Site::seeds();
    let link = site.root().join("content/records/010_broken.txt");
    std::os::unix::fs::symlink("/proc/self/mem", &link).unwrap();
    let run = site.run(&["build"]);
    assert_eq!(run.code, 0, "the rest of the site builds: {}", run.stderr);
    assert!(
        run.stderr.contains("content/records/010_broken.txt")
            && run.stderr.contains("Input/output error"),
        "the file and the cause are named: {}",
        run.stderr
    );
    fs::remove_file(&link).unwrap();
    let clean = Site::seeds();
    clean.build();
    assert_eq!(
        site.output_tree(),
        clean.output_tree(),
        "the site is the site without the broken file"
    );
}

#[test]
fn a_record_file_the_build_may_not_read_is_reported_and_the_rest_builds() {
    let test = "a_record_file_the_build_may_not_read_is_reported_and_the_rest_builds";
    if !is_root() {
        return skip(
            test,
            "not running as root (needed to run the build as nobody)",
        );
    }
    if Command::new("setpriv").arg("--version").output().is_err() {
        return skip(test, "setpriv (util-linux) is not installed");
    }
    let site = Site::seeds();
    let secret = "content/records/001_secret.txt";
    site.file(
        secret,
        common::seed("002_47da8d48adb540e8.txt").replace("Soltani", "Hidden"),
    );
    let status = Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(site.root())
        .status()
        .unwrap();
    assert!(status.success());
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(site.root(), fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(site.root().join(secret), fs::Permissions::from_mode(0o000)).unwrap();
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(env!("CARGO_BIN_EXE_profilegen"))
        .args(["build", "--quiet"])
        .current_dir(site.root())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("Permission denied") && !stderr.contains("001_secret") {
        return skip(
            test,
            &format!("nobody cannot run the binary here: {stderr}"),
        );
    }
    assert_eq!(out.status.code(), Some(0), "the rest builds: {stderr}");
    assert!(
        stderr.contains(secret) && stderr.contains("Permission denied"),
        "the file and the cause are named: {stderr}"
    );
    let pages = paper_pages(&site.public());
    assert!(pages.len() > 10, "{} paper pages", pages.len());
    let clean = Site::seeds();
    clean.build();
    assert_eq!(site.output_tree(), clean.output_tree());
}

#[test]
fn a_record_file_replaced_while_builds_read_it_gives_whole_builds() {
    let name = "content/records/002_47da8d48adb540e8.txt";
    let old = common::seed("002_47da8d48adb540e8.txt");
    let extra = "\n\narXiv2024\n\nA paper that only the new version lists\n\nIt has an abstract.\n\ncs.DC\u{2197}";
    let new = format!("{old}{extra}");
    assert_ne!(old, new);
    let clean = |text: &str| {
        let site = Site::seeds();
        site.file(name, text);
        site.build();
        site.output_tree()
    };
    let (old_tree, new_tree) = (clean(&old), clean(&new));
    assert_ne!(old_tree, new_tree);

    let site = Arc::new(Site::seeds());
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (site, stop) = (Arc::clone(&site), Arc::clone(&stop));
        let (old, new) = (old.clone(), new.clone());
        std::thread::spawn(move || {
            let target: PathBuf = site.root().join(name);
            let temp = site.root().join("content/records/.next.txt");
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let text = if swaps.is_multiple_of(2) { &new } else { &old };
                fs::write(&temp, text).unwrap();
                fs::rename(&temp, &target).unwrap();
                swaps += 1;
            }
            swaps
        })
    };
    let (mut as_old, mut as_new) = (0, 0);
    for _ in 0..30 {
        let run = site.run(&["build", "--quiet"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let built = site.output_tree();
        if built == old_tree {
            as_old += 1;
        } else if built == new_tree {
            as_new += 1;
        } else {
            let differing: Vec<&str> = built
                .iter()
                .filter(|f| !old_tree.contains(f) && !new_tree.contains(f))
                .map(|(p, _)| p.as_str())
                .collect();
            panic!("a build is neither version: {differing:?}");
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    eprintln!("{swaps} swaps; {as_old} builds of the old version, {as_new} of the new");
    assert!(swaps > 30, "the file was replaced during the builds");
}
