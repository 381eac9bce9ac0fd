// Runs every compiled test file with Node's built-in runner (Node 20 has no glob support in
// `node --test`), then prints one closing line `N passed, M failed` for CI.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';

const root = new URL('../build/test/', import.meta.url).pathname;
const only = process.argv.slice(2);
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.js') && (only.length === 0 || only.some((o) => p.includes(o)))) files.push(p);
  }
})(root);

if (files.length === 0) {
  console.error('no test files found under build/test (did the build run?)');
  process.exit(1);
}

// Four files at a time: most cases run the CLI in the test process and wait on servers more
// than they compute, so two would leave the cores idle.
// Files that load the whole machine on purpose (64 processes beside CPU burners) run alone,
// after the rest: beside other files they would starve them, and be starved, into false failures.
const ALONE = /fanout/;
const batches = [files.filter((f) => !ALONE.test(f)), files.filter((f) => ALONE.test(f))].filter((b) => b.length);

function runBatch(batch) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--test', '--test-reporter=spec', '--test-concurrency=4', ...batch], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, FORCE_COLOR: '0' },
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      process.stdout.write(d);
    });
    child.on('close', (code) => {
      const num = (label) => Number((out.match(new RegExp(`^ℹ ${label} (\\d+)`, 'm')) ?? [])[1] ?? 0);
      resolve({ code, passed: num('pass'), failed: num('fail') + num('cancelled') });
    });
  });
}

let passed = 0;
let failed = 0;
let ok = true;
for (const batch of batches) {
  const r = await runBatch(batch);
  passed += r.passed;
  failed += r.failed;
  if (r.code !== 0) ok = false;
}
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(ok && failed === 0 && passed > 0 ? 0 : 1);
