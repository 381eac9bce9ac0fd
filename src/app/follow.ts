// Following a task to its end for `call`, `watch` and `cancel --wait`: pollUntil with the
// vault kept current (every change, and the terminal result before the command exits).
import { startProgress } from '../output/progress.js';
import { streamJsonLine } from '../output/notes.js';
import { taskJson } from '../output/render.js';
import { pollUntil, type RetryPolicy } from '../tasks/poll.js';
import type { TaskSnapshot } from '../tasks/task-snapshot.js';
import type { TaskEnd, TaskScope } from './with-task.js';
import { refFor } from '../output/present.js';
import { sanitize } from '../output/sanitize.js';
import { VaultError } from '../vault/vault-errors.js';
import { cmd, hint, renderHint } from '../hint.js';

export interface FollowOptions {
  timeoutMs?: number | undefined;
  initial?: TaskSnapshot | undefined;
  /** Several tasks watched at once: plain progress lines instead of a spinner. */
  multi?: boolean;
  /** --json watch: one JSON object per observed change on stdout. */
  streamJson?: boolean;
  /** Take pushed states where the session offers them (watch without --poll). */
  push?: boolean;
  /** Filled in while streaming: the last snapshot written to stdout. */
  streamed?: { last?: TaskSnapshot };
  retry?: RetryPolicy;
  onInputRequired?: (s: TaskSnapshot) => Promise<'answered' | 'stop'>;
  /** Without onInputRequired: input_required does not end the follow (cancel --wait waits for an end). */
  throughInput?: boolean;
  onInputRelisted?: (s: TaskSnapshot) => Promise<'answered' | 'wait' | 'stop'>;
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

export async function followTask(scope: TaskScope, opts: FollowOptions = {}): Promise<TaskEnd> {
  const { ctx, session, target } = scope;
  const label = `${target.record.operation.name} on ${target.record.server.name}`;
  const retry = opts.retry ?? retryPolicyFrom(ctx.env);
  const stuckAfterMs = stuckPeriodFrom(ctx.env);
  const createdAt = opts.initial?.createdAt ?? target.record.last?.createdAt;
  const progress = await startProgress(ctx, label, { multi: opts.multi ?? false, createdAt });
  const push = opts.push ? session.pushFor(target.taskId) : undefined;
  const ref = refFor(target);
  try {
    const end = await pollUntil({
      push,
      onPushEpoch: (epoch) => ctx.debug(epoch ? `${ref}: the server pushes this task's states; tasks/get only as a safety poll` : `${ref}: no pushed states (stream dropped or not acknowledged); polling`),
      taskId: target.taskId,
      get: async (id, signal) => scope.settled(await session.getTask(id, { signal: signal ?? ctx.interrupt })),
      now: ctx.now,
      sleep: ctx.sleep,
      signal: ctx.interrupt,
      initial: opts.initial,
      timeoutMs: opts.timeoutMs,
      retry,
      inputStuckAfterMs: stuckAfterMs,
      ...(opts.throughInput ? { throughInput: true } : {}),
      onSnapshot: async (s, changed, via) => {
        progress.update(s);
        const terminal = s.status === 'completed' || s.status === 'failed' || s.status === 'cancelled';
        if (changed) ctx.debug(`${ref}: ${s.status} (via ${via})`);
        if (changed || terminal) await observeOrWarn(scope, s, terminal);
        // The first state observed is always streamed, so a watch never ends with nothing on stdout.
        if (ctx.json && opts.streamJson && (changed || terminal || !opts.streamed?.last)) {
          streamJsonLine(ctx, { ...taskJson(target.record, s), via });
          if (opts.streamed) opts.streamed.last = s;
        }
      },
      onRetry: (n) => {
        // of 0: the server asked us to back off (HTTP 429), which is not a failure to count.
        const why = sanitize(n.reason, { singleLine: true, maxLength: 200 });
        progress.retry(n.of === 0 ? why : `server unreachable (${why}); retry ${n.attempt}/${n.of}`, ctx.now() + n.delayMs);
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
                renderHint(hint`If it stays like this, the server did not take the answer: \`${cmd('cancel', refFor(target))}\` stops the task.`, ctx.invocation),
              );
            },
          }
        : {}),
    });
    return end.kind === 'lost' ? await scope.unknown(end.reason) : end;
  } finally {
    push?.close();
    progress.stop();
  }
}

/**
 * Keep the vault current; a vault that cannot take the write (a full disk) does not end the
 * follow: the state fetched is still shown, with a warning, and the record keeps what it held
 * (the handle, active), so a later `get` fetches the result again and stores it.
 */
async function observeOrWarn(scope: TaskScope, s: TaskSnapshot, terminal: boolean): Promise<void> {
  try {
    await scope.observe(s);
  } catch (err) {
    if (!(err instanceof VaultError)) throw err;
    const why = sanitize(err.message, { singleLine: true, maxLength: 300 });
    const ref = refFor(scope.target);
    scope.warn(
      terminal
        ? hint`warning: the vault could not store this result (${why}); it is printed all the same, and the handle is kept (the record stays active): once the vault is writable, \`${cmd('get', ref)}\` fetches the result again and stores it.`
        : `warning: the vault could not record the task's progress (${why}); the handle is kept, and following goes on.`,
    );
  }
}
