// Sending a recorded operation (a tools/call) and following what comes back: an immediate
// result, input asked before any task exists, or a task handle. Shared by `call` and
// `recover --resubmit`. The record is in the vault (phase submitting) before this is called.
import type { Context } from '../context.js';
import { CliError, ExitCode } from '../errors.js';
import type { ServerEntry } from '../servers/server-entry.js';
import { isTerminalStatus, provesNothingCreated, serverAnswerOf, type CallToolResult, type TaskSession, type ToolCallOutcome } from '../session/task-session.js';
import { sanitize } from '../output/sanitize.js';
import { comparePrincipals } from '../tasks/principal.js';
import { relistedKeys } from '../tasks/input-stuck.js';
import type { HandleStore } from '../vault/handle-store.js';
import { applySnapshot, type VaultRecord } from '../vault/vault-record.js';
import { openLocalStore } from './open-vault.js';
import type { TaskSnapshot } from '../tasks/task-snapshot.js';
import { followTask } from './follow.js';
import { inScope, taskScope, type TaskScope } from './with-task.js';
import { report, type InDoubt, type Outcome } from './outcomes.js';
import { toCliError } from './remote-error.js';
import type { TaskTarget } from './task-target.js';
import { askerHeader, collectResponses, inputHandler, relistedHandler, type AnswerSource } from './answering.js';
import { cmd, hint, type Hint } from '../hint.js';

export interface SubmitOptions extends AnswerSource {
  detach?: boolean | undefined;
  timeoutMs?: number | undefined;
  /** A resubmission from `recover`: the first attempt may have run, so a failure keeps the record in doubt. */
  resubmission?: boolean;
}

/** A server may ask for input several times before it creates a task; we stop after this many. */
const MAX_INPUT_ROUNDS = 8;

/** After a round timed out, how long a late answer (2025-11-25: the request is still open) is listened for before the command ends in doubt. */
const LATE_ANSWER_WAIT_MS = 60_000;

const LATE_HANDLE_NOTE = "note: the task's handle came after the call's wait ran out; the record in doubt is now this task's";

/**
 * MCP_TASKS_CALL_WAIT_MS: how long one round of tools/call waits for its answer before the
 * submission is in doubt (default 60 s).
 */
export function callWaitFrom(env: NodeJS.ProcessEnv): number {
  const m = /^(\d+)$/.exec(env.MCP_TASKS_CALL_WAIT_MS ?? '');
  return m ? Math.max(Number(m[1]), 1) : 60_000;
}

export async function submitOperation(ctx: Context, session: TaskSession, vault: HandleStore, entry: ServerEntry, record: VaultRecord, opts: SubmitOptions): Promise<Outcome> {
  const rounds = await callRounds(ctx, session, vault, entry, record, opts);
  if ('kind' in rounds) return rounds;
  const { outcome, cameLate } = rounds;
  if (outcome.kind === 'complete') return storeDirectResult(ctx, vault, entry, record, outcome.result, cameLate);
  if (outcome.kind === 'input_required') return unansweredInput(ctx, vault, entry, record, outcome);
  return followCreatedTask(ctx, session, vault, entry, record, outcome, cameLate, opts);
}

type RoundsEnd = { outcome: ToolCallOutcome; cameLate: boolean };

/**
 * tools/call, round after round while the server asks before it creates a task (multi round-trip):
 * each round's questions answered once, then the call retried with those answers and the
 * server's requestState. A call that fails is in doubt (returned as that outcome) unless a late
 * answer to it still comes.
 */
