// `get <ref>`: one tasks/get; updates the vault; prints the state, and the result or error when terminal.
import type { Context } from '../../context.js';
import { storedWhenUnreachable, withTask } from '../../app/with-task.js';
import type { GetOptions } from '../task-options.js';
import { report, type TaskReport } from '../../app/outcomes.js';
import { finish } from '../finish.js';
import { relistedKeys } from '../../tasks/input-stuck.js';

export async function getTaskReport(ctx: Context, ref: string, opts: GetOptions): Promise<TaskReport> {
  try {
    return await askServer(ctx, ref, opts);
  } catch (err) {
    // Unreachable, but the terminal state is in the vault: report that, marked as stored.
    const stored = await storedWhenUnreachable(ctx, ref, opts, err);
    if (stored) return stored;
    throw err;
  }
}

function askServer(ctx: Context, ref: string, opts: GetOptions): Promise<TaskReport> {
  // 2025-11-25: the question comes only on tasks/result; collecting it (unanswered, kept in the
  // record for a later answer) is what lets get show it and list it under inputRequests.
  return withTask(ctx, ref, { ...opts, serveInput: true }, async (scope) => {
    const snapshot = scope.settled(await scope.session.getTask(scope.target.taskId, { signal: ctx.interrupt }));
    scope.observe(snapshot);
    if (snapshot.status !== 'input_required') return report(scope.target, { kind: 'observed', snapshot });
    // Every listed key answered before: `answer` would send nothing, so do not advise it plainly.
    const relisted = relistedKeys(Object.keys(snapshot.inputRequests ?? {}), scope.target.record.inputKeysAnswered);
    return report(scope.target, { kind: 'needs-input', snapshot, ...(relisted.length ? { relisted } : {}) });
  });
}

export const runGet = async (ref: string, opts: GetOptions, ctx: Context): Promise<number> => finish(ctx, await getTaskReport(ctx, ref, opts));
