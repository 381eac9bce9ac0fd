// `cancel <ref>`: tasks/cancel. A cancel request is not a cancellation: without --wait we report
// "requested"; with --wait we report the terminal state actually reached.
import type { Context } from '../../context.js';
import { storedTerminal, withTask, type TaskEnd } from '../../app/with-task.js';
import { resolveTarget } from '../../app/task-target.js';
import { followTask } from '../../app/follow.js';
import { report, type CancelNotSent, type CancelRequested, type TaskReport } from '../../app/outcomes.js';
import type { CancelOptions } from '../task-options.js';
import { finish } from '../finish.js';
import { isTerminalStatus } from '../../session/task-session.js';

export async function cancelTaskOutcome(ctx: Context, ref: string, opts: CancelOptions): Promise<TaskReport | CancelRequested | CancelNotSent> {
  if (!opts.force && ref !== '-') {
    // Cancelling a finished task changes nothing on the server: report what the vault holds, send nothing.
    const { target } = await resolveTarget(ctx, ref, opts);
    const stored = storedTerminal(target.record);
    if (stored) return { kind: 'cancel-not-sent', target, snapshot: stored };
  }
  return withTask(ctx, ref, opts, async (scope) => {
    // --force past a stored end: what was known before sending, so the report says what it was.
    const stored = storedTerminal(scope.target.record);
    const answer = await scope.session.cancelTask(scope.target.taskId);
    if (answer.endedAlready && isTerminalStatus(answer.endedAlready.status)) {
      // The server refused it: the task had ended (its tasks/get says how). Nothing to wait for.
      return { kind: 'cancel-requested', target: scope.target, ended: { snapshot: await scope.settled(answer.endedAlready), by: 'server' } } as const;
    }
    if (stored) return { kind: 'cancel-requested', target: scope.target, ended: { snapshot: stored, by: 'vault' } } as const;
    if (!opts.wait) return { kind: 'cancel-requested', target: scope.target } as const;
    // Cancellation is cooperative: a task still asking for input has not ended; wait for an end.
    const end = await followTask(scope, { timeoutMs: opts.timeoutMs, throughInput: true });
    return report(scope.target, end, { notes: ctx.json ? [] : cancelNotes(end) });
  });
}

/** What the cancel came to, in words: the state reached is reported, never assumed. */
function cancelNotes(end: TaskEnd): string[] {
  const status = end.snapshot?.status;
  if (end.kind === 'terminal' && status !== 'cancelled') return [`note: the cancel was requested, but the task ${status === 'completed' ? 'completed' : `ended ${status}`} anyway; the state above is the one it reached.`];
  if (end.kind === 'timeout') return [`note: the cancel was requested; the server had not ended the task (still ${status ?? 'running'}) when --timeout was reached.`];
  return [];
}

export const runCancel = async (ref: string, opts: CancelOptions, ctx: Context): Promise<number> => finish(ctx, await cancelTaskOutcome(ctx, ref, opts));
