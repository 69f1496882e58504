#!/usr/bin/env python3
"""Measures how long `profilegen serve` takes from saving a record file to telling the
browser to reload (the server-sent `reload` event), on the example site.

    cargo build --release && python3 examples/reload_latency.py

Prints the minimum, median and maximum of 10 saves.
"""
import subprocess, socket, time, re, sys, os, shutil, threading
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
site = os.path.join(REPO, "target/reload-latency-site")
shutil.rmtree(site, ignore_errors=True)
shutil.copytree(os.path.join(REPO, "content"), site + "/content")
shutil.copy(os.path.join(REPO, "profilegen.yaml"), site)
p = subprocess.Popen([os.path.join(REPO, "target/release/profilegen"), "serve", "--port", "0"], cwd=site, stderr=subprocess.PIPE, text=True)
addr = None
for line in p.stderr:
    m = re.search(r"Serving http://([\d.]+):(\d+)/", line)
    if m:
        addr = (m.group(1), int(m.group(2))); break
threading.Thread(target=lambda: [None for _ in p.stderr], daemon=True).start()
results = []
rec = site + "/content/records/000_bba791200e6c06d7.txt"
orig = open(rec, encoding="utf-8").read()
for i in range(10):
    s = socket.create_connection(addr)
    s.sendall(b"GET /__profilegen/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
    s.settimeout(10)
    time.sleep(0.3)
    try:
        while True:
            s.setblocking(False); s.recv(65536)
    except Exception: pass
    s.setblocking(True); s.settimeout(10)
    t0 = time.time()
    with open(rec, "w", encoding="utf-8") as f:
        f.write(orig.replace("Pretraining Large Language Models", "Pretraining Large Language Models v%d" % i))
    buf = b""
    while b"event: reload" not in buf:
        buf += s.recv(65536)
    results.append((time.time() - t0) * 1000)
    s.close()
    time.sleep(0.3)
open(rec, "w", encoding="utf-8").write(orig)
p.terminate()
results.sort()
print("reload latency ms: min %.0f median %.0f max %.0f" % (results[0], results[len(results)//2], results[-1]))
