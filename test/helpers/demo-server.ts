// A tiny raw JSON-RPC client for the embedded demo server, used by the demo-server e2e tests.
// It spawns the built CLI (`node bin/mcp-tasks.js demo-server --http 0 | --stdio`) as a real
// child process and speaks the 2026-07-28 wire by hand: the per-request `_meta` envelope, the
// MCP-Protocol-Version / Mcp-Method / Mcp-Name headers, raw `tasks/*` requests. No SDK client,
// no mocks: what the tests see is exactly what goes over the wire.
//
// Every child is tracked: tests close it in `t.after`/`finally`, and a process 'exit' hook kills
// whatever is left, so a failing assertion never leaves a server running. Waits are bounded.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

/** bin/mcp-tasks.js, seen from the compiled build/test/helpers/demo-server.js. */
export const BIN = fileURLToPath(new URL('../../../bin/mcp-tasks.js', import.meta.url));

export const PROTOCOL_VERSION = '2026-07-28';
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
export const IDEMPOTENCY_KEY = 'io.github.mcp-tasks/idempotency-key';
export const CLIENT_INFO = { name: 'mcp-tasks-demo-tests', version: '0.0.0' };

// Any JSON value the server sent: tests index into results freely and assert on the fields.
export type Json = any;

// ---------------------------------------------------------------------------------------------
// Child-process and temp-dir bookkeeping

const live = new Set<ChildProcess>();
const tempDirs = new Set<string>();
process.on('exit', () => {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
  if (!process.env.MCP_TASKS_KEEP_TEST_DIRS) for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
});

/** Anything with an `after` hook: a node:test TestContext or SuiteContext. */
export interface HasAfter {
  after(fn: () => unknown): void;
}

/** A fresh temporary directory, removed after the test (when `t` is given) or when the process exits. */
export function makeTempDir(t?: HasAfter, prefix = 'mcp-tasks-demo-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  t?.after(() => {
    if (!process.env.MCP_TASKS_KEEP_TEST_DIRS) rmSync(dir, { recursive: true, force: true });
    tempDirs.delete(dir);
  });
  return dir;
}

/** A store path inside a fresh temp dir (the file itself does not exist yet). */
export function tempStorePath(t?: HasAfter): string {
  return join(makeTempDir(t), 'tasks.json');
}

export interface StoreFileShape {
  format: string;
  version: number;
  tasks: Record<string, Json>;
}

/** Parse the store file; fails the test if it is not a valid demo store. */
export function readStore(path: string): StoreFileShape {
  const text = readFileSync(path, 'utf8');
  let doc: StoreFileShape;
  try {
    doc = JSON.parse(text) as StoreFileShape;
  } catch (err) {
    assert.fail(`store ${path} is not valid JSON: ${(err as Error).message}\n${text.slice(0, 200)}`);
  }
  assert.equal(doc.format, 'mcp-tasks-demo-store');
  assert.ok(Number.isInteger(doc.version), `store version ${doc.version}`);
  assert.ok(doc.tasks && typeof doc.tasks === 'object' && !Array.isArray(doc.tasks), 'store tasks is an object');
  return doc;
}

export const sha256File = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** The child's environment: ours minus anything that would change the CLI's behaviour. */
function childEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('MCP_TASKS_') || k.startsWith('NODE_TEST') || k === 'NODE_OPTIONS' || k === 'FORCE_COLOR') continue;
    env[k] = v;
  }
  env.MCP_TASKS_HOME = home;
  env.NO_COLOR = '1';
  env.CI = '1';
  return env;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

function exitOf(child: ChildProcess): Promise<Exit> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve({ code: child.exitCode, signal: child.signalCode });
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

