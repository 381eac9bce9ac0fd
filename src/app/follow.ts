// Following a task to its end for `call`, `watch` and `cancel --wait`: pollUntil with the
// vault kept current (every change, and the terminal result before the command exits).
import type { Context } from '../context.js';
import type { Connection } from '../connection/connect.js';
import { getTask } from '../protocol/task-wire.js';
import { startProgress } from '../output/progress.js';
import { jsonLine, taskJson } from '../output/render.js';
import { pollUntil, type RetryPolicy } from '../tasks/poll.js';
import type { WatchEnd } from '../tasks/outcome.js';
import { snapshotChanged, type TaskSnapshot } from '../tasks/task-snapshot.js';
import type { Vault } from '../vault/vault.js';
import { applySnapshot, type VaultRecord } from '../vault/vault-record.js';
import type { TaskTarget } from './task-target.js';
import { refFor } from './report.js';
import { sanitize } from '../output/sanitize.js';

export interface FollowOptions {
  timeoutMs?: number;
  initial?: TaskSnapshot;
  /** Several tasks watched at once: plain progress lines instead of a spinner. */
  multi?: boolean;
  /** --json watch: one JSON object per observed change on stdout. */
  streamJson?: boolean;
  /** Filled in while streaming: the last snapshot written to stdout. */
  streamed?: { last?: TaskSnapshot };
  retry?: RetryPolicy;
  onInputRequired?: (s: TaskSnapshot) => Promise<'answered' | 'stop'>;
  onInputRelisted?: (s: TaskSnapshot) => Promise<'answered' | 'wait' | 'stop'>;
}

/** Record a snapshot in the vault (only for vaulted targets). */
export function persistSnapshot(ctx: Context, vault: Vault, target: TaskTarget, s: TaskSnapshot): void {
  ctx.redact(s.taskId);
  const at = new Date(ctx.now()).toISOString();
  const prev = target.record.last;
  const unchanged = prev !== undefined && target.record.phase === 'active' && prev.lastUpdatedAt === s.lastUpdatedAt && !snapshotChanged(prev, s);
  applySnapshot(target.record, s, at);
  // Nothing new since the last write: skip the locked write (a `get` loop stays read-only).
  if (target.persisted && !unchanged) vault.update(target.record.opId, (rec) => applySnapshot(rec, s, at));
}

export function markLost(ctx: Context, vault: Vault, target: TaskTarget, reason: string): void {
  const at = new Date(ctx.now()).toISOString();
  const mark = (rec: VaultRecord) => {
    rec.phase = 'lost';
    rec.reason = reason;
    rec.updatedAt = at;
  };
  mark(target.record);
  if (target.persisted) vault.update(target.record.opId, mark);
}

/**
 * MCP_TASKS_RETRY="<attempts>,<base ms>" tunes the transport retry policy (for CI jobs that
 * want to give up sooner or hold on longer than the default 5 tries from 1 s).
 */
export function retryPolicyFrom(env: NodeJS.ProcessEnv): RetryPolicy | undefined {
  const m = /^(\d+),(\d+)$/.exec(env.MCP_TASKS_RETRY ?? '');
  if (!m) return undefined;
  return { attempts: Number(m[1]), baseDelayMs: Number(m[2]), maxDelayMs: Math.max(Number(m[2]) * 16, 1) };
}

/**
 * MCP_TASKS_INPUT_STUCK_MS: how long answered keys may stay listed before the notice (and, as
 * long again, before a watch without a terminal gives up). Default 15 s.
 */
export function stuckPeriodFrom(env: NodeJS.ProcessEnv): number | undefined {
  const m = /^(\d+)$/.exec(env.MCP_TASKS_INPUT_STUCK_MS ?? '');
  return m ? Math.max(Number(m[1]), 1) : undefined;
}

export async function followTask(ctx: Context, conn: Connection, vault: Vault, target: TaskTarget, opts: FollowOptions = {}): Promise<WatchEnd> {
  const label = `${target.record.operation.name} on ${target.record.server.name}`;
  const retry = opts.retry ?? retryPolicyFrom(ctx.env);
  const stuckAfterMs = stuckPeriodFrom(ctx.env);
  const progress = await startProgress(ctx, label, { multi: opts.multi ?? false });
  try {
    const end = await pollUntil({
      taskId: target.taskId,
      get: (id) => getTask(conn, id, { signal: ctx.interrupt }),
      now: ctx.now,
      sleep: ctx.sleep,
      signal: ctx.interrupt,
      ...(opts.initial ? { initial: opts.initial } : {}),
      ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
      ...(retry ? { retry } : {}),
      ...(stuckAfterMs !== undefined ? { inputStuckAfterMs: stuckAfterMs } : {}),
      onSnapshot: (s, changed) => {
        progress.update(s);
        const terminal = s.status === 'completed' || s.status === 'failed' || s.status === 'cancelled';
        if (changed || terminal) persistSnapshot(ctx, vault, target, s);
        // The first state observed is always streamed, so a watch never ends with nothing on stdout.
        if (ctx.json && opts.streamJson && (changed || terminal || !opts.streamed?.last)) {
          ctx.stdout.write(jsonLine(taskJson(target.record, s)));
          if (opts.streamed) opts.streamed.last = s;
        }
      },
      onRetry: (n) => {
        const wait = n.delayMs < 1000 ? `${n.delayMs} ms` : `${Math.ceil(n.delayMs / 1000)} s`;
        // of 0: the server asked us to back off (HTTP 429), which is not a failure to count.
        progress.note(n.of === 0 ? `${sanitize(n.reason, { singleLine: true, maxLength: 200 })}; asking again in ${wait}` : `server unreachable (${n.reason}); retry ${n.attempt}/${n.of} in ${wait}`);
      },
      onClamp: (c) => ctx.debug(c.why === 'ttl' ? `the server asks to wait ${c.askedMs} ms between polls; waiting ${c.usedMs} ms, until the task's ttlMs runs out` : `the server asks to wait ${c.askedMs} ms between polls; waiting the minimum ${c.usedMs} ms`),
      ...(opts.onInputRequired
        ? {
            onInputRequired: async (s: TaskSnapshot) => {
              progress.stop();
              return opts.onInputRequired!(s);
            },
            ...(opts.onInputRelisted
              ? {
                  onInputRelisted: async (s: TaskSnapshot) => {
                    progress.stop();
                    return opts.onInputRelisted!(s);
                  },
                }
              : {}),
            onInputStuck: (s: TaskSnapshot, forMs: number) => {
              const keys = Object.keys(s.inputRequests ?? {}).map((k) => `"${sanitize(k, { singleLine: true, maxLength: 80 })}"`).join(', ');
              progress.say(
                `the server still lists ${keys} ${Math.round(forMs / 1000)} s after it was handled; mcp-tasks never answers a key twice. ` +
                `If it stays like this, the server did not take the answer: \`mcp-tasks cancel ${refFor(target)}\` stops the task.`,
              );
            },
          }
        : {}),
    });
    if (end.kind === 'lost') markLost(ctx, vault, target, end.reason);
    return end;
  } finally {
    progress.stop();
  }
}
