#!/usr/bin/env node
// How much of a corpus's TeX profilegen renders, measured against KaTeX.
//
//   node tests/tex/katex_compare.mjs RECORDS_DIR [--config profilegen.yaml] [--check] [--all]
//   node tests/tex/katex_compare.mjs --report FILE [--check] [--all]
//
// Runs `cargo run --release --example tex_report -- RECORDS_DIR` (from the repository
// root; CARGO_TARGET_DIR is respected), which lists every distinct math fragment of the
// titles and abstracts with whether profilegen renders it as MathML, and the paper pages
// whose visible text shows a TeX command. Then renders each fragment with KaTeX
// (`renderToString`, `throwOnError: true`, `strict: 'ignore'`; the version pinned in
// package-lock.json, installed with `npm ci` when missing) and prints:
//
// - the share of fragments that KaTeX does not render, and that profilegen shows as source;
// - the fragments KaTeX renders and profilegen does not (there should be none);
// - the share of paper pages with a bare TeX command in their visible text;
// - the fragments profilegen shows as source, and the commands on those pages (the first
//   40 of each; `--all` prints all of them).
//
// With `--check`, exits 1 when profilegen shows more than 0.5% of the fragments as source,
// more than 0.5% of the pages show a TeX command, or a fragment KaTeX renders is not
// rendered. `--config FILE` gives profilegen the site's `tex_macros` from that
// configuration (KaTeX is run as it comes). Exits 2 on bad usage. `--report FILE` reads the output of an earlier
// `tex_report` run from FILE instead of running it.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const TARGET_RATE = 0.005;
const LISTED = 40;

const USAGE =
  'usage: node tests/tex/katex_compare.mjs (RECORDS_DIR [--config FILE] | --report FILE) [--check] [--all]';
let check = false;
let all = false;
let reportFile = null;
let config = null;
const dirs = [];
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i += 1) {
  if (args[i] === '--check') check = true;
  else if (args[i] === '--all') all = true;
  else if (args[i] === '--report' && i + 1 < args.length) reportFile = args[++i];
  else if (args[i] === '--config' && i + 1 < args.length) config = path.resolve(args[++i]);
  else if (args[i].startsWith('--')) dirs.push(null);
  else dirs.push(args[i]);
}
if (dirs.length + (reportFile ? 1 : 0) !== 1 || dirs.includes(null) || (reportFile && config)) {
  console.error(USAGE);
  process.exit(2);
}
const source = reportFile ?? path.resolve(dirs[0]);

if (!fs.existsSync(path.join(here, 'node_modules', 'katex'))) {
  console.error('katex_compare: installing katex with npm ci');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: here,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
const { default: katex } = await import('katex');

const report = reportFile
  ? fs.readFileSync(reportFile, 'utf8')
  : execFileSync(
      'cargo',
      ['run', '--release', '--quiet', '--example', 'tex_report', '--', source].concat(
        config ? ['--config', config] : [],
      ),
      { cwd: root, maxBuffer: 1 << 30, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
    );

const fragments = [];
const pages = [];
let summary = null;
for (const line of report.split('\n')) {
  if (!line) continue;
  const item = JSON.parse(line);
  if ('fragment' in item) fragments.push(item);
  else if ('page' in item) pages.push(item);
  else summary = item;
}
if (!summary) {
  console.error('katex_compare: tex_report printed no summary');
  process.exit(1);
}

function katexError(fragment) {
  try {
    katex.renderToString(fragment.tex, {
      displayMode: fragment.display,
      throwOnError: true,
      strict: 'ignore',
    });
    return null;
  } catch (err) {
    return String(err.message ?? err).split('\n')[0];
  }
}

for (const fragment of fragments) fragment.katex = katexError(fragment);
const katexFails = fragments.filter((f) => f.katex !== null);
const ours = fragments.filter((f) => f.error !== null);
const behindKatex = ours.filter((f) => f.katex === null);

const percent = (n, d) => (d === 0 ? '0.00' : ((100 * n) / d).toFixed(2));
const total = fragments.length;
const papers = summary.papers;
console.log(`${source}: ${papers} papers, ${total} distinct math fragments`);
console.log(
  `KaTeX ${katex.version}: ${katexFails.length} fragments not rendered (${percent(katexFails.length, total)}%)`,
);
console.log(
  `profilegen: ${ours.length} fragments shown as source (${percent(ours.length, total)}%)`,
);
console.log(`fragments KaTeX renders and profilegen does not: ${behindKatex.length}`);
console.log(
  `paper pages with a bare TeX command in their visible text: ${pages.length} (${percent(pages.length, papers)}%)`,
);

const show = (list) => (all ? list : list.slice(0, LISTED));
if (ours.length > 0) {
  console.log('\nshown as source by profilegen (reason; KaTeX):');
  for (const f of show(ours)) {
    console.log(`  ${JSON.stringify(f.fragment)}  (${f.error}; KaTeX: ${f.katex ?? 'renders'})`);
  }
  if (!all && ours.length > LISTED) console.log(`  ... and ${ours.length - LISTED} more`);
}
if (pages.length > 0) {
  console.log('\npages with a bare TeX command:');
  for (const p of show(pages)) console.log(`  ${p.page}: ${p.commands.join(' ')}`);
  if (!all && pages.length > LISTED) console.log(`  ... and ${pages.length - LISTED} more`);
}

if (check) {
  const failures = [];
  if (ours.length > TARGET_RATE * total) failures.push('too many fragments shown as source');
  if (pages.length > TARGET_RATE * papers) failures.push('too many pages with a bare TeX command');
  if (behindKatex.length > 0) failures.push('fragments that KaTeX renders are not rendered');
  if (failures.length > 0) {
    console.log(`\ncheck failed: ${failures.join('; ')}`);
    process.exit(1);
  }
  console.log('\ncheck passed');
}
