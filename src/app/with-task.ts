// withTask: the one skeleton every command acting on a task shares (compare mcpc's
// withMcpClient): resolve the ref → open a TaskSession on the record's server → run → close.
// It owns the two rules every command must apply alike: a task the server does not know is
// lost, unless a terminal result is stored (that is never replaced by "lost"); and the
// in-memory record and the vault record change through one path, so they never drift apart.
import type { Context } from '../context.js';
import { isTerminalStatus } from '../session/task-session.js';
import { isUnknownTaskError, lostReasonOf, type TaskSession } from '../session/task-session.js';
import { openSession } from '../session/open-session.js';
import { snapshotChanged, type TaskSnapshot } from '../tasks/task-snapshot.js';
import type { HandleStore } from '../vault/handle-store.js';
import { sanitize, shortTaskId } from '../output/sanitize.js';
import { applySnapshot, isActivePhase, storedTerminalState, terminalConflictOf, type TerminalConflict, type VaultRecord } from '../vault/vault-record.js';
import { CliError, usageError } from '../errors.js';
import { toCliError } from './remote-error.js';
import { refFor } from '../output/present.js';
import { reconnectEnv, resolveTarget, type TargetOptions, type TaskTarget } from './task-target.js';
import { report, type Outcome, type TaskEnd, type TaskFailure, type TaskReport } from './outcomes.js';
export type { TaskEnd };
import { comparePrincipals, OtherPrincipalError } from '../tasks/principal.js';
import { cmd, hint, renderHint, type Hint } from '../hint.js';

export const UNKNOWN_TASK_REASON = 'the server no longer knows this task (unknown or expired taskId)';

/** The not-visible end of a task whose handle the sign-in check kept back. */
function notSent(target: TaskTarget, err: OtherPrincipalError): TaskEnd {
  return { kind: 'not-visible', created: err.created, ...(err.current ? { current: err.current } : {}), sent: false, ...(target.record.last ? { snapshot: target.record.last } : {}) };
}

export interface TaskScope {
  readonly ctx: Context;
  readonly session: TaskSession;
  readonly vault: HandleStore;
  readonly target: TaskTarget;
  /** The one record-update path: the vault's record (when persisted) and `target.record` stay equal. */
  update(change: (rec: VaultRecord) => void): Promise<void>;
  /** Fold an observed snapshot into the record (a write only when something changed). */
  observe(snapshot: TaskSnapshot): Promise<void>;
  /**
   * The state to believe: a status that goes backwards after a terminal one the vault holds
   * (a confused or replayed server) is not believed; the stored terminal state stands.
   */
  settled(snapshot: TaskSnapshot): Promise<TaskSnapshot>;
  /** The server does not know the task: lost, unless a terminal result is stored. */
  unknown(reason?: string): Promise<TaskEnd>;
  /** Say something the verdict must carry (stderr, and `warnings` in --json): a contradiction, a write that failed. Its commands as invoked. */
  warn(line: string | Hint): void;
  readonly warnings: readonly string[];
}

/** The terminal state the vault holds for this record, with its result or error. */
export const storedTerminal = (rec: VaultRecord): TaskSnapshot | undefined => storedTerminalState(rec);

