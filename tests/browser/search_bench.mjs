// Search latency: types queries into /search/ one character at a time and reports how
// long each keystroke takes to show its results (debounce included).
//   node tests/browser/search_bench.mjs http://127.0.0.1:PORT/   (a served, built site)
import { chromium } from 'playwright-core';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless','--no-sandbox','--disable-gpu','--disable-quic','--no-first-run','--disable-background-networking','--disable-component-update','--disable-sync'] });
const page = await browser.newPage();
const url = process.argv[2] || 'http://127.0.0.1:8811/';
await page.goto(new URL('search/', url).href);
const results = [];
for (const query of ['deep reinforcement learning', 'wei zhang graph', 'spectral robustness protein']) {
  await page.fill('#search-input', '');
  for (let i = 1; i <= query.length; i++) {
    const q = query.slice(0, i);
    const t = await page.evaluate(async (q) => {
      const input = document.getElementById('search-input');
      const list = document.getElementById('search-results');
      const t0 = performance.now();
      input.value = q;
      input.dispatchEvent(new Event('input'));
      while (list.getAttribute('data-query') !== q) {
        await new Promise(r => setTimeout(r, 1));
        if (performance.now() - t0 > 5000) return -1;
      }
      return performance.now() - t0;
    }, q);
    results.push({ q, ms: t });
  }
}
const fresh = results.map(r => r.ms).sort((a, b) => a - b);
console.log('keystrokes', fresh.length, 'median ms', fresh[Math.floor(fresh.length/2)].toFixed(1), 'p90', fresh[Math.floor(fresh.length*0.9)].toFixed(1), 'max', fresh[fresh.length-1].toFixed(1));
await browser.close();
