#!/usr/bin/env python3
"""Turn a folder of author record files (profilegen's input; README, "Record format") into
an equivalent Zola site and Hugo site, for timing fresh builds of "the same site".

    python3 records_to_ssg.py RECORDS_DIR ZOLA_SITE_DIR HUGO_SITE_DIR [--taxonomy-rs FILE]

Both sites get: one page per paper (title, year, source, subject with its full arXiv name,
abstract rendered from Markdown, author links), taxonomies `authors`, `subjects`, `years`
with list pages and per-term pages paginated by 400 (profilegen's PAGE_SIZE), per-term
feeds for authors and subjects (Zola `feed = true`; Hugo makes RSS for every taxonomy and
term by default, so it also has year feeds) limited to 50 entries (profilegen's
DEFAULT_FEED_LIMIT), a site feed, a home page with the 50 newest papers, sitemap, robots.txt
and a 404 page. The papers section itself has no list page (profilegen has none).

Linking is simplified: records are one paper when the normalized title (NFKC, casefold,
non-alphanumerics collapsed) and the year match. profilegen also compares the normalized
abstracts, never merges two records of one file, and resolves disagreements (longest
abstract, most frequent subject); on the generated corpora this gives the same papers.

What profilegen does that these sites do not (it does more work per build):
  - converts TeX in titles/abstracts to HTML/MathML (here `$...$` is left as text);
  - per-author citation exports (publications.bib/.ris/.json) and JSON data files
    (data/papers.json, data/authors/...), and a sharded client-side search index (search/);
  - richer pages: meta/OpenGraph/Highwire citation tags, JSON-LD, co-author lists,
    nearby papers, per-author Atom feeds, subject/year facts;
  - a build cache (.profilegen/) and a manifest, written on every build (removed between
    runs here so each run is a fresh build), and many input diagnostics.
"""
import json
import os
import re
import sys
import unicodedata

ARROW = "\u2197"
SOURCE_YEAR = re.compile(r"^[A-Za-z][A-Za-z0-9._-]*(?<![0-9])([0-9]{4})$")


def parse_file(path):
    """Yield (author_name, [record dict]) from one record file (positional, as profilegen)."""
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", "replace")
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    blocks, cur = [], []
    for line in text.split("\n"):
        line = line.rstrip()
        if line:
            cur.append(line)
        elif cur:
            blocks.append("\n".join(cur))
            cur = []
    if cur:
        blocks.append("\n".join(cur))
    # Header: banner, name, attribution, count.
    if len(blocks) < 4:
        return None, []
    name = blocks[1].strip()
    i = 4
    records = []
    while i < len(blocks):
        m = SOURCE_YEAR.match(blocks[i]) if "\n" not in blocks[i] else None
        if not m:
            i += 1
            continue
        source, year = blocks[i][:-4], int(m.group(1))
        i += 1
        if i >= len(blocks):
            break
        title = " ".join(blocks[i].split("\n"))
        i += 1
        paragraphs, subjects = [], []
        while i < len(blocks):
            b = blocks[i]
            if b.endswith(ARROW):
                subjects = [c.strip() for c in b.split(ARROW) if c.strip()]
                i += 1
                break
            if "\n" not in b and SOURCE_YEAR.match(b):
                break
            paragraphs.append(b)
            i += 1
        records.append(
            {"source": source, "year": year, "title": title,
             "abstract": "\n\n".join(paragraphs), "subjects": subjects}
        )
    return name, records


def norm(s):
    s = unicodedata.normalize("NFKC", s).casefold()
    return " ".join(re.sub(r"[\W_]+", " ", s).split())


def slugify(s):
    s = unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", "-", s).strip("-") or "paper"


def load_subject_names(rs_path):
    names = {}
    try:
        with open(rs_path, encoding="utf-8") as f:
            for code, name in re.findall(r'cat\("([^"]+)",\s*"([^"]+)"\)', f.read()):
                names[code] = name
    except OSError:
        pass
    return names


