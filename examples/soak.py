#!/usr/bin/env python3
"""Soak test: does a long-running `profilegen serve` or `build --watch` keep its memory
bounded, and does its site stay equal to a clean build, after many record changes?

    python3 examples/soak.py [--mode serve|watch|both] [--changes 1000] [--papers 900]
                             [--shape arxiv|default] [--early 10] [--max-ratio 1.5]
                             [--seed 1] [--dir DIR]

It generates a corpus (`examples/gen_corpus`, arXiv-shaped by default), puts most of
its record files in a new site and keeps the rest aside, starts the mode, and then makes
`--changes` random changes one after the other, each time waiting for the rebuild line:

- edits (60%): a record file's titles and abstracts get new words and new TeX (`$x_{k}$`,
  new terms and new conversions every time), a record is left out, or the file goes back
  to its original text. Edits start from the original text, so the site does not grow;
- adds (20%): a file kept aside joins the site;
- deletes (20%): a site file is removed (and kept aside).

The resident memory of the process (VmRSS in /proc/PID/status) is sampled half a
second after each of the first `--early` changes and each of the last `--early` changes
(and every 100 changes, for the curve). The allocator hands freed memory back to the
system when it sees fit, so one sample can sit well above or below its neighbours; the
gate compares the medians of the two windows. At the
end the process is stopped, the site's sources are copied to a new folder and built
there by a one-off `profilegen build` (with serve's `base_url`), and the two output
folders are compared byte for byte (but for the redirect pages of pages the running
process saw move, which must lead to pages of the clean build). In serve mode, a sample of the pages is also fetched
over HTTP before the process stops and compared with the clean build (HTML with the
live-reload script taken out).

Exit status 1 if a rebuild failed, the last window's median RSS is more than
`--max-ratio` times the early window's, or the site differs from the clean build.
Scratch data goes to DIR (default /dev/shm/soak, tmpfs). The binaries are built with `cargo build --release` first (in
$CARGO_TARGET_DIR when set), unless `--binary` names one.
"""

