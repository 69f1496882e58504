//! A small chainable harness: lay out a fixture site in a temporary folder, run the
//! real `profilegen` binary on it, and look at what it printed and wrote.

#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tempfile::TempDir;

/// A seed record file from the example site.
pub fn seed(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("content/records")
        .join(name);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The committed slice of an arXiv corpus (`tests/fixtures/arxiv-math/`, CC0).
pub fn arxiv_slice_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/arxiv-math")
}

/// The record files of [`arxiv_slice_dir`]: `(file name, text)`, sorted by name.
pub fn arxiv_slice() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = fs::read_dir(arxiv_slice_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "txt"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, fs::read_to_string(&path).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// A record file with one author and the given records `(year, title, abstract, subject)`.
pub fn record_file(
    name: &str,
    records: &[(u16, impl AsRef<str>, impl AsRef<str>, &str)],
) -> String {
    let mut text = format!(
        "arXiv subjects\n\n{name}\n\nPublications and source records attributed to {name}.\n\n{} record{}Linked to original sources",
        records.len(),
        if records.len() == 1 { "" } else { "s" }
    );
    for (year, title, abstract_text, subject) in records {
        let (title, abstract_text) = (title.as_ref(), abstract_text.as_ref());
        text.push_str(&format!("\n\narXiv{year}\n\n{title}\n\n"));
        if !abstract_text.is_empty() {
            text.push_str(abstract_text);
            text.push_str("\n\n");
        }
        text.push_str(&format!("{subject}\u{2197}"));
    }
    text
}

/// A fixture site in a temporary folder.
pub struct Site {
    dir: TempDir,
}

/// What a run printed and returned.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Site {
    /// An empty site.
    pub fn new() -> Site {
        Site {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    /// A site holding the three seed record files.
    pub fn seeds() -> Site {
        let site = Site::new();
        for name in [
            "000_bba791200e6c06d7.txt",
            "002_47da8d48adb540e8.txt",
            "004_319f2dba6a6eb82d.txt",
        ] {
            site.file(&format!("content/records/{name}"), seed(name));
        }
        site
    }

    /// Writes a file (text) under the site root.
    pub fn file(&self, path: &str, text: impl AsRef<[u8]>) -> &Site {
        let full = self.root().join(path);
        fs::create_dir_all(full.parent().unwrap()).unwrap();
        fs::write(full, text).unwrap();
        self
    }

    /// Removes a file under the site root.
    pub fn remove(&self, path: &str) -> &Site {
        fs::remove_file(self.root().join(path)).unwrap();
        self
    }

    /// The site root.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// The default output folder.
    pub fn public(&self) -> PathBuf {
        self.root().join("public")
    }

    /// Runs `profilegen ARGS` in the site root.
    pub fn run(&self, args: &[&str]) -> Run {
        self.run_with_env(args, &[])
    }

    /// Runs `profilegen ARGS` in the site root with extra environment variables.
    pub fn run_with_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut command = Command::new(env!("CARGO_BIN_EXE_profilegen"));
        command.args(args).current_dir(self.root());
        for (k, v) in env {
            command.env(k, v);
        }
        let Output {
            status,
            stdout,
            stderr,
        } = command.output().expect("run profilegen");
        Run {
            code: status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&stdout).into_owned(),
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
        }
    }

    /// `profilegen build`, asserting success.
    pub fn build(&self) -> Run {
        let run = self.run(&["build"]);
        assert_eq!(run.code, 0, "build failed:\n{}", run.stderr);
        run
    }

    /// Reads an output file.
    pub fn output(&self, path: &str) -> String {
        let full = self.public().join(path);
        fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
    }

    /// The download labelled `format` (`BibTeX`, `RIS`, `CSL-JSON`) on the page at
    /// `page`, as a reader's browser saves it: the contents of a `data:` link, or the
    /// file the link leads to. Also returns the name the browser saves it under.
    pub fn download(&self, page: &str, format: &str) -> (String, String) {
        let html = scraper::Html::parse_document(&self.output(page));
        let selector = scraper::Selector::parse("a[download]").unwrap();
        let link = html
            .select(&selector)
            .find(|a| a.text().collect::<String>() == format)
            .unwrap_or_else(|| panic!("no {format} download on {page}"));
        let href = link.value().attr("href").unwrap();
        let name = link.value().attr("download").unwrap().to_string();
        let text = match href.strip_prefix("data:") {
            Some(data) => {
                let (_, payload) = data.split_once(";base64,").expect("a base64 data: link");
                let bytes =
                    base64::Engine::decode(&base64::engine::general_purpose::STANDARD, payload)
                        .unwrap();
                String::from_utf8(bytes).unwrap()
            }
            None => {
                let dir = Path::new(page).parent().unwrap();
                let target = dir.join(href).to_string_lossy().replace('\\', "/");
                self.output(&normalize(&target))
            }
        };
        (name, text)
    }

    /// The site's data on `what` (`authors`, `papers`) as one array: the items of every
    /// shard that `data/<what>.json` lists, in its order. Checks the index's counts.
    pub fn data(&self, what: &str) -> serde_json::Value {
        let index: serde_json::Value =
            serde_json::from_str(&self.output(&format!("data/{what}.json"))).unwrap();
        let mut items = Vec::new();
        for shard in index["shards"].as_array().expect("a list of shards") {
            let url = shard["url"].as_str().unwrap();
            let path = &url[url.find("data/").expect("a data URL")..];
            let list: serde_json::Value = serde_json::from_str(&self.output(path)).unwrap();
            let list = list.as_array().expect("a shard is an array").clone();
            assert_eq!(shard["count"].as_u64(), Some(list.len() as u64), "{path}");
            items.extend(list);
        }
        assert_eq!(index["count"].as_u64(), Some(items.len() as u64));
        serde_json::Value::Array(items)
    }

    /// Every output file, relative path -> bytes, sorted.
    pub fn output_tree(&self) -> Vec<(String, Vec<u8>)> {
        tree(&self.public())
    }
}

