//! Benchmark of the link stage alone, as a long-running process (`build --watch`,
//! `serve`) runs it after one record file comes or goes: with the papers the previous
//! link assembled kept in the memo and taken again (`LinkMemo::keep_papers`), and
//! without them. Both ways in the same process, on the same parsed files, one after the
//! other, then again in the other order.
//!
//!     cargo run --release --example link_bench -- RECORDS_DIR NEW_FILE [ROUNDS]
//!
//! RECORDS_DIR holds the site's record files (e.g. a `gen_corpus --shape arxiv` corpus);
//! NEW_FILE is one more record file, linked in every other round as if it had been
//! added to the folder (and linked out in the rounds between). ROUNDS (default 6) links
//! each way that many times after one untimed link. Prints each link's wall time and
//! how many papers it took from the previous link, then the median of each way. With
//! `ONE_OFF=1` in the environment the memo keeps nothing (as a one-off build's), so
//! both ways link afresh.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use profilegen::graph::{link_with, LinkMemo};
use profilegen::identity::IdentityRules;
use profilegen::records::{parse_record_file, RecordFile, TextPool};
use rayon::prelude::*;

/// Reads and parses the record file at `path` (named `name` in the site), sharing its
/// abstracts' copies through `pool` as the build's reader does.
fn parse(pool: &TextPool, path: &Path, name: PathBuf) -> Arc<RecordFile> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (file, _) = parse_record_file(&name, &bytes);
    let mut file = file.unwrap_or_else(|| panic!("{}: no records", path.display()));
    file.share_texts(pool);
    Arc::new(file)
}

/// Links `files` `rounds` times (after one untimed link), every other time with `extra`
/// added, keeping each link's papers for the next when `keep` is set; each link's wall
/// time in milliseconds.
fn link_rounds(
    files: &[Arc<RecordFile>],
    extra: &Arc<RecordFile>,
    keep: bool,
    rounds: usize,
) -> Vec<f64> {
    let rules = IdentityRules::default();
    let mut memo = LinkMemo::default();
    if std::env::var_os("ONE_OFF").is_none() {
        memo.enable();
    }
    let mut with_extra = files.to_vec();
    with_extra.push(Arc::clone(extra));
    let mut times = Vec::new();
    for round in 0..=rounds {
        let set = if round % 2 == 1 { &with_extra } else { files };
        memo.hold_files(set);
        let started = Instant::now();
        let mut graph = link_with(set, &rules, &memo);
        let ms = started.elapsed().as_secs_f64() * 1e3;
        if keep {
            memo.keep_papers(&mut graph);
        }
        drop(graph);
        if round > 0 {
            let way = if keep { "kept papers" } else { "afresh" };
            let taken = memo.papers_taken();
            eprintln!("{way}, round {round}: {ms:.0} ms ({taken} papers taken)");
            times.push(ms);
        }
    }
    times
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(dir), Some(new_file)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: link_bench RECORDS_DIR NEW_FILE [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args
        .get(3)
        .map_or(6, |r| r.parse().expect("ROUNDS is a number"));
    let dir = Path::new(dir);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("RECORDS_DIR is a folder")
        .map(|entry| entry.expect("a readable folder").path())
        .filter(|path| path.extension().is_some_and(|e| e == "txt"))
        .collect();
    paths.sort();
    let pool = TextPool::default();
    let files: Vec<Arc<RecordFile>> = paths
        .par_iter()
        .map(|p| parse(&pool, p, p.clone()))
        .collect();
    let extra = parse(&pool, Path::new(new_file), dir.join("zz_new.txt"));
    let mut medians = Vec::new();
    for keep in [true, false, false, true] {
        let mut times = link_rounds(&files, &extra, keep, rounds);
        times.sort_by(f64::total_cmp);
        medians.push((
            keep,
            times[times.len() / 2],
            times[0],
            times[times.len() - 1],
        ));
    }
    println!(
        "{} record files, {rounds} links each way, twice",
        files.len()
    );
    for (keep, median, min, max) in medians {
        let way = if keep { "kept papers" } else { "afresh     " };
        println!("{way}: median {median:.0} ms (min {min:.0}, max {max:.0})");
    }
}
