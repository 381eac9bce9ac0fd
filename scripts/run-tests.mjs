// Runs every compiled test file with Node's built-in runner (Node 20 has no glob support in
// `node --test`), then prints one closing line `N passed, M failed` for CI.
import { accessSync, constants, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
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
// The files that take longest, mostly waiting on servers' own clocks (server-everything's stages,
// npm pack and install, shells), start first: started last, they ran on alone at the end while
// the cores idled. Only the order changes; a file missing here keeps its place after them.
const LONG_FIRST = [
  'e2e/legacy-everything-cli', 'e2e/pack', 'e2e/completion-shell', 'e2e/hints-verbatim', 'integration/legacy-walkthrough',
  'e2e/fault-matrix', 'unit/vault/vault-upgrade', 'e2e/conn-hostile-answers', 'e2e/vault-integrity', 'e2e/never-lose',
  'integration/legacy-session-everything', 'e2e/cli-lifecycle', 'unit/vault/listing-index', 'e2e/cli-exit-codes',
];
const rank = (f) => {
  const i = LONG_FIRST.findIndex((l) => f.includes(`/${l}.test.js`));
  return i === -1 ? LONG_FIRST.length : i;
};
const ordered = files.filter((f) => !ALONE.test(f)).sort((a, b) => rank(a) - rank(b));
const batches = [ordered, files.filter((f) => ALONE.test(f))].filter((b) => b.length);

// The tests' temporary directories (homes, vaults, stores) go to a RAM file system where there is
// one (/dev/shm on Linux), unless MCP_TASKS_TEST_TMPDIR names a directory: the vault fsyncs every
// record it writes, and on a disk those waits were a third of some files' time. Nothing a test
// checks depends on the disk: a killed process leaves the same files on either.
function testTmpDir() {
  if (process.env.MCP_TASKS_TEST_TMPDIR) return { dir: process.env.MCP_TASKS_TEST_TMPDIR, own: false };
  try {
    accessSync('/dev/shm', constants.W_OK);
    if (!statSync('/dev/shm').isDirectory()) return undefined;
    return { dir: mkdtempSync('/dev/shm/mcp-tasks-tests-'), own: true };
  } catch {
    return undefined;
  }
}
const tmp = testTmpDir();

function runBatch(batch) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--test', '--test-reporter=spec', '--test-concurrency=4', ...batch], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, FORCE_COLOR: '0', ...(tmp ? { TMPDIR: tmp.dir } : {}) },
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
if (tmp?.own && !process.env.MCP_TASKS_KEEP_TEST_DIRS) rmSync(tmp.dir, { recursive: true, force: true });
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(ok && failed === 0 && passed > 0 ? 0 : 1);