export function taskScope(ctx: Context, session: TaskSession, vault: HandleStore, target: TaskTarget): TaskScope {
  const isoNow = () => new Date(ctx.now()).toISOString();
  // 2025-11-25: requests an earlier process received for this task and nobody answered (never a key answered before).
  const kept = target.record.session?.pendingInput?.filter((p) => !target.record.inputKeysAnswered.includes(p.key));
  if (kept?.length) session.restoreInput(target.taskId, kept);
  const update = async (change: (rec: VaultRecord) => void, persist = target.persisted): Promise<void> => {
    const withSession = (rec: VaultRecord) => {
      change(rec);
      keepPendingInput(rec, session, target.taskId);
    };
    const stored = persist ? await vault.update(target.record.opId, withSession) : undefined;
    if (stored) {
      // The vault re-read the record under its lock: that copy is the truth, memory follows it.
      const fresh = structuredClone(stored);
      for (const k of Object.keys(target.record) as Array<keyof VaultRecord>) delete target.record[k];
      Object.assign(target.record, fresh);
    } else withSession(target.record);
  };
  const warnings: string[] = [];
  const warn = (said: string | Hint) => {
    const line = renderHint(said, ctx.invocation);
    if (!warnings.includes(line)) warnings.push(line);
  };
  const observe = async (s: TaskSnapshot): Promise<void> => {
    ctx.redact(s.taskId);
    const at = isoNow();
    const prev = target.record.last;
    const unchanged = prev !== undefined && target.record.phase === 'active' && prev.lastUpdatedAt === s.lastUpdatedAt && !snapshotChanged(prev, s);
    let conflict: TerminalConflict | undefined;
    // Nothing new since the last write: skip the locked write (a `get` loop stays read-only).
    await update((rec) => (conflict = applySnapshot(rec, s, at)), target.persisted && !unchanged);
    // Only once stored is the id shortened in what is printed: a handle the vault could not
    // store is printed whole, as its only copy.
    ctx.redactTaskId(s.taskId);
    if (conflict) warn(conflictWarning(conflict, refFor(target)));
  };
  return {
    ctx,
    session,
    vault,
    target,
    warnings,
    warn,
    update: (change) => update(change),
    observe,
    async settled(s) {
      const stored = storedTerminal(target.record);
      if (!stored) return s;
      if (!isTerminalStatus(s.status)) return stored;
      // A different terminal answer after the stored one: noted and warned about; the first end stands.
      if (terminalConflictOf(target.record, s)) {
        await observe(s);
        return storedTerminal(target.record) ?? stored;
      }
      return s;
    },
    async unknown(reason = UNKNOWN_TASK_REASON) {
      // The server forgot a task whose terminal result we already hold: that is not a loss.
      const stored = storedTerminal(target.record);
      if (stored) return { kind: 'stored-terminal', snapshot: stored, storedAt: target.record.updatedAt };
      // Unknown under a sign-in that is not (provably) the one the task was created under: the
      // server scopes tasks to principals, so this says nothing about the task. Not lost.
      const created = target.record.principal;
      if (created) {
        const current = session.signInPrincipal();
        if (comparePrincipals(created, current) !== 'same') return { kind: 'not-visible', created, ...(current ? { current } : {}), sent: true, ...(target.record.last ? { snapshot: target.record.last } : {}) };
      }
      const at = isoNow();
      await update((rec) => {
        rec.phase = 'lost';
        rec.reason = reason;
        rec.updatedAt = at;
      });
      return { kind: 'lost', reason, ...(target.record.last ? { snapshot: target.record.last } : {}) };
    },
  };
}

/** The record's copy of the task's unanswered server requests follows the session's (same session only). */
function keepPendingInput(rec: VaultRecord, session: TaskSession, taskId: string): void {
  if (!rec.session || !taskId) return;
  const now = session.resumeState(taskId);
  if (!now || now.sessionId !== rec.session.sessionId) return;
  if (now.pendingInput?.length) rec.session.pendingInput = now.pendingInput;
  else delete rec.session.pendingInput;
}

/** The words for a terminal answer that contradicts the stored one (server text sanitised). */
function conflictWarning(c: TerminalConflict, ref: string): Hint {
  const said = c.differs === 'status' ? c.said : `${c.said} with a different ${c.differs}`;
  const why = c.errorMessage ? ` (${sanitize(c.errorMessage, { singleLine: true, maxLength: 200 })})` : '';
  return hint`warning: the server now says the task ${said}${why}, but it had ended ${c.kept} (stored in the vault); the first terminal state is kept, and the contradiction is noted in the record's history (\`${cmd('show', ref)}\`).`;
}

/** The scope's warnings travel with a task verdict: stderr, and `warnings` in its JSON document. */
function withWarnings<T extends Outcome>(scope: TaskScope, r: T | TaskReport): T | TaskReport {
  if (r.kind !== 'task' || scope.warnings.length === 0) return r;
  const rep = r as TaskReport;
  return { ...rep, notes: [...scope.warnings, ...rep.notes], jsonExtra: { ...(rep.jsonExtra ?? {}), warnings: [...scope.warnings] } };
}

/** Run `fn` in the scope; an unknown task ends the report there, other remote failures name the server. */
export async function inScope<T extends Outcome>(scope: TaskScope, fn: (scope: TaskScope) => Promise<T>): Promise<T | TaskReport> {
  try {
    return withWarnings(scope, await fn(scope));
  } catch (err) {
    if (isUnknownTaskError(err)) return withWarnings(scope, report(scope.target, await scope.unknown(lostReasonOf(err))));
    if (err instanceof OtherPrincipalError) return report(scope.target, notSent(scope.target, err));
    throw toCliError(err, scope.target.entry.name, refFor(scope.target), scope.target.persisted) ?? err;
  }
}

/**
 * The server cannot be reached, but the vault holds the task's terminal state: that state,
 * marked as stored (on-call at 3 a.m. still gets the answer). Undefined when there is none.
 */
