// `watch <ref>...`: poll at each server's pollIntervalMs until every task is terminal.
import type { Context } from '../../context.js';
import { openVault } from '../../app/task-target.js';
import type { WatchOptions } from '../task-options.js';
import { withTasks } from '../../app/with-task.js';
import { followTask } from '../../app/follow.js';
import { inputHandler, readAnswers, relistedHandler } from '../../app/answering.js';
import { report } from '../../app/outcomes.js';
import { usageError } from '../../errors.js';
import { exitCodeOf } from '../../app/exit-code.js';
import { present } from '../../output/present.js';
import type { TaskSnapshot } from '../../tasks/task-snapshot.js';

export async function runWatch(givenRefs: string[], opts: WatchOptions, ctx: Context): Promise<number> {
  const timeoutMs = opts.timeoutMs;
  let refs = givenRefs;
  if (opts.active) {
    if (refs.length || opts.server) throw usageError('--active watches the vault\'s active tasks: give no refs and no --server');
    // Full ids from the vault, never typed by anyone: nothing to resolve ambiguously.
    refs = openVault(ctx)
      .query({ listedByDefault: true })
      .filter((r) => r.phase === 'active' && r.taskId)
      .map((r) => r.taskId!);
    if (!refs.length) {
      ctx.stderr.write('no active tasks in the vault\n');
      return 0;
    }
  } else if (!refs.length) {
    throw usageError('watch needs at least one <ref> (or --active for every active task in the vault)');
  }
  if (refs.filter((r) => r === '-').length > 1) throw usageError('only one ref can be read from stdin (-)');
  if (opts.answers === '-' && refs.includes('-')) throw usageError('stdin cannot carry both a taskId and the answers');
  readAnswers(ctx, opts.answers);
  const multi = refs.length > 1;
  const reports = await withTasks(ctx, refs, { ...opts, serveInput: ctx.interactive || opts.answers !== undefined }, async (scope) => {
    const initial = scope.target.record.last;
    const streamed: { last?: TaskSnapshot } = {};
    const end = await followTask(scope, {
      multi,
      streamJson: true,
      streamed,
      onInputRequired: inputHandler(scope, { ...(opts.answers !== undefined ? { answers: opts.answers } : {}) }),
      onInputRelisted: relistedHandler(scope, { ...(opts.answers !== undefined ? { answers: opts.answers } : {}) }),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(initial ? { initial: { ...initial } } : {}),
    });
    // In --json mode the final state is the last streamed line, unless the end brought news.
    return report(scope.target, end, { statePrinted: ctx.json && streamed.last !== undefined && streamed.last === end.snapshot });
  }, (settled) => present(ctx, settled));
  // Each task's verdict is printed as soon as it ends; the code is decided over all of them.
  return exitCodeOf({ kind: 'many', reports });
}
