// `watch --active` over many demo tasks, push against poll, in one run (issue 23):
//
//   node scripts/bench-watch.mjs      (after `npm run build` and `tsc -p tsconfig.build.json`)
//
// For each mode a fresh demo server (-v, so it logs every request it receives) gets
// BENCH_WATCH_TASKS tasks (default 1,000) created over real HTTP, each a slow_compute ending
// at its own moment within a 12 s window; the vault of a fresh home is seeded with their
// handles (the vault's own bulk insert), then `watch --active --json` follows them to the end.
// Measured: requests per second the server received while the watch ran, the CLI's CPU time and
// peak RSS (GNU time), and for every completion the time from the server's own lastUpdatedAt to
// the moment its line reached us (median and p99). Target: push sends at least 50× fewer
// requests, at the same or better latency.
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { demoUrl } from './demo-url.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'mcp-tasks.js');
const META = (extra = {}) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'mcp-tasks-bench', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
  ...extra,
});

function startDemo(work, tag) {
  const child = spawn(process.execPath, [bin, 'demo-server', '-v', '--http', '0', '--store', join(work, `store-${tag}.json`)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const requests = [];
  let partial = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => {
    const now = Date.now();
    const lines = (partial + d).split('\n');
    partial = lines.pop();
    for (const l of lines) {
      const m = /^demo-server: request (\S+)/.exec(l);
      if (m) requests.push({ method: m[1], at: now });
    }
  });
  const url = demoUrl(child, 30_000);
  return { url, requests, stop: () => child.kill('SIGTERM') };
}

async function rpc(url, method, params, name) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params: { ...params, _meta: META() } }),
  });
  const body = await r.json();
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/**
 * n tasks on the server, 16 requests at a time, ending spread over a 12 s window that opens
 * once they are all created and the watch has started (`leadMs` from the first creation).
 */
async function createTasks(url, n, leadMs, start) {
  const tasks = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < n) {
        const i = next++;
        const endsAt = start + leadMs + (12000 * i) / n;
        const seconds = Math.max(0.5, (endsAt - Date.now()) / 1000);
        tasks[i] = { task: await rpc(url, 'tools/call', { name: 'slow_compute', arguments: { seconds } }, 'slow_compute'), seconds };
      }
    }),
  );
  return tasks;
}

function records(tasks, url, server) {
  return tasks.map(({ task, seconds }) => {
    const at = task.createdAt;
    return {
      opId: randomUUID(),
      taskId: task.taskId,
      server: { name: server, identity: { kind: 'http', url }, protocolVersion: '2026-07-28' },
      auth: { kind: 'none' },
      operation: { method: 'tools/call', name: 'slow_compute', arguments: { seconds }, submittedAt: at },
      phase: 'active',
      // As `call --detach` stores it: the CreateTaskResult's task, so the first state seen is no change.
      last: { taskId: task.taskId, status: task.status, statusMessage: task.statusMessage, createdAt: at, lastUpdatedAt: task.lastUpdatedAt, ttlMs: task.ttlMs, pollIntervalMs: task.pollIntervalMs },
      history: [{ at, status: task.status }],
      inputKeysSeen: [],
      inputKeysAnswered: [],
      labels: {},
      createdAt: at,
      updatedAt: at,
    };
  });
}

const SERVERS = 4;
/** From the first task created to the first one ending: creating, seeding and starting the watch fit in it. */
const LEAD_MS = Number(process.env.BENCH_WATCH_LEAD_MS ?? 35_000);

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN;
};

