// `cancel <ref>`: tasks/cancel. A cancel request is not a cancellation: without --wait we report
// "requested"; with --wait we report the terminal state actually reached.
import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import { openConnection, withServerName } from '../../app/server-connection.js';
import { resolveTarget, type TargetOptions } from '../../app/task-target.js';
import { followTask, markLost } from '../../app/follow.js';
import { refFor, reportEnd } from '../../app/report.js';
import { cancelTask } from '../../protocol/task-wire.js';
import { RpcResponseError } from '../../protocol/remote-errors.js';
import { jsonLine, taskJson } from '../../output/render.js';
import { parseDuration } from '../duration.js';
import { exitCodeForSnapshot } from '../../tasks/outcome.js';
import type { TaskSnapshot } from '../../tasks/task-snapshot.js';

export interface CancelOptions extends TargetOptions {
  wait?: boolean;
  timeout?: string;
  /** Send tasks/cancel even when the vault holds a terminal state. */
  force?: boolean;
}

export async function runCancel(ref: string, opts: CancelOptions, ctx: Context): Promise<number> {
  const timeoutMs = opts.timeout !== undefined ? parseDuration(opts.timeout) : undefined;
  const { vault, target } = await resolveTarget(ctx, ref, opts);
  const stored = target.record.phase === 'terminal' ? target.record.last : undefined;
  if (stored && !opts.force) {
    // Cancelling a finished task changes nothing on the server (the spec makes it a no-op):
    // report what the vault holds and send nothing.
    if (ctx.json) ctx.stdout.write(jsonLine({ ...taskJson(target.record), cancellation: 'not-sent' }));
    else {
      ctx.stdout.write(`${target.record.operation.name} on ${target.entry.name} already ended ${stored.status} (kept in the vault); no cancellation was sent.\n`);
      ctx.stdout.write(`  \`mcp-tasks show ${refFor(target)}\` shows its result; \`mcp-tasks cancel ${refFor(target)} --force\` sends tasks/cancel anyway.\n`);
    }
    return exitCodeForSnapshot({ ...stored, ...(target.record.result ? { result: target.record.result } : {}) } as TaskSnapshot);
  }
  const conn = await openConnection(ctx, target.entry, { record: target.record });
  try {
    return await withServerName(target.entry.name, async () => {
      try {
        await cancelTask(conn, target.taskId);
      } catch (err) {
        if (err instanceof RpcResponseError && err.isUnknownTask) {
          const reason = 'the server no longer knows this task (unknown or expired taskId)';
          markLost(ctx, vault, target, reason);
          return reportEnd(ctx, target, { kind: 'lost', reason, ...(target.record.last ? { snapshot: target.record.last } : {}) });
        }
        throw err;
      }
      if (!opts.wait) {
        if (ctx.json) ctx.stdout.write(jsonLine({ ...taskJson(target.record), cancellation: 'requested' }));
        else {
          ctx.stdout.write(`cancellation requested for ${target.record.operation.name} on ${target.entry.name}; the server acknowledged it.\n`);
          ctx.stdout.write(`  The task may still complete or fail: \`mcp-tasks cancel ${refFor(target)} --wait\` or \`mcp-tasks watch ${refFor(target)}\` shows the state it reaches.\n`);
        }
        return ExitCode.Ok;
      }
      const end = await followTask(ctx, conn, vault, target, { ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
      if (end.kind === 'terminal' && end.snapshot.status !== 'cancelled' && !ctx.json) {
        ctx.stderr.write(`note: cancellation was requested, but the task ended ${end.snapshot.status} anyway.\n`);
      }
      return reportEnd(ctx, target, end);
    });
  } finally {
    await conn.close();
  }
}
