//! What one build hands to the next in the same process (`build --watch`, `serve`):
//! each stage's own memo, and the build cache as last saved.

use std::sync::Arc;

use super::cache::BuildCache;
use crate::graph::LinkMemo;
use crate::plan::PlanMemo;
use crate::sources::RecordReuse;

/// Everything one build hands to the next in the same process.
#[derive(Default)]
pub struct BuildMemo {
    /// Parsed record files.
    pub records: RecordReuse,
    /// Title keys and slugs.
    pub link: LinkMemo,
    /// TeX conversions and search terms.
    pub plan: PlanMemo,
    /// The build cache as the last build saved it, with the file it was saved to: no
    /// need to read it back.
    pub cache: Option<(std::path::PathBuf, Arc<BuildCache>)>,
    /// Save the build cache on another thread, so that a rebuild is done as soon as its
    /// output is written (for long-running processes; the next build waits for it).
    pub save_in_background: bool,
    /// The cache save still under way, if any: its error message, if it failed.
    pub pending_save: Option<std::thread::JoinHandle<Result<(), String>>>,
}

impl BuildMemo {
    /// A memo for a long-running process: results are kept for the next build, and the
    /// cache is saved in the background. ([`BuildMemo::default`] keeps nothing.)
    pub fn long_running() -> BuildMemo {
        let mut memo = BuildMemo::default();
        memo.records.enable();
        memo.link.enable();
        memo.plan.enable();
        memo.save_in_background = true;
        memo
    }

    /// Waits for the cache save under way, if any; its error message if it failed.
    pub fn wait_for_save(&mut self) -> Option<String> {
        let handle = self.pending_save.take()?;
        match handle.join() {
            Ok(result) => result.err(),
            Err(_) => Some("saving the build cache failed".to_string()),
        }
    }

    /// Ends a build (successful or not): see [`Reuse::finish_build`].
    pub fn finish_build(&mut self) {
        self.records.finish_build();
        self.link.finish_build();
        self.plan.finish_build();
    }
}

impl Drop for BuildMemo {
    fn drop(&mut self) {
        self.wait_for_save();
    }
}
