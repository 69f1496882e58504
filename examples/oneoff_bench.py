#!/usr/bin/env python3
"""Benchmark: how long a one-off `profilegen build` takes after one new record file
arrives in a built site, and the same after it goes; with two binaries, run in
alternating blocks so that the machine's drift affects both alike.

    python3 examples/oneoff_bench.py SITE_DIR --bin OLD [--bin NEW] [--rounds N]

SITE_DIR is a built site holding `new_author.txt` (`examples/bench.sh` and
`examples/bench_scale.sh` make one), built into its own `public/` (or `--output DIR`).
In each round, each binary in turn builds the site with `new_author.txt` copied into
`content/records/`, then without it, untimed: the first builds after a switch of
binary read again what the other binary kept on disk (`.profilegen/*.kept`, which
each binary writes for itself). Then it adds and removes the file `--builds` times
(default 2), timing each build with `/usr/bin/time` and `PROFILEGEN_TIMINGS=1`.
Prints, for each binary, the median wall time with its range and peak memory, and
the median wall and processor time of each stage.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_site import site_and_new_file

STAGE = re.compile(r"^timing: (.+?)\s+([\d.]+) ms, processor\s+([\d.]+) ms")
TIME = re.compile(r"^oneoff-bench ([\d.]+) (\d+)$")


def stage_name(label: str) -> str:
    """`read and parse (1 of 217501 record files parsed)` -> `read and parse`."""
    return label.split(" (")[0].strip()


def build(binary: Path, site: Path, output: str | None, timed: bool) -> dict | None:
    """One build in `site`; its wall time, peak memory and stages when `timed`."""
    command = [str(binary), "build", "--quiet"] + (["--output", output] if output else [])
    if not timed:
        subprocess.run(command, cwd=site, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return None
    with tempfile.NamedTemporaryFile("r") as times:
        env = {**os.environ, "PROFILEGEN_TIMINGS": "1"}
        run = subprocess.run(
            ["/usr/bin/time", "-o", times.name, "-f", "oneoff-bench %e %M"] + command,
            cwd=site,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        measured = TIME.match(times.read().strip().splitlines()[-1])
    if run.returncode != 0 or not measured:
        sys.exit(f"{binary} build failed ({run.returncode}):\n{run.stderr[-2000:]}")
    stages = {}
    for line in run.stderr.splitlines():
        found = STAGE.match(line)
        if found:
            stages[stage_name(found[1])] = (float(found[2]) / 1000, float(found[3]) / 1000)
    return {"wall": float(measured[1]), "peak_gb": int(measured[2]) / 1e6, "stages": stages}


def report(binary: Path, runs: list[dict]) -> None:
    walls = [r["wall"] for r in runs]
    peaks = [r["peak_gb"] for r in runs]
    print(
        f"{binary}: median {statistics.median(walls):.2f} s "
        f"({min(walls):.2f}-{max(walls):.2f}, {len(walls)} builds), "
        f"peak {min(peaks):.2f}-{max(peaks):.2f} GB"
    )
    names = list(dict.fromkeys(name for r in runs for name in r["stages"]))
    for name in names:
        seen = [r["stages"][name] for r in runs if name in r["stages"]]
        wall = statistics.median(s[0] for s in seen)
        cpu = statistics.median(s[1] for s in seen)
        print(f"  {name:<16} {wall:6.2f} s, processor {cpu:6.2f} s")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("site")
    parser.add_argument("--bin", action="append", required=True, help="a binary (twice to compare)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--builds", type=int, default=2, help="timed add-and-remove pairs a block")
    parser.add_argument("--output", help="the site's output folder, if not public/")
    args = parser.parse_args()
    site, new_file = site_and_new_file(args.site)
    if shutil.which("/usr/bin/time") is None:
        print("needs GNU time (/usr/bin/time)", file=sys.stderr)
        return 2
    binaries = [Path(b).resolve() for b in args.bin]
    target = site / "content" / "records" / "zz_oneoff_bench.txt"
    runs: dict[Path, list[dict]] = {b: [] for b in binaries}
    try:
        for _ in range(args.rounds):
            for binary in binaries:
                for timed in [False] + [True] * args.builds:
                    shutil.copy(new_file, target)
                    added = build(binary, site, args.output, timed)
                    target.unlink()
                    removed = build(binary, site, args.output, timed)
                    runs[binary] += [r for r in (added, removed) if r]
    finally:
        target.unlink(missing_ok=True)
    for binary in binaries:
        report(binary, runs[binary])
    return 0


if __name__ == "__main__":
    sys.exit(main())
