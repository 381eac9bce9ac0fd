// End-to-end helper: runs the built CLI (`node bin/mcp-tasks.js ...`) as a real child process,
// without a TTY, in a throw-away MCP_TASKS_HOME, and starts the embedded demo server over HTTP
// (`mcp-tasks demo-server --http 0`). Every child is tracked and killed when the test process
// ends, so a failing assertion never leaves a server behind.
import { randomUUID } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, realpathSync, statSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir as makeTempDir } from './temp-dirs.js';

/** bin/mcp-tasks.js, seen from the compiled build/test/helpers/cli.js. */
export const BIN = fileURLToPath(new URL('../../../bin/mcp-tasks.js', import.meta.url));

const live = new Set<ChildProcess>();
/** Pids of children that lead their own process group (spawned detached). */
const groups = new Set<number>();
process.on('exit', () => {
  for (const child of live) {
    try {
      if (child.pid !== undefined && groups.has(child.pid)) process.kill(-child.pid, 'SIGKILL');
      else child.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
});

export function tempDir(prefix = 'mcp-tasks-e2e-'): string {
  return makeTempDir(prefix);
}

/** A fresh MCP_TASKS_HOME. */
export const tempHome = () => tempDir('mcp-tasks-home-');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall time of the run. */
  ms: number;
}

export interface RunOptions {
  /** MCP_TASKS_HOME; a fresh one when omitted. */
  home?: string;
  /** Extra environment (undefined removes a variable). */
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed (stdin is never a TTY). */
  input?: string;
  /** Kill the process after this long and fail (default 30 s). */
  timeoutMs?: number;
  cwd?: string;
  /** Own process group, so `kill(signal, { group: true })` reaches it and its children, as Ctrl-C in a terminal does. */
  detached?: boolean;
  /**
   * Run as a real child process. Without it runCli and `Home.run`/`Home.ok` run the CLI in this
   * process (`main(argv, io)`, see inProcessCli) unless `cwd`, `detached` or NODE_OPTIONS asks for a process,
   * or MCP_TASKS_TEST_SPAWN=1 sends every run to a child (to check both ways agree).
   */
  spawn?: boolean;
}

/**
 * A directory holding `mcp-tasks` (a link to BIN), first on every child's PATH, as `npm link`
 * leaves it: the CLI then prints its hints as `mcp-tasks …`, and they run from a shell as printed.
 * A test that removes it from PATH sees the `node <script>` form.
 */
export const PATH_BIN_DIR = tempDir('mcp-tasks-path-');
symlinkSync(BIN, join(PATH_BIN_DIR, 'mcp-tasks'));

/**
 * This process's PATH without any directory whose `mcp-tasks` is this checkout's CLI (a
 * developer's own `npm link` of it): the PATH of a test that needs the CLI not on PATH, and so
 * its hints in the `node <script>` form.
 */
export const PATH_WITHOUT_CLI = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => {
    try {
      return realpathSync(join(dir, 'mcp-tasks')) !== realpathSync(BIN);
    } catch {
      return true;
    }
  })
  .join(delimiter);

/** The child's environment: ours minus anything that would change the CLI's behaviour, plus CI=1, NO_COLOR=1 and no keychain. */
export function childEnv(home: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('MCP_TASKS_') || k === 'FORCE_COLOR' || k === 'NO_COLOR' || k === 'CI' || k.startsWith('NODE_TEST') || k === 'NODE_OPTIONS') continue;
    env[k] = v;
  }
  env.MCP_TASKS_HOME = home;
  env.PATH = `${PATH_BIN_DIR}${delimiter}${PATH_WITHOUT_CLI}`;
  env.CI = '1';
  env.NO_COLOR = '1';
  // Never touch the developer's OS keychain from a test (CI=1 implies it too).
  env.MCP_TASKS_NO_KEYCHAIN = '1';
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** A running CLI process: its output so far, and a way to wait for a line or the end. */
export class CliProcess {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly home: string;
  readonly done: Promise<CliResult>;
  private readonly waiters: Array<() => void> = [];

