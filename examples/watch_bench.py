#!/usr/bin/env python3
"""Benchmark: how long `profilegen build --watch` takes to regenerate a built site after
one new record file arrives, as the long-running harvester set-up sees it.

    python3 examples/watch_bench.py [SITE_DIR] [--runs N] [--output DIR] [--bin PATH] [--log FILE]
                                    [--new-file PATH]

SITE_DIR defaults to target/bench (made by `bash examples/bench.sh`; it holds the
10,000-paper corpus and `new_author.txt`). The output goes to a fresh folder on tmpfs
when there is one, or to `--output DIR`, which is built into as it is and kept (a large
site already built there, as `examples/bench_scale.sh` does). `--bin` runs another
profilegen binary (to compare two); by default the release build of this checkout.
Each run copies `new_author.txt` into content/records/, waits for the regeneration line,
then removes the file and waits again; one such run comes first and is not counted (it
also waits out the whole-site build a watcher runs after starting on an unchanged site).
Reports the build time profilegen logs for each regeneration (from reading the sources
to the last file written), for the file added and removed, and the wall time from the
copy to the log line (which adds the watcher's debounce and settle time). `--log` writes
everything the watcher printed to FILE (with `PROFILEGEN_TIMINGS=1` in the environment,
each rebuild's stages and their processor time). `--new-file PATH` adds and removes that
record file instead (for instance `new_author.txt` with its author renamed, to see whether
where the new author sorts, and so how many ids move, changes the rebuild).
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from bench_site import site_and_new_file

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("site", nargs="?", default=str(ROOT / "target" / "bench"))
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--output", help="build into this folder as it is, and keep it")
    parser.add_argument("--bin", help="the profilegen binary to run")
    parser.add_argument("--log", help="write everything the watcher printed to this file")
    parser.add_argument(
        "--new-file", help="the record file to add and remove, instead of the site's new_author.txt"
    )
    args = parser.parse_args()
    site, new_file = site_and_new_file(args.site)
    if args.new_file:
        new_file = Path(args.new_file).resolve()
    if args.bin:
        binary = Path(args.bin).resolve()
    else:
        subprocess.run(
            ["cargo", "build", "--release", "--quiet", "--bin", "profilegen"], cwd=ROOT, check=True
        )
        binary = ROOT / "target" / "release" / "profilegen"
    if args.output:
        out = Path(args.output).resolve()
    else:
        out = Path("/dev/shm/profilegen-watch-bench") if os.access("/dev/shm", os.W_OK) else site / "public"
        shutil.rmtree(out, ignore_errors=True)
    target = site / "content" / "records" / "zz_watch_new.txt"
    target.unlink(missing_ok=True)

    proc = subprocess.Popen(
        [str(binary), "build", "--watch", "--output", str(out)],
        cwd=site,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    ready = threading.Event()
    cond = threading.Condition()

    def reader() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            with cond:
                lines.append(line.rstrip("\n"))
                cond.notify_all()
            if line.startswith("Watching"):
                ready.set()

    threading.Thread(target=reader, daemon=True).start()
    # A large site's first build (every output checked, or the whole site built) takes
    # minutes on a disk.
    if not ready.wait(1800):
        proc.kill()
        print("the watcher did not start", file=sys.stderr)
        return 1

    def wait_for(pattern: str, start: int, timeout: float = 600) -> tuple[str, int]:
        deadline = time.monotonic() + timeout
        with cond:
            while True:
                for i in range(start, len(lines)):
                    if pattern in lines[i] and " in " in lines[i]:
                        return lines[i], i + 1
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(pattern)
                cond.wait(remaining)

    logged, removed, walls, written = [], [], [], []
    seen = len(lines)

    def logged_ms(line: str) -> int:
        return int(re.search(r"in (\d+) ms", line).group(1))

    try:
        for run in range(args.runs + 1):
            started = time.monotonic()
            shutil.copyfile(new_file, target)
            line, seen = wait_for("zz_watch_new.txt added", seen)
            wall = (time.monotonic() - started) * 1000
            target.unlink()
            removal, seen = wait_for("zz_watch_new.txt removed", seen)
            if run == 0:
                continue  # The run not counted.
            walls.append(wall)
            logged.append(logged_ms(line))
            written.append(int(re.search(r"(\d+) files written", line).group(1)))
            removed.append(logged_ms(removal))
    finally:
        proc.terminate()
        proc.wait(300)
        target.unlink(missing_ok=True)
        if args.log:
            with cond:
                Path(args.log).write_text("\n".join(lines) + "\n", encoding="utf-8")

    def summary(values: list[float]) -> str:
        return f"median {statistics.median(values):.0f} ms, min {min(values):.0f}, max {max(values):.0f}"

    print(f"regeneration after one new record file ({args.runs} runs)")
    print(f"  build time logged:      {summary(logged)}")
    print(f"  the same, file removed: {summary(removed)}")
    print(f"  save to log line:       {summary(walls)}")
    print(f"  files written:          median {statistics.median(written):.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
