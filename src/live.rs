//! The long-running modes: `build --watch` and `serve`.
//!
//! Both watch the site's sources ([`crate::watch`]), rebuild incrementally on each batch
//! of changes ([`crate::build::build`] with its cache), and log one line per
//! regeneration. `serve` also serves the output ([`crate::serve`]) and tells open
//! browser tabs to reload, or shows a build error over the page while it keeps serving
//! the last good site.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::build::cache::CACHE_DIR;
use crate::build::BuildMemo;
use crate::build::{build_and_report, warm_up, BuildFailure, BuildOptions, BuildReport};
use crate::serve::{start_server, LiveReload, ReloadMessage, ServeOptions, ServerHandle};
use crate::watch::{
    site_part, Change, ChangeKind, SitePart, SiteWatcher, WatchOptions, DEFAULT_DEBOUNCE,
    DEFAULT_SETTLE,
};

/// How a watch loop watches.
#[derive(Debug, Clone)]
pub struct WatchSettings {
    /// Poll every this often instead of using native file-system events.
    pub poll: Option<Duration>,
    /// Quiet period that ends a burst of changes.
    pub debounce: Duration,
    /// How long a changed file must stay the same before it is read.
    pub settle: Duration,
}

impl Default for WatchSettings {
    /// Native events, the watcher's [`DEFAULT_DEBOUNCE`] and [`DEFAULT_SETTLE`].
    fn default() -> Self {
        WatchSettings {
            poll: None,
            debounce: DEFAULT_DEBOUNCE,
            settle: DEFAULT_SETTLE,
        }
    }
}

/// One line describing a batch of changes: the first few paths and their kinds.
pub fn describe_changes(root: &std::path::Path, changes: &[Change]) -> String {
    let mut parts: Vec<String> = changes
        .iter()
        .take(3)
        .map(|c| {
            let path = c.path.strip_prefix(root).unwrap_or(&c.path);
            let kind = match c.kind {
                ChangeKind::Created => "added",
                ChangeKind::Modified => "changed",
                ChangeKind::Removed => "removed",
            };
            format!("{} {kind}", path.display())
        })
        .collect();
    if changes.len() > 3 {
        parts.push(format!("and {} more", changes.len() - 3));
    }
    parts.join(", ")
}

/// One line for the outcome of a rebuild.
pub fn describe_outcome(outcome: &Result<BuildReport, BuildFailure>) -> String {
    match outcome {
        Ok(report) => {
            let (warnings, errors) = crate::diagnostics::count(&report.diagnostics);
            format!(
                "{} files written, {} removed; {warnings} warning{}, {errors} error{} in {} ms",
                report.write.written,
                report.write.removed,
                if warnings == 1 { "" } else { "s" },
                if errors == 1 { "" } else { "s" },
                report.duration.as_millis()
            )
        }
        Err(failure) => format!("build failed: {}; the last good site stays", failure.reason),
    }
}

/// Watches the site of `options` and rebuilds on every batch of changes until `stop` is
/// set. `on_ready` runs once the watcher is in place (the first build goes there, so
/// that no change made during it is missed); `on_rebuild` receives each batch and its
/// outcome (after the output is written).
pub fn watch(
    options: &BuildOptions,
    settings: &WatchSettings,
    stop: &AtomicBool,
    on_ready: impl FnOnce(&mut BuildMemo),
    mut on_rebuild: impl FnMut(&[Change], &Result<BuildReport, BuildFailure>),
) -> Result<(), String> {
    let root = std::fs::canonicalize(&options.root).unwrap_or_else(|_| options.root.clone());
    let output = options.output_dir();
    let output = std::fs::canonicalize(&output).unwrap_or(output);
    let watcher = SiteWatcher::start(WatchOptions {
        root: root.clone(),
        ignore: vec![output, root.join(CACHE_DIR)],
        poll: settings.poll,
        debounce: settings.debounce,
        settle: settings.settle,
    })
    .map_err(|err| format!("cannot watch {}: {err}", root.display()))?;
    let mut memo = BuildMemo::long_running();
    on_ready(&mut memo);
    if memo.is_cold() && !stop.load(Ordering::Relaxed) {
        // Its outcome is the first build's (the site unchanged); a change made since
        // is in the watcher's next batch, and rebuilt and reported then.
        let _ = warm_up(options, &mut memo);
    }
    while !stop.load(Ordering::Relaxed) {
        let changes = watcher.next_batch(Duration::from_millis(200));
        let Some(changes) = changes.filter(|c| !c.is_empty()) else {
            memo.when_quiet(Instant::now());
            continue;
        };
        // Files the watcher saw change are read again whatever their size and time say;
        // when they are all record files, the others are not even looked at.
        memo.records.reported_changes = changes
            .iter()
            .filter_map(|c| c.path.strip_prefix(&root).ok().map(Path::to_path_buf))
            .collect();
        memo.records.only_reported_changed = only_record_files(&root, &changes);
        let _ = build_and_report(options, &mut memo, |outcome| on_rebuild(&changes, outcome));
    }
    Ok(())
}