/// `path` with its `.` and `..` segments resolved.
pub fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

/// Every file under `dir`, relative path (with /) -> bytes, sorted. An output folder's
/// lock file is left out: it is no part of the site, and the same empty file after
/// every plain build (a build in generations has it in the generations folder).
pub fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.unwrap();
        if entry.depth() == 1 && entry.file_name() == profilegen::output::LOCK_FILE {
            assert_eq!(entry.metadata().unwrap().len(), 0, "the lock file is empty");
            continue;
        }
        if entry.file_type().is_file() {
            let rel = entry
                .path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            files.push((rel, fs::read(entry.path()).unwrap()));
        }
    }
    files
}

/// Checks every internal link and asset reference (`href`, `src`) of the HTML pages of
/// `files` (an output tree; the 404 page, linked from anywhere, is left out): each must
/// be a file of the tree, a folder's link its `index.html`. Returns how many links were
/// checked and the broken ones, as `page: link -> resolved path`.
pub fn broken_links(files: &[(String, Vec<u8>)]) -> (usize, Vec<String>) {
    let names: std::collections::HashSet<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    let (mut checked, mut broken) = (0, Vec::new());
    for (path, bytes) in files
        .iter()
        .filter(|(p, _)| p.ends_with(".html") && p != "404.html")
    {
        let html = String::from_utf8_lossy(bytes);
        let dir = path.rsplit_once('/').map_or("", |(dir, _)| dir);
        for part in html
            .split(" href=\"")
            .skip(1)
            .chain(html.split(" src=\"").skip(1))
        {
            let target = &part[..part.find('"').unwrap()];
            if ["http", "#", "mailto:", "data:"]
                .iter()
                .any(|scheme| target.starts_with(scheme))
            {
                continue;
            }
            let target = target.split('#').next().unwrap();
            // Root-relative (canonical links without a base_url) resolve from the site root.
            let resolved = match target.strip_prefix('/') {
                Some(rest) => normalize(rest),
                None => normalize(&format!("{dir}/{target}")),
            };
            let resolved = if target.ends_with('/') || target.is_empty() || resolved.is_empty() {
                format!("{resolved}/index.html")
                    .trim_start_matches('/')
                    .to_string()
            } else {
                resolved
            };
            if !names.contains(resolved.as_str()) {
                broken.push(format!("{path}: {target} -> {resolved}"));
            }
            checked += 1;
        }
    }
    (checked, broken)
}

/// Paths of pages one level below a section: `<section>/<slug>/index.html`.
pub fn pages_in(files: &[(String, Vec<u8>)], section: &str) -> Vec<String> {
    files
        .iter()
        .map(|(p, _)| p.clone())
        .filter(|p| {
            let parts: Vec<&str> = p.split('/').collect();
            parts.len() == 3 && parts[0] == section && parts[2] == "index.html"
        })
        .collect()
}
