// `answer <ref>`: answer a task's input requests with tasks/update, then report what tasks/get
// shows. Never creates another task to deliver input; never answers a key twice.
import type { Context } from '../../context.js';
import { CliError, ExitCode } from '../../errors.js';
import { openConnection, withServerName } from '../../app/server-connection.js';
import { resolveTarget, type TargetOptions } from '../../app/task-target.js';
import { markLost, persistSnapshot } from '../../app/follow.js';
import { reportEnd } from '../../app/report.js';
import { answerTaskRound } from '../../app/answering.js';
import { getTask } from '../../protocol/task-wire.js';
import { RpcResponseError } from '../../protocol/remote-errors.js';
import { isTerminalStatus } from '../../protocol/constants.js';
import { jsonLine, makeStyle, renderTask, taskJson } from '../../output/render.js';
import { exitCodeForSnapshot } from '../../tasks/outcome.js';
import { relistedKeys } from '../../tasks/input-stuck.js';

export interface AnswerOptions extends TargetOptions {
  answers?: string;
  decline?: string[];
  cancel?: string[];
  /** Keys answered before that get a new answer on purpose. */
  again?: string[];
}

export async function runAnswer(ref: string, opts: AnswerOptions, ctx: Context): Promise<number> {
  if (opts.answers === '-' && ref === '-') throw new CliError('usage', 'stdin cannot carry both the taskId and the answers', 'Give the task by prefix or label, or the answers as a file.');
  const { vault, target } = await resolveTarget(ctx, ref, opts);
  const conn = await openConnection(ctx, target.entry, { record: target.record });
  try {
    return await withServerName(target.entry.name, async () => {
      const lost = (reason: string) => {
        markLost(ctx, vault, target, reason);
        return reportEnd(ctx, target, { kind: 'lost', reason, ...(target.record.last ? { snapshot: target.record.last } : {}) });
      };
      let before;
      try {
        before = await getTask(conn, target.taskId, { signal: ctx.interrupt });
      } catch (err) {
        if (err instanceof RpcResponseError && err.isUnknownTask) return lost('the server no longer knows this task (unknown or expired taskId)');
        throw err;
      }
      persistSnapshot(ctx, vault, target, before);
      if (before.status !== 'input_required') {
        if (ctx.json) ctx.stdout.write(jsonLine(taskJson(target.record, before)));
        else {
          ctx.stdout.write(renderTask(target.record, before, makeStyle(ctx.color)));
          ctx.stderr.write(`nothing to answer: the task is ${before.status}\n`);
        }
        return isTerminalStatus(before.status) ? exitCodeForSnapshot(before) : ExitCode.Ok;
      }

      const round = await answerTaskRound(ctx, conn, vault, target, before.inputRequests ?? {}, {
        ...(opts.answers !== undefined ? { answers: opts.answers } : {}),
        ...(opts.decline ? { decline: opts.decline } : {}),
        ...(opts.cancel ? { cancel: opts.cancel } : {}),
        ...(opts.again ? { again: opts.again } : {}),
      });
      const relisted = round.sent.length === 0 ? relistedKeys(Object.keys(before.inputRequests ?? {}), target.record.inputKeysAnswered) : [];
      if (relisted.length > 0) {
        // Nothing new to answer: the server asks again for what it was given. Say so; exit 5.
        return reportEnd(ctx, target, { kind: 'needs-input', snapshot: before, relisted });
      }

      // tasks/update is eventually consistent: report what the server shows now, minus what we just answered.
      let after;
      try {
        after = round.sent.length ? await getTask(conn, target.taskId, { signal: ctx.interrupt }) : before;
      } catch (err) {
        if (err instanceof RpcResponseError && err.isUnknownTask) return lost('the server no longer knows this task (unknown or expired taskId)');
        throw err;
      }
      persistSnapshot(ctx, vault, target, after);
      const answered = new Set(target.record.inputKeysAnswered);
      const stillPending = Object.keys(after.inputRequests ?? {}).filter((k) => !answered.has(k));
      if (ctx.json) ctx.stdout.write(jsonLine({ ...taskJson(target.record, after), answered: round.sent, stale: round.stale, alreadyAnswered: round.alreadyAnswered }));
      else ctx.stdout.write(renderTask(target.record, after, makeStyle(ctx.color)));

      if (isTerminalStatus(after.status)) return exitCodeForSnapshot(after);
      if (stillPending.length > 0) {
        if (round.sent.length === 0) ctx.stderr.write(`nothing was sent${ctx.interactive ? '' : ' (no terminal to ask in: pass --answers <file>, --decline KEY or --cancel KEY)'}\n`);
        ctx.stderr.write(`still waiting for: ${stillPending.join(', ')}\n`);
        return ExitCode.NeedsInput;
      }
      if (!ctx.json) ctx.stderr.write(`next: \`mcp-tasks watch ${ref === '-' ? `- --server ${target.entry.name}` : ref}\` to follow it to the end\n`);
      return ExitCode.Ok;
    });
  } finally {
    await conn.close();
  }
}
