// Before `call` sends anything: one intent, one effect. With --idempotency-key the key names the
// operation (its opId is derived from it, the same on every runner), and a record under that
// opId decides instead of a second submission. Without a key, an identical call (server, tool,
// arguments) that is in doubt stops a plain re-run: the first may have run.
import { createHash } from 'node:crypto';
import { CliError, ExitCode } from '../errors.js';
import type { ServerEntry, ServerIdentity } from '../servers/server-entry.js';
import { canonicalJson, type IntentOf, type VaultRecord } from '../vault/vault-record.js';
import type { HandleStore } from '../vault/handle-store.js';
import { reportedPhase } from '../vault/writer.js';
import { safeJson } from '../output/sanitize.js';
import { inDoubtRecords } from './in-doubt.js';
import { report, type Outcome } from './outcomes.js';
import { storedTerminal } from './with-task.js';
import type { TaskTarget } from './task-target.js';
import { cmd, hint } from '../hint.js';

/** Longest key taken: a CI pipeline id and a step name fit many times over. */
const MAX_KEY_LENGTH = 256;

/** The key from `--idempotency-key`, else `MCP_TASKS_IDEMPOTENCY_KEY`; refused when empty, too long or not printable. */
export function idempotencyKeyOf(flag: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const key = flag ?? (env.MCP_TASKS_IDEMPOTENCY_KEY || undefined);
  if (key === undefined) return undefined;
  const from = flag !== undefined ? '--idempotency-key' : 'MCP_TASKS_IDEMPOTENCY_KEY';
  if (!key.trim() || key.length > MAX_KEY_LENGTH || !/^[\x20-\x7e]+$/.test(key)) {
    throw new CliError('usage', `${from} must be 1 to ${MAX_KEY_LENGTH} printable ASCII characters`, 'Use a name for the operation such as "$CI_PIPELINE_ID/deploy"; nothing was sent.');
  }
  return key;
}

/**
 * The operation id a key names on a server: a hash of the server's identity and the key, shaped
 * as a UUID. Deterministic, so another runner (another vault) sends the same id under the
 * server's duplicate-prevention `_meta` key, and this vault finds the record by it.
 */
export function opIdForKey(identity: ServerIdentity, key: string): string {
  const h = createHash('sha256').update('mcp-tasks/idempotency-key\0').update(canonicalJson(identity)).update('\0').update(key).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** What to do about an earlier record under the same key: an outcome to report, or follow its task. */
export type PriorDecision = { kind: 'report'; outcome: Outcome; note: string } | { kind: 'follow'; record: VaultRecord; note: string };

/**
 * A record already holds this key on this server: never a second submission. The same key with
 * another tool or other arguments is a usage error naming both.
 */
export function decidePrior(prior: VaultRecord, entry: ServerEntry, tool: string, args: Record<string, unknown>, key: string, nowMs: number, detach: boolean): PriorDecision {
  const op = prior.operation;
  if (op.name !== tool || canonicalJson(op.arguments) !== canonicalJson(args)) {
    throw new CliError(
      'usage',
      `idempotency key "${key}" already names ${op.name} ${safeJson(op.arguments)} on server "${entry.name}" (operation ${prior.opId.slice(0, 8)}), not ${tool} ${safeJson(args)}; nothing was sent`,
      'Use another key for another operation (or the same arguments to come back to that one).',
    );
  }
  const since = `submitted ${op.submittedAt} under idempotency key "${key}"`;
  const note = `note: this operation was ${since} (operation ${prior.opId.slice(0, 8)}); nothing was sent again`;
  if (prior.resolution) return { kind: 'report', outcome: { kind: 'resolved-record', record: prior }, note };
  const target: TaskTarget = { record: prior, persisted: true, entry, taskId: prior.taskId ?? '' };
  if (prior.taskId) {
    const stored = storedTerminal(prior);
    if (stored) return { kind: 'report', outcome: report(target, { kind: 'stored-terminal', snapshot: stored, storedAt: prior.updatedAt }), note };
    if (prior.phase === 'lost') return { kind: 'report', outcome: report(target, { kind: 'lost', reason: prior.reason ?? 'the server no longer knows the task', ...(prior.last ? { snapshot: prior.last } : {}) }), note };
    if (detach && prior.last) return { kind: 'report', outcome: { kind: 'detached', target, snapshot: prior.last }, note };
    return { kind: 'follow', record: prior, note };
  }
  if (reportedPhase(prior, nowMs) === 'submitting') {
    throw new CliError('in-doubt', `another process is submitting this operation now (${since}, operation ${prior.opId.slice(0, 8)}); nothing was sent`, 'Wait for that command to end, then run this one again: under the same key it follows that submission, it never sends a second one.', ExitCode.InDoubt);
  }
  throw new CliError(
    'in-doubt',
    `this operation was ${since} (operation ${prior.opId.slice(0, 8)}) and is in doubt: ${prior.reason ?? 'the request was sent but no handle came back'}; nothing was sent again`,
    hint`Run \`${cmd('recover', prior.opId.slice(0, 8))}\`: it tells what is known and the safe next step.`,
    ExitCode.InDoubt,
  );
}

/**
 * Without a key: an identical call in doubt stops a plain re-run (exit 10, naming `recover`);
 * `--new` sends anyway. Identical calls that got their handles are not in doubt and do not count.
 */
export async function refuseIdenticalInDoubt(vault: HandleStore, probe: IntentOf, nowMs: number): Promise<void> {
  const seen = inDoubtRecords(await vault.unsettledSameIntent(probe), nowMs);
  if (!seen.length) return;
  // A submitter that stored its handle and exited between our read and the look at its process
  // looks gone: read each record again, and only one still without a handle is in doubt.
  const doubts = inDoubtRecords((await Promise.all(seen.map((r) => vault.get(r.opId)))).filter((r): r is VaultRecord => r !== undefined), nowMs);
  if (!doubts.length) return;
  const d = doubts[doubts.length - 1]!;
  throw new CliError(
    'in-doubt',
    `an identical call is in doubt: ${d.operation.name} with these arguments on server "${d.server.name}" (operation ${d.opId.slice(0, 8)}, submitted ${d.operation.submittedAt}) may have run; nothing was sent${doubts.length > 1 ? ` (${doubts.length} identical calls are in doubt)` : ''}`,
    hint`Run \`${cmd('recover', d.opId.slice(0, 8))}\` to see what is known and the safe next step; to send a second one on purpose, run the call again with --new.`,
    ExitCode.InDoubt,
  );
}
