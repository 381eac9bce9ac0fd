// npm run bench: start-up and vault costs, as ratios to floors measured in the same run.
// Targets (from the issues): get ≤ 2.5× a bare fetch of the same tasks/get; --help ≤ 3× `node -e 0`;
// list --json on 10,000 records ≤ 3× on 10 records; the vault's share of `call --detach` ≤ 15 %.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'mcp-tasks.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const work = mkdtempSync(join(tmpdir(), 'mcp-tasks-bench-'));
const home = join(work, 'home');
const env = { ...process.env, MCP_TASKS_HOME: home, CI: '1', NO_COLOR: '1' };
delete env.MCP_TASKS_VAULT_KEY;

function run(args, extraEnv = {}) {
  const r = spawnSync(process.execPath, args, { env: { ...env, ...extraEnv }, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

function timeOnce(args, extraEnv = {}) {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { env: { ...env, ...extraEnv }, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, stderr: r.stderr };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Interleave the measured commands run by run, so machine noise hits them alike. */
function measure(cases) {
  const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (const [, c] of Object.entries(cases)) timeOnce(c.args, c.env); // warm the file cache
  for (let i = 0; i < RUNS; i++) for (const [k, c] of Object.entries(cases)) times[k].push(timeOnce(c.args, c.env).ms);
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
}

async function startDemo() {
  const child = spawn(process.execPath, [bin, 'demo-server', '--http', '0', '--store', join(work, 'store.json')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('demo server did not start')), 10_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

const fmt = (ms) => `${ms.toFixed(0).padStart(5)} ms`;
const verdict = (ratio, target) => (ratio <= target ? `ok (target ≤ ${target}×)` : `OVER target ${target}×`);

const demo = await startDemo();
try {
  run([bin, 'server', 'add', 'bench', '--url', demo.url]);
  const created = JSON.parse(run([bin, '--json', 'call', 'bench', 'slow_compute', 'seconds=3600', '--detach', '--label', 'bench=get']));
  const floorScript = join(work, 'floor.mjs');
  writeFileSync(
    floorScript,
    `const id = process.argv[3];
const r = await fetch(process.argv[2], { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tasks/get', 'mcp-name': id },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { taskId: id, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'floor', version: '0' }, 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } } } }) });
const body = await r.json();
if (!body.result) { console.error(JSON.stringify(body)); process.exit(1); }
`,
  );

  console.log(`mcp-tasks bench (${RUNS} runs each, medians; node ${process.version})\n`);
  const m = measure({
    nodeFloor: { args: ['-e', '0'] },
    fetchFloor: { args: [floorScript, demo.url, created.taskId] },
    get: { args: [bin, 'get', 'get'] },
    help: { args: [bin, '--help'] },
  });
  const getRatio = m.get / m.fetchFloor;
  const helpRatio = m.help / m.nodeFloor;
  console.log('start-up');
  console.log(`  node -e 0                         ${fmt(m.nodeFloor)}`);
  console.log(`  bare fetch of tasks/get (floor)   ${fmt(m.fetchFloor)}`);
  console.log(`  mcp-tasks get <ref> (HTTP)        ${fmt(m.get)}   ${getRatio.toFixed(2)}× fetch floor   ${verdict(getRatio, 2.5)}`);
  console.log(`  mcp-tasks --help                  ${fmt(m.help)}   ${helpRatio.toFixed(2)}× node -e 0    ${verdict(helpRatio, 3)}`);
  const rss = (args, extra = {}) => Number((/max-rss-kb=(\d+)/.exec(timeOnce(args, { MCP_TASKS_TIMING: '1', ...extra }).stderr) ?? [])[1] ?? NaN) / 1024;
  console.log(`  memory: get ${rss([bin, 'get', 'get']).toFixed(0)} MB max RSS, --help ${rss([bin, '--help']).toFixed(0)} MB`);

  // Vault: list --json on 10 vs 10,000 records (records written directly through the vault module).
  const { Vault } = await import(join(root, 'build/src/vault/vault.js'));
  const fill = (dir, n) => {
    const v = new Vault(dir, env);
    const now = new Date().toISOString();
    const records = Array.from({ length: n }, (_, i) => ({
      opId: `op-${i}-${Math.random().toString(36).slice(2)}`,
      taskId: `task-${i}-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`,
      server: { name: 'bench', identity: { kind: 'http', url: demo.url }, protocolVersion: '2026-07-28' },
      auth: { kind: 'none' },
      operation: { method: 'tools/call', name: 'slow_compute', arguments: { seconds: i % 60 }, submittedAt: now },
      phase: i % 3 === 0 ? 'active' : 'terminal',
      last: { taskId: 'x', status: i % 3 === 0 ? 'working' : 'completed', createdAt: now, lastUpdatedAt: now, ttlMs: 3600000, pollIntervalMs: 500 },
      history: [{ at: now, status: 'working' }, { at: now, status: 'completed' }],
      inputKeysSeen: [],
      inputKeysAnswered: [],
      result: { content: [{ type: 'text', text: `Computed ${i}` }] },
      labels: { run: String(i) },
      createdAt: now,
      updatedAt: now,
    }));
    v.merge(records);
  };
  const small = join(work, 'v10');
  const large = join(work, 'v10k');
  fill(small, 10);
  fill(large, 10_000);
  const lv = measure({
    list10: { args: [bin, '--json', 'list', '--all'], env: { MCP_TASKS_HOME: small } },
    list10k: { args: [bin, '--json', 'list', '--all'], env: { MCP_TASKS_HOME: large } },
  });
  const listRatio = lv.list10k / lv.list10;
  console.log('\nvault');
  console.log(`  list --json, 10 records           ${fmt(lv.list10)}`);
  console.log(`  list --json, 10,000 records       ${fmt(lv.list10k)}   ${listRatio.toFixed(2)}× 10 records     ${verdict(listRatio, 3)}`);
  const listRss = Number((/max-rss-kb=(\d+)/.exec(timeOnce([bin, '--json', 'list', '--all'], { MCP_TASKS_HOME: large, MCP_TASKS_TIMING: '1' }).stderr) ?? [])[1] ?? NaN) / 1024;
  console.log(`  memory: list --json on 10,000 records ${listRss.toFixed(0)} MB max RSS`);

  // The vault's share of call --detach: the CLI reports its own vault time with MCP_TASKS_TIMING=1.
  const shares = [];
  const walls = [];
  for (let i = 0; i < Math.max(5, Math.floor(RUNS / 2)); i++) {
    const { ms, stderr } = timeOnce([bin, 'call', 'bench', 'slow_compute', 'seconds=3600', '--detach'], { MCP_TASKS_TIMING: '1' });
    const vaultMs = Number((/vault-ms=(\d+(?:\.\d+)?)/.exec(stderr) ?? [])[1] ?? NaN);
    walls.push(ms);
    shares.push(vaultMs / ms);
  }
  const share = median(shares);
  console.log(`  call --detach wall time           ${fmt(median(walls))}   vault share ${(share * 100).toFixed(1)} %   ${share <= 0.15 ? 'ok (target ≤ 15 %)' : 'OVER target 15 %'}`);
} finally {
  demo.stop();
  rmSync(work, { recursive: true, force: true });
}