  constructor(args: string[], opts: RunOptions = {}) {
    this.home = opts.home ?? tempHome();
    const started = Date.now();
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd ?? process.cwd(),
      env: childEnv(this.home, opts.env),
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: opts.detached ?? false,
    });
    this.child = child;
    live.add(child);
    if (opts.detached && child.pid !== undefined) groups.add(child.pid);
    child.stdout!.setEncoding('utf8');
    child.stderr!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => {
      this.stdout += d;
      this.wake();
    });
    child.stderr!.on('data', (d: string) => {
      this.stderr += d;
      this.wake();
    });
    child.stdin!.on('error', () => {}); // the CLI may exit before reading stdin
    child.stdin!.end(opts.input ?? '');
    const timeoutMs = opts.timeoutMs ?? 120_000;
    this.done = new Promise<CliResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`mcp-tasks ${args.join(' ')} did not finish within ${timeoutMs} ms\n--- stdout\n${this.stdout.slice(-2000)}\n--- stderr\n${this.stderr.slice(-2000)}`));
      }, timeoutMs);
      child.on('error', (err) => {
        clearTimeout(timer);
        live.delete(child);
        reject(err);
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        live.delete(child);
        if (child.pid !== undefined) groups.delete(child.pid);
        this.wake();
        resolve({ code, signal, stdout: this.stdout, stderr: this.stderr, ms: Date.now() - started });
      });
    });
    this.done.catch(() => {}); // reported to whoever awaits it
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolve once `pattern` appears in stderr (or stdout with `on: 'stdout'`); fail after `timeoutMs`. */
  async waitFor(pattern: RegExp, opts: { on?: 'stdout' | 'stderr'; timeoutMs?: number } = {}): Promise<RegExpMatchArray> {
    const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
    for (;;) {
      const m = (opts.on === 'stdout' ? this.stdout : this.stderr).match(pattern);
      if (m) return m;
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(`process ended before ${pattern} appeared\n--- stdout\n${this.stdout.slice(-2000)}\n--- stderr\n${this.stderr.slice(-2000)}`);
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${pattern} did not appear in time\n--- stdout\n${this.stdout.slice(-2000)}\n--- stderr\n${this.stderr.slice(-2000)}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 250));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Signal the process, or with `group` its whole process group (needs `detached`). */
  kill(signal: NodeJS.Signals = 'SIGTERM', opts: { group?: boolean } = {}): void {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    if (opts.group && this.child.pid !== undefined) process.kill(-this.child.pid, signal);
    else this.child.kill(signal);
  }
}

/** Start `mcp-tasks ...args` in the background. */
export const spawnCli = (args: string[], opts: RunOptions = {}) => new CliProcess(args, opts);

/** Run `mcp-tasks ...args` to completion as a child process: {code, stdout, stderr}. */
export function runCliProcess(args: string[], opts: RunOptions = {}): Promise<CliResult> {
  return new CliProcess(args, opts).done;
}

// NODE_OPTIONS (a preload that fails writes, say) only takes effect in a new process.
const wantsProcess = (opts: RunOptions) =>
  opts.spawn === true || opts.cwd !== undefined || opts.detached === true || opts.env?.NODE_OPTIONS !== undefined || process.env.MCP_TASKS_TEST_SPAWN === '1';

/**
 * Run `mcp-tasks ...args` in this process: main(argv, io) with the environment a child would get
 * (childEnv), stdin as given, stdout and stderr into buffers. The servers it talks to are still
 * real processes; what only a process shows (signals, kill -9, a TTY, exit on a closed pipe)
 * needs `spawn: true`. Most cases finish in milliseconds instead of a Node start-up each.
 */
