#!/usr/bin/env node
// The commands KaTeX renders, as a fixture for profilegen's TeX tests.
//
//   node tests/tex/katex_commands.mjs > tests/fixtures/katex_commands.txt
//
// Takes every command named in the source of the KaTeX pinned in package-lock.json
// (installed with `npm ci` when missing): each string `"\\name"` in its `src/` files.
// Prints, one a line and sorted, the first of `\name`, `\name{x}`, `\name{x}{y}`,
// `\name{x}{y}{z}` and `\name x` that KaTeX renders (`throwOnError: true`,
// `strict: 'ignore'`); names it renders in none of these forms are left out.
// `tests/tex_coverage.rs` checks that profilegen renders each of them but those listed
// in `tests/fixtures/katex_commands_not_rendered.txt`.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
if (!fs.existsSync(path.join(here, 'node_modules', 'katex'))) {
  console.error('katex_commands: installing katex with npm ci');
  execFileSync('npm', ['ci', '--silent'], { cwd: here, stdio: ['ignore', 'ignore', 'inherit'] });
}
const require = createRequire(path.join(here, 'package.json'));
const katex = require('katex');
const source = path.join(here, 'node_modules', 'katex', 'src');

const names = new Set();
function collect(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      collect(file);
    } else if (/\.(ts|js)$/.test(entry.name)) {
      const text = fs.readFileSync(file, 'utf8');
      for (const match of text.matchAll(/"\\\\([a-zA-Z]+)\*?"/g)) names.add(match[1]);
    }
  }
}
collect(source);

// KaTeX prints a warning for some symbols it has no metrics for, and `\show`,
// `\message` and `\errmessage` print what they are given: none of it is an error, nor
// part of the list.
console.warn = () => {};
console.log = () => {};
console.error = () => {};
const forms = [];
for (const name of [...names].sort()) {
  const candidates = [`\\${name}`, `\\${name}{x}`, `\\${name}{x}{y}`, `\\${name}{x}{y}{z}`, `\\${name} x`];
  const rendered = candidates.find((tex) => {
    try {
      katex.renderToString(tex, { throwOnError: true, strict: 'ignore' });
      return true;
    } catch {
      return false;
    }
  });
  if (rendered) forms.push(rendered);
}
process.stdout.write(forms.join('\n') + '\n');
