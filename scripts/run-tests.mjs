// Runs every compiled test file with Node's built-in runner (Node 20 has no glob support in
// `node --test`), then prints one closing line `N passed, M failed` for CI.
import { accessSync, constants, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { spawn } from 'node:child_process';

const root = new URL('../build/test/', import.meta.url).pathname;
const listOnly = process.argv.includes('--list');
const only = process.argv.slice(2).filter((a) => a !== '--list');
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
// The fleet soak (200 processes against one PostgreSQL and one server) is heavier still: it runs
// last, by itself, so the fan-out files and it do not measure each other's load.
const SOLO = /team-store-soak/;
// The files that take longest, mostly waiting on servers' own clocks (server-everything's stages,
// npm pack and install, shells), start first: started last, they ran on alone at the end while
// the cores idled. Only the order changes; a file missing here keeps its place after them.
const LONG_FIRST = [
  'e2e/legacy-everything-cli', 'e2e/pack', 'e2e/completion-shell', 'e2e/hints-verbatim', 'e2e/legacy-walkthrough',
  'e2e/fault-matrix', 'unit/vault/vault-upgrade', 'e2e/conn-hostile-answers', 'e2e/vault-integrity', 'e2e/never-lose',
  'sessions/legacy-session-everything', 'e2e/cli-lifecycle', 'unit/vault/listing-index', 'e2e/cli-exit-codes',
];
const rank = (f) => {
  const i = LONG_FIRST.findIndex((l) => f.includes(`/${l}.test.js`));
  return i === -1 ? LONG_FIRST.length : i;
};

// Test files share processes, a few files to each: a process per file spent its start (Node,
// node:test, then src, the SDK and zod loaded again) on files whose tests then took milliseconds
// of CPU, or waited on servers. node:test runs the files of one process one test at a time, in
// import order. A file keeps a process of its own when sharing could change what it tests or how
// a failure reads:
// - it uses the seeded random source (test/helpers/seeded.ts, directly or through a helper): the
//   seed is one per process and printed when the process fails, naming that one file to replay;
// - it has top-level hooks (before/after/beforeEach/afterEach), which would apply to the other
//   files' tests too, or uses node:test's mocks;
// - it is one of the long files above (they start first, beside everything else).
// The rest of test/unit and test/in-process share three processes; test/e2e and test/sessions
// files share eight (their cases spawn servers and CLIs and run for seconds, so fewer to a process).
// A shared process's entry is build/test-groups/<kind>-<n>.test.js, which lists its files;
// `node --test` on it runs them together again.
const SHARED_GROUPS = { unit: 3, e2e: 8 };
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
/** The kind of shared process a file can run in, or undefined when it keeps its own. */
function sharedKind(f) {
  if (ALONE.test(f) || SOLO.test(f) || rank(f) < LONG_FIRST.length || reaches(f, seededModule)) return undefined;
  const { src } = relativeImports(f);
  if (/^(before|after|beforeEach|afterEach)\(/m.test(src) || /\bmock\b/.test(src)) return undefined;
  const dir = relative(root, f).split('/')[0];
  return dir === 'unit' || dir === 'in-process' ? 'unit' : dir === 'e2e' || dir === 'sessions' ? 'e2e' : undefined;
}
const solo = files.filter((f) => SOLO.test(f));
const alone = files.filter((f) => ALONE.test(f) && !SOLO.test(f));
const own = files.filter((f) => !ALONE.test(f) && !SOLO.test(f) && !sharedKind(f));
// Balanced by size (the largest file first into the smallest group): deterministic, so a group
// is the same set of files on every run.
const groupsDir = new URL('../build/test-groups/', import.meta.url).pathname;
rmSync(groupsDir, { recursive: true, force: true });
const groupEntries = Object.entries(SHARED_GROUPS).flatMap(([kind, count]) => {
  const sharing = files.filter((f) => sharedKind(f) === kind);
  const groups = Array.from({ length: Math.min(count, sharing.length) }, () => ({ size: 0, members: [] }));
  for (const f of [...sharing].sort((a, b) => statSync(b).size - statSync(a).size || a.localeCompare(b))) {
    const g = groups.reduce((min, x) => (x.size < min.size ? x : min));
    g.size += statSync(f).size;
    g.members.push(f);
  }
  return groups.map((g, i) => {
    const entry = join(groupsDir, `${kind}-${i + 1}.test.js`);
    mkdirSync(groupsDir, { recursive: true });
    const lines = g.members.sort().map((m) => `import ${JSON.stringify(`./${relative(groupsDir, m)}`)};`);
    writeFileSync(entry, `// Written by scripts/run-tests.mjs: these test files share one process.\n${lines.join('\n')}\n`);
    return entry;
  });
});
// The shared end-to-end processes run about as long as the long files: they start first, taking
// turns with them; the shared unit processes start after them.
const byRank = own.sort((a, b) => rank(a) - rank(b));
const isE2eGroup = (g) => g.includes('/e2e-');
const long = byRank.filter((f) => rank(f) < LONG_FIRST.length);
const e2eGroups = groupEntries.filter(isE2eGroup);
const ordered = [
  ...Array.from({ length: Math.max(long.length, e2eGroups.length) }, (_, i) => [long[i], e2eGroups[i]]).flat().filter(Boolean),
  ...groupEntries.filter((g) => !isE2eGroup(g)),
  ...byRank.filter((f) => rank(f) === LONG_FIRST.length),
];
const batches = [ordered, alone, ...solo.map((f) => [f])].filter((b) => b.length);
if (listOnly) {
  // --list: the processes this run would start, in order, and the files each one runs.
  for (const f of [...ordered, ...alone, ...solo]) {
    console.log(relative(root, f));
    if (f.startsWith(groupsDir)) for (const m of readFileSync(f, 'utf8').matchAll(/^import "(.+)";$/gm)) console.log(`  ${relative(root, resolve(groupsDir, m[1]))}`);
  }
  process.exit(0);
}

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