export async function inProcessCli(args: string[], opts: RunOptions = {}): Promise<CliResult> {
  const { main } = await import('../../src/main.js');
  const home = opts.home ?? tempHome();
  const out: string[] = [];
  const err: string[] = [];
  const sink = (chunks: string[]) =>
    ({
      isTTY: false,
      write: (t: string | Uint8Array, ...rest: unknown[]) => {
        chunks.push(typeof t === 'string' ? t : Buffer.from(t).toString('utf8'));
        const cb = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
        cb?.();
        return true;
      },
      on: () => undefined,
      once: () => undefined,
    }) as unknown as NodeJS.WriteStream;
  const started = Date.now();
  const interrupt = new AbortController();
  const timeoutMs = opts.timeoutMs ?? 120_000;
  let timer: NodeJS.Timeout | undefined;
  const run = main(args, {
    stdout: sink(out),
    stderr: sink(err),
    stdinIsTTY: false,
    readStdin: () => opts.input ?? '',
    env: childEnv(home, opts.env),
    platform: process.platform,
    interrupt: interrupt.signal,
    script: BIN,
  });
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      interrupt.abort();
      reject(new Error(`mcp-tasks ${args.join(' ')} (in process) did not finish within ${timeoutMs} ms\n--- stdout\n${out.join('').slice(-2000)}\n--- stderr\n${err.join('').slice(-2000)}`));
    }, timeoutMs);
  });
  try {
    const code = await Promise.race([run, timeout]);
    return { code, signal: null, stdout: out.join(''), stderr: err.join(''), ms: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

/** Run `mcp-tasks ...args` to completion: in this process unless the options ask for a real one (see RunOptions.spawn). */
export const runCli = (args: string[], opts: RunOptions = {}): Promise<CliResult> => (wantsProcess(opts) ? runCliProcess(args, opts) : inProcessCli(args, opts));

/** A home directory bound to a runner: `h.run(['list'])`. */
export interface Home {
  dir: string;
  run(args: string[], opts?: Omit<RunOptions, 'home'>): Promise<CliResult>;
  spawn(args: string[], opts?: Omit<RunOptions, 'home'>): CliProcess;
}

export interface TestHome extends Home {
  /** A setup step: run, and fail with its output unless it exits 0. */
  ok(args: string[], opts?: Omit<RunOptions, 'home'>): Promise<CliResult>;
}

export function newHome(): TestHome {
  const dir = tempHome();
  return {
    dir,
    run: (args, opts = {}) => runCli(args, { ...opts, home: dir }),
    ok: async (args, opts = {}) => {
      const r = await runCli(args, { ...opts, home: dir });
      if (r.code !== 0) throw new Error(`mcp-tasks ${args.join(' ')} exited ${r.code}\n--- stdout\n${r.stdout.slice(-2000)}\n--- stderr\n${r.stderr.slice(-2000)}`);
      return r;
    },
    spawn: (args, opts = {}) => spawnCli(args, { ...opts, home: dir }),
  };
}

/** The same home, every run a real child process (for tests whose point is one process per command). */
export function processHome(h: TestHome): TestHome {
  return {
    dir: h.dir,
    run: (args, opts = {}) => h.run(args, { ...opts, spawn: true }),
    ok: (args, opts = {}) => h.ok(args, { ...opts, spawn: true }),
    spawn: (args, opts = {}) => h.spawn(args, opts),
  };
}

/** Parse stdout that must be exactly one JSON document (one line). */
export function parseJsonDoc(stdout: string): any {
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  if (lines.length !== 1) throw new Error(`expected exactly one JSON line on stdout, got ${lines.length}:\n${stdout.slice(0, 3000)}`);
  return JSON.parse(lines[0]!);
}

/** Parse NDJSON stdout (watch --json): one object per line. */
export function parseJsonLines(stdout: string): any[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

/** Every regular file under `dir`, recursively, with its bytes. */
export function filesUnder(dir: string): Array<{ path: string; bytes: Buffer }> {
  const out: Array<{ path: string; bytes: Buffer }> = [];
  (function walk(d: string) {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) out.push({ path: p, bytes: readFileSync(p) });
    }
  })(dir);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The embedded demo server over Streamable HTTP.

export interface DemoRequest {
  method: string;
  at: number;
}

export interface DemoServer {
  url: string;
  port: number;
  store: string;
  /** The server's process; undefined when it listens in this process (see DemoOptions.spawn). */
  process?: CliProcess;
  /** Requests the server saw (needs `verbose`), in order, with the time we read each log line. */
  requests(method?: string): DemoRequest[];
  /**
   * How many `method` requests the server has logged, counting everything sent before this call:
   * a marker request is posted and awaited in the (ordered) log first, so a request still in
   * flight cannot make an "absent" assertion pass. Throws unless the server is verbose.
   */
  count(method: string): Promise<number>;
  /** Stop it (SIGTERM, then SIGKILL) and wait until the port is closed. */
  stop(): Promise<void>;
}

export interface DemoOptions {
  faults?: string[];
  /** -v: log every POST's method on stderr (used to count requests). */
  verbose?: boolean;
  store?: string;
  /**
   * Run `mcp-tasks demo-server --http 0` as a child process. Without it (and without
   * MCP_TASKS_TEST_SPAWN=1) the same server modules listen on 127.0.0.1 in this process: the CLI
   * still reaches it over real HTTP, and a Node start-up per server is saved.
   */
  spawn?: boolean;
}

/** The request log and `count` barrier both kinds of demo server share. */
function demoHandle(url: string, store: string, opts: DemoOptions, log: DemoRequest[], stop: () => Promise<void>, proc?: CliProcess): DemoServer {
  const requests = (method?: string) => log.filter((r) => method === undefined || r.method === method);
  return {
    url,
    port: Number(new URL(url).port),
    store,
    ...(proc ? { process: proc } : {}),
    requests,
    async count(method) {
      if (!opts.verbose) throw new Error('count() needs a demo server started with { verbose: true }');
      const marker = `x-barrier/${randomUUID()}`;
      await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', method: marker }) })
        .then((r) => r.arrayBuffer())
        .catch(() => undefined);
      const deadline = Date.now() + 5000;
      while (requests(marker).length === 0) {
        if (Date.now() > deadline) throw new Error('the demo server did not log the marker request');
        await sleep(20);
      }
      return requests(method).length;
    },
    stop,
  };
}

/**
 * The demo server in this process: what `runDemoServer` (src/cli/commands/demo-server.ts) builds
 * for `--http 0`, the store, engine, task surface and HTTP front, with `-v`'s request log read
 * through its log hook. The server and its sockets are unref'd: like a killed child, a server a
 * failing test did not stop never holds the test process open.
 */
async function startInProcessDemo(store: string, opts: DemoOptions): Promise<DemoServer> {
  const [{ parseFaults, TaskEngine }, { FileTaskStore }, { TaskSurface }, { startHttpDemo }] = await Promise.all([
    import('../../src/demo/task-engine.js'),
    import('../../src/demo/task-store.js'),
    import('../../src/demo/task-surface.js'),
    import('../../src/demo/http-server.js'),
  ]);
  const surface = new TaskSurface(new TaskEngine(new FileTaskStore(store).open(), parseFaults(opts.faults ?? [])));
  const log: DemoRequest[] = [];
  const demo = await startHttpDemo(surface, {
    port: 0,
    host: '127.0.0.1',
    ...(opts.verbose
      ? {
          log: (line: string) => {
            const m = /^request (\S+)/.exec(line);
            if (m) log.push({ method: m[1]!, at: Date.now() });
          },
        }
      : {}),
  });
  demo.server.unref();
  demo.server.on('connection', (socket) => socket.unref());
  let stopped: Promise<void> | undefined;
  return demoHandle(demo.url, store, opts, log, () => (stopped ??= demo.close()));
}

export async function startDemo(opts: DemoOptions = {}): Promise<DemoServer> {
  const store = opts.store ?? join(tempDir('mcp-tasks-demo-'), 'tasks.json');
  if (!opts.spawn && process.env.MCP_TASKS_TEST_SPAWN !== '1') return startInProcessDemo(store, opts);
  const args = ['demo-server', '--http', '0', '--store', store, ...(opts.verbose ? ['-v'] : []), ...(opts.faults ?? []).flatMap((f) => ['--fault', f])];
  const proc = spawnCli(args, { timeoutMs: 10 * 60_000 });
  const log: DemoRequest[] = [];
  let partial = '';
  proc.child.stderr!.on('data', (d: string) => {
    const now = Date.now();
    partial += d;
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const m = /^demo-server: request (\S+)/.exec(line);
      if (m) log.push({ method: m[1]!, at: now });
    }
  });
  let m: RegExpMatchArray;
  try {
    m = await proc.waitFor(/demo-server listening on (http:\/\/127\.0\.0\.1:(\d+)\/mcp)/, { on: 'stdout', timeoutMs: 60_000 });
  } catch (err) {
    proc.kill('SIGKILL');
    throw err;
  }
  return demoHandle(m[1]!, store, opts, log, async () => {
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 3000);
    await proc.done.catch(() => {});
    clearTimeout(timer);
  }, proc);
}

