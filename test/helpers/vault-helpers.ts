// Helpers for the vault tests: crafted vault records, sha256 of files, the demo server's store,
// file modes, a recorder of every file version that appears under a directory, and small Node
// child processes (real processes writing real files) that a test can SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { seededBytes, seededUuid } from './seeded.js';
import { readdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import type { VaultRecord } from '../../src/vault/vault-record.js';
import type { ServerIdentity } from '../../src/servers/server-entry.js';

/** file:// URL of a compiled module under build/src (for child scripts), e.g. modUrl('vault/vault.js'). */
export const modUrl = (rel: string): string => new URL(`../../src/${rel}`, import.meta.url).href;

export const sha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Permission bits of a file or directory. */
export const fileMode = (path: string): number => statSync(path).mode & 0o777;

export const octal = (mode: number): string => `0${mode.toString(8)}`;

/** A taskId like the demo server's (32 url-safe characters), optionally with a fixed prefix. */
export const fakeTaskId = (prefix = ''): string => (prefix + seededBytes(24).toString('base64url')).slice(0, 32);

export const isoAgo = (ms: number): string => new Date(Date.now() - ms).toISOString();

export interface RecordSpec {
  opId?: string;
  taskId?: string;
  server?: string;
  identity?: ServerIdentity;
  tool?: string;
  args?: Record<string, unknown>;
  phase?: VaultRecord['phase'];
  status?: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  labels?: Record<string, string>;
  /** How long ago the record was created and last updated. */
  ageMs?: number;
  idempotencyMeta?: string;
  annotations?: VaultRecord['operation']['annotations'];
  reason?: string;
}

/** A well-formed vault record, as `call` would leave it. */
export function makeRecord(spec: RecordSpec = {}): VaultRecord {
  const at = isoAgo(spec.ageMs ?? 0);
  const phase = spec.phase ?? (spec.taskId === undefined ? 'in-doubt' : spec.status && ['completed', 'failed', 'cancelled'].includes(spec.status) ? 'terminal' : 'active');
  const rec: VaultRecord = {
    opId: spec.opId ?? seededUuid(),
    server: { name: spec.server ?? 'web', identity: spec.identity ?? { kind: 'http', url: 'http://127.0.0.1:9/mcp' } },
    auth: { kind: 'none' },
    operation: {
      method: 'tools/call',
      name: spec.tool ?? 'slow_compute',
      arguments: spec.args ?? { seconds: 1 },
      submittedAt: at,
      ...(spec.idempotencyMeta ? { idempotencyMeta: spec.idempotencyMeta } : {}),
      ...(spec.annotations ? { annotations: spec.annotations } : {}),
    },
    phase,
    history: [],
    inputKeysSeen: [],
    inputKeysAnswered: [],
    labels: spec.labels ?? {},
    createdAt: at,
    updatedAt: at,
    ...(spec.reason ? { reason: spec.reason } : {}),
  };
  if (spec.taskId !== undefined) {
    const status = spec.status ?? 'working';
    rec.taskId = spec.taskId;
    rec.last = { taskId: spec.taskId, status, createdAt: at, lastUpdatedAt: at, ttlMs: 3_600_000 };
    rec.history.push({ at, status });
    if (status === 'completed') rec.result = { content: [{ type: 'text', text: 'done' }] };
    if (status === 'failed') rec.error = { code: -32603, message: 'boom' };
  }
  return rec;
}

/** A task as the demo server's durable store shows it without its handle: the tool name and times. */
export interface DemoStoreEntry {
  key: string;
  tool: string;
  createdAtMs: number;
}

/** The tasks in a demo server's durable store ({format, version, tasks: {key: {tool, ...}}}). */
export function storeTasks(path: string): DemoStoreEntry[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const doc = JSON.parse(text) as { format: string; version: number; tasks: Record<string, { tool: string; createdAtMs: number }> };
  if (doc.format !== 'mcp-tasks-demo-store') throw new Error(`${path} is not a demo store`);
  return Object.entries(doc.tasks).map(([key, t]) => ({ key, tool: t.tool, createdAtMs: t.createdAtMs }));
}

/** How many tasks of `tool` the demo store holds. */
export const countTool = (path: string, tool: string): number => storeTasks(path).filter((t) => t.tool === tool).length;

// ---------------------------------------------------------------------------------------------
// Every version of every file that appears under a directory, sampled while writers run, so
// short-lived lock and temp files are inspected too.

export interface FileRecorder {
  /** Stop sampling, take a last sample, and return every distinct content seen, by file name. */
  stop(): Map<string, Buffer[]>;
}

export function recordFiles(dir: string, everyMs = 2): FileRecorder {
  const seen = new Map<string, Buffer[]>();
  const hashes = new Set<string>();
  const sample = () => {
    const walk = (d: string) => {
      let names: string[];
      try {
        names = readdirSync(d);
      } catch {
        return;
      }
      for (const name of names) {
        const p = join(d, name);
        try {
          const st = statSync(p);
          if (st.isDirectory()) {
            walk(p);
            continue;
          }
          const bytes = readFileSync(p);
          const h = `${p}\0${createHash('sha256').update(bytes).digest('hex')}`;
          if (hashes.has(h)) continue;
          hashes.add(h);
          const list = seen.get(p) ?? [];
          list.push(bytes);
          seen.set(p, list);
        } catch {
          /* vanished between readdir and read: a temp or lock file; caught next time if it lives */
        }
      }
    };
    walk(dir);
  };
  const timer = setInterval(sample, everyMs);
  sample();
  return {
    stop() {
      clearInterval(timer);
      sample();
      return seen;
    },
  };
}

/** Which of `needles` occur in `bytes` (as UTF-8 text, also base64 and hex encoded). */
export function leaks(bytes: Buffer, needles: string[]): string[] {
  const hay = bytes.toString('latin1');
  return needles.filter((n) => {
    const raw = Buffer.from(n, 'utf8');
    return hay.includes(raw.toString('latin1')) || hay.includes(raw.toString('base64')) || hay.includes(raw.toString('hex'));
  });
}

// ---------------------------------------------------------------------------------------------
// Small Node scripts in their own process (ESM, inline), killed when the test process exits.

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of children) {
    try {
      c.kill('SIGKILL');
    } catch {
      /* gone */
    }
  }
});