async function callRounds(ctx: Context, session: TaskSession, vault: HandleStore, entry: ServerEntry, record: VaultRecord, opts: SubmitOptions): Promise<RoundsEnd | Outcome> {
  const server = entry.name;
  const tool = record.operation.name;
  const opId = record.opId;
  const now = () => new Date(ctx.now()).toISOString();
  const idemKey = record.operation.idempotencyMeta;
  const callWaitMs = callWaitFrom(ctx.env);
  let outcome: ToolCallOutcome;
  // The next retry: the latest round's responses and requestState only. The server keeps earlier
  // rounds in its requestState; re-sent old keys make some servers take them as a new answer and loop.
  let retry: { inputResponses?: Record<string, unknown>; requestState?: string } | undefined;
  // Keys answered in this call's earlier rounds: each is answered once (a repeated round is not).
  const answeredInCall: string[] = [];
  // Once a round has left a call open on the server (2025-11-25: the tool asked mid-call), the
  // tool is running: no later failure proves that nothing was created.
  let callOpened = false;
  for (let round = 0; ; round++) {
    try {
      outcome = await session.callTool(
        { name: tool, arguments: record.operation.arguments, ...(idemKey ? { meta: { [idemKey]: opId } } : {}), ...(retry ?? {}) },
        { signal: ctx.interrupt, timeoutMs: callWaitMs },
      );
    } catch (err) {
      const inDoubt = await submissionFailed(ctx, vault, record, err, server, opts.resubmission === true || callOpened);
      // In doubt on disk first; then a late answer to the call (2025-11-25: its request is still
      // open) may still bring the handle, which turns the record into the task's (scope.observe below).
      const late = await session.lateCallOutcome(LATE_ANSWER_WAIT_MS, ctx.interrupt);
      return late ? { outcome: late, cameLate: true } : inDoubt;
    }
    if (outcome.kind === 'input_required' && outcome.callOpen) callOpened = true;
    if (outcome.kind !== 'input_required' || round >= MAX_INPUT_ROUNDS) break;
    if (Object.keys(outcome.inputRequests).length === 0 && outcome.requestState !== undefined) {
      // Only state, nothing to answer: the spec lets the client retry at once, with a new id
      // (every request gets one) and the state echoed exactly.
      retry = { requestState: outcome.requestState };
      continue;
    }
    const repeated = relistedKeys(Object.keys(outcome.inputRequests), answeredInCall);
    if (repeated.length > 0) throw await roundRepeated(vault, record, server, tool, repeated, outcome.callOpen === true, now());
    // Input asked before any task exists (multi round-trip): answer with the same machinery,
    // then retry the original request with the responses and the server's requestState.
    const header = askerHeader(entry, ctx.home, tool, undefined);
    let plan;
    try {
      plan = await collectResponses(ctx, entry, header, outcome.inputRequests, answeredInCall, opts);
    } catch (err) {
      // A call still open on the server (2025-11-25) may have done work before it asked: in doubt.
      if (outcome.callOpen) await keepInDoubt(vault, record, () => OPEN_CALL_NOT_ANSWERED, now());
      // Else nothing exists on the server yet: a refused or interrupted answer leaves no record behind.
      else await vault.remove([opId]);
      throw err;
    }
    if (plan.unanswered.length > 0 || Object.keys(plan.send).length === 0) break;
    answeredInCall.push(...Object.keys(plan.send));
    retry = { inputResponses: plan.send, ...(outcome.requestState !== undefined ? { requestState: outcome.requestState } : {}) };
  }
  return { outcome, cameLate: false };
}

/** A plain (non-task) result: stored once, and shown whatever the disk says (it is the only copy). */
async function storeDirectResult(ctx: Context, vault: HandleStore, entry: ServerEntry, record: VaultRecord, result: CallToolResult, cameLate: boolean): Promise<Outcome> {
  const server = entry.name;
  const late = cameLate ? { late: true as const } : {};
  try {
    await vault.update(record.opId, (r) => {
      // A result once stored is never replaced (a late answer after another process closed the record).
      if (r.result !== undefined) return;
      r.phase = 'terminal';
      r.result = result;
      delete r.reason;
      r.updatedAt = new Date(ctx.now()).toISOString();
    });
  } catch (err) {
    // The tool ran and this is the only copy of what it returned: show it whatever the disk says.
    const why = sanitize(err instanceof Error ? err.message : String(err), { singleLine: true, maxLength: 200 });
    return { kind: 'direct-result', record, server, result, notStored: why, ...late };
  }
  return { kind: 'direct-result', record, server, result, ...late };
}

/** The rounds ended with questions nobody answered: in doubt if the call is open on the server, else nothing exists. */
async function unansweredInput(ctx: Context, vault: HandleStore, entry: ServerEntry, record: VaultRecord, outcome: Extract<ToolCallOutcome, { kind: 'input_required' }>): Promise<Outcome> {
  const server = entry.name;
  const tool = record.operation.name;
  if (outcome.callOpen) {
    // The tool asked in the middle of a call that reached the server (2025-11-25 plain call): the
    // request is dismissed when the session closes, but what the tool did before it asked stays
    // done. Not "nothing was started": the record stays, in doubt.
    await keepInDoubt(vault, record, () => OPEN_CALL_UNANSWERED, new Date(ctx.now()).toISOString());
    const next = hint`Check on server "${server}" whether ${tool} did anything, then run \`${cmd('recover', record.opId.slice(0, 8))}\`: it tells whether resubmitting is safe (resubmit from a terminal, where the question can be answered) and how to close the record.`;
    return { kind: 'in-doubt', record, server, reason: OPEN_CALL_UNANSWERED, next, inputRequests: outcome.inputRequests };
  }
  // The server asks before it creates any task (multi round-trip); nothing exists yet.
  await vault.remove([record.opId]);
  if (Object.keys(outcome.inputRequests).length === 0) {
    throw new CliError('protocol', `${tool} on server "${server}" still answers with requestState only (nothing to answer) after ${MAX_INPUT_ROUNDS + 1} tries; nothing was started`, `The server does not finish its multi round-trip; report it to its operator. Retrying later is safe.`, ExitCode.Unreachable);
  }
  return { kind: 'input-before-task', record, server, inputRequests: outcome.inputRequests };
}