/** Resolve with the exit, or undefined once `ms` have passed. */
async function exitWithin(exited: Promise<Exit>, ms: number): Promise<Exit | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms)));
  try {
    return await Promise.race([exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Stop a child: `signal` first, SIGKILL if it has not exited within `graceMs`. */
async function stopChild(child: ChildProcess, exited: Promise<Exit>, signal: NodeJS.Signals = 'SIGTERM', graceMs = 3000): Promise<Exit> {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  const e = await exitWithin(exited, graceMs);
  if (e) return e;
  child.kill('SIGKILL');
  return exited;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Requests

/** What a client that answers every kind of input request declares (as mcp-tasks does). */
export const INPUT_CAPABILITIES = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };

/**
 * The per-request `_meta` envelope; `tasks: false` acts as a client that does not declare the
 * extension, `capabilities` replaces the declared input capabilities (default: all of them).
 */
export function envelope(tasks = true, capabilities: Record<string, unknown> = INPUT_CAPABILITIES): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
    'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
    'io.modelcontextprotocol/clientCapabilities': { ...capabilities, ...(tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {}) },
  };
}

export interface RpcOptions {
  /** Declare the tasks extension (default true). */
  tasks?: boolean;
  /** The declared input capabilities (default INPUT_CAPABILITIES; `{}` declares none). */
  capabilities?: Record<string, unknown>;
  /** Extra or replacement HTTP headers; `null` removes a default header (HTTP only). */
  headers?: Record<string, string | null>;
  /** Extra `_meta` keys merged over the envelope. */
  meta?: Record<string, unknown>;
  /** Give up after this long (default 15 s). */
  timeoutMs?: number;
}

export interface RpcError {
  code: number;
  message: string;
  data?: Json;
}

export interface RpcReply {
  /** HTTP status (HTTP transport only). */
  status?: number;
  id: Json;
  result?: Json;
  error?: RpcError;
  /** The whole JSON-RPC response. */
  body: Json;
}

export interface DemoClient {
  /** Send one request with a fresh id and the envelope; resolves with its response. */
  rpc(method: string, params?: Record<string, unknown>, opts?: RpcOptions): Promise<RpcReply>;
  /** The server's stderr so far. */
  stderr(): string;
  /** Resolves when the child exits. */
  readonly exited: Promise<Exit>;
  readonly child: ChildProcess;
  /** SIGTERM (then SIGKILL after a grace period); resolves with the exit. */
  close(): Promise<Exit>;
  /** SIGKILL at once, as a crash would. */
  kill(): Promise<Exit>;
}

let nextId = 1;

/** Build a request body: params plus the envelope (and any extra `_meta`). */
export function request(method: string, params: Record<string, unknown> = {}, opts: RpcOptions = {}): { jsonrpc: '2.0'; id: number; method: string; params: Record<string, unknown> } {
  const ownMeta = (params._meta ?? {}) as Record<string, unknown>;
  return {
    jsonrpc: '2.0',
    id: nextId++,
    method,
    params: { ...params, _meta: { ...envelope(opts.tasks ?? true, opts.capabilities), ...ownMeta, ...(opts.meta ?? {}) } },
  };
}

/** A header value as the spec carries it: plain printable ASCII as is, anything else as `=?base64?…?=`. */
export function encodeHeaderValue(value: string): string {
  const plain = value.length > 0 && value === value.trim() && /^[\x20-\x7e\t]*$/.test(value) && !(value.startsWith('=?base64?') && value.endsWith('?='));
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** The Mcp-Name header a request must carry: the tool for tools/call, the taskId for tasks/*. */
function nameHeaderFor(method: string, params: Record<string, unknown>): string | undefined {
  const value = method === 'tools/call' ? params.name : method.startsWith('tasks/') ? params.taskId : undefined;
  return typeof value === 'string' ? encodeHeaderValue(value) : undefined;
}

function spawnDemo(args: string[], home: string): ChildProcess {
  const child = spawn(process.execPath, [BIN, 'demo-server', ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: childEnv(home),
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

export interface StartOptions {
  faults?: string[];
  /** The store file; a fresh temp one when omitted. */
  store?: string;
  /** Extra CLI arguments (e.g. `-v`). */
  args?: string[];
  /** Register close() on this context's `after`. */
  t?: HasAfter;
  /** How long to wait for the server to come up (default 15 s). */
  startTimeoutMs?: number;
}

// ---------------------------------------------------------------------------------------------
// HTTP

export interface RawReply {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, or undefined if it is not JSON. */
  json: Json;
}

export interface DemoHttp extends DemoClient {
  url: string;
  port: number;
  store: string;
  /** POST a raw body (a string is sent as is, anything else as JSON) with the given headers only. */
  rawPost(body: unknown, headers?: Record<string, string>, timeoutMs?: number): Promise<RawReply>;
}

export const baseHeaders = (method: string): Record<string, string> => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': PROTOCOL_VERSION,
  'mcp-method': method,
});

export async function startDemoHttp(opts: StartOptions = {}): Promise<DemoHttp> {
  const store = opts.store ?? tempStorePath(opts.t);
  const home = makeTempDir(opts.t, 'mcp-tasks-demo-home-');
  const args = ['--http', '0', '--store', store, ...(opts.faults ?? []).flatMap((f) => ['--fault', f]), ...(opts.args ?? [])];
  const child = spawnDemo(args, home);
  const exited = exitOf(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (d: string) => (stderr += d));

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`demo-server did not print its URL within ${opts.startTimeoutMs ?? 60_000} ms\nstderr: ${stderr}`));
    }, opts.startTimeoutMs ?? 60_000);
    child.stdout!.on('data', (d: string) => {
      stdout += d;
      const m = /demo-server listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    void exited.then((e) => {
      clearTimeout(timer);
      reject(new Error(`demo-server exited (${e.code ?? e.signal}) before listening\nstderr: ${stderr}`));
    });
  });

  const rawPost = async (body: unknown, headers: Record<string, string> = {}, timeoutMs = 15_000): Promise<RawReply> => {
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let json: Json;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  };

  const rpc = async (method: string, params: Record<string, unknown> = {}, o: RpcOptions = {}): Promise<RpcReply> => {
    const body = request(method, params, o);
    const headers: Record<string, string> = baseHeaders(method);
    const name = nameHeaderFor(method, params);
    if (name !== undefined) headers['mcp-name'] = name;
    for (const [k, v] of Object.entries(o.headers ?? {})) {
      if (v === null) delete headers[k.toLowerCase()];
      else headers[k.toLowerCase()] = v;
    }
    const r = await rawPost(body, headers, o.timeoutMs);
    assert.ok(r.json && typeof r.json === 'object', `${method}: HTTP ${r.status} with a non-JSON body: ${r.text.slice(0, 300)}`);
    assert.equal(r.json.jsonrpc, '2.0', `${method}: not a JSON-RPC response: ${r.text.slice(0, 300)}`);
    return { status: r.status, id: r.json.id, result: r.json.result, error: r.json.error, body: r.json };
  };

  const demo: DemoHttp = {
    url,
    port: Number(new URL(url).port),
    store,
    child,
    exited,
    rpc,
    rawPost,
    stderr: () => stderr,
    close: () => stopChild(child, exited),
    kill: () => stopChild(child, exited, 'SIGKILL'),
  };
  opts.t?.after(() => demo.close());
  return demo;
}

