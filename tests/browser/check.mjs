#!/usr/bin/env node
// Browser check of built profilegen sites.
//
//   node tests/browser/check.mjs SITE_DIR [SITE_DIR...]
//
// Serves each built site folder over HTTP on 127.0.0.1 and loads its pages in Debian's
// Chromium through playwright-core. Fails on console errors, uncaught exceptions, failed
// or >= 400 same-origin requests, hostile markup that runs or reaches the DOM live, a
// missing "Copy BibTeX" button, and (when the site has /search/) search that does not
// find the expected paper. Prints one line per site and every failure; exits 1 on any
// failure, 2 on bad usage or when the browser cannot start. Author pages' co-author
// graphs must be styled by the stylesheet (edges, nodes, label halos) with an edge a node.
//
// Environment:
//   CHROMIUM                   browser binary (default /usr/bin/chromium)
//   BROWSER_CHECK_SEARCH_QUERY search query for /search/ (default: per site, see below)
//   BROWSER_CHECK_SEARCH_TITLE title a result must contain for that query
//   BROWSER_CHECK_WORKERS      pages loaded in parallel per site (default 2)

import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { launchChromium, startServer } from './serve.mjs';

const MAX_AUTHORS = 40;
const MAX_PAPERS = 80;
const NAV_TIMEOUT_MS = 15_000;
const SEARCH_TIMEOUT_MS = 5_000;
const SETTLE_TIMEOUT_MS = 3_000;
const WORKERS = Math.max(1, Number.parseInt(process.env.BROWSER_CHECK_WORKERS ?? '2', 10) || 2);

// The example site's paper that search must find; other sites get a query made from
// their own data/papers.json. The query starts with a stop word, which the index leaves
// out of titles and abstracts and a query does not ask of papers: no term of the paper
// starts with "the", so the paper is found only if the query does not ask it.
const EXAMPLE_SEARCH = {
  query: 'the Megatron',
  title: 'Scalable Training of Mixture-of-Experts Models with Megatron Core',
};

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // playwright-core's launch() gives the browser a fresh, temporary --user-data-dir
  // of its own (it refuses one in args) and removes it on close.
];

// ---------------------------------------------------------------------------------------
// Which pages to visit, from the built files.

function subdirsWithIndex(dir) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name)
    .filter((name) => fs.existsSync(path.join(dir, name, 'index.html')))
    .sort();
}

// Up to `cap` items: the preferred ones first, then the rest spread evenly over the list.
function pick(items, cap, preferred = () => false) {
  if (items.length <= cap) return items;
  const first = items.filter(preferred).slice(0, cap);
  const rest = items.filter((x) => !first.includes(x));
  const room = cap - first.length;
  const spread = [];
  for (let i = 0; i < room; i++) spread.push(rest[Math.floor((i * rest.length) / room)]);
  return [...first, ...spread];
}

