// `get <ref>`: one tasks/get; updates the vault; prints the state, and the result or error when terminal.
import type { Context } from '../../context.js';
import { withTask } from '../../app/with-task.js';
import type { GetOptions } from '../task-options.js';
import { report, type TaskReport } from '../../app/outcomes.js';
import { finish } from '../finish.js';

export async function getTaskReport(ctx: Context, ref: string, opts: GetOptions): Promise<TaskReport> {
  return withTask(ctx, ref, opts, async (scope) => {
    const snapshot = await scope.session.getTask(scope.target.taskId, { signal: ctx.interrupt });
    scope.observe(snapshot);
    return report(scope.target, snapshot.status === 'input_required' ? { kind: 'needs-input', snapshot } : { kind: 'observed', snapshot });
  });
}

export const runGet = async (ref: string, opts: GetOptions, ctx: Context): Promise<number> => finish(ctx, await getTaskReport(ctx, ref, opts));
