#!/usr/bin/env node
// Math layout check of a built profilegen site on a phone-width viewport.
//
//   node tests/browser/math_layout.mjs SITE_DIR [SCREENSHOT.png]
//
// Picks the paper pages of SITE_DIR with the longest formulas (by the TeX in their
// `application/x-tex` annotations: the 12 longest, and the page with the longest display
// formula among them), loads each in Debian's Chromium through playwright-core at
// 375 x 800 CSS pixels, and fails when the page scrolls sideways or a formula reaches past
// the text column (`main`) without a scrollable box of its own that fits in the column.
// Saves a screenshot of the page with the longest display formula (default
// target/ci/math-375.png). Exits 1 on any failure, 2 on bad usage or when the site has no
// math or the browser cannot start.
//
// Environment:
//   CHROMIUM   browser binary (default /usr/bin/chromium)

import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { launchChromium, startServer } from './serve.mjs';

const VIEWPORT = { width: 375, height: 800 };
const PAGES = 12;
const NAV_TIMEOUT_MS = 15_000;
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'];
const ANNOTATION = /<math display="(inline|block)">[\s\S]*?<annotation encoding="application\/x-tex">([\s\S]*?)<\/annotation>/g;

const [siteDir, screenshotArg, ...extra] = process.argv.slice(2);
if (!siteDir || extra.length || siteDir.startsWith('-')) {
  console.error('usage: node tests/browser/math_layout.mjs SITE_DIR [SCREENSHOT.png]');
  process.exit(2);
}
const root = path.resolve(siteDir);
const screenshot = path.resolve(screenshotArg ?? 'target/ci/math-375.png');

// Each paper page's longest formula: { url, length, display }.
function formulaPages() {
  const papers = path.join(root, 'papers');
  const found = [];
  for (const entry of fs.existsSync(papers) ? fs.readdirSync(papers).sort() : []) {
    // A paper page is a folder (papers/<slug>/index.html) or, with `page_layout: files`,
    // a file (papers/<slug>.html).
    const isFile = entry.endsWith('.html');
    const file = isFile ? path.join(papers, entry) : path.join(papers, entry, 'index.html');
    if (!fs.existsSync(file)) continue;
    const url = isFile ? `/papers/${entry}` : `/papers/${entry}/`;
    const html = fs.readFileSync(file, 'utf8');
    let best = null;
    let longestDisplay = 0;
    for (const match of html.matchAll(ANNOTATION)) {
      const length = match[2].length;
      if (match[1] === 'block') longestDisplay = Math.max(longestDisplay, length);
      if (!best || length > best.length) best = { url, length };
    }
    if (best) found.push({ ...best, longestDisplay });
  }
  return found.sort((a, b) => b.length - a.length || a.url.localeCompare(b.url));
}

// In the page: what reaches past the text column, or makes the page scroll sideways.
function overflows() {
  const problems = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > window.innerWidth) {
    problems.push(`the page is ${doc.scrollWidth}px wide on a ${window.innerWidth}px viewport`);
  }
  const column = document.querySelector('main');
  if (!column) return [...problems, 'no main element'];
  const style = getComputedStyle(column);
  const right = column.getBoundingClientRect().right - parseFloat(style.paddingRight) + 0.5;
  const scrolls = (el) => ['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(el).overflowX);
  for (const math of document.querySelectorAll('main math')) {
    // The formula itself, or the nearest box inside the column that scrolls it.
    let box = math;
    for (let el = math; el && el !== column; el = el.parentElement) {
      if (scrolls(el)) {
        box = el;
        break;
      }
    }
    const edge = box.getBoundingClientRect().right;
    if (edge > right) {
      const tex = math.querySelector('annotation')?.textContent ?? '';
      problems.push(`formula ${JSON.stringify(tex.slice(0, 60))} ends at ${Math.round(edge)}px, past the column's ${Math.round(right)}px`);
    }
  }
  return problems;
}

async function main() {
  const pages = formulaPages();
  if (!pages.length) {
    console.error(`error: ${root} has no paper page with math`);
    process.exit(2);
  }
  const chosen = pages.slice(0, PAGES);
  const displayPage = [...pages].sort((a, b) => b.longestDisplay - a.longestDisplay)[0];
  if (displayPage.longestDisplay > 0 && !chosen.includes(displayPage)) chosen.push(displayPage);

  const browser = await launchChromium(chromium, CHROMIUM_ARGS);
  const server = await startServer(root);
  const origin = `http://127.0.0.1:${server.address().port}`;
  const failures = [];
  try {
    const context = await browser.newContext({ viewport: VIEWPORT, isMobile: true, hasTouch: true });
    context.setDefaultTimeout(NAV_TIMEOUT_MS);
    await context.route((u) => new URL(u.href).origin !== origin, (route) => route.abort('blockedbyclient'));
    const page = await context.newPage();
    for (const { url } of chosen) {
      const response = await page.goto(origin + url, { waitUntil: 'load' });
      if (!response || response.status() !== 200) {
        failures.push(`${url}: answered ${response ? response.status() : 'nothing'}`);
        continue;
      }
      for (const problem of await page.evaluate(overflows)) failures.push(`${url}: ${problem}`);
      if (url === displayPage.url) {
        fs.mkdirSync(path.dirname(screenshot), { recursive: true });
        await page.screenshot({ path: screenshot, fullPage: true });
      }
    }
  } finally {
    await browser.close();
    server.close();
  }
  console.log(
    `math layout: ${chosen.length} pages with the longest formulas at ${VIEWPORT.width}px, ${failures.length} failures; screenshot of ${displayPage.url} in ${path.relative(process.cwd(), screenshot)}`,
  );
  for (const failure of failures) console.log(`  FAIL ${failure}`);
  if (failures.length) process.exit(1);
}

await main();
