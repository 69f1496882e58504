#!/usr/bin/env node
// Search queries against a built site, without a browser.
//
//   node tests/search/query.mjs PROFILEGEN_BINARY
//
// Writes a few record files whose names and titles hold stop words into a temporary
// folder, builds them with PROFILEGEN_BINARY, then runs the site's own search.js (as
// built, in a `vm` context with a small stand-in for the page and `fetch` reading the
// built files) on each query below and checks the results. Prints one line per query;
// exits 1 if any check fails.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';

// One author's record file: the name and their papers as [year, title, abstract, subject].
function recordFile(name, papers) {
  const count = papers.length === 1 ? '1 record' : `${papers.length} records`;
  const blocks = ['arXiv subjects', name, `Publications and source records attributed to ${name}.`,
    `${count}Linked to original sources`];
  for (const [year, title, abstract, subject] of papers) {
    blocks.push(`arXiv${year}`, title, abstract, `${subject}\u2197`);
  }
  return blocks.join('\n\n');
}

const AUTHORS = {
  'an-li.txt': ['An Li', [[2024, 'Lithium anodes at scale', 'We grow anodes and measure their capacity.', 'cond-mat.mtrl-sci']]],
  'li-wei.txt': ['Li Wei', [[2023, 'Quantum dots in a cavity', 'Dots couple to light.', 'quant-ph']]],
  'will-smith.txt': ['Will Smith', [[2022, 'The Megatron engine', 'A system for large models.', 'cs.DC']]],
};

// Each query, and what its results must be: `first` is the first result's title,
// `has` titles among the results, `lacks` [kind, title] pairs not among them
// (kind "a" author, "p" paper).
const CASES = [
  // A stop word with a name: asked of authors, so Li Wei is not an answer; papers
  // keep matching on "li" alone (their prose may hold "an"), ranked after.
  { query: 'an li', first: 'An Li', has: ['Lithium anodes at scale', 'Quantum dots in a cavity'], lacks: [['a', 'Li Wei']] },
  // A stop word the paper's title holds, which the index leaves out of titles.
  { query: 'the Megatron', first: 'The Megatron engine' },
  // Stop words alone are asked of every result: names hold them.
  { query: 'an', first: 'An Li', lacks: [['a', 'Li Wei'], ['a', 'Will Smith']] },
  { query: 'will', first: 'Will Smith', lacks: [['a', 'An Li']] },
  { query: 'will smith', first: 'Will Smith', has: ['The Megatron engine'] },
  // A plain word finds every name that has it.
  { query: 'li', has: ['An Li', 'Li Wei'] },
];

function buildSite(binary) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'profilegen-search-'));
  const records = path.join(root, 'content', 'records');
  fs.mkdirSync(records, { recursive: true });
  for (const [file, [name, papers]] of Object.entries(AUTHORS)) {
    fs.writeFileSync(path.join(records, file), recordFile(name, papers));
  }
  execFileSync(binary, ['build', '--quiet', '--root', root], { stdio: ['ignore', 'ignore', 'inherit'] });
  return { root, site: path.join(root, 'public') };
}

// A stand-in for the elements search.js touches.
class Element {
  constructor(tag, attributes = {}) {
    this.tag = tag;
    this.attributes = { ...attributes };
    this.children = [];
    this.textContent = '';
    this.listeners = {};
  }
  getAttribute(name) { return this.attributes[name] ?? null; }
  setAttribute(name, value) { this.attributes[name] = String(value); }
  appendChild(child) { this.children.push(child); return child; }
  addEventListener(type, listener) { this.listeners[type] = listener; }
  querySelectorAll() { return []; }
  focus() {}
  set textContent(value) { this.text = value; if (value === '') this.children = []; }
  get textContent() { return this.text; }
}

// Runs the built search.js on `/search/?q=QUERY` and resolves to the listed results,
// each {kind, title}.
function runQuery(site, query) {
  const list = new Element('ol', { 'data-root': '', 'data-index': 'search/' });
  const input = new Element('input');
  input.form = new Element('form');
  const status = new Element('p');
  const byId = { 'search-results': list, 'search-input': input, 'search-status': status };
  const href = `http://localhost/search/?q=${encodeURIComponent(query)}`;
  const document = {
    getElementById: (id) => byId[id] ?? null,
    createElement: (tag) => new Element(tag),
    addEventListener() {},
    activeElement: null,
  };
  const fetch = (url) => {
    const file = path.join(site, ...url.split('/'));
    return Promise.resolve(fs.existsSync(file)
      ? { ok: true, status: 200, json: () => Promise.resolve(JSON.parse(fs.readFileSync(file, 'utf8'))) }
      : { ok: false, status: 404 });
  };
  const context = vm.createContext({
    document, fetch, URL, URLSearchParams, TextEncoder, Map, Set, Promise,
    window: { location: { href, search: new URL(href).search } },
    history: { replaceState() {} },
    setTimeout, clearTimeout,
  });
  vm.runInContext(fs.readFileSync(path.join(site, 'search.js'), 'utf8'), context);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = () => {
      if (list.getAttribute('data-query') === query) {
        resolve(list.children.map((item) => ({
          kind: item.children[0].textContent === 'Author' ? 'a' : 'p',
          title: item.children[1].textContent,
        })));
      } else if (status.textContent.startsWith('Search is unavailable')) {
        reject(new Error(status.textContent));
      } else if (Date.now() - started > 5000) {
        reject(new Error('no results within 5 s'));
      } else {
        setTimeout(poll, 5);
      }
    };
    poll();
  });
}

function problemsOf(c, results) {
  const problems = [];
  const titles = results.map((r) => r.title);
  if (c.first && titles[0] !== c.first) problems.push(`first result is ${JSON.stringify(titles[0])}, not "${c.first}"`);
  for (const t of c.has ?? []) if (!titles.includes(t)) problems.push(`"${t}" is missing`);
  for (const [kind, t] of c.lacks ?? []) {
    if (results.some((r) => r.kind === kind && r.title === t)) problems.push(`"${t}" (${kind}) should not be listed`);
  }
  return problems;
}

async function main() {
  const binary = process.argv[2];
  if (!binary) {
    console.error('usage: node tests/search/query.mjs PROFILEGEN_BINARY');
    process.exit(2);
  }
  const { root, site } = buildSite(path.resolve(binary));
  let failed = 0;
  try {
    for (const c of CASES) {
      const results = await runQuery(site, c.query);
      const problems = problemsOf(c, results);
      const shown = results.map((r) => `${r.kind}:${r.title}`).join(', ');
      console.log(`search "${c.query}": ${problems.length ? 'FAILED' : 'ok'} (${shown})`);
      for (const p of problems) console.log(`  ${p}`);
      if (problems.length) failed++;
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  if (failed) process.exit(1);
}

await main();