export async function storedWhenUnreachable(ctx: Context, ref: string, opts: TargetOptions, err: unknown): Promise<TaskReport | undefined> {
  if (!(err instanceof CliError) || err.kind !== 'unreachable') return undefined;
  let target: TaskTarget;
  try {
    ({ target } = await resolveShown(ctx, ref, opts));
  } catch {
    return undefined;
  }
  const stored = target.persisted ? storedTerminal(target.record) : undefined;
  if (!stored) return undefined;
  return report(target, { kind: 'stored-terminal', snapshot: stored, storedAt: target.record.updatedAt, unreachable: err.message }, { jsonExtra: { stored: true } });
}

/** Open a session for a resolved target; the failure names the server. */
export async function openSessionFor(ctx: Context, target: TaskTarget, serveInput = false): Promise<TaskSession> {
  try {
    return await openSession(ctx, target.entry, {
      env: reconnectEnv(target.record, ctx.env),
      resume: target.record.session,
      serveInput,
      principal: target.record.principal,
    });
  } catch (err) {
    if (err instanceof OtherPrincipalError) throw err;
    throw toCliError(err, target.entry.name) ?? err;
  }
}

/**
 * Close a session at the end of a command. A 2025-11-25 HTTP session is also ended on the server
 * (DELETE) once no record still needs it: none submitting, active or in doubt on that
 * Mcp-Session-Id (their task lives there, or may). Otherwise it stays for the next command to rejoin.
 */
export async function closeSession(ctx: Context, vault: HandleStore, session: TaskSession, records: VaultRecord[] = []): Promise<void> {
  try {
    const sessionId = session.resumeState()?.sessionId;
    const endedBefore = records.some((r) => r.session?.sessionId === sessionId && r.session?.endedAt);
    if (sessionId && !endedBefore && !(await sessionStillNeeded(vault, sessionId))) {
      const ended = await session.endSession().catch((err: unknown) => {
        ctx.debug(`ending the server session of ${session.serverName}: ${String(err)}`);
        return false;
      });
      if (ended) {
        ctx.debug(`ended the server session of ${session.serverName} (no task in the vault needs it)`);
        const at = new Date(ctx.now()).toISOString();
        for (const r of records) {
          if (r.session?.sessionId !== sessionId) continue;
          try {
            await vault.update(r.opId, (x) => {
              if (x.session?.sessionId === sessionId) x.session.endedAt = at;
            });
          } catch (err) {
            ctx.debug(`could not note the ended session in the vault: ${String(err)}`);
          }
        }
      }
    }
  } finally {
    await session.close();
  }
}

async function sessionStillNeeded(vault: HandleStore, sessionId: string): Promise<boolean> {
  try {
    return (await vault.query({ listedByDefault: true, match: (r) => isActivePhase(r.phase) && r.session?.sessionId === sessionId })).length > 0;
  } catch {
    return true; // a vault we cannot read may hold a task that needs it
  }
}

/** resolve → connect → run → close, for one task. */
/** resolveTarget, and the task's id shortened in everything printed from here on (errors quoting it too). */
async function resolveShown(ctx: Context, ref: string, opts: TargetOptions): Promise<Awaited<ReturnType<typeof resolveTarget>>> {
  const resolved = await resolveTarget(ctx, ref, opts);
  ctx.redactTaskId(resolved.target.taskId);
  return resolved;
}

export async function withTask<T extends Outcome>(ctx: Context, ref: string, opts: TargetOptions, fn: (scope: TaskScope) => Promise<T>): Promise<T | TaskReport> {
  const { vault, target } = await resolveShown(ctx, ref, opts);
  let session: TaskSession;
  try {
    session = await openSessionFor(ctx, target, opts.serveInput === true);
  } catch (err) {
    if (err instanceof OtherPrincipalError) return report(target, notSent(target, err));
    throw err;
  }
  const scope = taskScope(ctx, session, vault, target);
  try {
    return await inScope(scope, fn);
  } finally {
    await closeSession(ctx, vault, session, target.persisted ? [target.record] : []);
  }
}

/**
 * Tasks that join a running withTasks (`watch --active` on the team store, as other machines add
 * them): each ref handed to `add` is resolved and followed like the first ones, in the same
 * sessions, while any task is still followed. A ref that cannot be followed here is `refused`.
 */
export interface JoiningTasks {
  /** Called once the first tasks run: from then on, hand each new ref to `add`. */
  start(add: (ref: string) => void): void;
  /** A joining ref that cannot be followed here (a server this home does not have, say): the others go on. */
  refused(ref: string, err: unknown): void;
  /** The last followed task ended: nothing joins any more. */
  stop(): void;
}