export interface NodeScript {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when `text` has appeared on stdout (rejects if the process ends first or after timeoutMs). */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  /** The exit code and signal. */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Run `code` (an ES module) with `node --input-type=module -e`, with argv after it. */
export function runNodeScript(code: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): NodeScript {
  const cleanEnv: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('MCP_TASKS_') && !k.startsWith('NODE_TEST') && k !== 'NODE_OPTIONS') cleanEnv[k] = v;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code, '--', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...cleanEnv, ...env } });
  children.add(child);
  let out = '';
  let err = '';
  const wakers: Array<() => void> = [];
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    for (const w of wakers.splice(0)) w();
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => {
      children.delete(child);
      for (const w of wakers.splice(0)) w();
      resolve({ code, signal });
    });
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    done,
    async waitFor(text, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!out.includes(text)) {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`script ended before "${text}"; stderr: ${err.slice(-2000)}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`"${text}" did not appear within ${timeoutMs} ms; stderr: ${err.slice(-2000)}`);
        await new Promise<void>((r) => {
          const t = setTimeout(r, Math.min(left, 100));
          wakers.push(() => {
            clearTimeout(t);
            r();
          });
        });
      }
    },
  };
}

/** SIGKILL and wait until the process is gone. */
export async function killHard(s: NodeScript): Promise<void> {
  if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  await s.done;
}

/** A pid that certainly belonged to a process which has exited. */
export async function deadPid(): Promise<number> {
  const s = runNodeScript('');
  const pid = s.child.pid!;
  await s.done;
  return pid;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export { randInt } from './seeded.js';

// ---------------------------------------------------------------------------------------------
// The on-disk vault: a line `mcp-tasks-vault\n`, a JSON header line, then raw ciphertext.

const MAGIC_LEN = 'mcp-tasks-vault\n'.length;

/** The vault's JSON header line, parsed. */
export function vaultHeader(bytes: Buffer): Record<string, unknown> {
  const nl = bytes.indexOf(0x0a, MAGIC_LEN);
  return JSON.parse(bytes.subarray(MAGIC_LEN, nl).toString('utf8')) as Record<string, unknown>;
}

/** The same vault bytes with the header's fields changed (e.g. a newer format version). */
export function withHeader(bytes: Buffer, change: (h: Record<string, unknown>) => void): Buffer {
  const nl = bytes.indexOf(0x0a, MAGIC_LEN);
  const header = vaultHeader(bytes);
  change(header);
  return Buffer.concat([bytes.subarray(0, MAGIC_LEN), Buffer.from(JSON.stringify(header) + '\n'), bytes.subarray(nl + 1)]);
}

/** The same bytes with one bit flipped at `index` (negative: from the end). */
export function flipBit(bytes: Buffer, index: number): Buffer {
  const out = Buffer.from(bytes);
  const i = index < 0 ? out.length + index : index;
  out.writeUInt8(out.readUInt8(i) ^ 0x01, i);
  return out;
}

/**
 * A writer SIGKILLed between creating its lock file and writing its pid into it leaves an empty
 * lock, which withFileLock only treats as stale after 30 s (see the todo test that shows it).
 * Tests that kill writers on purpose age such a lock so they can go on; returns whether one was found.
 */
export function ageEmptyLock(lockPath: string): boolean {
  let text: string;
  try {
    text = readFileSync(lockPath, 'utf8');
  } catch {
    return false;
  }
  if (text.trim() !== '') return false;
  const old = new Date(Date.now() - 10 * 60_000);
  utimesSync(lockPath, old, old);
  return true;
}

// ---------------------------------------------------------------------------------------------
// The single-document vault of format 1 (before the record store), as older versions wrote it:
// vault.json sealing {records: {opId: record}}, with a key file beside it.

export async function writeFormat1Vault(home: string, records: VaultRecord[]): Promise<Buffer> {
  const { encodeSealed, loadKey, seal } = await import('../../src/vault/vault-crypto.js');
  const { mkdirSync, writeFileSync } = await import('node:fs');
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const source = { kind: 'keyfile' } as const;
  const { key } = loadKey(source, home, {}, true);
  const doc = { records: Object.fromEntries(records.map((r) => [r.opId, r])) };
  const bytes = encodeSealed(seal(Buffer.from(JSON.stringify(doc), 'utf8'), key, source));
  writeFileSync(join(home, 'vault.json'), bytes, { mode: 0o600 });
  return bytes;
}
