//! What one build hands to the next in the same process (`build --watch`, `serve`):
//! each stage's own memo, and the build cache as last saved.

use std::path::PathBuf;
use std::sync::Arc;
use std::thread::JoinHandle;

use super::cache::{self, BuildCache};
use crate::graph::LinkMemo;
use crate::plan::PlanMemo;
use crate::render::context::RenderMemo;
use crate::search::SearchMemo;
use crate::sources::RecordReuse;

/// Everything one build hands to the next in the same process.
#[derive(Default)]
pub struct BuildMemo {
    /// Parsed record files.
    pub records: RecordReuse,
    /// Title keys and slugs.
    pub link: LinkMemo,
    /// TeX conversions.
    pub plan: PlanMemo,
    /// Search terms.
    pub search: SearchMemo,
    /// Citations and data items.
    pub render: RenderMemo,
    /// The build cache as the last build saved it.
    pub saved: SavedCache,
}

/// The build cache as the last build saved it, and its saving.
#[derive(Default)]
pub struct SavedCache {
    /// The cache with the file it was saved to: no need to read it back.
    pub cache: Option<(PathBuf, Arc<BuildCache>)>,
    /// Save the build cache on another thread, so that a rebuild is done as soon as its
    /// output is written (for long-running processes; the next build waits for it).
    pub in_background: bool,
    /// The save still under way, if any: its error message, if it failed.
    pending: Option<JoinHandle<Result<(), String>>>,
}

impl BuildMemo {
    /// A memo for a long-running process: results are kept for the next build, and the
    /// cache is saved in the background. ([`BuildMemo::default`] keeps nothing.)
    pub fn long_running() -> BuildMemo {
        let mut memo = BuildMemo::default();
        memo.records.enable();
        memo.link.enable();
        memo.plan.enable();
        memo.search.enable();
        memo.render.enable();
        memo.saved.in_background = true;
        memo
    }

    /// Ends a build (successful or not): see [`crate::reuse::Reuse::finish_build`].
    pub fn finish_build(&mut self) {
        self.records.finish_build();
        self.link.finish_build();
        self.plan.finish_build();
        self.search.finish_build();
        self.render.finish_build();
    }
}

impl SavedCache {
    /// Waits for the save under way, if any; its error message if it failed.
    pub fn wait(&mut self) -> Option<String> {
        let handle = self.pending.take()?;
        match handle.join() {
            Ok(result) => result.err(),
            Err(_) => Some("saving the build cache failed".to_string()),
        }
    }

    /// Saves `new_cache` to `path` and keeps it for the next build; a cache that cannot
    /// be saved only costs time later (the message says why). In the background, an
    /// error is reported by the next build's [`SavedCache::wait`].
    pub fn save(&mut self, path: PathBuf, new_cache: Arc<BuildCache>) -> Option<String> {
        let save = {
            let (path, cache) = (path.clone(), Arc::clone(&new_cache));
            move || {
                cache::save(&path, &cache)
                    .map_err(|err| format!("cannot save the build cache {}: {err}", path.display()))
            }
        };
        if self.in_background {
            self.pending = Some(std::thread::spawn(save));
            self.cache = Some((path, new_cache));
            return None;
        }
        let failure = save().err();
        if failure.is_none() {
            self.cache = Some((path, new_cache));
        }
        failure
    }
}

impl Drop for SavedCache {
    fn drop(&mut self) {
        self.wait();
    }
}
