// The demo server's durable task store. Every task is written before its handle is returned,
// and a task's progress is derived from what is stored here (times, answers, cancel requests),
// so any process opened on the same file answers the same way for every task it created.
//
// Task ids are bearer handles, so the store keeps none: a task is filed under a hash of its id
// and its details (arguments, answers) are sealed with a key derived from the id itself. Only a
// holder of the handle can read or change its task; the file alone reveals tool names and times.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { ensureDir, withFileLock, writeFileAtomic } from '../fs/atomic-file.js';

export interface StoredTask {
  taskId: string;
  tool: string;
  args: Record<string, unknown>;
  createdAtMs: number;
  /** null: the server keeps the task until it is pruned by hand. */
  ttlMs: number | null;
  /** inputResponses received through tasks/update (or an MRTR retry), first answer wins. */
  answers: Record<string, unknown>;
  answeredAtMs: Record<string, number>;
  cancelRequestedAtMs?: number;
  /** The client operation id sent under the demo's idempotency _meta key, if any. */
  idempotencyKey?: string;
  /** Faults that shape this task's text, fixed at creation so every process renders it alike. */
  hostileText?: boolean;
}

/** A task as it lies on disk. */
interface SealedTask {
  tool: string;
  createdAtMs: number;
  ttlMs: number | null;
  /** iv.tag.ciphertext (base64url) of the task's private fields, keyed by its taskId. */
  sealed: string;
  /** With an idempotency key: its hash, and the taskId sealed under a key derived from it. */
  idemHash?: string;
  idemSealedId?: string;
}

interface StoreFile {
  format: 'mcp-tasks-demo-store';
  version: 2;
  tasks: Record<string, SealedTask>;
}

/** What the file shows without any handle: enough to count tasks per tool in tests. */
export interface TaskSummary {
  tool: string;
  createdAtMs: number;
}

const hashOf = (kind: string, secret: string) => createHash('sha256').update(`${kind}:${secret}`).digest('base64url');
const keyOf = (kind: string, secret: string) => Buffer.from(hkdfSync('sha256', secret, 'mcp-tasks-demo-store', kind, 32));

function sealWith(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([c.update(plaintext, 'utf8'), c.final()]);
  return [iv, c.getAuthTag(), data].map((b) => b.toString('base64url')).join('.');
}

function openWith(key: Buffer, sealed: string): string {
  const [iv, tag, data] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
  const d = createDecipheriv('aes-256-gcm', key, iv!);
  d.setAuthTag(tag!);
  return Buffer.concat([d.update(data!), d.final()]).toString('utf8');
}

function sealTask(t: StoredTask): SealedTask {
  const { taskId, tool, createdAtMs, ttlMs, idempotencyKey, ...rest } = t;
  const out: SealedTask = { tool, createdAtMs, ttlMs, sealed: sealWith(keyOf('task', taskId), JSON.stringify({ taskId, ...rest })) };
  if (idempotencyKey !== undefined) {
    out.idemHash = hashOf('idem', `${tool}\0${idempotencyKey}`);
    out.idemSealedId = sealWith(keyOf('idem', `${tool}\0${idempotencyKey}`), taskId);
  }
  return out;
}

function unsealTask(s: SealedTask, taskId: string): StoredTask {
  const inner = JSON.parse(openWith(keyOf('task', taskId), s.sealed)) as Omit<StoredTask, 'tool' | 'createdAtMs' | 'ttlMs'>;
  return { ...inner, taskId, tool: s.tool, createdAtMs: s.createdAtMs, ttlMs: s.ttlMs };
}

export interface TaskStore {
  get(taskId: string): StoredTask | undefined;
  /** Insert a task, or return the existing one holding the same idempotency key. */
  insert(task: StoredTask): { task: StoredTask; created: boolean };
  /** Read-modify-write one task under the store's lock. Returns undefined if it is unknown. */
  update(taskId: string, change: (task: StoredTask) => void): StoredTask | undefined;
  summaries(): TaskSummary[];
}

export class StoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreError';
  }
}

/** Tasks past their TTL stay on disk for a grace period, then are dropped on the next write. */
const EXPIRED_GRACE_MS = 24 * 60 * 60 * 1000;