def toml_str(s):
    return json.dumps(s, ensure_ascii=False)  # JSON strings are valid TOML basic strings


def body_markdown(abstract):
    # Abstract as Markdown; keep raw `<` and shortcode-like braces from being markup.
    return abstract.replace("&", "&amp;").replace("<", "&lt;").replace("{{", "{ {").replace("{%", "{ %")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


STYLE = "body{font-family:sans-serif;max-width:50em;margin:auto;padding:1em}nav a{margin-right:1em}\n"

ZOLA_CONFIG = """base_url = "https://example.org"
title = "Scholarly profiles"
compile_sass = false
build_search_index = false
generate_feeds = true
feed_filenames = ["atom.xml"]
feed_limit = 50
taxonomies = [
  {name = "authors", feed = true, paginate_by = 400},
  {name = "subjects", feed = true, paginate_by = 400},
  {name = "years", paginate_by = 400},
]
"""

ZOLA_TEMPLATES = {
    "base.html": """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{% block title %}{{ config.title }}{% endblock title %}</title>
<link rel="stylesheet" href="{{ get_url(path='style.css') }}">
<link rel="alternate" type="application/atom+xml" href="{{ get_url(path='atom.xml') }}"></head>
<body><header><a href="{{ config.base_url }}">{{ config.title }}</a>
<nav><a href="{{ get_url(path='authors/') }}">Authors</a><a href="{{ get_url(path='subjects/') }}">Subjects</a><a href="{{ get_url(path='years/') }}">Years</a></nav></header>
<main>{% block content %}{% endblock content %}</main></body></html>
""",
    "index.html": """{% extends "base.html" %}
{% block content %}<h1>Newest papers</h1>
{% set papers = get_section(path="papers/_index.md") %}
<ul>{% for p in papers.pages | slice(end=50) %}<li><a href="{{ p.permalink }}">{{ p.title }}</a> ({{ p.extra.year }})</li>{% endfor %}</ul>
{% endblock content %}
""",
    "section.html": """{% extends "base.html" %}
{% block content %}<h1>{{ section.title }}</h1>{% endblock content %}
""",
    "page.html": """{% extends "base.html" %}
{% block title %}{{ page.title }} · {{ config.title }}{% endblock title %}
{% block content %}<article><h1>{{ page.title }}</h1>
<p class="byline">{% for a in page.taxonomies.authors %}<a href="{{ get_taxonomy_url(kind='authors', name=a) }}">{{ a }}</a>{% if not loop.last %}, {% endif %}{% endfor %}</p>
<dl><dt>Year</dt><dd>{% for y in page.taxonomies.years %}<a href="{{ get_taxonomy_url(kind='years', name=y) }}">{{ y }}</a>{% endfor %}</dd>
<dt>Source</dt><dd>{{ page.extra.source }}</dd>
<dt>Subject</dt><dd>{% for s in page.taxonomies.subjects %}<a href="{{ get_taxonomy_url(kind='subjects', name=s) }}">{{ page.extra.subject_names[loop.index0] }}</a> ({{ s }}) {% endfor %}</dd></dl>
<section class="abstract">{{ page.content | safe }}</section></article>
{% endblock content %}
""",
    "taxonomy_list.html": """{% extends "base.html" %}
{% block content %}<h1>{{ taxonomy.name | capitalize }}</h1>
<ul>{% for t in terms %}<li><a href="{{ t.permalink }}">{{ t.name }}</a> ({{ t.page_count }})</li>{% endfor %}</ul>
{% endblock content %}
""",
    "taxonomy_single.html": """{% extends "base.html" %}
{% block title %}{{ term.name }} · {{ config.title }}{% endblock title %}
{% block content %}<h1>{{ term.name }}</h1><p>{{ term.page_count }} papers</p>
{% if taxonomy.feed %}<p><a href="{{ term.permalink }}atom.xml">Feed</a></p>{% endif %}
<ul>{% for p in paginator.pages %}<li><a href="{{ p.permalink }}">{{ p.title }}</a> ({{ p.extra.year }})</li>{% endfor %}</ul>
<nav>{% if paginator.previous %}<a href="{{ paginator.previous }}">Newer</a>{% endif %}{% if paginator.next %}<a href="{{ paginator.next }}">Older</a>{% endif %}</nav>
{% endblock content %}
""",
}