/**
 * The same for several tasks at once (`watch a b c`): each ref resolved before anything is sent,
 * one session per server shared by the tasks that live there, every session closed at the end.
 * With `joining`, tasks that join later are followed too, until the last one ends.
 */
export async function withTasks(ctx: Context, refs: string[], opts: TargetOptions, fn: (scope: TaskScope) => Promise<TaskReport>, onSettled: (r: TaskReport | TaskFailure) => void = () => {}, joining?: JoiningTasks): Promise<Array<TaskReport | TaskFailure>> {
  type Resolved = Awaited<ReturnType<typeof resolveShown>>;
  const resolved: Resolved[] = [];
  for (const ref of refs) resolved.push(await resolveShown(ctx, ref, opts));
  const seen = new Set<string>();
  const keyOf = (target: TaskTarget) => `${target.entry.name}\0${target.taskId}`;
  for (const { target } of resolved) {
    const key = keyOf(target);
    if (seen.has(key)) throw usageError(`the same task is named twice (${shortTaskId(target.taskId)})`);
    seen.add(key);
  }
  const sessions = new Map<string, Promise<TaskSession>>();
  const sessionFor = (t: TaskTarget) => {
    // 2025-11-25 tasks live in the session they were created in: one session per stored session.
    // Each principal's tasks get their own check of the stored sign-in (see openSessionFor).
    const key = `${t.entry.name}\0${t.record.session?.sessionId ?? ''}\0${JSON.stringify(t.record.principal ?? null)}`;
    let s = sessions.get(key);
    if (!s) sessions.set(key, (s = openSessionFor(ctx, t, opts.serveInput === true)));
    return s;
  };
  const records = resolved.filter((r) => r.target.persisted).map((r) => r.target.record);
  const run = async ({ vault, target }: Resolved, alone: boolean): Promise<TaskReport | TaskFailure> => {
    try {
      const scope = taskScope(ctx, await sessionFor(target), vault, target);
      const r = await inScope(scope, fn);
      onSettled(r);
      return r;
    } catch (err) {
      if (err instanceof OtherPrincipalError) {
        const r = report(target, notSent(target, err));
        onSettled(r);
        return r;
      }
      // One task's failure does not stop the others; alone, it is the command's failure.
      const e = toCliError(err, target.entry.name, refFor(target), target.persisted);
      if (!e || alone) throw e ?? err;
      const failure: TaskFailure = { kind: 'task-failure', target, error: e };
      onSettled(failure);
      return failure;
    }
  };
  try {
    if (!joining) return await Promise.all(resolved.map((r) => run(r, resolved.length === 1)));
    return await withJoining(ctx, resolved.map((r) => run(r, false)), joining, async (ref) => {
      let r: Resolved;
      try {
        r = await resolveShown(ctx, ref, opts);
      } catch (err) {
        joining.refused(ref, err);
        return undefined;
      }
      // Already followed (its record was written again, or it was among the first).
      if (seen.has(keyOf(r.target))) return undefined;
      seen.add(keyOf(r.target));
      if (r.target.persisted) records.push(r.target.record);
      return run(r, false);
    });
  } finally {
    const vault = resolved[0]?.vault;
    for (const s of sessions.values()) await s.then((x) => (vault ? closeSession(ctx, vault, x, records) : x.close()), () => {});
  }
}

/** The first tasks' runs, and those of the refs that join while any run is open; their reports in the order they started. */
async function withJoining(ctx: Context, first: Array<Promise<TaskReport | TaskFailure>>, joining: JoiningTasks, join: (ref: string) => Promise<TaskReport | TaskFailure | undefined>): Promise<Array<TaskReport | TaskFailure>> {
  const runs: Array<Promise<TaskReport | TaskFailure | undefined>> = [];
  let open = 0;
  let closed = false;
  let allEnded!: () => void;
  const ended = new Promise<void>((resolve) => (allEnded = resolve));
  const ends = () => {
    if (--open > 0) return;
    closed = true;
    joining.stop();
    allEnded();
  };
  const track = (p: Promise<TaskReport | TaskFailure | undefined>) => {
    open++;
    runs.push(p);
    p.then(ends, ends);
  };
  for (const p of first) track(p);
  if (open === 0) ends();
  joining.start((ref) => {
    // After the last task ended, or after Ctrl-C, nothing new is started.
    if (closed || ctx.interrupt.aborted) return;
    track(join(ref));
  });
  await ended;
  return (await Promise.all(runs)).filter((r): r is TaskReport | TaskFailure => r !== undefined);
}
