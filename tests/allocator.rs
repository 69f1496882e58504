//! What a long-running process asks of mimalloc: keep the memory a build frees for the
//! next build, and give it back when [`FreedMemoryPolicy`] says so. Its own test binary
//! with one test, because mimalloc's options are the process's and resident memory is
//! measured: nothing else may allocate meanwhile.
//!
//! [`FreedMemoryPolicy`]: profilegen::build::memo::FreedMemoryPolicy

#![cfg(target_os = "linux")]

use libmimalloc_sys::{mi_free, mi_malloc};
use profilegen::build::memo::{keep_freed_memory, resident_bytes, FreedMemoryPolicy};

const MB: u64 = 1 << 20;

/// A stand-in for a build: allocates blocks of the sizes a build frees in bulk (small
/// strings in pages of their own size class, vectors of a few hundred kB, arrays of
/// several MB), about `each` bytes of each size, touches every page, and frees them.
fn build_that_frees(each: usize) {
    let mut blocks = Vec::new();
    for size in [1 << 10, 256 << 10, 8 << 20] {
        for _ in 0..each / size {
            // SAFETY: a plain allocation of `size` bytes, written within its bounds, and
            // freed once below.
            unsafe {
                let block = mi_malloc(size).cast::<u8>();
                assert!(!block.is_null());
                for offset in (0..size).step_by(4096) {
                    block.add(offset).write(1);
                }
                blocks.push(block);
            }
        }
    }
    for block in blocks {
        // SAFETY: each block came from `mi_malloc` above and is freed once.
        unsafe { mi_free(block.cast()) };
    }
}

fn resident_mb() -> u64 {
    resident_bytes().unwrap_or(0) / MB
}

/// The first build's freed memory is given back once its resident memory is noted; a
/// rebuild that uses as much keeps what it freed (the next rebuild reuses it); one that
/// passes 1.25 times the first build's resident memory gives it back. All of it, blocks
/// of every size: with mimalloc's purge delay at -1 ("never"), mimalloc did not note
/// the freed ranges, so a forced collection found nothing to give back, and a watcher
/// of a 500,000-paper site stayed at 3.8 GB with every result it kept dropped.
#[test]
fn freed_memory_is_kept_for_the_next_build_until_the_ceiling_gives_it_back() {
    let Some(start) = resident_bytes().map(|b| b / MB) else {
        return; // No /proc: nothing to measure, and the policy never acts.
    };
    keep_freed_memory();
    rayon::broadcast(|_| ()); // The pool's threads, started before measuring.
    let start = start.max(resident_mb());
    let mut policy = FreedMemoryPolicy::default();

    build_that_frees(128 << 20);
    let kept = resident_mb();
    assert!(kept > start + 300, "kept {kept} MB, started at {start} MB");
    assert!(
        policy.after_build(),
        "the first build gives back what it freed"
    );
    let given_back = resident_mb();
    assert!(
        given_back < start + 40,
        "{given_back} MB after giving back {kept} MB, started at {start} MB"
    );

    build_that_frees(128 << 20);
    assert!(!policy.after_build(), "as much as the first build: kept");
    let rebuilt = resident_mb();
    assert!(
        rebuilt > start + 300,
        "{rebuilt} MB kept, started at {start} MB"
    );

    build_that_frees(256 << 20);
    let grown = resident_mb();
    assert!(
        grown > kept * 5 / 4,
        "{grown} MB against {kept} MB at first"
    );
    assert!(policy.after_build(), "past the ceiling: given back");
    let after = resident_mb();
    assert!(
        after < start + 40,
        "{after} MB after giving back {grown} MB, started at {start} MB"
    );
}
