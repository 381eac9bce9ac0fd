// `cancel <ref>`: tasks/cancel. A cancel request is not a cancellation: without --wait we report
// "requested"; with --wait we report the terminal state actually reached.
import type { Context } from '../../context.js';
import { withTask } from '../../app/with-task.js';
import type { TargetOptions } from '../../app/task-target.js';
import { followTask } from '../../app/follow.js';
import { report, type CancelRequested, type TaskReport } from '../../app/outcomes.js';
import { parseDuration } from '../duration.js';
import { finish } from '../finish.js';

export interface CancelOptions extends TargetOptions {
  wait?: boolean;
  timeoutMs?: number;
}

export async function cancelTaskOutcome(ctx: Context, ref: string, opts: CancelOptions): Promise<TaskReport | CancelRequested> {
  return withTask(ctx, ref, opts, async (scope) => {
    await scope.session.cancelTask(scope.target.taskId);
    if (!opts.wait) return { kind: 'cancel-requested', target: scope.target } as const;
    const end = await followTask(scope, { ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}) });
    const notes = end.kind === 'terminal' && end.snapshot.status !== 'cancelled' && !ctx.json ? [`note: cancellation was requested, but the task ended ${end.snapshot.status} anyway.`] : [];
    return report(scope.target, end, { notes });
  });
}

export interface CancelFlags extends TargetOptions {
  wait?: boolean;
  timeout?: string;
}

/** Flags → validated options → the use case. */
export function cancelOptions(flags: CancelFlags): CancelOptions {
  const { timeout, ...rest } = flags;
  return { ...rest, ...(timeout !== undefined ? { timeoutMs: parseDuration(timeout) } : {}) };
}

export const runCancel = async (ref: string, flags: CancelFlags, ctx: Context): Promise<number> => finish(ctx, await cancelTaskOutcome(ctx, ref, cancelOptions(flags)));
