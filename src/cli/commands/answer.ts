// `answer <ref>`: answer a task's input requests with tasks/update, then report what tasks/get
// shows. Never creates another task to deliver input; never answers a key twice.
import type { Context } from '../../context.js';
import { CliError } from '../../errors.js';
import { withTask } from '../../app/with-task.js';
import type { AnswerOptions } from '../task-options.js';
import { report, type AnswerTemplate, type TaskReport } from '../../app/outcomes.js';
import { answersTemplate } from '../../tasks/answer-template.js';
import { inlineAnswers } from '../inline-answers.js';
import { refFor, scriptedAnswerHint } from '../../output/present.js';
import { answerTaskRound, relistedOrAwaiting } from '../../app/answering.js';
import { isTerminalStatus } from '../../session/task-session.js';
import { finish } from '../finish.js';
import { cmd, hint, type Hint } from '../../hint.js';

export async function answerTaskReport(ctx: Context, ref: string, opts: AnswerOptions): Promise<TaskReport | AnswerTemplate> {
  if (opts.answers === '-' && ref === '-') throw new CliError('usage', 'stdin cannot carry both the taskId and the answers', 'Give the task by prefix or label, or the answers as a file.');
  // Answering is the one command that always serves input (2025-11-25 opens tasks/result for it).
  return withTask(ctx, ref, { ...opts, serveInput: true }, async (scope) => {
    const { target, session } = scope;
    // The state to believe: a stored terminal state stands against a later, different answer.
    const before = await scope.settled(await session.getTask(target.taskId, { signal: ctx.interrupt }));
    await scope.observe(before);
    if (before.status !== 'input_required') {
      return report(target, { kind: 'observed', snapshot: before }, { notes: ctx.json ? [] : [`nothing to answer: the task is ${before.status}`] });
    }
    const pending = before.inputRequests ?? {};
    const answeredBefore = target.record.inputKeysAnswered.filter((k) => !(opts.again ?? []).includes(k));
    if (opts.template) return { kind: 'answer-template', target, template: answersTemplate(pending, answeredBefore) } satisfies AnswerTemplate;
    const inline = opts.pairs?.length ? inlineAnswers(opts.pairs, pending, answeredBefore, refFor(target)) : undefined;

    const round = await answerTaskRound(scope, pending, { inline, answers: opts.answers, acceptDefaults: opts.acceptDefaults, decline: opts.decline, cancel: opts.cancel, again: opts.again });
    if (round.sent.length === 0 && Object.keys(pending).length === 0) {
      // input_required, but no request to answer reached us (2025-11-25: none came on tasks/result in time): nothing was answered.
      return report(target, { kind: 'needs-input', snapshot: before }, { notes: [hint`nothing was sent: the server says the task needs input but handed out no request to answer; try again shortly (\`${cmd('answer', ...(ref === '-' ? ['-', '--server', target.entry.name] : [ref]))}\`)`] });
    }
    const again = round.sent.length === 0 ? relistedOrAwaiting(ctx, target.record, before) : {};
    if (again.relisted || again.awaiting) {
      // Nothing new to answer: the server lists what it was given (stuck, or not taken yet). Say so; exit 5.
      return report(target, { kind: 'needs-input', snapshot: before, ...again });
    }

    // tasks/update is eventually consistent: report what the server shows now, minus what we just answered.
    const after = round.sent.length ? await scope.settled(await session.getTask(target.taskId, { signal: ctx.interrupt })) : before;
    await scope.observe(after);
    const answered = new Set(target.record.inputKeysAnswered);
    const stillPending = Object.keys(after.inputRequests ?? {}).filter((k) => !answered.has(k));
    const jsonExtra = { answered: round.sent, stale: round.stale, alreadyAnswered: round.alreadyAnswered };
    const notes: Array<string | Hint> = [];
    if (!isTerminalStatus(after.status)) {
      if (stillPending.length > 0) {
        if (round.sent.length === 0) notes.push(`nothing was sent${ctx.interactive ? '' : ' (no terminal to ask in)'}`);
        if (!ctx.interactive) notes.push(...scriptedAnswerHint(refFor(target), after.inputRequests ?? {}, target.record.inputKeysAnswered));
        notes.push(`still waiting for: ${stillPending.join(', ')}`);
      } else if (!ctx.json) notes.push(hint`next: \`${cmd('watch', ...(ref === '-' ? ['-', '--server', target.entry.name] : [ref]))}\` to follow it to the end`);
    }
    return report(target, { kind: 'observed', snapshot: after, stillPending }, { notes, jsonExtra });
  });
}

export const runAnswer = async (ref: string, opts: AnswerOptions, ctx: Context): Promise<number> => finish(ctx, await answerTaskReport(ctx, ref, opts));
