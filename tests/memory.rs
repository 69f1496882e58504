//! Memory of a long-running process (`serve`, `build --watch`): after many rebuilds, each
//! after a change that brings new words, new TeX and new files, what the memo keeps for
//! the next build is no more than what the latest build used. Measured as live heap bytes
//! (a counting allocator), which no allocator's caching can hide or inflate.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::fs;
use std::sync::atomic::{AtomicIsize, Ordering};

use common::{record_file, Site};
use profilegen::build::{build_with, BuildMemo, BuildOptions};

/// The system allocator, counting the bytes allocated and not yet freed.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is passed on to `System` as it is; only a counter is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        System.alloc_zeroed(layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const FILES: usize = 12;
const PAPERS_PER_FILE: usize = 6;

/// Record file `file` in its `version`: papers shared with the next file, and titles and
/// abstracts with words and TeX that no other version has.
fn records(file: usize, version: usize) -> String {
    let papers: Vec<(u16, String, String, &str)> = (0..PAPERS_PER_FILE)
        .map(|i| {
            let paper = (file * PAPERS_PER_FILE / 2 + i) % (FILES * PAPERS_PER_FILE);
            let v = version;
            (
                2000 + (paper % 27) as u16,
                format!("Study {paper} of w{v}x{paper} systems"),
                format!(
                    "We look at $x_{{{v}}}^{{{paper}}}$ and a{v}y{paper} b{v}y{paper} c{v}y{paper} d{v}y{paper}."
                ),
                ["cs.LG", "math.AP", "hep-ex"][paper % 3],
            )
        })
        .collect();
    record_file(&format!("Author Number{file}"), &papers)
}

fn live_after_build(options: &BuildOptions, memo: &mut BuildMemo) -> isize {
    build_with(options, memo).expect("the build succeeds");
    memo.saved.wait();
    LIVE.load(Ordering::Relaxed)
}

/// 100 rebuilds, each after a file is rewritten with new words or removed or added back,
/// leave the memo no bigger than after 10: a site of one size keeps one size in memory.
#[test]
fn memory_stays_bounded_over_many_rebuilds() {
    let site = Site::new();
    let dir = site.root().join("content/records");
    fs::create_dir_all(&dir).unwrap();
    for file in 0..FILES {
        fs::write(dir.join(format!("f{file:02}.txt")), records(file, 0)).unwrap();
    }
    let options = BuildOptions::new(site.root());
    let mut memo = BuildMemo::long_running();
    let mut live = Vec::new();
    for version in 1..=100usize {
        let file = version * 7 % FILES;
        let path = dir.join(format!("f{file:02}.txt"));
        if version % 10 == 5 {
            fs::remove_file(&path).unwrap();
        } else {
            fs::write(&path, records(file, version)).unwrap();
        }
        live.push(live_after_build(&options, &mut memo));
    }
    // Live bytes wander with the site (a file removed, longer numbers in the words) and
    // with when unused search terms are last forgotten: averages of 20 builds compared.
    let mean = |builds: &[isize]| builds.iter().sum::<isize>() / builds.len() as isize;
    let early = mean(&live[10..30]);
    let last = mean(&live[80..100]);
    assert!(
        last < early + early / 4,
        "live heap bytes after 10 to 30 rebuilds: {early} on average, after 80 to 100: {last} ({live:?})"
    );
}
