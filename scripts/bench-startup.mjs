// Start-up figures for `npm run bench` (called by scripts/bench.mjs; runs alone too:
// `node scripts/bench-startup.mjs`). On each Node line available — this one, and 22/24 through
// .ci/node-line.sh when it can install them — whole processes, interleaved run by run so the
// machine's load hits every case alike, medians:
//   get <ref> over HTTP   against a bare node:http and a bare fetch doing the same tasks/get
//   --help                against `node -e 0` (printed from the build's help snapshot: src/cli/fast-help.ts)
//   new Headers()         undici's JS alone (the SDK's HTTP transport builds Headers for every request): against
//                         the fetch floor, what the first undici connection adds (on Node 20, compiling llhttp's
//                         WebAssembly: why get uses a node:http fetch there, src/connection/node-http-fetch.ts)
//   get, unbundled        the same get from tsc's build/src (what the bundle saves; needs `tsc -p tsconfig.build.json`)
// With BENCH_PEERS=1, also MCP Inspector's mcpdo (installed into a temp dir, never a dependency)
// doing the same tasks/get on the same demo server with its daemon warm.
// Targets (issue 15): get ≤ 1.6× the fetch floor on Node 20, ≤ 2.5× on 22+; --help ≤ 1.5× node -e 0
// on Node 20, ≤ 2× on 22+; OS peak RSS of get ≤ 80 MB.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { demoUrl } from './demo-url.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'mcp-tasks.js');
const unbundled = join(root, 'build', 'src', 'bin.js');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (ms) => `${ms.toFixed(0).padStart(5)} ms`;
const verdict = (ratio, target) => (ratio <= target ? `ok (target ≤ ${target}×)` : `OVER target ${target}×`);

