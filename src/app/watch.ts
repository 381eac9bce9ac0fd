// The use case behind `watch <ref>...` (and `watch --active`): follow every task to its end, pushed
// states where the server offers them, else polls at each server's pollIntervalMs; input asked
// for is answered from a file, with defaults, or in a terminal, one prompt at a time.
import type { Context } from '../context.js';
import { usageError } from '../errors.js';
import { withTasks } from './with-task.js';
import type { TargetOptions } from './task-target.js';
import { followTask } from './follow.js';
import { inputHandler, readAnswers, relistedHandler } from './answering.js';
import { report, type Outcome, type TaskFailure, type TaskReport } from './outcomes.js';
import { PromptAbortedError } from '../prompts/prompter.js';
import type { HandleStore } from '../vault/handle-store.js';
import type { TaskSnapshot } from '../tasks/task-snapshot.js';

export interface WatchOptions extends TargetOptions {
  timeoutMs?: number;
  answers?: string;
  acceptDefaults?: boolean;
  active?: boolean;
  /** Never subscribe: poll at pollIntervalMs. */
  poll?: boolean;
}

/**
 * Each task's verdict is handed to `settled` as soon as it ends (the command presents it); the
 * return is what is left to say: nothing to watch, every report (for the exit code), or, after a
 * Ctrl-C over several tasks, the ones it left unfinished.
 */
export async function watch(ctx: Context, vault: HandleStore, givenRefs: string[], opts: WatchOptions, settled: (r: TaskReport | TaskFailure) => void): Promise<Outcome> {
  const refs = await refsToWatch(vault, givenRefs, opts);
  if (!refs.length) return { kind: 'nothing-to-watch' };
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
  const answerOpts = { answers: opts.answers, acceptDefaults: opts.acceptDefaults };
  try {
    // Always collect a 2025-11-25 question: without a terminal it is shown (exit 5), not hidden.
    const reports = await withTasks(wctx, refs, { ...opts, serveInput: true }, async (scope) => {
      const initial = scope.target.record.last;
      const streamed: { last?: TaskSnapshot } = {};
      const answerInput = inputHandler(scope, answerOpts);
      const end = await followTask(scope, {
        multi,
        streamJson: true,
        push: opts.poll !== true,
        streamed,
        onInputRequired: multi ? (s) => stopAllOnAbort(stopAll, () => answerInput(s)) : answerInput,
        onInputRelisted: relistedHandler(scope, answerOpts),
        timeoutMs: opts.timeoutMs,
        initial: initial && { ...initial },
      });
      // In --json mode the final state is the last streamed line, unless the end brought news.
      return report(scope.target, end, { statePrinted: ctx.json && streamed.last !== undefined && streamed.last === end.snapshot });
    }, (r) => {
      // After the Ctrl-C, the tasks it left unfinished are summed up once, in the outcome.
      if (multi && stopAll.signal.aborted && !ctx.json && r.kind === 'task' && (r.end.kind === 'interrupted' || r.end.kind === 'needs-input')) {
        waiting.push(r);
        return;
      }
      settled(r);
    });
    if (multi && stopAll.signal.aborted && !ctx.json) return { kind: 'watch-interrupted', waiting, active: opts.active === true };
    // Each task's verdict was presented as it ended; the code is decided over all of them.
    return { kind: 'many', reports, presented: true };
  } finally {
    ctx.interrupt.removeEventListener('abort', onInterrupt);
  }
}

/** The refs given, or with --active every active task in the store (full ids, never typed by anyone). */
async function refsToWatch(vault: HandleStore, refs: string[], opts: WatchOptions): Promise<string[]> {
  if (!opts.active) {
    if (!refs.length) throw usageError('watch needs at least one <ref> (or --active for every active task in the vault)');
    return refs;
  }
  if (refs.length || opts.server) throw usageError('--active watches the vault\'s active tasks: give no refs and no --server');
  return (await vault.query({ listedByDefault: true })).filter((r) => r.phase === 'active' && r.taskId).map((r) => r.taskId!);
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
