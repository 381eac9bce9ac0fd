// `watch <ref>...`: poll at each server's pollIntervalMs until every task is terminal.
import type { Context } from '../../context.js';
import { openConnection } from '../../app/server-connection.js';
import { openVault, resolveTarget, type TargetOptions, type TaskTarget } from '../../app/task-target.js';
import { followTask } from '../../app/follow.js';
import { inputHandler, readAnswers, relistedHandler } from '../../app/answering.js';
import { reportEnd } from '../../app/report.js';
import { toCliError } from '../../app/remote-error.js';
import { combineExitCodes } from '../../tasks/outcome.js';
import type { Connection } from '../../connection/connect.js';
import { usageError, type ExitCodeValue } from '../../errors.js';
import type { TaskSnapshot } from '../../tasks/task-snapshot.js';
import { parseDuration } from '../duration.js';

export interface WatchOptions extends TargetOptions {
  timeout?: string;
  answers?: string;
  active?: boolean;
}

export async function runWatch(givenRefs: string[], opts: WatchOptions, ctx: Context): Promise<number> {
  const timeoutMs = opts.timeout !== undefined ? parseDuration(opts.timeout) : undefined;
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
  readAnswers(opts.answers);
  const resolved = [];
  for (const ref of refs) resolved.push(await resolveTarget(ctx, ref, opts));
  const seen = new Set<string>();
  for (const { target } of resolved) {
    const key = `${target.entry.name}\0${target.taskId}`;
    if (seen.has(key)) throw usageError(`the same task is named twice (${target.taskId.slice(0, 10)}…)`);
    seen.add(key);
  }
  // One connection per server, shared by the tasks that live there.
  const connections = new Map<string, Promise<Connection>>();
  const connFor = (t: TaskTarget) => {
    let c = connections.get(t.entry.name);
    if (!c) connections.set(t.entry.name, (c = openConnection(ctx, t.entry, { record: t.record })));
    return c;
  };
  const multi = resolved.length > 1;
  try {
    const codes = await Promise.all(
      resolved.map(async ({ vault, target }): Promise<ExitCodeValue> => {
        try {
          const conn = await connFor(target);
          const initial = target.record.last;
          const streamed: { last?: TaskSnapshot } = {};
          const end = await followTask(ctx, conn, vault, target, {
            multi,
            streamJson: true,
            streamed,
            onInputRequired: inputHandler(ctx, conn, vault, target, { ...(opts.answers !== undefined ? { answers: opts.answers } : {}) }),
            onInputRelisted: relistedHandler(ctx, conn, vault, target, { ...(opts.answers !== undefined ? { answers: opts.answers } : {}) }),
            ...(timeoutMs !== undefined ? { timeoutMs } : {}),
            ...(initial ? { initial: { ...initial } } : {}),
          });
          // In --json mode the final state is the last streamed line, unless the end brought news.
          return reportEnd(ctx, target, end, { statePrinted: ctx.json && streamed.last !== undefined && streamed.last === end.snapshot });
        } catch (err) {
          const e = toCliError(err, target.entry.name);
          if (!e) throw err;
          if (!multi) throw e;
          ctx.stderr.write(`mcp-tasks: ${target.record.operation.name} (${target.taskId.slice(0, 10)}…): ${e.message}\n  next: ${e.next}\n`);
          return e.exitCode;
        }
      }),
    );
    return combineExitCodes(codes);
  } finally {
    for (const c of connections.values()) await c.then((x) => x.close(), () => {});
  }
}
