// The demo server's durable task store. Every task is written before its handle is returned,
// and a task's progress is derived from what is stored here (times, answers, cancel requests),
// so any process opened on the same file answers the same way for every task it created.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { withFileLock, writeFileAtomic } from '../fs/atomic-file.js';

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

interface StoreFile {
  format: 'mcp-tasks-demo-store';
  version: 1;
  tasks: Record<string, StoredTask>;
}

export interface TaskStore {
  get(taskId: string): StoredTask | undefined;
  /** Insert a task, or return the existing one holding the same idempotency key. */
  insert(task: StoredTask): { task: StoredTask; created: boolean };
  /** Read-modify-write one task under the store's lock. Returns undefined if it is unknown. */
  update(taskId: string, change: (task: StoredTask) => void): StoredTask | undefined;
  all(): StoredTask[];
}

export class StoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreError';
  }
}

/** Tasks past their TTL stay on disk for a grace period, then are dropped on the next write. */
const EXPIRED_GRACE_MS = 24 * 60 * 60 * 1000;

export class FileTaskStore implements TaskStore {
  constructor(readonly path: string, private readonly now: () => number = Date.now) {}

  /** Fail fast (at start-up) on a path that cannot hold the store. */
  open(): this {
    try {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      withFileLock(this.path, () => {
        if (!existsSync(this.path)) this.write({ format: 'mcp-tasks-demo-store', version: 1, tasks: {} });
        else this.read();
      });
    } catch (err) {
      if (err instanceof StoreError) throw err;
      throw new StoreError(`cannot use task store ${this.path}: ${(err as Error).message}`);
    }
    return this;
  }

  private read(): StoreFile {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { format: 'mcp-tasks-demo-store', version: 1, tasks: {} };
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
    if (file.version !== 1) throw new StoreError(`task store ${this.path} has unsupported version ${String(file.version)}`);
    return file as StoreFile;
  }

  private write(file: StoreFile): void {
    writeFileAtomic(this.path, JSON.stringify(file));
  }

  private mutate<T>(fn: (file: StoreFile) => T): T {
    return withFileLock(this.path, () => {
      const file = this.read();
      const out = fn(file);
      const now = this.now();
      for (const [id, t] of Object.entries(file.tasks)) {
        if (t.ttlMs !== null && t.createdAtMs + t.ttlMs + EXPIRED_GRACE_MS < now) delete file.tasks[id];
      }
      this.write(file);
      return out;
    });
  }

  get(taskId: string): StoredTask | undefined {
    const tasks = this.read().tasks;
    return Object.prototype.hasOwnProperty.call(tasks, taskId) ? tasks[taskId] : undefined;
  }

  insert(task: StoredTask): { task: StoredTask; created: boolean } {
    return this.mutate((file) => {
      if (task.idempotencyKey !== undefined) {
        const existing = Object.values(file.tasks).find(
          (t) => t.idempotencyKey === task.idempotencyKey && t.tool === task.tool,
        );
        if (existing) return { task: existing, created: false };
      }
      file.tasks[task.taskId] = task;
      return { task, created: true };
    });
  }

  update(taskId: string, change: (task: StoredTask) => void): StoredTask | undefined {
    return this.mutate((file) => {
      const task = Object.prototype.hasOwnProperty.call(file.tasks, taskId) ? file.tasks[taskId] : undefined;
      if (task) change(task);
      return task;
    });
  }

  all(): StoredTask[] {
    return Object.values(this.read().tasks);
  }
}