// Pages whose source has escaped hostile text: the ones most worth loading.
const HOSTILE_TEXT = /&lt;(script|img|svg|iframe)|onerror|javascript:|alert\(/i;
function looksHostile(file) {
  try {
    return HOSTILE_TEXT.test(fs.readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
}

const enc = (s) => encodeURIComponent(s);

function planPages(root) {
  const pages = [];
  const add = (kind, urlPath, extra = {}) => pages.push({ kind, path: urlPath, ...extra });

  add('home', '/');
  if (fs.existsSync(path.join(root, 'authors', 'index.html'))) add('authors index', '/authors/');
  const authors = subdirsWithIndex(path.join(root, 'authors'));
  for (const a of pick(authors, MAX_AUTHORS, (a) => looksHostile(path.join(root, 'authors', a, 'index.html')))) {
    add('author', `/authors/${enc(a)}/`);
  }
  const papers = subdirsWithIndex(path.join(root, 'papers'));
  for (const p of pick(papers, MAX_PAPERS, (p) => looksHostile(path.join(root, 'papers', p, 'index.html')))) {
    add('paper', `/papers/${enc(p)}/`);
  }
  if (fs.existsSync(path.join(root, 'subjects', 'index.html'))) add('subjects index', '/subjects/');
  const subjects = subdirsWithIndex(path.join(root, 'subjects'));
  if (subjects.length) add('subject', `/subjects/${enc(subjects[0])}/`);
  if (fs.existsSync(path.join(root, 'years', 'index.html'))) add('years index', '/years/');
  const years = subdirsWithIndex(path.join(root, 'years'));
  if (years.length) add('year', `/years/${enc(years[years.length - 1])}/`);
  // Extra pages from content/pages (e.g. /about/).
  const known = new Set(['authors', 'papers', 'subjects', 'years', 'data', 'search']);
  for (const d of subdirsWithIndex(root)) if (!known.has(d)) add('page', `/${enc(d)}/`);
  add('not found', '/no-such-page/', { expectStatus: 404 });
  return { pages, counts: { authors: authors.length, papers: papers.length } };
}

// Every paper of the site's data: the shards data/papers.json lists.
function readPapers(root) {
  const index = JSON.parse(fs.readFileSync(path.join(root, 'data', 'papers.json'), 'utf8'));
  return index.shards.flatMap((shard) => {
    const file = shard.url.slice(shard.url.indexOf('data/'));
    return JSON.parse(fs.readFileSync(path.join(root, ...file.split('/')), 'utf8'));
  });
}

// The search query for a site: the environment's, the example site's, or a distinctive
// word of the first plain paper title in data/papers.json.
function searchTarget(root) {
  const envQuery = process.env.BROWSER_CHECK_SEARCH_QUERY;
  const envTitle = process.env.BROWSER_CHECK_SEARCH_TITLE;
  if (envQuery && envTitle) return { query: envQuery, title: envTitle };
  let papers = [];
  try {
    papers = readPapers(root);
  } catch {
    // no data: fall back to the example site's query
  }
  if (envQuery || envTitle) {
    const q = (envQuery ?? '').toLowerCase();
    const match = papers.find((p) => typeof p.title === 'string' && p.title.toLowerCase().includes(q));
    return { query: envQuery ?? envTitle, title: envTitle ?? match?.title ?? envQuery };
  }
  if (!papers.length || papers.some((p) => p.title === EXAMPLE_SEARCH.title)) return EXAMPLE_SEARCH;
  const plain = papers.find((p) => typeof p.title === 'string' && /^[\p{L}\p{N} ,:;'-]+$/u.test(p.title));
  if (!plain) return EXAMPLE_SEARCH;
  // Its rarest word across all titles (the longest on a tie), so the paper is near the top.
  const wordsOf = (t) => new Set(String(t).toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 4));
  const freq = new Map();
  for (const p of papers) for (const w of wordsOf(p.title)) freq.set(w, (freq.get(w) ?? 0) + 1);
  const words = plain.title.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 4);
  if (!words.length) return { query: plain.title, title: plain.title };
  const score = (w) => [freq.get(w.toLowerCase()) ?? 0, -w.length];
  const query = words.reduce((a, b) => {
    const [fa, la] = score(a);
    const [fb, lb] = score(b);
    return fb < fa || (fb === fa && lb < la) ? b : a;
  });
  return { query, title: plain.title };
}

// ---------------------------------------------------------------------------------------
// Instrumented pages.

const INIT_SCRIPT = `(() => {
  const seen = (window.__browserCheckDialogs = []);
  for (const kind of ['alert', 'confirm', 'prompt']) {
    const replacement = function (...args) {
      const text = kind + '(' + args.map((a) => String(a)).join(', ') + ')';
      seen.push(text);
      try { window.__browserCheckDialog(text); } catch (e) {}
      return kind === 'confirm' ? false : kind === 'prompt' ? null : undefined;
    };
    try {
      Object.defineProperty(window, kind, { value: replacement, writable: false, configurable: false });
    } catch (e) {}
  }
})();`;

// Runs in the page after load: markup that must never be live, and broken images.
function inspectDom() {
  const problems = [];
  const short = (s) => {
    const t = s.replace(/\s+/g, ' ');
    return t.length > 120 ? t.slice(0, 117) + '...' : t;
  };
  const tag = (el) => short(el.outerHTML.slice(0, el.outerHTML.indexOf('>') + 1));
  const local = (u) => (u.startsWith(location.origin) ? u.slice(location.origin.length) : u);
  for (const s of document.querySelectorAll('script:not([src]):not([type="application/ld+json"])')) {
    if (s.textContent.trim() !== '') problems.push(`inline <script> with code: ${short(s.outerHTML)}`);
  }
  for (const s of document.querySelectorAll('script[type="application/ld+json"]')) {
    try {
      JSON.parse(s.textContent);
    } catch (e) {
      problems.push(`JSON-LD that is not JSON (${e.message}): ${short(s.textContent)}`);
    }
  }
  // [onerror], [onload], [onclick] and every other on* attribute, the body included.
  for (const el of document.body ? [document.body, ...document.body.querySelectorAll('*')] : []) {
    for (const attr of el.attributes) {
      if (/^on/i.test(attr.name)) {
        problems.push(`event-handler attribute ${attr.name} on <${el.localName}>: ${tag(el)}`);
      }
    }
  }
  for (const el of document.querySelectorAll('img[src="x"], [src^="javascript:" i], a[href^="javascript:" i]')) {
    problems.push(`injected element: ${short(el.outerHTML)}`);
  }
  for (const img of document.images) {
    if (img.complete && img.naturalWidth === 0 && new URL(img.currentSrc || img.src, location.href).origin === location.origin) {
      problems.push(`image did not load: ${local(img.currentSrc || img.src)}`);
    }
  }
  const icons = [...document.querySelectorAll('link[rel~="icon"]')].map((l) => l.href);
  return { problems, icons };
}

async function checkSite(browser, siteDir) {
  const root = path.resolve(siteDir);
  const failures = [];
  const notes = [];
  const started = Date.now();
  if (!fs.existsSync(path.join(root, 'index.html'))) {
    failures.push({ url: root, message: 'not a built site: no index.html' });
    return { root, visited: 0, failures, notes, ms: Date.now() - started, search: 'search: not run' };
  }

  const server = await startServer(root);
  const origin = `http://127.0.0.1:${server.address().port}`;
  const sameOrigin = (u) => {
    try {
      return new URL(u).origin === origin;
    } catch {
      return false;
    }
  };
  // `resource`: the same broken subresource shows as a bad response, a failed request
  // and a console error; only the most telling one (lowest rank) is kept.
  let visited = 0;
  const fail = (url, message, resource, rank = 0) =>
    failures.push({ url: String(url).replace(origin, ''), message, resource, rank });

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(NAV_TIMEOUT_MS);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  // Nothing leaves the machine: other origins are blocked, and noted.
  await context.route(
    (u) => !sameOrigin(u.href),
    (route) => route.abort('blockedbyclient'),
  );
  const tabOf = new Map(); // page -> tab
  await context.exposeBinding('__browserCheckDialog', ({ page, frame }, text) => {
    const pageUrl = tabOf.get(page)?.current?.url ?? page.url();
    const inFrame = frame === page.mainFrame() ? '' : ` (in frame ${frame.url()})`;
    fail(pageUrl, `hostile script ran: ${text}${inFrame}`);
  });
  await context.addInitScript(INIT_SCRIPT);

  const iconStatus = new Map();
  async function checkIcon(pageUrl, href) {
    if (!sameOrigin(href)) return;
    if (!iconStatus.has(href)) {
      iconStatus.set(href, fetch(href).then((r) => r.status, (e) => `error ${e.message}`));
    }
    const status = await iconStatus.get(href);
    if (status !== 200) fail(pageUrl, `favicon ${href.replace(origin, '')} answered ${status}`, href, -1);
  }

  // One instrumented tab per worker, reused across pages.
  async function openTab() {
    const page = await context.newPage();
    const tab = { page, current: null, pending: new Set(), generation: 0, generationOf: new WeakMap(), closing: false };
    tabOf.set(page, tab);
    const where = () => tab.current?.url ?? page.url();
    const isExpectedMainDoc = (request) =>
      tab.current?.expectStatus && request.isNavigationRequest() && request.frame() === page.mainFrame();

    page.on('console', (msg) => {
      if (msg.type() !== 'error' && msg.type() !== 'assert') return;
      const loc = msg.location()?.url ?? '';
      const text = msg.text();
      if (text.startsWith('Failed to load resource')) {
        if (loc && !sameOrigin(loc)) return notes.push(`${where()}: blocked ${loc}`);
        if (tab.current?.expectStatus && loc === tab.current.url && text.includes(String(tab.current.expectStatus))) return;
      }
      const resource = text.startsWith('Failed to load resource') && loc ? loc : undefined;
      fail(where(), `console error: ${text}${loc ? ` (${loc.replace(origin, '')})` : ''}`, resource, 2);
    });
    page.on('pageerror', (err) => fail(where(), `uncaught exception: ${err.message}`));
    page.on('dialog', (dialog) => {
      fail(where(), `hostile script opened a ${dialog.type()} dialog: ${dialog.message()}`);
      dialog.dismiss().catch(() => {});
    });
    page.on('request', (r) => {
      tab.pending.add(r);
      tab.generationOf.set(r, { generation: tab.generation, url: where() });
    });
    page.on('requestfinished', (r) => tab.pending.delete(r));
    page.on('requestfailed', (r) => {
      tab.pending.delete(r);
      if (!sameOrigin(r.url())) return;
      const error = r.failure()?.errorText ?? 'failed';
      // A request of a page we already left is cut off by our own navigation or by
      // closing the tab: not a failure of the site. The browser fetches favicons
      // (type "other") after `load`, often just as we move on: those are cut off too,
      // and every page's icon is fetched and checked on its own (checkIcon).
      const info = tab.generationOf.get(r);
      const stale = tab.closing || info?.generation !== tab.generation || r.resourceType() === 'other';
      if (error === 'net::ERR_ABORTED' && stale) return;
      fail(info?.url ?? where(), `${r.resourceType()} request failed: ${r.url().replace(origin, '')} (${error})`, r.url(), 1);
    });
    page.on('response', (resp) => {
      if (!sameOrigin(resp.url()) || resp.status() < 400) return;
      if (isExpectedMainDoc(resp.request()) && resp.status() === tab.current.expectStatus) return;
      fail(tab.generationOf.get(resp.request())?.url ?? where(), `${resp.request().resourceType()} ${resp.url().replace(origin, '')} answered ${resp.status()}`, resp.url(), 0);
    });
    return tab;
  }

  // Waits until the tab has no request in flight (favicons load after `load`).
  async function settle(tab) {
    const deadline = Date.now() + SETTLE_TIMEOUT_MS;
    while (tab.pending.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  }

  async function visit(tab, target) {
    const url = origin + target.path;
    tab.generation++;
    tab.current = { ...target, url };
    const { page } = tab;
    let response;
    try {
      response = await page.goto(url, { waitUntil: 'load', timeout: NAV_TIMEOUT_MS });
    } catch (err) {
      fail(url, `could not load (${target.kind}): ${err.message.split('\n')[0]}`);
      return false;
    }
    visited++;
    const want = target.expectStatus ?? 200;
    if (!response) fail(url, `no response (${target.kind})`);
    else if (response.status() !== want) fail(url, `status ${response.status()}, expected ${want} (${target.kind})`);
    else if (!(response.headers()['content-type'] ?? '').startsWith('text/html')) {
      fail(url, `content type ${response.headers()['content-type']}, expected text/html`);
    }
    await settle(tab);
    const { problems, icons, dialogs } = await page.evaluate(
      `(() => ({ ...(${inspectDom.toString()})(), dialogs: window.__browserCheckDialogs ?? [] }))()`,
    );
    for (const p of problems) fail(url, p);
    // The exposed binding reports dialogs too; this catches any it could not.
    for (const d of dialogs) {
      const message = `hostile script ran: ${d}`;
      const seen = failures.some((f) => f.url === url.replace(origin, '') && f.message.startsWith(message));
      if (!seen) fail(url, message);
    }
    for (const href of icons) await checkIcon(url, href);
    if (target.kind === 'paper') await checkPaper(tab, url, target.tryCopy);
    if (target.kind === 'author') await checkCoauthorGraph(tab, url);
    return true;
  }

  // The co-author graph's markup names few classes and no styles: the theme's stylesheet
  // must reach its elements (edges drawn, nodes filled, labels haloed) and draw one edge
  // to each node.
  async function checkCoauthorGraph(tab, url) {
    const problems = await tab.page.evaluate(() => {
      const svg = document.querySelector('svg.coauthor-graph');
      if (!svg) return [];
      const found = [];
      const style = (el) => getComputedStyle(el);
      const edges = [...svg.querySelectorAll('g.edges path')];
      const segments = edges.reduce((n, p) => n + (p.getAttribute('d').match(/M0 0L/g) ?? []).length, 0);
      const nodes = [...svg.querySelectorAll('a circle')];
      if (!nodes.length) found.push('co-author graph without co-author nodes');
      if (segments !== nodes.length) found.push(`co-author graph: ${segments} edges for ${nodes.length} nodes`);
      for (const p of edges) {
        if (style(p).stroke === 'none' || style(p).fill !== 'none') found.push('co-author graph edge not stroked (or filled) by the stylesheet');
      }
      for (const c of [...nodes, svg.querySelector('.node-center')]) {
        if (!c || style(c).stroke === 'none' || style(c).fill === 'rgb(0, 0, 0)') found.push('co-author graph node not styled by the stylesheet');
      }
      for (const t of svg.querySelectorAll('text')) {
        if (!style(t).paintOrder.startsWith('stroke') || style(t).stroke === 'none') found.push(`co-author graph label "${t.textContent}" without its halo`);
      }
      return [...new Set(found)];
    });
    for (const p of problems) fail(url, p);
  }

  async function checkPaper(tab, url, tryCopy) {
    const { page } = tab;
    const pre = page.locator('pre.bibtex');
    if ((await pre.count()) !== 1) return fail(url, `expected one <pre class="bibtex">, found ${await pre.count()}`);
    const bibtex = await pre.textContent();
    if (!/^\s*@\w+\s*\{/.test(bibtex ?? '')) fail(url, `<pre class="bibtex"> holds no BibTeX entry`);
    const button = page.getByRole('button', { name: 'Copy BibTeX', exact: true });
    if ((await button.count()) !== 1) return fail(url, `no "Copy BibTeX" button (site.js did not add it)`);
    if (!tryCopy) return;
    // Once per site: the button copies the entry.
    await button.click();
    try {
      await page.waitForFunction(
        () => [...document.querySelectorAll('button.copy')].some((b) => b.textContent !== 'Copy BibTeX'),
        null,
        { timeout: 2_000 },
      );
    } catch {
      return fail(url, '"Copy BibTeX" did nothing when clicked');
    }
    const label = await page.locator('button.copy').first().textContent();
    if (label !== 'Copied') return fail(url, `"Copy BibTeX" says "${label}" after a click`);
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    if (copied !== bibtex) fail(url, 'the clipboard does not hold the BibTeX entry after "Copy BibTeX"');
  }

  // Waits until a result link contains the title; false after the timeout.
  async function waitForTitle(page, title) {
    try {
      await page.waitForFunction(
        (t) => {
          const n = (s) => (s ?? '').replace(/\s+/g, ' ').trim();
          return [...document.querySelectorAll('#search-results a')].some((a) => n(a.textContent).includes(n(t)));
        },
        title,
        { timeout: SEARCH_TIMEOUT_MS, polling: 50 },
      );
      return true;
    } catch {
      return false;
    }
  }

  async function checkSearch(tab) {
    const { query, title } = searchTarget(root);
    const { page } = tab;
    const results = page.locator('#search-results a');
    const texts = async () => (await results.allTextContents()).map((s) => s.replace(/\s+/g, ' ').trim());
    let ok = true;
    const searchFail = (url, message) => {
      ok = false;
      fail(url, message);
    };

    // 1. A query in the URL.
    const withQuery = `/search/?q=${encodeURIComponent(query)}`;
    let shown = 0;
    if (await visit(tab, { kind: 'search', path: withQuery })) {
      if (!(await waitForTitle(page, title))) {
        const got = (await texts()).slice(0, 5);
        const what = got.length ? `did not list "${title}" (got: ${JSON.stringify(got)})` : 'showed no result';
        searchFail(withQuery, `search for "${query}" ${what} within ${SEARCH_TIMEOUT_MS / 1000} s`);
      }
      shown = await results.count();
    } else ok = false;

    // 2. Typing into the box, one character at a time, on a fresh search page.
    let updates = 0;
    if (await visit(tab, { kind: 'search', path: '/search/' })) {
      const input = page.locator('#search-input');
      if ((await input.count()) !== 1) {
        searchFail('/search/', `expected one #search-input, found ${await input.count()}`);
      } else {
        await page.waitForTimeout(200); // let the page load its index
        const before = (await texts()).join('\n');
        await input.click();
        let last = before;
        for (const ch of query) {
          await page.keyboard.type(ch);
          await page.waitForTimeout(40);
          const now = (await texts()).join('\n');
          if (now !== last) updates++;
          last = now;
        }
        if (!(await waitForTitle(page, title))) {
          const got = (await texts()).slice(0, 5);
          searchFail('/search/', `typing "${query}" into #search-input did not list "${title}" (got: ${JSON.stringify(got)})`);
        } else if ((await texts()).join('\n') === before) {
          searchFail('/search/', `the results did not change while typing "${query}"`);
        }
      }
    } else ok = false;

    return ok
      ? `search: "${query}" -> ${shown} result(s) including "${title}"; typing updated the results ${updates} time(s)`
      : `search: "${query}" FAILED`;
  }

  const { pages, counts } = planPages(root);
  const firstPaper = pages.find((p) => p.kind === 'paper');
  if (firstPaper) firstPaper.tryCopy = true;
  if (!counts.papers) fail(origin + '/papers/', 'the site has no paper page');
  if (!counts.authors) fail(origin + '/authors/', 'the site has no author page');

  const queue = [...pages];
  const tabs = await Promise.all(Array.from({ length: Math.min(WORKERS, queue.length) }, openTab));
  await Promise.all(
    tabs.map(async (tab) => {
      for (let target = queue.shift(); target; target = queue.shift()) {
        await visit(tab, target);
      }
    }),
  );

  let search;
  if (fs.existsSync(path.join(root, 'search', 'index.html'))) {
    search = await checkSearch(tabs[0]);
  } else {
    search = 'search: skipped (no /search/ page)';
  }

  for (const tab of tabs) tab.closing = true;
  await context.close();
  await new Promise((r) => server.close(r));
  // One failure per broken subresource and page, grouped by page in visiting order.
  const best = new Map();
  for (const f of failures) {
    if (!f.resource) continue;
    const key = `${f.url}\n${f.resource}`;
    if (!best.has(key) || best.get(key).rank > f.rank) best.set(key, f);
  }
  const kept = failures.filter((f) => !f.resource || best.get(`${f.url}\n${f.resource}`) === f);
  const order = new Map(pages.map((p, i) => [p.path, i]));
  const pos = (f) => order.get(f.url) ?? pages.length;
  kept.sort((a, b) => pos(a) - pos(b));
  return { root, visited, failures: kept, notes, ms: Date.now() - started, search, counts };
}

// ---------------------------------------------------------------------------------------

async function main() {
  const sites = process.argv.slice(2);
  if (!sites.length || sites.some((s) => s === '-h' || s === '--help')) {
    console.error('usage: node tests/browser/check.mjs SITE_DIR [SITE_DIR...]');
    process.exit(2);
  }
  const browser = await launchChromium(chromium, CHROMIUM_ARGS);

  let failed = 0;
  try {
    for (const site of sites) {
      const r = await checkSite(browser, site);
      failed += r.failures.length;
      const extra = r.notes.length ? `, ${r.notes.length} blocked external request(s)` : '';
      console.log(
        `browser: ${site}: ${r.visited} pages visited, ${r.failures.length} failures${extra} in ${(r.ms / 1000).toFixed(1)} s; ${r.search}`,
      );
      for (const f of r.failures) console.log(`  FAIL ${f.url}: ${f.message}`);
      for (const n of r.notes.slice(0, 10)) console.log(`  note ${n}`);
    }
  } finally {
    await browser.close();
  }
  if (failed) {
    console.error(`browser check failed: ${failed} failure(s)`);
    process.exit(1);
  }
}

main().catch((err) => {
  console.error(`browser check crashed: ${err.stack ?? err}`);
  process.exit(2);
});