/** A task was created: its handle stored before anything is printed, then detached or followed to its end. */
async function followCreatedTask(ctx: Context, session: TaskSession, vault: HandleStore, entry: ServerEntry, record: VaultRecord, outcome: Extract<ToolCallOutcome, { kind: 'task' }>, cameLate: boolean, opts: SubmitOptions): Promise<Outcome> {
  const task = outcome.task;
  const target: TaskTarget = { record, persisted: true, entry, taskId: task.taskId };
  ctx.redact(task.taskId);
  let scope = taskScope(ctx, session, vault, target);
  const notes: Array<string | Hint> = [];
  // The handle is on disk before anything is printed; if it cannot be, it is printed instead.
  try {
    await scope.observe(task);
  } catch (err) {
    // The team store was lost after the request left: the handle goes to the local vault, marked for `store push`.
    const local = vault.engine === 'postgres' ? await keepInLocalVault(ctx, target, task, err) : undefined;
    if (!local) throw handleNotStored(entry, record, task.taskId, err);
    scope = taskScope(ctx, session, local.store, target);
    notes.push(local.note);
  }
  // A sign-in in place during the call may have been someone else's: the task is theirs.
  const principal = session.signInPrincipal();
  if (principal && (!record.principal || comparePrincipals(record.principal, principal) !== 'same')) {
    try {
      await scope.update((r) => {
        r.principal = principal;
      });
    } catch { /* the handle is stored; the principal stays as recorded before the call */ }
  }
  if (outcome.problems?.length) notes.push(`warning: the server's CreateTaskResult was malformed (${sanitize(outcome.problems.join('; '), { singleLine: true, maxLength: 300 })}); the handle was kept and the next poll reads the task's real state`);
  if (cameLate) notes.push(LATE_HANDLE_NOTE);
  if (opts.detach) return { kind: 'detached', target, snapshot: await withOutcome(scope, task), ...(notes.length ? { notes } : {}) };
  // In the task's scope: a failure from here on (Ctrl-C at a prompt) names the task, never "run it again".
  return inScope(scope, async () => {
    const end = await followTask(scope, {
      initial: task,
      timeoutMs: opts.timeoutMs,
      onInputRequired: inputHandler(scope, opts),
      onInputRelisted: relistedHandler(scope, opts),
    });
    return report(target, end, { notes });
  });
}

/**
 * A handle that comes back already ended (a server's duplicate prevention answering a resubmission
 * with the task it had) carries no result: one tasks/get fetches it, so the record keeps what the
 * task ended with, not a bare "completed" that `watch --active` skips and `prune` drops. If that
 * get fails, the handle is stored all the same and `get` fetches the result later.
 */
async function withOutcome(scope: TaskScope, task: TaskSnapshot): Promise<TaskSnapshot> {
  if (!isTerminalStatus(task.status) || task.status === 'cancelled' || task.result || task.error) return task;
  let full: TaskSnapshot;
  try {
    full = await scope.session.getTask(task.taskId, { signal: scope.ctx.interrupt });
  } catch {
    return task;
  }
  // Shown whatever the vault says: the record keeps its handle, and `get` stores the result later.
  await scope.observe(full).catch(() => {});
  return full;
}

/**
 * The server asks again, in the same call, for keys this call already answered: mcp-tasks answers
 * a round once, so going on would loop. Before any task (2026-07-28) nothing exists; a 2025-11-25
 * call left open may have done work, so its record stays in doubt.
 */
async function roundRepeated(vault: HandleStore, record: VaultRecord, server: string, tool: string, keys: readonly string[], callOpen: boolean, at: string): Promise<CliError> {
  const names = keys.map((k) => `"${sanitize(k, { singleLine: true, maxLength: 80 })}"`).join(', ');
  const asked = `${tool} on server "${server}" asks again for ${names}, already answered in this call; mcp-tasks answers each round once`;
  if (callOpen) {
    await keepInDoubt(vault, record, () => OPEN_CALL_NOT_ANSWERED, at);
    return new CliError('in-doubt', `${asked}, so the call stopped there`, hint`Check on server "${server}" whether ${tool} did anything, then run \`${cmd('recover', record.opId.slice(0, 8))}\`.`);
  }
  await vault.remove([record.opId]);
  return new CliError('protocol', `${asked}; nothing was started`, 'The server does not finish its multi round-trip; report it to its operator. Retrying later is safe.', ExitCode.Unreachable);
}

