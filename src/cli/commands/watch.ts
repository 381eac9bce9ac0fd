// `watch <ref>...`: poll at each server's pollIntervalMs until every task is terminal.
import type { Context } from '../../context.js';
import { openVault } from '../../app/task-target.js';
import type { WatchOptions } from '../task-options.js';
import { withTasks } from '../../app/with-task.js';
import { followTask } from '../../app/follow.js';
import { inputHandler, readAnswers, relistedHandler } from '../../app/answering.js';
import { report, type TaskReport } from '../../app/outcomes.js';
import { exitCodeOf } from '../../app/exit-code.js';
import { present, refFor } from '../../output/present.js';
import { safeName } from '../../output/sanitize.js';
import { PromptAbortedError } from '../../prompts/prompter.js';
import { ExitCode, usageError } from '../../errors.js';
import { ResolvedRecordError } from '../../app/in-doubt.js';
import { finish } from '../finish.js';
import type { TaskSnapshot } from '../../tasks/task-snapshot.js';

export async function runWatch(givenRefs: string[], opts: WatchOptions, ctx: Context): Promise<number> {
  try {
    return await watchTasks(givenRefs, opts, ctx);
  } catch (err) {
    // One record, closed by hand: its verdict and note, nothing sent (several: each one's failure line says so).
    if (err instanceof ResolvedRecordError) return finish(ctx, { kind: 'resolved-record', record: err.record });
    throw err;
  }
}

async function watchTasks(givenRefs: string[], opts: WatchOptions, ctx: Context): Promise<number> {
  const timeoutMs = opts.timeoutMs;
  let refs = givenRefs;
  if (opts.active) {
    if (refs.length || opts.server) throw usageError('--active watches the vault\'s active tasks: give no refs and no --server');
    // Full ids from the vault, never typed by anyone: nothing to resolve ambiguously.
    refs = (await openVault(ctx).query({ listedByDefault: true }))
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
  // Several tasks in a terminal: one Ctrl-C (a keypress inside a prompt, or SIGINT between them)
  // stops every watch at once; the prompts still queued never open.
  const stopAll = new AbortController();
  const onInterrupt = () => stopAll.abort();
  if (ctx.interrupt.aborted) stopAll.abort();
  else ctx.interrupt.addEventListener('abort', onInterrupt, { once: true });
  const wctx: Context = multi ? Object.create(ctx, { interrupt: { value: stopAll.signal } }) : ctx;
  const waiting: TaskReport[] = [];
  try {
    // Always collect a 2025-11-25 question: without a terminal it is shown (exit 5), not hidden.
    const reports = await withTasks(wctx, refs, { ...opts, serveInput: true }, async (scope) => {
      const initial = scope.target.record.last;
      const streamed: { last?: TaskSnapshot } = {};
      const answerInput = inputHandler(scope, { answers: opts.answers, acceptDefaults: opts.acceptDefaults });
      const end = await followTask(scope, {
        multi,
        streamJson: true,
        push: opts.poll !== true,
        streamed,
        onInputRequired: multi ? (s) => stopAllOnAbort(stopAll, () => answerInput(s)) : answerInput,
        onInputRelisted: relistedHandler(scope, { answers: opts.answers, acceptDefaults: opts.acceptDefaults }),
        timeoutMs,
        initial: initial && { ...initial },
      });
      // In --json mode the final state is the last streamed line, unless the end brought news.
      return report(scope.target, end, { statePrinted: ctx.json && streamed.last !== undefined && streamed.last === end.snapshot });
    }, (settled) => {
      // After the Ctrl-C, the tasks it left unfinished are summed up once, below.
      if (multi && stopAll.signal.aborted && !ctx.json && settled.kind === 'task' && (settled.end.kind === 'interrupted' || settled.end.kind === 'needs-input')) {
        waiting.push(settled);
        return;
      }
      // A verdict printed while another task's prompt is open would be erased by its redraw: it waits.
      ctx.whenNoPrompt(() => present(ctx, settled));
    });
    if (multi && stopAll.signal.aborted && !ctx.json) {
      presentInterrupted(ctx, waiting, opts.active === true);
      return ExitCode.Interrupted;
    }
    // Each task's verdict is printed as soon as it ends; the code is decided over all of them.
    return exitCodeOf({ kind: 'many', reports });
  } finally {
    ctx.interrupt.removeEventListener('abort', onInterrupt);
  }
}

/** A prompt interrupted by Ctrl-C ends every watch; the prompts queued behind it never open. */
async function stopAllOnAbort(stopAll: AbortController, answer: () => Promise<'answered' | 'stop'>): Promise<'answered' | 'stop'> {
  if (stopAll.signal.aborted) return 'stop';
  try {
    return await answer();
  } catch (err) {
    if (!(err instanceof PromptAbortedError)) throw err;
    stopAll.abort();
    return 'stop';
  }
}

/** One Ctrl-C over several tasks: what is still waiting, by the refs a person can type, and how to come back. */
function presentInterrupted(ctx: Context, waiting: TaskReport[], active: boolean): void {
  const refOf = (r: TaskReport) => `${refFor(r.target)} (${safeName(r.target.record.operation.name, 80)})`;
  const input = waiting.filter((r) => r.end.kind === 'needs-input' || r.end.snapshot?.status === 'input_required');
  const running = waiting.filter((r) => !input.includes(r));
  const lines = ['mcp-tasks: interrupted; every task keeps running on the server and its handle is kept.'];
  if (input.length) lines.push(`  waiting for input: ${input.map(refOf).join(', ')}`);
  if (running.length) lines.push(`  still running: ${running.map(refOf).join(', ')}`);
  const resume = active ? `${ctx.invocation} watch --active` : `${ctx.invocation} watch ${waiting.map((r) => refFor(r.target)).join(' ')}`;
  lines.push(`  next: \`${resume}\` to follow ${waiting.length === 1 ? 'it' : 'them'} again${input.length ? ` (or \`${ctx.invocation} answer ${refFor(input[0]!.target)}\` for one)` : ''}.`);
  ctx.stderr.write(`${lines.join('\n')}\n`);
}
