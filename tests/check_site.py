#!/usr/bin/env python3
"""Independent checks of a built site, as CI runs them (see .ci/run):

* every internal link and asset reference (href, src, a refresh's URL) of every HTML
  page resolves to a file of the site (anchors included: the target id must exist);
* both paths of every line of `_redirects` are pages (the old one a redirect page);
* every Atom feed parses with feedparser (a real feed parser) without errors, and
  every entry has an id, a title, a link and an updated date;
* the sitemap parses as XML and every <loc> is a page of the site;
* every .json file parses.

    python3 tests/check_site.py SITE_DIR [SITE_DIR ...]

Exits non-zero and lists every problem when anything is wrong.
"""
import json
import os
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

import feedparser


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.refs = []
        self.ids = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "meta" and (attrs.get("http-equiv") or "").lower() == "refresh":
            content = attrs.get("content") or ""
            if "url=" in content:
                self.refs.append(content.split("url=", 1)[1])
        for name in ("href", "src"):
            value = attrs.get(name)
            if value is not None and not (tag == "link" and attrs.get("rel") == "canonical"):
                self.refs.append(value)


def site_files(root):
    files = set()
    for folder, _, names in os.walk(root):
        for name in names:
            files.add(os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/"))
    return files


def resolve(page, ref, files):
    """The site file `ref` points to from `page`, or None for external references."""
    parts = urlsplit(ref)
    if parts.scheme or parts.netloc or ref.startswith("mailto:"):
        return None
    path = unquote(parts.path)
    if path.startswith("/"):
        target = path.lstrip("/")
    else:
        target = os.path.normpath(os.path.join(os.path.dirname(page), path)).replace(os.sep, "/")
        if target == ".":
            target = ""
        if path == "":
            target = page
    if target.startswith(".."):
        return ("outside", target)
    if target == "" or target.endswith("/"):
        target += "index.html"
    elif target not in files and target + "/index.html" in files:
        target += "/index.html"
    return target


def check(root):
    problems = []
    files = site_files(root)
    pages = {}
    for name in sorted(f for f in files if f.endswith(".html")):
        parser = Page()
        with open(os.path.join(root, name), encoding="utf-8") as handle:
            parser.feed(handle.read())
        pages[name] = parser
    links = 0
    for name, parser in pages.items():
        if name == "404.html":
            continue  # served at any depth; its links are absolute
        for ref in parser.refs:
            target = resolve(name, ref, files)
            if target is None:
                continue
            links += 1
            if isinstance(target, tuple):
                problems.append(f"{name}: {ref} leaves the site")
                continue
            if target not in files:
                problems.append(f"{name}: broken link {ref} -> {target}")
                continue
            fragment = urlsplit(ref).fragment
            if fragment and target in pages and unquote(fragment) not in pages[target].ids:
                problems.append(f"{name}: {ref}: no element with id {fragment!r}")
    feeds = [f for f in files if f.endswith("atom.xml")]
    for name in sorted(feeds):
        parsed = feedparser.parse(os.path.join(root, name))
        if parsed.bozo:
            problems.append(f"{name}: not a well-formed feed: {parsed.bozo_exception}")
        if parsed.version != "atom10":
            problems.append(f"{name}: parsed as {parsed.version!r}, not Atom 1.0")
        for entry in parsed.entries:
            for field in ("id", "title", "link", "updated"):
                if not entry.get(field):
                    problems.append(f"{name}: an entry has no {field}")
    if "sitemap.xml" in files:
        tree = ET.parse(os.path.join(root, "sitemap.xml"))
        namespace = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
        locs = [e.text or "" for e in tree.iter(namespace + "loc")]
        if not locs:
            problems.append("sitemap.xml: no <loc>")
        for loc in locs:
            path = urlsplit(loc).path.lstrip("/")
            if (path + "index.html" if path.endswith("/") or not path else path) not in files:
                problems.append(f"sitemap.xml: {loc} is not a page of the site")
    else:
        problems.append("no sitemap.xml")
    redirects = 0
    if "_redirects" in files:
        with open(os.path.join(root, "_redirects"), encoding="utf-8") as handle:
            for line in handle:
                parts = line.split()
                redirects += 1
                if len(parts) != 3 or parts[2] != "301":
                    problems.append(f"_redirects: not `from to 301`: {line.strip()}")
                    continue
                for path in parts[:2]:
                    page = path.lstrip("/") + "index.html"
                    if page not in files:
                        problems.append(f"_redirects: {path} is not a page of the site")
    jsons = [f for f in files if f.endswith(".json")]
    for name in jsons:
        try:
            with open(os.path.join(root, name), encoding="utf-8") as handle:
                json.load(handle)
        except ValueError as error:
            problems.append(f"{name}: invalid JSON: {error}")
    print(f"{root}: {len(pages)} pages, {links} internal links, {len(feeds)} feeds, "
          f"{len(jsons)} JSON files, {redirects} redirects: {len(problems)} problem(s)")
    return problems


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    problems = []
    for root in sys.argv[1:]:
        problems += check(root)
    for problem in problems[:200]:
        print("  " + problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