/** What tells one version of the store file from another: every write is a new file (rename). */
const versionOf = (st: Stats) => `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;

export class FileTaskStore implements TaskStore {
  /**
   * The parsed file, kept while the file on disk is the same version (inode, size, times): a
   * tasks/get then costs a stat and a lookup, not a parse of every task. Another process's write
   * replaces the file, which changes its version, so it is always seen.
   */
  private cache: { version: string; file: StoreFile } | undefined;

  constructor(readonly path: string, private readonly now: () => number = Date.now) {}

  /** Fail fast (at start-up) on a path that cannot hold the store. */
  open(): this {
    try {
      ensureDir(dirname(this.path));
      withFileLock(this.path, () => {
        if (!existsSync(this.path)) this.write({ format: 'mcp-tasks-demo-store', version: 2, tasks: {} });
        else this.read();
      });
    } catch (err) {
      if (err instanceof StoreError) throw err;
      throw new StoreError(`cannot use task store ${this.path}: ${(err as Error).message}`);
    }
    return this;
  }

  /** The current file, parsed; callers that change it must go through mutate (which copies). */
  private read(): StoreFile {
    let version: string;
    try {
      version = versionOf(statSync(this.path));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { format: 'mcp-tasks-demo-store', version: 2, tasks: {} };
      throw err;
    }
    if (this.cache?.version === version) return this.cache.file;
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { format: 'mcp-tasks-demo-store', version: 2, tasks: {} };
      throw err;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new StoreError(`task store ${this.path} is not valid JSON; it was left untouched (move it aside to start afresh)`);
    }
    const file = parsed as Partial<StoreFile>;
    if (file?.format !== 'mcp-tasks-demo-store' || typeof file.tasks !== 'object' || file.tasks === null) {
      throw new StoreError(`${this.path} is not an mcp-tasks demo store; it was left untouched`);
    }
    if (file.version !== 2) throw new StoreError(`task store ${this.path} has unsupported format version ${String(file.version)}; it was left untouched (move it aside to start afresh)`);
    // The version read before the text: if the file changed in between, the next read re-reads.
    this.cache = { version, file: file as StoreFile };
    return file as StoreFile;
  }

  private write(file: StoreFile): void {
    this.cache = undefined;
    writeFileAtomic(this.path, JSON.stringify(file));
    try {
      this.cache = { version: versionOf(statSync(this.path)), file };
    } catch {
      /* re-read next time */
    }
  }

  private mutate<T>(fn: (file: StoreFile) => T): T {
    return withFileLock(this.path, () => {
      // A copy: a change that fails to reach the disk must not linger in the cache.
      const current = this.read();
      const file: StoreFile = { ...current, tasks: { ...current.tasks } };
      const out = fn(file);
      const now = this.now();
      for (const [id, t] of Object.entries(file.tasks)) {
        if (t.ttlMs !== null && t.createdAtMs + t.ttlMs + EXPIRED_GRACE_MS < now) delete file.tasks[id];
      }
      this.write(file);
      return out;
    });
  }

  private static find(file: StoreFile, taskId: string): { key: string; sealed: SealedTask } | undefined {
    const key = hashOf('id', taskId);
    return Object.prototype.hasOwnProperty.call(file.tasks, key) ? { key, sealed: file.tasks[key]! } : undefined;
  }

  get(taskId: string): StoredTask | undefined {
    const hit = FileTaskStore.find(this.read(), taskId);
    return hit ? unsealTask(hit.sealed, taskId) : undefined;
  }

  insert(task: StoredTask): { task: StoredTask; created: boolean } {
    return this.mutate((file) => {
      if (task.idempotencyKey !== undefined) {
        const secret = `${task.tool}\0${task.idempotencyKey}`;
        const idemHash = hashOf('idem', secret);
        // An expired task is gone for the client: a repeat of its key starts new work, never a dead handle.
        const now = this.now();
        const existing = Object.values(file.tasks).find((t) => t.idemHash === idemHash && t.idemSealedId && (t.ttlMs === null || now <= t.createdAtMs + t.ttlMs));
        if (existing) {
          const taskId = openWith(keyOf('idem', secret), existing.idemSealedId!);
          return { task: unsealTask(existing, taskId), created: false };
        }
      }
      file.tasks[hashOf('id', task.taskId)] = sealTask(task);
      return { task, created: true };
    });
  }

  update(taskId: string, change: (task: StoredTask) => void): StoredTask | undefined {
    return this.mutate((file) => {
      const hit = FileTaskStore.find(file, taskId);
      if (!hit) return undefined;
      const task = unsealTask(hit.sealed, taskId);
      change(task);
      const resealed = sealTask(task);
      // The idempotency link is kept as it was: answering or cancelling must not let a repeat pay twice.
      if (hit.sealed.idemHash) {
        resealed.idemHash = hit.sealed.idemHash;
        resealed.idemSealedId = hit.sealed.idemSealedId!;
      }
      file.tasks[hit.key] = resealed;
      return task;
    });
  }

  summaries(): TaskSummary[] {
    return Object.values(this.read().tasks).map((t) => ({ tool: t.tool, createdAtMs: t.createdAtMs }));
  }
}
