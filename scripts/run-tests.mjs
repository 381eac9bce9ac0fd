// Runs every compiled test file with Node's built-in runner (Node 20 has no glob support in
// `node --test`), then prints one closing line `N passed, M failed` for CI.
import { accessSync, constants, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
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

// Unit and in-process test files share processes, a few files to each: one Node process per file
// spent 0.5–0.8 s of CPU loading src, the SDK and zod again for tests that then ran in
// milliseconds. node:test runs the files of one process one test at a time, in import order.
// A file keeps its own process when sharing could change what it tests or how a failure reads:
// - it uses the seeded random source (test/helpers/seeded.ts, directly or through a helper): the
//   seed is one per process and printed for the process, so it names the one file to replay;
// - it has top-level hooks (before/after/beforeEach/afterEach), which would apply to the other
//   files' tests too;
// - it is outside test/unit and test/in-process (those spawn CLIs and servers, and set no
//   process-wide state, so a process of their own costs them little; they also run long).
// Such a process's entry is build/test-groups/shared-<n>.test.js (its member files are listed in
// it; `node --test` on it runs them again together).
const SHARED_GROUPS = 3;
const importsOf = new Map();
function relativeImports(file) {
  if (!importsOf.has(file)) {
    const src = readFileSync(file, 'utf8');
    const specs = [...src.matchAll(/(?:^|[\s;])(?:import|export)\b[^'"]*?['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => resolve(dirname(file), m[1]));
    importsOf.set(file, { src, specs });
  }
  return importsOf.get(file);
}
function reaches(file, target, seen = new Set()) {
  if (seen.has(file)) return false;
  seen.add(file);
  return relativeImports(file).specs.some((d) => d === target || (d.endsWith('.js') && reaches(d, target, seen)));
}
const seededModule = join(root, 'helpers', 'seeded.js');
const shares = (f) =>
  /^(unit|in-process)\//.test(relative(root, f)) && !reaches(f, seededModule) && !/^(before|after|beforeEach|afterEach)\(/m.test(relativeImports(f).src);
const alone = files.filter((f) => ALONE.test(f));
const sharing = files.filter((f) => !ALONE.test(f) && shares(f));
const own = files.filter((f) => !ALONE.test(f) && !shares(f));
// Balanced by size (the largest file first into the smallest group): deterministic, so a group
// is the same set of files on every run.
const groupsDir = new URL('../build/test-groups/', import.meta.url).pathname;
rmSync(groupsDir, { recursive: true, force: true });
const groups = Array.from({ length: Math.min(SHARED_GROUPS, sharing.length) }, () => ({ size: 0, members: [] }));
for (const f of [...sharing].sort((a, b) => statSync(b).size - statSync(a).size || a.localeCompare(b))) {
  const g = groups.reduce((min, x) => (x.size < min.size ? x : min));
  g.size += statSync(f).size;
  g.members.push(f);
}
const groupEntries = groups.map((g, i) => {
  const entry = join(groupsDir, `shared-${i + 1}.test.js`);
  mkdirSync(groupsDir, { recursive: true });
  const lines = g.members.sort().map((m) => `import ${JSON.stringify(`./${relative(groupsDir, m)}`)};`);
  writeFileSync(entry, `// Written by scripts/run-tests.mjs: these test files share one process.\n${lines.join('\n')}\n`);
  return entry;
});
// The shared processes start right after the known long files (each runs a few files' worth).
const byRank = own.sort((a, b) => rank(a) - rank(b));
const firstUnranked = byRank.findIndex((f) => rank(f) === LONG_FIRST.length);
const ordered = firstUnranked === -1 ? [...byRank, ...groupEntries] : [...byRank.slice(0, firstUnranked), ...groupEntries, ...byRank.slice(firstUnranked)];
const batches = [ordered, alone].filter((b) => b.length);

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