function timeOnce(command, args, env) {
  const t = process.hrtime.bigint();
  const r = spawnSync(command, args, { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.status}: ${r.stderr}${r.stdout}`);
  return { ms, stdout: r.stdout, stderr: r.stderr };
}

/** Interleave the cases run by run, after one warm-up each (file cache, compile cache). */
function measure(cases, runs) {
  const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (const c of Object.values(cases)) timeOnce(c.command, c.args, c.env);
  for (let i = 0; i < runs; i++) for (const [k, c] of Object.entries(cases)) times[k].push(timeOnce(c.command, c.args, c.env).ms);
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
}

/** The node binaries to compare on: this one, then 22 and 24 where .ci/node-line.sh provides them. */
function nodeLines() {
  const lines = [{ label: `Node ${process.versions.node}`, major: Number(process.versions.node.split('.')[0]), node: process.execPath }];
  for (const major of [20, 22, 24]) {
    if (lines.some((l) => l.major === major)) continue;
    const r = spawnSync('bash', [join(root, '.ci', 'node-line.sh'), String(major)], { encoding: 'utf8' });
    const node = r.stdout.trim().split('\n').pop();
    if (r.status !== 0 || !node || !existsSync(node)) {
      console.log(`  (Node ${major}: not available here: ${(r.stderr || r.stdout).trim().split('\n').pop() ?? ''})`);
      continue;
    }
    const version = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    lines.push({ label: `Node ${version}`, major, node });
  }
  return lines;
}

async function startDemo(env, work) {
  const child = spawn(process.execPath, [bin, 'demo-server', '--http', '0', '--store', join(work, 'store.json')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await demoUrl(child, 20_000);
  return { url, stop: () => child.kill('SIGTERM') };
}

const META = (name) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name, version: '0' },
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
});

/** The floors: a bare script doing the same tasks/get, with fetch and with node:http. */
function writeFloors(work) {
  const headers = `{ 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tasks/get', 'mcp-name': id }`;
  const body = `JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { taskId: id, _meta: ${JSON.stringify(META('floor'))} } })`;
  const fetchFloor = join(work, 'floor-fetch.mjs');
  writeFileSync(
    fetchFloor,
    `const [url, id] = process.argv.slice(2);
const r = await fetch(url, { method: 'POST', headers: ${headers}, body: ${body} });
const answer = await r.json();
if (!answer.result) { console.error(JSON.stringify(answer)); process.exit(1); }
`,
  );
  const httpFloor = join(work, 'floor-http.mjs');
  writeFileSync(
    httpFloor,
    `import { request } from 'node:http';
const [url, id] = process.argv.slice(2);
const payload = ${body};
const req = request(url, { method: 'POST', headers: { ...${headers}, 'content-length': Buffer.byteLength(payload) } }, (res) => {
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (d) => (text += d));
  res.on('end', () => { if (!JSON.parse(text).result) { console.error(text); process.exit(1); } });
});
req.end(payload);
`,
  );
  return { fetchFloor, httpFloor };
}

/** MCP Inspector's mcpdo, installed into a temp dir; undefined (with the reason printed) when it cannot be. */
function installMcpdo(work) {
  const dir = join(work, 'peers');
  mkdirSync(dir, { recursive: true });
  const r = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', dir, '@modelcontextprotocol/inspector@^2.12.0'], { encoding: 'utf8', timeout: 600_000 });
  const mcpdo = join(dir, 'node_modules', '.bin', 'mcpdo');
  if (r.status !== 0 || !existsSync(mcpdo)) {
    console.log(`  (mcpdo: could not install @modelcontextprotocol/inspector: ${(r.stderr || r.stdout || 'no mcpdo bin').trim().split('\n').pop()})`);
    return undefined;
  }
  return mcpdo;
}

/** GNU time, where /usr/bin/time is GNU time: the OS's peak RSS of the whole process (wait4 in the parent). */
const gnuTime = spawnSync('/usr/bin/time', ['-f', '%M', 'true'], { encoding: 'utf8' }).stderr?.trim().match(/^\d+$/) ? '/usr/bin/time' : undefined;

/** OS peak RSS in MB: GNU time's %M, else the child's own getrusage at exit (MCP_TASKS_TIMING=1). */
function peakRssMb(command, args, env) {
  if (gnuTime) {
    const r = spawnSync(gnuTime, ['-f', 'peak-rss-kb=%M', command, ...args], { env, encoding: 'utf8' });
    return Number((/peak-rss-kb=(\d+)/.exec(r.stderr) ?? [])[1] ?? NaN) / 1024;
  }
  return Number((/max-rss-kb=(\d+)/.exec(timeOnce(command, args, { ...env, MCP_TASKS_TIMING: '1' }).stderr) ?? [])[1] ?? NaN) / 1024;
}

export async function benchStartup({ runs = Number(process.env.BENCH_RUNS ?? 15), peers = process.env.BENCH_PEERS === '1' } = {}) {
  const work = mkdtempSync(join(tmpdir(), 'mcp-tasks-bench-startup-'));
  const home = join(work, 'home');
  const env = { ...process.env, MCP_TASKS_HOME: home, CI: '1', NO_COLOR: '1', MCP_TASKS_NO_KEYCHAIN: '1' };
  delete env.MCP_TASKS_VAULT_KEY;
  delete env.NODE_OPTIONS;
  const demo = await startDemo(env, work);
  try {
    timeOnce(process.execPath, [bin, 'server', 'add', 'bench', '--url', demo.url], env);
    const created = JSON.parse(timeOnce(process.execPath, [bin, '--json', 'call', 'bench', 'slow_compute', 'seconds=3600', '--detach', '--label', 'bench=get'], env).stdout);
    const { fetchFloor, httpFloor } = writeFloors(work);
    const mcpdo = peers ? installMcpdo(work) : undefined;
    const haveUnbundled = existsSync(unbundled);

    console.log(`start-up (${runs} interleaved runs per case, medians; whole processes; the machine may be loaded, so read the ratios, which compare cases measured side by side)`);
    for (const line of nodeLines()) {
      const n = line.node;
      const cases = {
        nodeFloor: { command: n, args: ['-e', '0'], env },
        httpFloor: { command: n, args: [httpFloor, demo.url, created.taskId], env },
        fetchFloor: { command: n, args: [fetchFloor, demo.url, created.taskId], env },
        headers: { command: n, args: ['-e', 'new Headers()'], env },
        get: { command: n, args: [bin, 'get', 'get'], env },
        help: { command: n, args: [bin, '--help'], env },
        ...(haveUnbundled ? { getUnbundled: { command: n, args: [unbundled, 'get', 'get'], env } } : {}),
      };
      const m = measure(cases, runs);
      const node22Plus = line.major >= 22;
      const getTarget = node22Plus ? 2.5 : 1.6;
      const helpTarget = node22Plus ? 2 : 1.5;
      console.log(`\n${line.label}`);
      console.log(`  node -e 0                          ${fmt(m.nodeFloor)}`);
      console.log(`  node -e 'new Headers()'            ${fmt(m.headers)}   (undici's JS without a connection; get's fetch is node:http)`);
      console.log(`  bare node:http tasks/get (floor)   ${fmt(m.httpFloor)}`);
      console.log(`  bare fetch tasks/get (floor)       ${fmt(m.fetchFloor)}`);
      console.log(`  mcp-tasks get <ref>                ${fmt(m.get)}   ${(m.get / m.fetchFloor).toFixed(2)}× fetch, ${(m.get / m.httpFloor).toFixed(2)}× node:http   ${verdict(m.get / m.fetchFloor, getTarget)}`);
      if (haveUnbundled) console.log(`  get, unbundled (tsc build/src)     ${fmt(m.getUnbundled)}   the bundle saves ${(((m.getUnbundled - m.get) / m.getUnbundled) * 100).toFixed(0)} %`);
      console.log(`  mcp-tasks --help                   ${fmt(m.help)}   ${(m.help / m.nodeFloor).toFixed(2)}× node -e 0   ${verdict(m.help / m.nodeFloor, helpTarget)}`);
      const rss = median(Array.from({ length: 5 }, () => peakRssMb(n, [bin, 'get', 'get'], env)));
      const floorRss = median(Array.from({ length: 5 }, () => peakRssMb(n, [fetchFloor, demo.url, created.taskId], env)));
      console.log(`  OS peak RSS of get                 ${rss.toFixed(1).padStart(5)} MB   ${rss <= 80 ? 'ok (target ≤ 80 MB)' : 'OVER target 80 MB'}; the fetch floor ${floorRss.toFixed(1)} MB   (${gnuTime ? 'GNU time' : "the child's getrusage at exit"}, medians of 5)`);
      if (mcpdo) await benchMcpdo({ mcpdo, node: n, env, url: demo.url, taskId: created.taskId, runs, get: cases.get, work });
    }
  } finally {
    demo.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** mcpdo against the same server on this Node line: connected (its daemon up and warm) first, then interleaved with our get. */
async function benchMcpdo({ mcpdo, node, env, url, taskId, runs, get, work }) {
  const peerHome = join(work, `mcpdo-home-${Math.random().toString(36).slice(2)}`);
  mkdirSync(peerHome, { recursive: true });
  const peerEnv = { ...env, HOME: peerHome, MCP_CATALOG_PATH: join(peerHome, 'mcp.json'), PATH: `${join(node, '..')}:${env.PATH}` };
  const mcpdoRun = (args) => spawnSync(mcpdo, args, { env: peerEnv, encoding: 'utf8', timeout: 60_000 });
  try {
    const connected = mcpdoRun(['--connection', 'bench', 'connect', '--era', 'modern', url]);
    const probe = connected.status === 0 ? mcpdoRun(['--connection', 'bench', 'tasks/get', taskId]) : connected;
    if (probe.status !== 0) {
      console.log(`  mcpdo tasks/get: cannot (${(probe.stderr || probe.stdout).trim().split('\n').pop()})`);
      return;
    }
    const m = measure({ get, mcpdo: { command: mcpdo, args: ['--connection', 'bench', 'tasks/get', taskId], env: peerEnv } }, runs);
    console.log(`  mcpdo tasks/get (daemon warm)      ${fmt(m.mcpdo)}   our get in the same runs ${fmt(m.get)}: ${(m.get / m.mcpdo).toFixed(2)}× mcpdo   ${m.get < m.mcpdo ? 'ok (faster)' : 'SLOWER than mcpdo'}`);
  } finally {
    mcpdoRun(['daemon', 'stop']);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await benchStartup();