HUGO_CONFIG = """baseURL = "https://example.org/"
title = "Scholarly profiles"
enableRobotsTXT = true
removePathAccents = true
[taxonomies]
  author = "authors"
  subject = "subjects"
  year = "years"
[pagination]
  pagerSize = 400
[services.rss]
  limit = 50
"""

HUGO_LAYOUTS = {
    "baseof.html": """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{ block "title" . }}{{ site.Title }}{{ end }}</title>
<link rel="stylesheet" href="{{ "style.css" | relURL }}">
{{ with site.Home.OutputFormats.Get "rss" }}<link rel="alternate" type="application/rss+xml" href="{{ .RelPermalink }}">{{ end }}</head>
<body><header><a href="{{ site.Home.RelPermalink }}">{{ site.Title }}</a>
<nav><a href="{{ "authors/" | relURL }}">Authors</a><a href="{{ "subjects/" | relURL }}">Subjects</a><a href="{{ "years/" | relURL }}">Years</a></nav></header>
<main>{{ block "main" . }}{{ end }}</main></body></html>
""",
    "home.html": """{{ define "main" }}<h1>Newest papers</h1>
<ul>{{ range first 50 site.RegularPages.ByDate.Reverse }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a> ({{ .Params.year }})</li>{{ end }}</ul>
{{ end }}
""",
    "section.html": """{{ define "main" }}<h1>{{ .Title }}</h1>{{ end }}
""",
    "page.html": """{{ define "title" }}{{ .Title }} · {{ site.Title }}{{ end }}
{{ define "main" }}<article><h1>{{ .Title }}</h1>
<p class="byline">{{ range $i, $a := .GetTerms "authors" }}{{ if $i }}, {{ end }}<a href="{{ $a.RelPermalink }}">{{ $a.LinkTitle }}</a>{{ end }}</p>
<dl><dt>Year</dt><dd>{{ range .GetTerms "years" }}<a href="{{ .RelPermalink }}">{{ .LinkTitle }}</a>{{ end }}</dd>
<dt>Source</dt><dd>{{ .Params.source }}</dd>
<dt>Subject</dt><dd>{{ $names := .Params.subject_names }}{{ range $i, $s := .GetTerms "subjects" }}<a href="{{ $s.RelPermalink }}">{{ index $names $i }}</a> ({{ $s.LinkTitle }}) {{ end }}</dd></dl>
<section class="abstract">{{ .Content }}</section></article>
{{ end }}
""",
    "taxonomy.html": """{{ define "main" }}<h1>{{ .Title }}</h1>
<ul>{{ range .Data.Terms.Alphabetical }}<li><a href="{{ .Page.RelPermalink }}">{{ .Page.LinkTitle }}</a> ({{ .Count }})</li>{{ end }}</ul>
{{ end }}
""",
    "term.html": """{{ define "title" }}{{ .Title }} · {{ site.Title }}{{ end }}
{{ define "main" }}<h1>{{ .Title }}</h1><p>{{ len .Pages }} papers</p>
{{ with .OutputFormats.Get "rss" }}<p><a href="{{ .RelPermalink }}">Feed</a></p>{{ end }}
{{ $p := .Paginate .Pages.ByDate.Reverse }}
<ul>{{ range $p.Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a> ({{ .Params.year }})</li>{{ end }}</ul>
<nav>{{ with $p.Prev }}<a href="{{ .URL }}">Newer</a>{{ end }}{{ with $p.Next }}<a href="{{ .URL }}">Older</a>{{ end }}</nav>
{{ end }}
""",
    "404.html": """{{ define "main" }}<h1>Not found</h1>{{ end }}
""",
}


