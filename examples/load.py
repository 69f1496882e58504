#!/usr/bin/env python3
"""Load test: `profilegen serve` under many requests while its record files change.

    python3 examples/load.py [--seconds 30] [--connections 32] [--threads 2]
                             [--papers 900] [--seed 1] [--dir DIR]

It builds an arXiv-shaped site (as examples/soak.py does), starts `serve`, and then,
for `--seconds`, at the same time:

- wrk (Debian's `wrk` package) requests the site's pages, data files, feeds and search
  files in turn over `--connections` keep-alive connections. Its Lua script
  (examples/load.lua) checks every response: status 200, a body as long as its
  Content-Length, and a whole document (HTML ending in `</html>`, JSON in `}` or `]`,
  XML in `>`);
- a checker of its own (Python's http.client, one keep-alive connection) fetches the
  same files and checks the same, and that each JSON body parses;
- one live-reload event stream is open, as a browser tab would keep it;
- record files change every 0.3 s: abstracts get new words and TeX, and files are added
  and removed again (changes that keep every page of the starting site where it is, so
  any answer but 200 is an error).

It prints wrk's requests/s and latency percentiles, the errors and truncated bodies of
both clients, the rebuilds and the reload events. Exit status 1 on any error, truncated
body, status other than 200, or failed rebuild. wrk is installed with
`apt-get install -y wrk` if missing (when running as root).
"""

import argparse
import http.client
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ beside the examples
sys.path.insert(0, str(Path(__file__).resolve().parent))
from soak import Process, Records, binaries  # noqa: E402

HERE = Path(__file__).resolve().parent
ENDINGS = {".html": b"</html>", ".json": (b"}", b"]"), ".xml": b">"}


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--papers", type=int, default=900)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dir", default="/dev/shm/load" if os.access("/dev/shm", os.W_OK) else str(HERE.parent / "target" / "load"))
    parser.add_argument("--binary", help="a profilegen binary to run (default: build one)")
    parser.add_argument("--gen-corpus", help="a gen_corpus binary (default: build one)")
    return parser.parse_args()


def ensure_wrk() -> str:
    """The path of wrk, installed from Debian's package if missing."""
    found = shutil.which("wrk")
    if found:
        return found
    if os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=True, stdout=subprocess.DEVNULL)
        found = shutil.which("wrk")
    if not found:
        sys.exit("wrk is needed: apt-get install wrk")
    return found


def whole(path: str, body: bytes) -> bool:
    """Whether `body` ends as a whole file of `path`'s kind does."""
    ending = ENDINGS.get(Path(path).suffix)
    return ending is None or body.rstrip().endswith(ending)


class Checker(threading.Thread):
    """Fetches `paths` in turn until stopped, checking every answer."""

    def __init__(self, address: tuple[str, int], paths: list[str], stop: threading.Event):
        super().__init__(daemon=True)
        self.address, self.paths, self.stop = address, paths, stop
        self.requests = self.errors = self.truncated = self.bad_status = 0
        self.problems: list[str] = []

    def run(self) -> None:
        conn = http.client.HTTPConnection(*self.address, timeout=30)
        n = 0
        while not self.stop.is_set():
            path = self.paths[n % len(self.paths)]
            n += 1
            try:
                conn.request("GET", path)
                response = conn.getresponse()
                body = response.read()
            except http.client.IncompleteRead as err:
                self.truncated += 1
                self.note(f"{path}: body cut short ({len(err.partial)} bytes)")
                conn.close()
                continue
            except (OSError, http.client.HTTPException) as err:
                self.errors += 1
                self.note(f"{path}: {err!r}")
                conn.close()
                continue
            self.requests += 1
            length = response.getheader("Content-Length")
            if response.status != 200:
                self.bad_status += 1
                self.note(f"{path}: status {response.status}")
            elif length is None or int(length) != len(body) or not whole(path, body):
                self.truncated += 1
                self.note(f"{path}: Content-Length {length}, {len(body)} bytes")
            elif path.endswith(".json"):
                try:
                    json.loads(body)
                except ValueError:
                    self.truncated += 1
                    self.note(f"{path}: JSON does not parse")

    def note(self, problem: str) -> None:
        if len(self.problems) < 10:
            self.problems.append(problem)