// ---------------------------------------------------------------------------------------------
// stdio

export interface DemoStdio extends DemoClient {
  store: string;
  /** Write one raw line (a newline is appended) to the server's stdin. */
  sendLine(line: string): void;
  /** Messages that came without a matching pending id (notifications, server requests, stray replies). */
  unmatched: Json[];
  /** Lines on stdout that were not JSON. */
  garbage: string[];
  /** End stdin, as a client that goes away. */
  endInput(): void;
}

export async function startDemoStdio(opts: StartOptions = {}): Promise<DemoStdio> {
  const store = opts.store ?? tempStorePath(opts.t);
  const home = makeTempDir(opts.t, 'mcp-tasks-demo-home-');
  const args = ['--stdio', '--store', store, ...(opts.faults ?? []).flatMap((f) => ['--fault', f]), ...(opts.args ?? [])];
  const child = spawnDemo(args, home);
  const exited = exitOf(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (d: string) => (stderr += d));
  // A write to a child that died must fail the request, not crash the test process.
  child.stdin!.on('error', () => {});

  const pending = new Map<Json, { resolve: (r: RpcReply) => void; reject: (e: Error) => void }>();
  const unmatched: Json[] = [];
  const garbage: string[] = [];
  const lines = createInterface({ input: child.stdout! });
  lines.on('line', (line) => {
    if (line.trim() === '') return;
    let msg: Json;
    try {
      msg = JSON.parse(line);
    } catch {
      garbage.push(line);
      return;
    }
    const waiter = msg && 'id' in msg && !('method' in msg) ? pending.get(msg.id) : undefined;
    if (!waiter) {
      unmatched.push(msg);
      return;
    }
    pending.delete(msg.id);
    waiter.resolve({ id: msg.id, result: msg.result, error: msg.error, body: msg });
  });
  void exited.then((e) => {
    for (const [id, w] of pending) w.reject(new Error(`demo-server (stdio) exited (${e.code ?? e.signal}) before answering request ${String(id)}\nstderr: ${stderr}`));
    pending.clear();
  });

  const rpc = (method: string, params: Record<string, unknown> = {}, o: RpcOptions = {}): Promise<RpcReply> => {
    const body = request(method, params, o);
    return new Promise<RpcReply>((resolve, reject) => {
      if (child.exitCode !== null || child.signalCode !== null) return reject(new Error(`demo-server (stdio) has exited\nstderr: ${stderr}`));
      const timer = setTimeout(() => {
        pending.delete(body.id);
        reject(new Error(`${method}: no response within ${o.timeoutMs ?? 15000} ms\nstderr: ${stderr}`));
      }, o.timeoutMs ?? 15_000);
      pending.set(body.id, {
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      child.stdin!.write(JSON.stringify(body) + '\n');
    });
  };

  const demo: DemoStdio = {
    store,
    child,
    exited,
    rpc,
    unmatched,
    garbage,
    stderr: () => stderr,
    sendLine: (line) => void child.stdin!.write(line + '\n'),
    endInput: () => child.stdin!.end(),
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.stdin!.end();
      // Closing stdin is how a stdio client says goodbye; SIGTERM/SIGKILL only if that is ignored.
      const e = await exitWithin(exited, 3000);
      return e ?? stopChild(child, exited);
    },
    kill: () => stopChild(child, exited, 'SIGKILL'),
  };
  opts.t?.after(() => demo.close());
  return demo;
}

// ---------------------------------------------------------------------------------------------
// Running the CLI to completion (start-up failures)

export interface CliRun extends Exit {
  stdout: string;
  stderr: string;
  timedOut: boolean;
  ms: number;
}

/** Run `mcp-tasks <args>` to its exit; killed (and `timedOut`) after `timeoutMs`. */
export function runCli(args: string[], opts: { timeoutMs?: number; input?: string; t?: HasAfter } = {}): Promise<CliRun> {
  const home = makeTempDir(opts.t, 'mcp-tasks-demo-home-');
  const started = Date.now();
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: childEnv(home) });
  live.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin!.on('error', () => {});
  child.stdin!.end(opts.input ?? '');
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, opts.timeoutMs ?? 15_000);
  return new Promise((resolve) => {
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      live.delete(child);
      resolve({ code, signal, stdout, stderr, timedOut, ms: Date.now() - started });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Task helpers

/** Fail with the JSON-RPC error, or return the result. */
export function ok(reply: RpcReply, what = 'request'): Json {
  assert.equal(reply.error, undefined, `${what} failed: ${JSON.stringify(reply.error)}`);
  assert.ok(reply.result !== undefined, `${what}: no result in ${JSON.stringify(reply.body)}`);
  return reply.result;
}

/** Fail unless the reply is a JSON-RPC error with `code`; returns the error. */
export function rpcError(reply: RpcReply, code: number, what = 'request'): RpcError {
  assert.ok(reply.error, `${what}: expected error ${code}, got result ${JSON.stringify(reply.result)?.slice(0, 300)}`);
  assert.equal(reply.error.code, code, `${what}: expected error ${code}, got ${JSON.stringify(reply.error)}`);
  assert.equal(typeof reply.error.message, 'string');
  return reply.error;
}

export interface SchemaLike {
  safeParse(v: unknown): { success: boolean; error?: { issues: unknown[] } };
}

/** Validate `value` against an ext-tasks zod schema, failing with the issues. */
export function assertSchema(schema: SchemaLike, value: unknown, label: string): void {
  const r = schema.safeParse(value);
  assert.ok(r.success, `${label} does not match its schema: ${JSON.stringify(r.error?.issues)}\nvalue: ${JSON.stringify(value)?.slice(0, 500)}`);
}

export const callTool = (c: DemoClient, name: string, args: Record<string, unknown> = {}, opts: RpcOptions = {}, extra: Record<string, unknown> = {}) =>
  c.rpc('tools/call', { name, arguments: args, ...extra }, opts);

export const getTask = (c: DemoClient, taskId: string, opts: RpcOptions = {}) => c.rpc('tasks/get', { taskId }, opts);

export interface WaitOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** Never sleep longer than this between polls (default: the server's pollIntervalMs). */
  capMs?: number;
}

/**
 * Poll tasks/get at the server's pollIntervalMs (capped) until `until(task)` holds; returns the
 * matching task and every task seen. Fails on a JSON-RPC error or when the deadline passes.
 */
export async function waitForTask(c: DemoClient, taskId: string, until: (task: Json) => boolean, opts: WaitOptions = {}): Promise<{ task: Json; seen: Json[] }> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  const seen: Json[] = [];
  for (;;) {
    const task = ok(await getTask(c, taskId), 'tasks/get');
    seen.push(task);
    if (until(task)) return { task, seen };
    if (Date.now() > deadline) assert.fail(`task ${task.status} did not reach the expected state in time; last: ${JSON.stringify(task).slice(0, 400)}`);
    const interval = typeof task.pollIntervalMs === 'number' ? task.pollIntervalMs : 200;
    await sleep(Math.max(10, Math.min(interval, opts.capMs ?? interval)));
  }
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
export const isTerminal = (task: Json) => TERMINAL.has(task?.status);

/** Poll until the task is terminal. */
export const waitTerminal = (c: DemoClient, taskId: string, opts: WaitOptions = {}) => waitForTask(c, taskId, isTerminal, opts);
