// `get <ref>`: one tasks/get; updates the vault; prints the state, and the result or error when terminal.
import type { Context } from '../../context.js';
import { storedWhenUnreachable, withTask } from '../../app/with-task.js';
import type { GetOptions } from '../task-options.js';
import { report, type TaskReport } from '../../app/outcomes.js';
import { finish } from '../finish.js';
import { ResolvedRecordError } from '../../app/in-doubt.js';
import { relistedOrAwaiting } from '../../app/answering.js';

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
    const snapshot = await scope.settled(await scope.session.getTask(scope.target.taskId, { signal: ctx.interrupt }));
    await scope.observe(snapshot);
    if (snapshot.status !== 'input_required') return report(scope.target, { kind: 'observed', snapshot });
    // Every listed key answered before: `answer` would send nothing, so do not advise it plainly.
    return report(scope.target, { kind: 'needs-input', snapshot, ...relistedOrAwaiting(ctx, scope.target.record, snapshot) });
  });
}

export async function runGet(ref: string, opts: GetOptions, ctx: Context): Promise<number> {
  try {
    return finish(ctx, await getTaskReport(ctx, ref, opts));
  } catch (err) {
    // Closed by hand: its verdict and note, nothing sent.
    if (err instanceof ResolvedRecordError) return finish(ctx, { kind: 'resolved-record', record: err.record });
    throw err;
  }
}