/** Why a 2025-11-25 call that asked for input mid-call, with nobody to answer, is in doubt. */
const OPEN_CALL_UNANSWERED = 'the tool asked for input during the call and none could be given (no terminal, no --answers), so its request was dismissed; the call had reached the server, which may have done work before it asked';
/** The same, when the answer was refused or interrupted (a prompt, a bad answers file). */
const OPEN_CALL_NOT_ANSWERED = 'the tool asked for input during the call and no answer was sent, so its request was dismissed; the call had reached the server, which may have done work before it asked';

/**
 * No handle came back. The record leaves the vault only when the failure proves nothing was
 * created (provesNothingCreated); every other failure keeps it in doubt.
 */
async function submissionFailed(ctx: Context, vault: HandleStore, record: VaultRecord, err: unknown, server: string, mayExistAlready: boolean): Promise<InDoubt> {
  const at = new Date(ctx.now()).toISOString();
  if (provesNothingCreated(err)) {
    if (mayExistAlready) {
      // This request created nothing, but an earlier one (a first submission, a call left open
      // mid-input) still may have: the doubt stays on record.
      await keepInDoubt(vault, record, (r) => r.reason ?? 'the request was sent but no handle came back', at);
    } else {
      // The server refused or never got the request: nothing was created, nothing to recover.
      await vault.remove([record.opId]);
    }
    throw toCliError(err, server) ?? err;
  }
  // The server's own words (a -32603 after it created the task, a gateway's 502) stay on record for `recover`.
  const why = serverAnswerOf(err) ?? (err instanceof Error ? err.message : String(err));
  const reason = `the request was sent but no handle came back (${sanitize(why, { singleLine: true, maxLength: 300 })})`;
  await keepInDoubt(vault, record, () => reason, at);
  const next = hint`Run \`${cmd('recover', record.opId.slice(0, 8))}\`: it tells what is known, how to attach the task if you find it, and whether resubmitting is safe${record.operation.idempotencyMeta ? ' (this server recognises the operation id, so a resubmission is deduplicated)' : ''}.`;
  return { kind: 'in-doubt', record, server, reason, next };
}

/** Mark the record in doubt; if the vault cannot be written, the record stays `submitting` (recover finds it). */
async function keepInDoubt(vault: HandleStore, record: VaultRecord, reason: (r: VaultRecord) => string, at: string): Promise<void> {
  try {
    await vault.update(record.opId, (r) => {
      r.phase = 'in-doubt';
      r.reason = reason(r);
      r.updatedAt = at;
    });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new CliError(
      'vault',
      `${record.operation.name}: the request was sent but no handle came back, and the vault could not record that (${sanitize(why, { singleLine: true, maxLength: 200 })})`,
      hint`The record stays as "submitting" (operation ${record.opId.slice(0, 8)}); once the vault is writable, \`${cmd('recover')}\` lists it as in doubt. Do not simply run the same call again.`,
    );
  }
}

/**
 * The team store could not take a handle that came back (it went away after the request left):
 * the record, with its handle, is written to this machine's local vault and marked for `store
 * push`, never only printed. Undefined when the local vault cannot take it either.
 */
async function keepInLocalVault(ctx: Context, target: TaskTarget, task: TaskSnapshot, err: unknown): Promise<{ store: HandleStore; note: Hint } | undefined> {
  try {
    const local = openLocalStore(ctx);
    const rec = structuredClone(target.record);
    applySnapshot(rec, task, new Date(ctx.now()).toISOString());
    rec.pushPending = true;
    await local.prepare();
    await local.put(rec);
    for (const k of Object.keys(target.record) as Array<keyof VaultRecord>) delete target.record[k];
    Object.assign(target.record, rec);
    const why = sanitize(err instanceof Error ? err.message : String(err), { singleLine: true, maxLength: 300 });
    return { store: local, note: hint`warning: the team store could not take the handle (${why}); it is kept in the local vault (${ctx.home}) until \`${cmd('store', 'push')}\` copies it there` };
  } catch {
    return undefined;
  }
}

/**
 * The handle arrived but the vault could not store it: it is printed in the error, the only copy,
 * with the way to adopt it later. Exit 9.
 */
function handleNotStored(entry: ServerEntry, record: VaultRecord, taskId: string, err: unknown): CliError {
  const tool = record.operation.name;
  const why = err instanceof CliError || err instanceof Error ? err.message : String(err);
  const id = sanitize(taskId, { singleLine: true, maxLength: 4096 });
  return new CliError(
    'vault',
    `${tool} on server "${entry.name}" started task ${id}, but the vault could not store its handle (${sanitize(why, { singleLine: true, maxLength: 300 })}). This message holds the only copy of the taskId: keep it`,
    // The intent record is still there (submitting, then in doubt once this process is gone): the
    // handle is attached to it, keeping its operation, labels and key, never a second record.
    hint`When the vault is writable again, attach the task to its submission: printf %s '${id}' | ${cmd('recover', record.opId.slice(0, 8), '--attach', '-')}`,
  );
}