def event_stream(address: tuple[str, int], stop: threading.Event, seen: list[int]) -> None:
    """Holds the live-reload event stream open and counts its reload events."""
    with socket.create_connection(address) as sock:
        sock.sendall(b"GET /__profilegen/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
        sock.settimeout(0.5)
        tail = b""
        while not stop.is_set():
            try:
                data = sock.recv(65536)
            except socket.timeout:
                continue
            if not data:
                return
            tail = (tail + data)[-4096:]
            seen[0] += data.count(b"event: reload")


def changer(records: Records, stop: threading.Event, made: list[int]) -> None:
    """Changes a record file every 0.3 s until stopped."""
    while not stop.wait(0.3):
        records.change()
        made[0] += 1


def site_paths(output: Path, rng: random.Random) -> list[str]:
    """URL paths of the site's files: every kind of page and data file, shuffled. Not an
    author's `publications.*` exports: a list that grows past the size kept inline in the
    page gets them and one that shrinks loses them, as a longer abstract can make it."""
    paths = []
    for path in sorted(output.rglob("*")):
        rel = path.relative_to(output).as_posix()
        hidden = any(part.startswith(".") for part in rel.split("/"))
        if path.is_file() and not hidden and not path.name.startswith("publications."):
            paths.append("/" + rel)
    rng.shuffle(paths)
    return paths


def run_wrk(wrk: str, args: argparse.Namespace, url: str, paths_file: Path) -> tuple[str, dict]:
    """wrk's report and the figures of its Lua checks."""
    env = dict(os.environ, LOAD_PATHS=str(paths_file))
    result = subprocess.run(
        [wrk, f"-t{args.threads}", f"-c{args.connections}", f"-d{args.seconds}s", "--latency", "--timeout", "10s", "-s", str(HERE / "load.lua"), url],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    checks = json.loads(re.search(r"^LOAD (.*)$", result.stdout, re.M).group(1))
    return result.stdout, checks


def main() -> int:
    args = parse_args()
    wrk = ensure_wrk()
    profilegen, gen = binaries(args)
    work = Path(args.dir)
    shutil.rmtree(work, ignore_errors=True)
    subprocess.run(
        [str(gen), "--shape", "arxiv", "--papers", str(args.papers), "--seed", str(args.seed), str(work / "pool")],
        check=True,
        stderr=subprocess.DEVNULL,
    )
    rng = random.Random(args.seed)
    site = work / "site"
    records = Records(site, work / "pool", rng, pages_stay=True)
    process = Process([str(profilegen), "serve", "--port", "0"], site, "Serving")
    host, port = re.search(r"http://([\d.]+):(\d+)/", process.ready_line).groups()
    address = (host, int(port))
    paths = site_paths(site / ".profilegen" / "serve", rng)
    paths_file = work / "paths.txt"
    paths_file.write_text("\n".join(paths) + "\n")
    start_line = len(process.lines)

    stop = threading.Event()
    made, reloads = [0], [0]
    checker = Checker(address, paths, stop)
    helpers = [
        checker,
        threading.Thread(target=event_stream, args=(address, stop, reloads), daemon=True),
        threading.Thread(target=changer, args=(records, stop, made), daemon=True),
    ]
    for helper in helpers:
        helper.start()
    report, checks = run_wrk(wrk, args, f"http://{host}:{port}", paths_file)
    stop.set()
    for helper in helpers:
        helper.join(10)
    time.sleep(1)
    process.stop()

    lines = process.lines[start_line:]
    rebuilds = sum(1 for line in lines if re.search(r" in \d+ ms$", line))
    failed = sum(1 for line in lines if "build failed" in line)
    rps = re.search(r"Requests/sec:\s+([\d.]+)", report).group(1)
    latency = dict(re.findall(r"^\s+(50|75|90|99)%\s+(\S+)", report, re.M))
    socket_errors = re.search(r"Socket errors: (.*)", report)
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", report)
    wrk_errors = sum(int(n) for n in re.findall(r"\d+", socket_errors.group(1))) if socket_errors else 0
    wrk_bad = int(non_2xx.group(1)) if non_2xx else 0
    print(f"load: {len(paths)} files of a {args.papers}-paper site, {args.seconds} s, {args.connections} connections, {args.threads} wrk threads")
    print(f"  wrk: {checks['requests']} requests, {rps} requests/s; latency p50 {latency.get('50')}, p90 {latency.get('90')}, p99 {latency.get('99')}")
    print(f"  wrk: {wrk_errors} socket errors, {wrk_bad + checks['status']} not 200, {checks['truncated']} truncated")
    print(f"  checker: {checker.requests} requests, {checker.errors} errors, {checker.bad_status} not 200, {checker.truncated} truncated")
    print(f"  while {made[0]} record changes made {rebuilds} rebuilds ({failed} failed) and {reloads[0]} reload events")
    for problem in checker.problems + checks.get("problems", []):
        print(f"    {problem}")
    bad = wrk_errors + wrk_bad + checks["status"] + checks["truncated"] + checker.errors + checker.bad_status + checker.truncated + failed
    ok = bad == 0 and rebuilds > 0 and checker.requests > 0
    print("load: " + ("passed" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