async function runMode(mode, n, work, env, gnuTime) {
  // Several servers, as an on-call watch meets them; it also keeps the demo's store (rewritten
  // whole per task created) small enough to create the tasks in a few seconds.
  const demos = Array.from({ length: SERVERS }, (_, i) => startDemo(work, `${mode}-${i}`));
  try {
    const urls = await Promise.all(demos.map((d) => d.url));
    const home = join(work, `home-${mode}`);
    const homeEnv = { ...env, MCP_TASKS_HOME: home };
    for (const [i, url] of urls.entries()) {
      const add = spawnSync(process.execPath, [bin, 'server', 'add', `bench${i}`, '--url', url], { env: homeEnv, encoding: 'utf8' });
      if (add.status !== 0) throw new Error(`server add: ${add.stderr}`);
    }
    const created = Date.now();
    const perServer = Math.ceil(n / SERVERS);
    const made = await Promise.all(urls.map((url, i) => createTasks(url, Math.min(perServer, n - i * perServer), LEAD_MS, created)));
    // The vault as the CLI opens it: with the list --json row renderer app/ hands it.
    const { vaultAt } = await import(pathToFileURL(join(root, 'build/src/app/open-vault.js')).href);
    await vaultAt(home, homeEnv, () => {}).bulkInsert(made.flatMap((tasks, i) => records(tasks, urls[i], `bench${i}`)));

    const args = [bin, '--json', ...(process.env.BENCH_WATCH_VERBOSE ? ['-v'] : []), 'watch', '--active', '--timeout', '120s', ...(mode === 'poll' ? ['--poll'] : [])];
    const cmd = gnuTime ? '/usr/bin/time' : process.execPath;
    // BENCH_WATCH_PROF=<dir>: a CPU profile of the watch (node --cpu-prof), to see where its time goes.
    const prof = process.env.BENCH_WATCH_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_WATCH_PROF] : [];
    const argv = gnuTime ? ['-f', 'bench-time=%U %S %M', process.execPath, ...prof, ...args] : [...prof, ...args];
    if (Date.now() > created + LEAD_MS - 8000) throw new Error(`creating and seeding ${n} tasks took ${Date.now() - created} ms: too slow for the bench's window (BENCH_WATCH_LEAD_MS)`);
    // The watch starts (and is set up: 1,000 handles take it a few seconds) 8 s before the first
    // task ends, so its run covers the changes, not a long wait for them.
    await new Promise((r) => setTimeout(r, created + LEAD_MS - 8000 - Date.now()));
    const started = Date.now();
    const firsts = demos.map((d) => d.requests.length);
    const child = spawn(cmd, argv, { env: homeEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    const latencies = [];
    let partial = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => {
      const at = Date.now();
      const lines = (partial + d).split('\n');
      partial = lines.pop();
      for (const l of lines) {
        if (!l.trim()) continue;
        const doc = JSON.parse(l);
        if (doc.status === 'completed') latencies.push(at - Date.parse(doc.lastUpdatedAt));
      }
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    const ended = Date.now();
    if (process.env.BENCH_WATCH_VERBOSE) writeFileSync(process.env.BENCH_WATCH_VERBOSE, stderr);
    if (code !== 0) throw new Error(`watch --active (${mode}) exited ${code}: ${stderr.slice(-1500)}`);
    const seen = demos.flatMap((d, i) => d.requests.slice(firsts[i])).filter((r) => r.at >= started && r.at <= ended);
    const secs = (ended - started) / 1000;
    if (process.env.BENCH_WATCH_VERBOSE) {
      for (const [i, d] of demos.entries()) {
        const mine = d.requests.slice(firsts[i]);
        const at = (m) => mine.filter((r) => r.method === m).map((r) => r.at - started);
        console.error(`server ${i}: listen at ${at('subscriptions/listen').join(', ')} ms; first get at ${at('tasks/get')[0]} ms`);
      }
    }
    const m = /bench-time=([\d.]+) ([\d.]+) (\d+)/.exec(stderr);
    return {
      mode,
      completed: latencies.length,
      wallS: secs,
      requests: seen.length,
      perSecond: seen.length / secs,
      gets: seen.filter((r) => r.method === 'tasks/get').length,
      listens: seen.filter((r) => r.method === 'subscriptions/listen').length,
      cpuS: m ? Number(m[1]) + Number(m[2]) : NaN,
      rssMiB: m ? Number(m[3]) / 1024 : NaN,
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
    };
  } finally {
    for (const d of demos) d.stop();
  }
}

export async function benchWatch({ tasks = Number(process.env.BENCH_WATCH_TASKS ?? 1000) } = {}) {
  const work = mkdtempSync(join(tmpdir(), 'mcp-tasks-bench-watch-'));
  const env = { ...process.env, CI: '1', NO_COLOR: '1', MCP_TASKS_NO_KEYCHAIN: '1' };
  delete env.MCP_TASKS_VAULT_KEY;
  const gnuTime = existsSync('/usr/bin/time') && spawnSync('/usr/bin/time', ['-f', '%M', 'true'], { encoding: 'utf8' }).status === 0;
  try {
    console.log(`watch --active over ${tasks} demo tasks on ${SERVERS} servers, each task ending at its own moment within 12 s (requests counted at the servers)`);
    console.log(`  ${'mode'.padEnd(6)}${'done'.padStart(6)}${'wall'.padStart(9)}${'requests'.padStart(10)}${'req/s'.padStart(9)}${'tasks/get'.padStart(11)}${'listen'.padStart(8)}${'CLI CPU'.padStart(10)}${'peak RSS'.padStart(10)}${'latency p50'.padStart(13)}${'p99'.padStart(9)}`);
    const rows = [];
    for (const mode of (process.env.BENCH_WATCH_MODES ?? 'push,poll').split(',')) {
      const r = await runMode(mode, tasks, work, env, gnuTime);
      rows.push(r);
      console.log(
        `  ${r.mode.padEnd(6)}${String(r.completed).padStart(6)}${`${r.wallS.toFixed(1)} s`.padStart(9)}${String(r.requests).padStart(10)}${r.perSecond.toFixed(1).padStart(9)}${String(r.gets).padStart(11)}${String(r.listens).padStart(8)}${`${r.cpuS.toFixed(2)} s`.padStart(10)}${`${r.rssMiB.toFixed(0)} MiB`.padStart(10)}${`${r.p50} ms`.padStart(13)}${`${r.p99} ms`.padStart(9)}`,
      );
    }
    const [push, poll] = rows;
    if (!push || !poll) return rows;
    const fewer = poll.perSecond / Math.max(push.perSecond, 1e-9);
    const ok = fewer >= 50 && push.p50 <= poll.p50 && push.p99 <= poll.p99;
    // The safety poll (every 30 s while pushes flow) falls outside a short run; say what it adds.
    console.log(`  a longer push watch adds one tasks/get per task per 30 s: ${(tasks / 30).toFixed(0)} req/s for ${tasks} tasks, against ${(tasks * 2).toFixed(0)} req/s polling at the demo's 500 ms`);
    console.log(`  push sends ${fewer.toFixed(0)}× fewer requests per second; latency p50 ${push.p50} vs ${poll.p50} ms, p99 ${push.p99} vs ${poll.p99} ms   ${ok ? 'ok' : 'OVER'} (≥ 50× fewer, same or better latency)`);
    return rows;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await benchWatch();
