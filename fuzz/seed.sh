#!/usr/bin/env bash
# Builds the fuzz corpora in fuzz/corpus/<target>/ from record files and the example
# site: whole record files for `records`, their titles and abstract paragraphs for `tex`
# and `slug`, the site configuration and Markdown files for `config` and
# `front_matter`, and request paths of a built site's shape for `request_path`.
#
#   fuzz/seed.sh [RECORD_FOLDER...]
#
# Without arguments the record files are the example site's (content/records) and the
# test fixtures (tests/fixtures/arxiv-math); pass larger folders of record files (such as
# an arXiv export) for a campaign. Seeds are named by their content's hash, so running
# it again only adds what is new; fuzz/corpus is not committed.
set -euo pipefail
cd "$(dirname "$0")/.."

folders=("$@")
if [ ${#folders[@]} -eq 0 ]; then
  folders=(content/records tests/fixtures/arxiv-math)
fi

python3 - "${folders[@]}" <<'PY'
import hashlib, pathlib, sys

corpus = pathlib.Path("fuzz/corpus")
# Caps keep the corpora quick to load: libFuzzer finds the rest by mutation.
MAX_RECORD_FILE = 16384   # bytes, the records target's -max_len in fuzz/campaign.sh
MAX_TEXT = 4096           # bytes, the tex target's -max_len
MAX_TEXTS = 6000

def add(target, data):
    folder = corpus / target
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / hashlib.sha1(data).hexdigest()
    if not path.exists():
        path.write_bytes(data)

texts, titles = set(), set()
for folder in sys.argv[1:]:
    for path in sorted(pathlib.Path(folder).glob("*.txt")):
        data = path.read_bytes()
        if len(data) <= MAX_RECORD_FILE:
            add("records", data)
        blocks = data.decode("utf-8", "replace").replace("\r", "").split("\n\n")
        for i, block in enumerate(blocks):
            block = block.strip()
            if len(block.encode()) > MAX_TEXT or block.endswith("\u2197"):
                continue
            if any(c in block for c in "$\\{}~`"):
                texts.add(block)
            if i > 0 and blocks[i - 1].strip().startswith("arXiv") and len(block) < 300:
                titles.add(block)

for text in sorted(texts)[:MAX_TEXTS]:
    add("tex", text.encode())
for title in sorted(titles)[:MAX_TEXTS]:
    add("slug", title.encode())
    add("cite", title.encode())

for path in [pathlib.Path("profilegen.yaml"), *pathlib.Path("examples").rglob("*.yaml")]:
    add("config", path.read_bytes())
for path in pathlib.Path("content").rglob("*.md"):
    add("front_matter", path.read_bytes())
add("front_matter", b"---\nname: Ann Author\nhomepage: https://example.org/\n---\n# Bio\n\n[x](javascript:alert(1)) <script>x</script>\n")
for raw in ["/", "/index.html", "/authors/ann-author/", "/papers/a%20b/index.html",
            "/.well-known/security.txt", "/a//b/", "/%2e%2e/x", "/100%25", "/caf%C3%A9/"]:
    add("request_path", raw.encode())

for folder in sorted(corpus.iterdir()):
    print(f"{folder.name}: {sum(1 for _ in folder.iterdir())} seeds")
PY
