// `get <ref>`: one tasks/get; updates the vault; prints the state, and the result or error when terminal.
import { relistedKeys } from '../../tasks/input-stuck.js';
import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import { openConnection, withServerName } from '../../app/server-connection.js';
import { resolveTarget, type TargetOptions } from '../../app/task-target.js';
import { markLost, persistSnapshot } from '../../app/follow.js';
import { reportEnd } from '../../app/report.js';
import { getTask } from '../../protocol/task-wire.js';
import { RpcResponseError } from '../../protocol/remote-errors.js';
import { jsonLine, makeStyle, renderTask, taskJson } from '../../output/render.js';
import { exitCodeForSnapshot } from '../../tasks/outcome.js';
import { isTerminalStatus } from '../../protocol/constants.js';

export async function runGet(ref: string, opts: TargetOptions, ctx: Context): Promise<number> {
  const { vault, target } = await resolveTarget(ctx, ref, opts);
  const conn = await openConnection(ctx, target.entry, { record: target.record });
  try {
    return await withServerName(target.entry.name, async () => {
      let snapshot;
      try {
        snapshot = await getTask(conn, target.taskId, { signal: ctx.interrupt });
      } catch (err) {
        if (err instanceof RpcResponseError && err.isUnknownTask) {
          const rec = target.record;
          // The server forgot a task whose terminal result we already hold: that is not a loss.
          if (rec.phase === 'terminal' && rec.last && isTerminalStatus(rec.last.status)) {
            const cached = { ...rec.last, ...(rec.result ? { result: rec.result } : {}), ...(rec.error ? { error: rec.error } : {}) };
            if (ctx.json) ctx.stdout.write(jsonLine(taskJson(rec, cached)));
            else ctx.stdout.write(renderTask(rec, cached, makeStyle(ctx.color)));
            ctx.stderr.write(`note: the server no longer keeps this task; this is the terminal state stored in the vault on ${rec.updatedAt}.\n`);
            return exitCodeForSnapshot(cached);
          }
          const reason = 'the server no longer knows this task (unknown or expired taskId)';
          markLost(ctx, vault, target, reason);
          return reportEnd(ctx, target, { kind: 'lost', reason, ...(rec.last ? { snapshot: rec.last } : {}) });
        }
        throw err;
      }
      persistSnapshot(ctx, vault, target, snapshot);
      if (ctx.json) ctx.stdout.write(jsonLine(taskJson(target.record, snapshot)));
      else ctx.stdout.write(renderTask(target.record, snapshot, makeStyle(ctx.color)));
      if (snapshot.status === 'input_required') {
        // Every listed key answered before: `answer` would send nothing, so do not advise it plainly.
        const relisted = relistedKeys(Object.keys(snapshot.inputRequests ?? {}), target.record.inputKeysAnswered);
        return reportEnd(ctx, target, { kind: 'needs-input', snapshot, ...(relisted.length ? { relisted } : {}) }, { statePrinted: true });
      }
      return isTerminalStatus(snapshot.status) ? exitCodeForSnapshot(snapshot) : ExitCode.Ok;
    });
  } finally {
    await conn.close();
  }
}