def main():
    args = sys.argv[1:]
    rs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "taxonomy.rs")
    if "--taxonomy-rs" in args:
        k = args.index("--taxonomy-rs")
        rs = args[k + 1]
        del args[k:k + 2]
    if len(args) != 3:
        sys.exit(__doc__)
    records_dir, zola_dir, hugo_dir = args
    subject_names = load_subject_names(rs)

    papers = {}  # key -> paper dict
    order = []
    authors = set()
    n_records = 0
    for fname in sorted(os.listdir(records_dir)):
        if not fname.endswith(".txt"):
            continue
        name, records = parse_file(os.path.join(records_dir, fname))
        if not name:
            continue
        authors.add(name)
        for r in records:
            n_records += 1
            key = (norm(r["title"]), r["year"])
            p = papers.get(key)
            if p is None:
                p = dict(r, authors=[])
                papers[key] = p
                order.append(key)
            elif len(r["abstract"]) > len(p["abstract"]):
                p["abstract"] = r["abstract"]
            if name not in p["authors"]:
                p["authors"].append(name)

    slugs = set()
    subjects, years = set(), set()
    for d in (zola_dir, hugo_dir):
        write(os.path.join(d, "static", "style.css"), STYLE)
    write(os.path.join(zola_dir, "config.toml"), ZOLA_CONFIG)
    write(os.path.join(zola_dir, "content", "_index.md"), "+++\ntitle = \"Home\"\n+++\n")
    write(os.path.join(zola_dir, "content", "papers", "_index.md"),
          "+++\ntitle = \"Papers\"\nsort_by = \"date\"\nrender = false\n+++\n")
    for name, text in ZOLA_TEMPLATES.items():
        write(os.path.join(zola_dir, "templates", name), text)
    write(os.path.join(hugo_dir, "hugo.toml"), HUGO_CONFIG)
    write(os.path.join(hugo_dir, "content", "papers", "_index.md"),
          "+++\ntitle = \"Papers\"\n[build]\n  render = \"never\"\n  list = \"always\"\n+++\n")
    for name, text in HUGO_LAYOUTS.items():
        write(os.path.join(hugo_dir, "layouts", name), text)

    for key in order:
        p = papers[key]
        base = slugify(p["title"]) + "-" + str(p["year"])
        slug, n = base, 2
        while slug in slugs:
            slug, n = f"{base}-{n}", n + 1
        slugs.add(slug)
        subjects.update(p["subjects"])
        years.add(p["year"])
        names = [subject_names.get(c, c) for c in p["subjects"]]
        arr = lambda xs: "[" + ", ".join(toml_str(x) for x in xs) + "]"
        common = (
            f"title = {toml_str(p['title'])}\n"
            f"date = {p['year']:04d}-01-01\n"
        )
        tax = (
            f"authors = {arr(p['authors'])}\n"
            f"subjects = {arr(p['subjects'])}\n"
            f"years = {arr([str(p['year'])])}\n"
        )
        extra = (
            f"year = {p['year']}\n"
            f"source = {toml_str(p['source'])}\n"
            f"subject_names = {arr(names)}\n"
        )
        body = body_markdown(p["abstract"]) + "\n"
        write(os.path.join(zola_dir, "content", "papers", slug + ".md"),
              f"+++\n{common}\n[taxonomies]\n{tax}\n[extra]\n{extra}+++\n{body}")
        write(os.path.join(hugo_dir, "content", "papers", slug + ".md"),
              f"+++\n{common}{tax}{extra}+++\n{body}")

    print(f"converter: {n_records} records, {len(papers)} papers, {len(authors)} authors, "
          f"{len(subjects)} subjects, {len(years)} years")


if __name__ == "__main__":
    main()