/** Register an HTTP demo server under `name` in `home`. */
export async function addHttpServer(home: Home, name: string, url: string, extra: string[] = []): Promise<void> {
  const r = await home.run(['server', 'add', name, '--url', url, ...extra]);
  if (r.code !== 0) throw new Error(`server add ${name} failed (${r.code}): ${r.stderr}`);
}

/** A fresh home with one named HTTP server in it, added through the real `server add`. */
export async function homeWithServer(name: string, url: string, extra: string[] = []): Promise<TestHome> {
  const h = newHome();
  await addHttpServer(h, name, url, extra);
  return h;
}

/** C0 controls other than \t and \n, DEL, C1 controls, and bidi overrides: none may reach a terminal. */
export const TERMINAL_UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

/** Describe the first unsafe character of `text` (for assertion messages). */
export function firstUnsafe(text: string): string | undefined {
  const m = TERMINAL_UNSAFE.exec(text);
  if (!m) return undefined;
  const i = m.index;
  return `U+${m[0].charCodeAt(0).toString(16).padStart(4, '0')} at ${i}: ${JSON.stringify(text.slice(Math.max(0, i - 40), i + 40))}`;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** `get` the ref every 100 ms until the server reports `status` (at most 10 s of tries); `env` as the home runs with it. */
export async function waitForStatus(h: TestHome, ref: string, env: Record<string, string>, status: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const r = await h.run(['--json', 'get', ref], { env });
    if (r.code !== 1 && r.stdout && parseJsonDoc(r.stdout).status === status) return;
    await sleep(100);
  }
  throw new Error(`${ref} never reached ${status}`);
}

/**
 * A loopback URL that cannot be reached: a server that resets every connection the moment it is
 * accepted (an RST, so the client sees ECONNRESET). It keeps its port for the life of the test
 * process, so no other test's server can take the port and answer in its place (as a port that
 * was merely free a moment ago could under parallel tests).
 */
export async function deadUrl(): Promise<string> {
  const srv = createServer((socket) => socket.resetAndDestroy());
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  srv.unref();
  const { port } = srv.address() as { port: number };
  return `http://127.0.0.1:${port}/mcp`;
}