import argparse
import filecmp
import http.client
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORDS = Path("content") / "records"
SCRIPT_TAG_RE = re.compile(rb'<script src="/__profilegen/livereload\.js"[^>]*></script>')


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=["serve", "watch", "both"], default="both")
    parser.add_argument("--changes", type=int, default=1000)
    parser.add_argument("--papers", type=int, default=900)
    parser.add_argument("--shape", choices=["arxiv", "default"], default="arxiv", help="gen_corpus's shape of corpus")
    parser.add_argument("--early", type=int, default=10, help="how many changes each RSS window spans: the first ones (the baseline) and the last ones")
    parser.add_argument("--max-ratio", type=float, default=1.5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dir", default="/dev/shm/soak" if os.access("/dev/shm", os.W_OK) else str(ROOT / "target" / "soak"))
    parser.add_argument("--binary", help="a profilegen binary to run (default: build one)")
    parser.add_argument("--gen-corpus", help="a gen_corpus binary (default: build one)")
    return parser.parse_args()


def binaries(args: argparse.Namespace) -> tuple[Path, Path]:
    """The profilegen and gen_corpus binaries, built unless given."""
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    if not args.binary or not args.gen_corpus:
        subprocess.run(
            ["cargo", "build", "--release", "--quiet", "--bin", "profilegen", "--example", "gen_corpus"],
            cwd=ROOT,
            check=True,
        )
    profilegen = Path(args.binary) if args.binary else target / "release" / "profilegen"
    gen = Path(args.gen_corpus) if args.gen_corpus else target / "release" / "examples" / "gen_corpus"
    return profilegen.resolve(), gen.resolve()


def rss_kib(pid: int) -> tuple[int, int]:
    """VmRSS and VmHWM (the peak) of a process, in KiB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0])
    return fields["VmRSS"], fields["VmHWM"]


class Records:
    """The site's record files, the files kept aside, and the original text of each."""

    def __init__(self, site: Path, pool: Path, rng: random.Random, pages_stay: bool = False):
        """With `pages_stay`, no change removes or moves a page of the starting site: edits
        leave titles alone (they make the paper URLs) and only files added since the
        start are removed."""
        self.site = site / RECORDS
        self.pages_stay = pages_stay
        self.rng = rng
        self.original = {p.name: p.read_text(encoding="utf-8") for p in sorted(pool.glob("*.txt"))}
        names = sorted(self.original)
        rng.shuffle(names)
        aside = len(names) // 6
        self.aside = sorted(names[:aside])
        self.present = sorted(names[aside:])
        if pages_stay:
            # Two files with one author name share out the author's URLs by file order:
            # such a file coming and going would move the other's pages.
            author = {name: self.original[name].split("\n\n")[1] for name in names}
            count = {a: list(author.values()).count(a) for a in set(author.values())}
            self.aside = [name for name in self.aside if count[author[name]] == 1]
        self.site.mkdir(parents=True, exist_ok=True)
        for name in self.present:
            (self.site / name).write_text(self.original[name], encoding="utf-8")
        self.serial = 0
        self.added: list[str] = []

    def change(self) -> tuple[str, str]:
        """Makes one random change; its kind (as the rebuild line says it) and file."""
        roll = self.rng.random()
        if roll < 0.2 and self.aside:
            name = self.aside.pop(self.rng.randrange(len(self.aside)))
            self.present.append(name)
            self.added.append(name)
            (self.site / name).write_text(self.original[name], encoding="utf-8")
            return "added", name
        removable = self.added if self.pages_stay else self.present
        if roll < 0.4 and len(removable) > 1:
            name = removable.pop(self.rng.randrange(len(removable)))
            for names in (self.present, self.added):
                if name in names:
                    names.remove(name)
            self.aside.append(name)
            (self.site / name).unlink()
            return "removed", name
        name = self.rng.choice(self.present)
        (self.site / name).write_text(self.edited(self.original[name]), encoding="utf-8")
        return "changed", name

    def edited(self, text: str) -> str:
        """`text` with new words and TeX in some titles and abstracts, a record left out,
        or as it was."""
        self.serial += 1
        blocks = text.split("\n\n")
        header, body = blocks[:4], blocks[4:]
        # Records: source-year, title, optional abstract, subject.
        records, current = [], []
        for block in body:
            if re.fullmatch(r"\S+\d{4}", block) and current:
                records.append(current)
                current = []
            current.append(block)
        if current:
            records.append(current)
        kind = self.rng.random()
        if kind < 0.1:
            return text + ("" if self.serial % 2 else " ")
        if kind < 0.25 and len(records) > 1 and not self.pages_stay:
            records.pop(self.rng.randrange(len(records)))
        else:
            for record in self.rng.sample(records, max(1, len(records) // 3)):
                word = f"soak{self.serial}x{self.rng.randrange(10**6)}"
                if not self.pages_stay:
                    record[1] = f"{record[1]} {word}"
                if len(record) > 3:
                    record[2] = f"{record[2]} {word}b and $x_{{{self.serial}}}^{{{word[-3:]}}}$."
        count = len(records)
        header[3] = f"{count} record{'s' if count != 1 else ''}Linked to original sources"
        return "\n\n".join(header + [b for r in records for b in r])


class Process:
    """A running `serve` or `build --watch`, and the lines it writes to stderr."""

    def __init__(self, command: list[str], cwd: Path, ready: str):
        self.proc = subprocess.Popen(command, cwd=cwd, stderr=subprocess.PIPE, text=True)
        self.lines: list[str] = []
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        self.ready_line = self.wait_for(lambda line: line.startswith(ready), 0, 600)[0]

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()
        with self.cond:
            self.lines.append("<exited>")
            self.cond.notify_all()

    def wait_for(self, test, start: int, timeout: float) -> tuple[str, int]:
        """The first line from `start` on that passes `test`, and the index after it."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for i in range(start, len(self.lines)):
                    if self.lines[i] == "<exited>":
                        raise RuntimeError("the process exited:\n" + "\n".join(self.lines[-20:]))
                    if test(self.lines[i]):
                        return self.lines[i], i + 1
                start = len(self.lines)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RuntimeError("no rebuild line in time:\n" + "\n".join(self.lines[-20:]))
                self.cond.wait(left)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def redirects(built: Path, clean: Path) -> tuple[set[str], list[str]]:
    """The files a long-running build has for pages it saw move, which a clean build
    (that never saw the old URLs) lacks: the redirect pages its `_redirects` lists, that
    file, and the manifest that names them. Also the redirects that do not lead to a
    page of the clean build."""
    listed = built / "_redirects"
    if not listed.exists():
        return set(), []
    files = {"_redirects", ".profilegen-manifest"}
    broken = []
    for line in listed.read_text(encoding="utf-8").splitlines():
        old, new, _status = line.split()
        files.add(old.strip("/") + "/index.html")
        if not (clean / new.strip("/") / "index.html").is_file():
            broken.append(f"redirect {old} leads to {new}, no page of the clean build")
    return files, broken


def differences(built: Path, clean: Path) -> list[str]:
    """Files that are not the same in two output folders (missing, extra or other bytes),
    but for the redirects of moved pages (see `redirects`), which must lead to pages."""
    expected, out = redirects(built, clean)

    def walk(rel: Path) -> None:
        cmp = filecmp.dircmp(built / rel, clean / rel)
        out.extend(f"only in the long-running build: {rel / n}" for n in cmp.left_only if (rel / n).as_posix() not in expected and not any(e.startswith((rel / n).as_posix() + "/") for e in expected))
        out.extend(f"only in the clean build: {rel / n}" for n in cmp.right_only)
        _, mismatch, errors = filecmp.cmpfiles(built / rel, clean / rel, cmp.common_files, shallow=False)
        out.extend(f"differs: {rel / n}" for n in mismatch + errors if (rel / n).as_posix() not in expected)
        for sub in cmp.common_dirs:
            walk(rel / sub)

    walk(Path("."))
    return out


def http_differences(address: tuple[str, int], clean: Path, rng: random.Random, count: int = 200) -> tuple[int, list[str]]:
    """Fetches a sample of the clean build's files from the server; those that differ."""
    files = sorted(p.relative_to(clean).as_posix() for p in clean.rglob("*") if p.is_file() and not p.name.startswith("."))
    sample = rng.sample(files, min(count, len(files)))
    conn = http.client.HTTPConnection(*address, timeout=30)
    out = []
    for rel in sample:
        conn.request("GET", "/" + rel)
        response = conn.getresponse()
        body = response.read()
        if rel.endswith(".html"):
            body = SCRIPT_TAG_RE.sub(b"", body, count=1)
        if response.status != 200 or body != (clean / rel).read_bytes():
            out.append(f"served /{rel} differs (status {response.status})")
    conn.close()
    return len(sample), out


def soak(mode: str, args: argparse.Namespace, profilegen: Path, gen: Path) -> bool:
    """One soak run; whether it passed. Prints its figures."""
    work = Path(args.dir) / mode
    shutil.rmtree(work, ignore_errors=True)
    pool = work / "pool"
    subprocess.run(
        [str(gen), "--shape", args.shape, "--papers", str(args.papers), "--seed", str(args.seed), str(pool)],
        check=True,
        stderr=subprocess.DEVNULL,
    )
    site = work / "site"
    rng = random.Random(args.seed)
    records = Records(site, pool, rng)
    if mode == "serve":
        command = [str(profilegen), "serve", "--port", "0"]
        output = site / ".profilegen" / "serve"
        ready = "Serving"
    else:
        output = work / "out"
        command = [str(profilegen), "build", "--watch", "--output", str(output)]
        ready = "Watching"
    process = Process(command, site, ready)
    pid = process.proc.pid
    start = len(process.lines)
    samples: list[tuple[int, int]] = [(0, rss_kib(pid)[0])]
    times: list[int] = []
    failures = 0
    early_window: list[int] = []
    last_window: list[int] = []
    began = time.monotonic()
    for n in range(1, args.changes + 1):
        kind, name = records.change()
        path = str(RECORDS / name)
        line, start = process.wait_for(lambda l, p=path, k=kind: f"{p} {k}" in l and (" ms" in l or "build failed" in l), start, 120)
        if "build failed" in line:
            failures += 1
            print(f"  rebuild failed: {line}", file=sys.stderr)
        elif m := re.search(r" in (\d+) ms$", line):
            times.append(int(m.group(1)))
        in_early, in_last = n <= args.early, n > args.changes - args.early
        if in_early or in_last or n % 100 == 0:
            time.sleep(0.5)  # the build cache is saved in the background
            rss = rss_kib(pid)[0]
            if n == args.early or n % 100 == 0 or n == args.changes:
                samples.append((n, rss))
            if in_early:
                early_window.append(rss)
            elif in_last:
                last_window.append(rss)
    elapsed = time.monotonic() - began
    peak = rss_kib(pid)[1]
    early = statistics.median(early_window) if early_window else 0
    last = statistics.median(last_window or early_window) if early_window else 0

    clean_root = work / "clean-root"
    (clean_root / "content").mkdir(parents=True)
    shutil.copytree(site / "content", clean_root / "content", dirs_exist_ok=True)
    clean = work / "clean"
    build = [str(profilegen), "build", "--quiet", "--root", str(clean_root), "--output", str(clean)]
    served = 0
    wrong = []
    if mode == "serve":
        host, port = re.search(r"http://([\d.]+):(\d+)/", process.ready_line).groups()
        subprocess.run(build + ["--base-url", f"http://{host}:{port}/"], check=True)
        served, wrong = http_differences((host, int(port)), clean, rng)
    else:
        subprocess.run(build, check=True)
    process.stop()
    wrong += differences(output, clean)

    ratio = last / early if early else float("inf")
    files = sum(1 for p in clean.rglob("*") if p.is_file())
    print(f"{mode}: {args.changes} changes in {elapsed:.0f} s, {len(records.present)} record files at the end")
    print(f"  rebuild ms: median {statistics.median(times):.0f}, p90 {statistics.quantiles(times, n=10)[-1]:.0f}, max {max(times)}; {failures} failed")
    print("  VmRSS MB after changes: " + ", ".join(f"{n}: {kib / 1024:.1f}" for n, kib in samples))
    window = f"{args.early} changes" if args.early > 1 else "change"
    print(f"  median VmRSS over the first {window}: {early / 1024:.1f} MB; over the last {window}: {last / 1024:.1f} MB; ratio {ratio:.2f} (limit {args.max_ratio}); peak (VmHWM) {peak / 1024:.1f} MB")
    print(f"  final site vs a clean build: {files} files, {len(wrong)} differences" + (f"; {served} fetched over HTTP" if served else ""))
    for problem in wrong[:20]:
        print(f"    {problem}")
    return failures == 0 and ratio <= args.max_ratio and not wrong


def main() -> int:
    args = parse_args()
    profilegen, gen = binaries(args)
    modes = ["serve", "watch"] if args.mode == "both" else [args.mode]
    results = [soak(mode, args, profilegen, gen) for mode in modes]
    print("soak: " + ("passed" if all(results) else "FAILED"))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
