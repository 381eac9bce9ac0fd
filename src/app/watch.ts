// The use case behind `watch <ref>...` (and `watch --active`): follow every task to its end, pushed
// states where the server offers them, else polls at each server's pollIntervalMs; input asked
// for is answered from a file, with defaults, or in a terminal, one prompt at a time.
import type { Context } from '../context.js';
import { CliError, usageError } from '../errors.js';
import { sayOn } from '../output/notes.js';
import { sanitize } from '../output/sanitize.js';
import { renderHint } from '../hint.js';
import { toCliError } from './remote-error.js';
import { withTasks, type JoiningTasks } from './with-task.js';
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
  checkRefs(givenRefs, opts);
  // --active on the team store: tasks other machines add while the watch runs join it. Listening
  // starts before the store is read, so a task added in between is in one or the other.
  const joining = opts.active && vault.follow ? await joiningFromStore(ctx, vault) : undefined;
  try {
    return await watchRefs(ctx, vault, givenRefs, opts, settled, joining);
  } finally {
    joining?.stop();
    // The feed's reads end before the command does, none left holding a connection; a store
    // that stopped answering is not waited for more than a moment.
    if (joining) await Promise.race([joining.finished, new Promise((r) => setTimeout(r, FEED_END_WAIT_MS).unref())]);
  }
}

async function watchRefs(ctx: Context, vault: HandleStore, givenRefs: string[], opts: WatchOptions, settled: (r: TaskReport | TaskFailure) => void, joining: StoreJoining | undefined): Promise<Outcome> {
  const refs = await refsToWatch(vault, givenRefs, opts, joining);
  if (!refs.length) return { kind: 'nothing-to-watch' };
  if (refs.filter((r) => r === '-').length > 1) throw usageError('only one ref can be read from stdin (-)');
  if (opts.answers === '-' && refs.includes('-')) throw usageError('stdin cannot carry both a taskId and the answers');
  readAnswers(ctx, opts.answers);
  // Tasks may join: each gets plain progress lines, and one Ctrl-C stops them all.
  const multi = refs.length > 1 || joining !== undefined;
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
    }, joining);
    if (multi && stopAll.signal.aborted && !ctx.json) return { kind: 'watch-interrupted', waiting, active: opts.active === true };
    // Each task's verdict was presented as it ended; the code is decided over all of them.
    return { kind: 'many', reports, presented: true };
  } finally {
    ctx.interrupt.removeEventListener('abort', onInterrupt);
  }
}

function checkRefs(refs: string[], opts: WatchOptions): void {
  if (!opts.active) {
    if (!refs.length) throw usageError('watch needs at least one <ref> (or --active for every active task in the vault)');
    return;
  }
  if (refs.length || opts.server) throw usageError('--active watches the vault\'s active tasks: give no refs and no --server');
}

/** The refs given, or with --active every active task in the store (full ids, never typed by anyone). */
async function refsToWatch(vault: HandleStore, refs: string[], opts: WatchOptions, joining: StoreJoining | undefined): Promise<string[]> {
  if (!opts.active) return refs;
  const active = (await vault.query({ listedByDefault: true })).filter((r) => r.phase === 'active' && r.taskId);
  // These are followed from the start: their later writes announce nothing new.
  for (const r of active) joining?.known(r.opId);
  return active.map((r) => r.taskId!);
}

/** How long a watch's end waits for the team store's feed to close. */
const FEED_END_WAIT_MS = 2_000;

/** watch --active's feed of tasks that other machines add to the team store, as JoiningTasks. */
interface StoreJoining extends JoiningTasks {
  /** A record followed already (one of the first): not handed on when it is written again. */
  known(opId: string): void;
  /** Settles once the feed has ended after stop(), its reads of the store with it (never rejects). */
  finished: Promise<unknown>;
}

/**
 * Every record the team store sees written from now on (PostgreSQL LISTEN/NOTIFY through
 * `follow`, no timer): a record that becomes active with a handle, and is not followed yet, joins
 * the watch by its opId. Resolves once the store listens. A feed that cannot listen, or breaks,
 * is said once; the tasks already followed go on.
 */
async function joiningFromStore(ctx: Context, vault: HandleStore): Promise<StoreJoining> {
  const say = sayOn(ctx);
  const stop = new AbortController();
  const onInterrupt = () => stop.abort();
  ctx.interrupt.addEventListener('abort', onInterrupt, { once: true });
  const seen = new Set<string>();
  const queued: string[] = [];
  let add: ((ref: string) => void) | undefined;
  let listening!: () => void;
  const ready = new Promise<void>((resolve) => (listening = resolve));
  // What ended the follow: undefined when it was stopped, else the failure.
  const ended = vault.follow!((rec) => {
    if (rec.phase !== 'active' || !rec.taskId || seen.has(rec.opId)) return;
    seen.add(rec.opId);
    if (add) add(rec.opId);
    else queued.push(rec.opId);
  }, stop.signal, listening).then(() => undefined, (err: unknown) => err ?? new Error('the team store stopped answering'));
  const first = await Promise.race([ready.then(() => ({ listening: true as const })), ended.then((err) => ({ listening: false as const, err }))]);
  if (!first.listening && first.err !== undefined) {
    // The store could not be opened (a wrong team key, a store that cannot be reached): the watch fails as reading it would.
    ctx.interrupt.removeEventListener('abort', onInterrupt);
    throw first.err;
  }
  void ended.then((err) => {
    if (err !== undefined && !stop.signal.aborted) say(`mcp-tasks: tasks other machines add to the team store are no longer followed: ${sanitize(err instanceof Error ? err.message : String(err), { singleLine: true, maxLength: 300 })}`);
  });
  return {
    known: (opId) => void seen.add(opId),
    finished: ended,
    start(fn) {
      add = fn;
      for (const ref of queued.splice(0)) fn(ref);
    },
    refused(ref, err) {
      const e = toCliError(err) ?? err;
      const why = e instanceof Error ? e.message : String(e);
      say(`mcp-tasks: a task added to the team store (operation ${ref.slice(0, 8)}) is not followed here: ${sanitize(why, { singleLine: true, maxLength: 500 })}`);
      if (e instanceof CliError && e.next) say(`  next: ${sanitize(renderHint(e.next, ctx.invocation), { singleLine: true, maxLength: 500 })}`);
    },
    stop() {
      ctx.interrupt.removeEventListener('abort', onInterrupt);
      stop.abort();
    },
  };
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
