//! The long-running modes end to end: `profilegen serve` and `profilegen build --watch`
//! as real processes, driven through the file system and HTTP.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, ChildStderr, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use common::{record_file, Site};

/// A running `profilegen` process whose stderr lines arrive on a channel.
struct Running {
    child: Child,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Running {
    fn start(site: &Site, args: &[&str]) -> Running {
        Running::start_with_env(site, args, &[])
    }

    /// [`Running::start`] with `env` added to the process's environment.
    fn start_with_env(site: &Site, args: &[&str], env: &[(&str, &str)]) -> Running {
        let mut child = Command::new(env!("CARGO_BIN_EXE_profilegen"))
            .args(args)
            .envs(env.iter().copied())
            .current_dir(site.root())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start profilegen");
        let stderr: ChildStderr = child.stderr.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Running {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Waits for a stderr line containing `needle`; returns it.
    fn wait_for(&mut self, needle: &str, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line.contains(needle) {
                        return line;
                    }
                }
                Err(_) => panic!(
                    "no line with {needle:?} within {timeout:?}; seen:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }

    /// Lines that arrive within `window`.
    fn lines_within(&mut self, window: Duration) -> Vec<String> {
        let deadline = Instant::now() + window;
        let mut lines = Vec::new();
        while let Ok(line) = self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            self.seen.push(line.clone());
            lines.push(line);
        }
        lines
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A raw HTTP/1.1 GET of `path` (sent as is, not normalized): status and body.
fn get(address: SocketAddr, path: &str) -> (u16, String, String) {
    let mut stream = TcpStream::connect_timeout(&address, Duration::from_secs(5)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let response = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, head.to_string(), body.to_string())
}

fn address_of(line: &str) -> SocketAddr {
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap();
    url.trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .unwrap()
}

/// Polls `check` until it holds or `timeout` passes.
fn eventually(timeout: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    check()
}

const WAIT: Duration = Duration::from_secs(15);

/// `profilegen serve` of `site` on a free port, once it serves, and its address.
fn serving(site: &Site) -> (Running, SocketAddr) {
    let mut serve = Running::start(site, &["serve", "--port", "0"]);
    let line = serve.wait_for("Serving http://127.0.0.1:", WAIT);
    let address = address_of(&line);
    (serve, address)
}

#[test]
fn serve_sends_the_pages_of_a_precompressed_site_as_pages() {
    let site = Site::seeds();
    site.file("profilegen.yaml", "precompress: gzip\n");
    let (_serve, address) = serving(&site);
    // `serve` builds into the build cache's folder.
    let output = site.root().join(".profilegen/serve");
    assert!(output.join("index.html.gz").is_file());
    assert!(!output.join("index.html").exists());
    for (path, text) in [
        ("/", "Scholarly profiles"),
        ("/authors/zhongbo-zhu/", "Zhongbo Zhu"),
        ("/atom.xml", "<feed"),
    ] {
        let (status, head, body) = get(address, path);
        assert_eq!(status, 200, "{path}: {head}");
        assert!(body.contains(text), "{path}: {body}");
    }
    let (_, head, body) = get(address, "/");
    assert!(
        head.to_lowercase().contains("content-type: text/html"),
        "{head}"
    );
    assert!(
        body.contains("/__profilegen/livereload.js"),
        "script injected"
    );
    let (status, _, body) = get(address, "/no-such-page/");
    assert_eq!(status, 404);
    assert!(body.contains("<html"), "the site's 404 page: {body}");
    let (status, _, body) = get(address, "/atom.xml/");
    assert_eq!(status, 404, "a file's URL with a slash: {body}");
    assert!(body.contains("<html"), "the site's 404 page: {body}");
}

#[test]
fn serve_serves_rebuilds_and_refuses_traversal() {
    let site = Site::seeds();
    site.file("secret.txt", "top secret");
    let (mut serve, address) = serving(&site);

    let (status, head, body) = get(address, "/");
    assert_eq!(status, 200, "{head}");
    assert!(
        head.to_lowercase().contains("content-type: text/html"),
        "{head}"
    );
    assert!(body.contains("Scholarly profiles"));
    assert!(
        body.contains("/__profilegen/livereload.js"),
        "live-reload script injected"
    );
    let (status, _, body) = get(address, "/authors/zhongbo-zhu/");
    assert_eq!(status, 200);
    assert!(body.contains("Zhongbo Zhu"));
    assert!(
        body.contains(&format!("http://{address}/authors/zhongbo-zhu/")),
        "canonical uses the server's address"
    );
    let (status, head, _) = get(address, "/style.css");
    assert_eq!(status, 200);
    assert!(
        head.to_lowercase().contains("content-type: text/css"),
        "{head}"
    );
    let (status, _, body) = get(address, "/no/such/page/");
    assert_eq!(status, 404);
    assert!(body.contains("Page not found"), "the site's own 404 page");
    for path in [
        "/../secret.txt",
        "/..%2fsecret.txt",
        "/%2e%2e/secret.txt",
        "/%2e%2e%2fsecret.txt",
        "/%252e%252e/secret.txt",
        "/authors/../../secret.txt",
        "/..\\secret.txt",
        "//secret.txt",
    ] {
        let (status, _, body) = get(address, path);
        assert!(status == 404 || status == 400, "{path}: {status}");
        assert!(!body.contains("top secret"), "{path} leaked the file");
    }

    // The reload event stream.
    let mut events = TcpStream::connect(address).unwrap();
    events.set_read_timeout(Some(WAIT)).unwrap();
    write!(
        events,
        "GET /__profilegen/events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n"
    )
    .unwrap();

    // Add an author: the site grows, and browsers are told to reload.
    let started = Instant::now();
    site.file(
        "content/records/new.txt",
        record_file("New Author", &[(2025, "A New Paper", "Fresh.", "cs.DC")]),
    );
    assert!(
        eventually(WAIT, || get(address, "/authors/new-author/").0 == 200),
        "new author page served"
    );
    let mut received = String::new();
    let mut buffer = [0u8; 4096];
    while !received.contains("event: reload") && started.elapsed() < WAIT {
        match events.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => received.push_str(&String::from_utf8_lossy(&buffer[..n])),
        }
    }
    assert!(received.contains("event: reload"), "{received}");
    serve.wait_for("content/records/new.txt added", WAIT);

    // Change it, then remove it.
    site.file(
        "content/records/new.txt",
        record_file(
            "New Author",
            &[(2025, "A Renamed Paper", "Fresh.", "cs.DC")],
        ),
    );
    assert!(eventually(WAIT, || get(address, "/authors/new-author/")
        .2
        .contains("A Renamed Paper")));
    site.remove("content/records/new.txt");
    assert!(eventually(WAIT, || get(address, "/authors/new-author/").0 == 404));

    // A broken template: the error is reported and the last good site is still served.
    site.file(
        "templates/author.html",
        "{% extends \"base.html\" %}{% block content %}{{ oops",
    );
    serve.wait_for("build failed", WAIT);
    let (status, _, body) = get(address, "/authors/zhongbo-zhu/");
    assert_eq!(status, 200);
    assert!(body.contains("Zhongbo Zhu"));
    site.remove("templates/author.html");
    serve.wait_for("templates/author.html removed", WAIT);

    // Many requests at once while rebuilding.
    site.file("profilegen.yaml", "title: Busy Lab\n");
    let handles: Vec<_> = (0..64)
        .map(|i| {
            std::thread::spawn(move || {
                let path = if i % 2 == 0 {
                    "/"
                } else {
                    "/authors/bor-yiing-su/"
                };
                get(address, path)
            })
        })
        .collect();
    for handle in handles {
        let (status, _, body) = handle.join().unwrap();
        assert_eq!(status, 200);
        assert!(body.trim_end().ends_with("</html>"), "whole page");
    }
}

#[test]
fn build_watch_regenerates_and_ignores_editor_files() {
    let site = Site::seeds();
    let mut watch = Running::start(&site, &["build", "--watch"]);
    watch.wait_for("Watching", WAIT);

    // Editor temp and swap files never trigger a rebuild.
    for name in [
        ".new.txt.swp",
        "new.txt~",
        ".#new.txt",
        "4913",
        "new.txt___jb_tmp___",
    ] {
        site.file(&format!("content/records/{name}"), "scratch");
    }
    let lines = watch.lines_within(Duration::from_millis(1500));
    assert!(
        lines.iter().all(|l| !l.contains("files written")),
        "{lines:?}"
    );

    // A burst of new record files: few rebuilds, and all of them built.
    for i in 0..30 {
        site.file(
            &format!("content/records/burst{i:02}.txt"),
            record_file(
                &format!("Burst Author {i}"),
                &[(2020, &format!("Burst Paper {i}"), "B.", "cs.LG")],
            ),
        );
    }
    let line = watch.wait_for("files written", WAIT);
    assert!(line.contains("content/records/burst00.txt added"), "{line}");
    assert!(eventually(WAIT, || site
        .public()
        .join("authors/burst-author-29/index.html")
        .exists()));
    let extra = watch.lines_within(Duration::from_millis(1500));
    assert!(
        extra.iter().filter(|l| l.contains("files written")).count() <= 2,
        "{extra:?}"
    );

    // A file copied in slowly is read only once it is whole.
    let full = record_file(
        "Slow Writer",
        &[(2021, "Slowly Copied Paper", "Slow.", "cs.DC")],
    );
    let path = site.root().join("content/records/slow.txt");
    let mut file = std::fs::File::create(&path).unwrap();
    for chunk in full.as_bytes().chunks(40) {
        file.write_all(chunk).unwrap();
        file.flush().unwrap();
        std::thread::sleep(Duration::from_millis(60));
    }
    drop(file);
    let line = watch.wait_for("slow.txt", WAIT);
    assert!(line.contains("0 errors"), "{line}");
    assert!(site
        .output("papers/slowly-copied-paper-2021/index.html")
        .contains("Slowly Copied Paper"));

    // Rename and delete are followed.
    std::fs::rename(path, site.root().join("content/records/renamed.txt")).unwrap();
    watch.wait_for("renamed.txt", WAIT);
    site.remove("content/records/renamed.txt");
    assert!(eventually(WAIT, || !site
        .public()
        .join("authors/slow-writer")
        .exists()));
}

/// A rebuild in `build --watch` patches the last build's search postings with the
/// documents that changed, and `PROFILEGEN_TIMINGS` says how many; the first build
/// makes them all.
#[test]
fn build_watch_reports_the_search_documents_it_patched_in() {
    // Enough documents that two new ones are few enough to patch in.
    let site = Site::seeds();
    for author in 0..40 {
        let papers = [
            (
                2000 + author,
                format!("Filler study {author}"),
                "F.",
                "cs.DC",
            ),
            (
                2001 + author,
                format!("Filler survey {author}"),
                "S.",
                "cs.LG",
            ),
        ];
        let papers: Vec<_> = (papers.iter())
            .map(|(y, t, a, s)| (*y, t.as_str(), *a, *s))
            .collect();
        site.file(
            &format!("content/records/filler{author:02}.txt"),
            record_file(&format!("Filler Author {author}"), &papers),
        );
    }
    let timings = [("PROFILEGEN_TIMINGS", "1")];
    let mut watch = Running::start_with_env(&site, &["build", "--watch"], &timings);
    let first = watch.wait_for("timing: search index", WAIT);
    assert!(!first.contains("patched in"), "{first}");
    watch.wait_for("Watching", WAIT);

    // A new author with one new paper: two new documents.
    site.file(
        "content/records/newcomer.txt",
        record_file(
            "Patched Newcomer",
            &[(2024, "A Newly Patched Paper", "N.", "cs.IR")],
        ),
    );
    let line = watch.wait_for("timing: search index", WAIT);
    assert!(
        line.starts_with("timing: search index (2 documents patched in) "),
        "{line}"
    );
    watch.wait_for("files written", WAIT);
    let search = std::fs::read_dir(site.public().join("search/terms")).unwrap();
    let terms: String = (search.map(|entry| entry.unwrap().path()))
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .map(|path| std::fs::read_to_string(path).unwrap())
        .collect();
    assert!(
        terms.contains("\"patched\""),
        "the new title's words are searchable"
    );
}

#[test]
fn build_watch_ignores_the_files_a_build_skips() {
    let site = Site::seeds();
    site.file("static/keep.css", "a {}");
    let mut watch = Running::start(&site, &["build", "--watch"]);
    watch.wait_for("Watching", WAIT);

    // Created, then edited: neither triggers a rebuild, as a build never reads them.
    let skipped = [
        "static/x.tmp",
        "static/.htaccess",
        "static/css/.DS_Store",
        "templates/macros/.DS_Store",
        "content/pages/.draft.md",
    ];
    for (round, text) in ["first", "edited"].into_iter().enumerate() {
        for path in skipped {
            site.file(path, format!("{text} \u{0}\u{1}"));
        }
        let lines = watch.lines_within(Duration::from_millis(1500));
        assert!(
            lines
                .iter()
                .all(|l| !l.contains("files written") && !l.contains("build failed")),
            "round {round}: {lines:?}"
        );
    }
    assert!(!site.public().join("x.tmp").exists());

    // A file that is part of the site still does.
    site.file("static/css/seen.css", "b {}");
    let line = watch.wait_for("files written", WAIT);
    assert!(line.contains("static/css/seen.css added"), "{line}");
    assert!(
        !line.contains("x.tmp") && !line.contains(".DS_Store"),
        "{line}"
    );
    assert_eq!(site.output("css/seen.css"), "b {}");
    assert!(!site.public().join("x.tmp").exists());
    assert!(!site.public().join(".htaccess").exists());
}

#[test]
fn build_watch_reads_a_reported_file_that_kept_its_size_and_time() {
    let site = Site::seeds();
    let path = site.root().join("content/records/kept.txt");
    let an_hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    let write = |title: &str| {
        site.file(
            "content/records/kept.txt",
            record_file("Kept Stamp", &[(2020, title, "K.", "cs.LG")]),
        );
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(an_hour_ago)
            .unwrap();
    };
    write("First Kept Title");
    let mut watch = Running::start(&site, &["build", "--watch"]);
    watch.wait_for("Watching", WAIT);
    assert!(site
        .output("authors/kept-stamp/index.html")
        .contains("First Kept Title"));
    let cache_files = || -> Vec<(std::path::PathBuf, Vec<u8>)> {
        // None before the first save.
        let mut files: Vec<_> = std::fs::read_dir(site.root().join(".profilegen"))
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".cache"))
            .map(|e| (e.path(), std::fs::read(e.path()).unwrap()))
            .collect();
        files.sort();
        files
    };
    // The first build's cache file, written once the watcher has been quiet for a
    // moment.
    assert!(eventually(WAIT, || !cache_files().is_empty()));
    let first = cache_files();

    // Same size, same (old) time, other bytes: the watcher saw the write, so the
    // rebuild reads the file although its size and time say nothing changed.
    write("Other Kept Title");
    let line = watch.wait_for("kept.txt", WAIT);
    assert!(line.contains("0 errors"), "{line}");
    assert!(site
        .output("authors/kept-stamp/index.html")
        .contains("Other Kept Title"));

    // The cache a long-running build saves once it has been quiet for a moment is
    // current: the next one-off build finds nothing to do and leaves the cache file as
    // it is (a build that renders anything saves the cache again).
    assert!(
        eventually(WAIT, || cache_files() != first),
        "the rebuild's cache is written while the watcher waits"
    );
    drop(watch);
    let before = cache_files();
    let run = site.build();
    assert!(run.stderr.contains(" 0 files written"), "{}", run.stderr);
    assert!(before == cache_files(), "the saved cache was current");
}

#[test]
fn build_watch_rebuilds_everything_when_the_output_folder_is_gone() {
    let site = Site::seeds();
    let mut watch = Running::start(&site, &["build", "--watch"]);
    watch.wait_for("Watching", WAIT);
    let before = site.output_tree();

    // The rebuild trusts the folder it wrote only while its manifest is there.
    std::fs::remove_dir_all(site.public()).unwrap();
    site.file(
        "content/records/late.txt",
        record_file("Late Author", &[(2022, "Late Paper", "L.", "cs.DC")]),
    );
    let line = watch.wait_for("late.txt", WAIT);
    assert!(line.contains("0 errors"), "{line}");
    let after = site.output_tree();
    for (path, _) in &before {
        assert!(
            after.iter().any(|(p, _)| p == path),
            "{path} is back after the output folder was removed"
        );
    }
    assert!(site
        .output("authors/late-author/index.html")
        .contains("Late Paper"));
}

#[test]
fn build_watch_polls_when_asked() {
    let site = Site::seeds();
    let mut watch = Running::start(&site, &["build", "--watch", "--poll"]);
    watch.wait_for("Watching", WAIT);
    site.file(
        "content/records/polled.txt",
        record_file("Polled Author", &[(2022, "Polled Paper", "P.", "cs.DC")]),
    );
    assert!(eventually(WAIT, || site
        .public()
        .join("authors/polled-author/index.html")
        .exists()));
    watch.wait_for("polled.txt added", WAIT);
}

#[test]
fn build_watch_stops_cleanly_on_a_signal() {
    let site = Site::seeds();
    let mut watch = Running::start(&site, &["build", "--watch"]);
    watch.wait_for("Watching", WAIT);
    // A rebuild, whose build cache is saved in the background.
    site.file(
        "content/records/late.txt",
        record_file("Late Author", &[(2022, "Late Paper", "L.", "cs.DC")]),
    );
    watch.wait_for("late.txt added", WAIT);
    let pid = libc::pid_t::try_from(watch.child.id()).unwrap();
    // SAFETY: `kill` only sends a signal to the child, which is still running.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    watch.wait_for("Stopping once the build under way is done", WAIT);
    let mut status = None;
    assert!(eventually(WAIT, || {
        status = watch.child.try_wait().unwrap();
        status.is_some()
    }));
    assert!(status.unwrap().success(), "{status:?}");
    // The cache was written whole: no temporary file left, and the next build finds
    // the site unchanged.
    let leftovers: Vec<_> = std::fs::read_dir(site.root().join(".profilegen"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".profilegen-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let output = Command::new(env!("CARGO_BIN_EXE_profilegen"))
        .arg("build")
        .current_dir(site.root())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("0 files written"), "{said}");
}

#[test]
fn a_second_signal_stops_build_watch_at_once_with_exit_code_130() {
    let site = Site::seeds();
    let mut watch = Running::start(&site, &["build", "--watch"]);
    watch.wait_for("Watching", WAIT);
    let pid = libc::pid_t::try_from(watch.child.id()).unwrap();
    // Both signals arrive together: the process is stopped while they are sent (two
    // different signals, as a second one of the same kind would merge with the first),
    // so the second reaches the handler while the first is still being acted on.
    // SAFETY: `kill` only sends signals to the child, which is still running.
    unsafe {
        assert_eq!(libc::kill(pid, libc::SIGSTOP), 0);
        assert_eq!(libc::kill(pid, libc::SIGTERM), 0);
        assert_eq!(libc::kill(pid, libc::SIGINT), 0);
        assert_eq!(libc::kill(pid, libc::SIGCONT), 0);
    }
    let mut status = None;
    assert!(eventually(WAIT, || {
        status = watch.child.try_wait().unwrap();
        status.is_some()
    }));
    assert_eq!(status.unwrap().code(), Some(130), "{status:?}");
    watch.wait_for("again to stop at once", WAIT);
}