/// Whether every one of `changes` (under the site `root`) is to a record file: then the
/// build may take the other record files from the last one's listing (see
/// [`crate::sources::RecordReuse`]). A batch with any other change (a folder, the
/// configuration, a template) has the records folder walked: a cheap safeguard, as
/// such a batch is rare.
fn only_record_files(root: &Path, changes: &[Change]) -> bool {
    changes
        .iter()
        .all(|c| site_part(root, &c.path) == SitePart::Records)
}

/// What `serve` needs to know.
#[derive(Debug, Clone)]
pub struct ServeSettings {
    /// The site root.
    pub root: PathBuf,
    /// Address to bind (loopback by default).
    pub bind: IpAddr,
    /// Port (0: any free port).
    pub port: u16,
    /// How to watch.
    pub watch: WatchSettings,
}

/// A running preview: the server, the address it serves, and the folder it builds into.
pub struct Preview {
    /// The server.
    pub server: ServerHandle,
    /// Build options used for every rebuild.
    pub options: BuildOptions,
    /// Notifies open browser tabs.
    pub reload: LiveReload,
}

/// Starts the preview server for builds into `<root>/.profilegen/serve`, with `base_url`
/// set to the server's address. The caller builds (see [`watch`]); until then the server
/// answers with the site's 404 page.
pub fn start_preview(settings: &ServeSettings) -> Result<Preview, String> {
    let output = settings.root.join(CACHE_DIR).join("serve");
    std::fs::create_dir_all(&output)
        .map_err(|err| format!("cannot create {}: {err}", output.display()))?;
    let reload = LiveReload::new();
    let server = start_server(
        ServeOptions {
            output: output.clone(),
            bind: settings.bind,
            port: settings.port,
        },
        reload.clone(),
    )
    .map_err(|err| format!("cannot serve on {}:{}: {err}", settings.bind, settings.port))?;
    let address = server.address;
    let host = match address.ip() {
        IpAddr::V6(ip) => format!("[{ip}]"),
        IpAddr::V4(ip) => ip.to_string(),
    };
    let options = BuildOptions {
        root: settings.root.clone(),
        output: Some(output),
        base_url: Some(format!("http://{host}:{}/", address.port())),
        strict: false,
        write: true,
        progress: false,
        force: false,
        generations: false,
    };
    Ok(Preview {
        server,
        options,
        reload,
    })
}

/// Tells browsers about a rebuild's outcome: reload, or show the error.
pub fn notify_browsers(reload: &LiveReload, outcome: &Result<BuildReport, BuildFailure>) {
    match outcome {
        Ok(_) => {
            reload.send(ReloadMessage::BuildFixed);
            reload.send(ReloadMessage::Reload);
        }
        Err(failure) => {
            let detail: Vec<String> = failure
                .diagnostics
                .iter()
                .filter(|d| d.severity == crate::diagnostics::Severity::Error)
                .map(|d| d.render())
                .collect();
            reload.send(ReloadMessage::BuildError(if detail.is_empty() {
                failure.reason.clone()
            } else {
                detail.join("\n\n")
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_batch_of_record_files_spares_the_walk() {
        let root = Path::new("/site");
        let change = |rel: &str| Change {
            path: root.join(rel),
            kind: ChangeKind::Modified,
        };
        let records = [
            change("content/records/a.txt"),
            change("content/records/x/b.txt"),
        ];
        assert!(only_record_files(root, &records));
        for other in [
            "content/records/x",
            "content/records/notes.md",
            "profilegen.yaml",
            "templates/paper.html",
        ] {
            let batch = [records[0].clone(), change(other)];
            assert!(!only_record_files(root, &batch), "{other}");
        }
        let outside = Change {
            path: PathBuf::from("/elsewhere/content/records/a.txt"),
            kind: ChangeKind::Created,
        };
        assert!(!only_record_files(root, &[outside]));
    }
}
