// What the vault keeps per submission, following the recovery rules: server identity, auth
// context, taskId and the original operation, so work is reconnected to and never blindly resubmitted.
import { isTerminalStatus, type TaskStatus } from '../protocol/constants.js';
import type { ServerIdentity } from '../servers/server-entry.js';
import { terminalDifference, type TaskSnapshot } from '../tasks/task-snapshot.js';
import type { Principal } from '../tasks/principal.js';

/**
 * submitting: intent recorded, request about to go out
 * active:     a handle came back; the task is not terminal yet
 * terminal:   the terminal status (and result or error) is persisted
 * lost:       the server no longer knows the task (unknown id, TTL elapsed)
 * in-doubt:   the request was sent, no handle came back: the work may or may not exist
 */
export type VaultPhase = 'submitting' | 'active' | 'terminal' | 'lost' | 'in-doubt';

export interface StatusEntry {
  at: string;
  status: TaskStatus;
  statusMessage?: string;
  /** A later terminal answer that was not believed (the first terminal state stands), in words. */
  note?: string;
}

/** A terminal answer that differs from the one stored first: what it said, kept out of the record's state. */
export interface TerminalConflict {
  /** The terminal state the record keeps. */
  kept: TaskStatus;
  /** What the later answer said. */
  said: TaskStatus;
  differs: 'status' | 'result' | 'error';
  /** The later answer's error message, when it brought one (server text, unsanitised). */
  errorMessage?: string;
}

export interface VaultRecord {
  /** Client operation id: the local key, stable from before the request is sent. */
  opId: string;
  taskId?: string;
  server: {
    name: string;
    identity: ServerIdentity;
    protocolVersion?: string;
    serverInfo?: { name: string; version: string };
  };
  /**
   * How the server was authenticated. `secrets` holds the values of the variables the server entry
   * reads (bearer token, env: headers) at submission time, encrypted with the rest of the vault, so
   * an on-call shell without them can still reconnect. A variable set in the environment wins over
   * the stored value (tokens rotate); `export` never includes them.
   */
  auth: { kind: 'none' | 'bearer-env' | 'env-headers'; bearerEnv?: string; secrets?: Record<string, string> };
  /**
   * The sign-in the task was created under (issuer, and subject, client or grant): its handle is
   * only sent under that principal, and a server that does not know the task under another one
   * leaves it "not visible", never lost. Absent without a sign-in.
   */
  principal?: Principal;
  operation: {
    method: 'tools/call';
    name: string;
    arguments: Record<string, unknown>;
    submittedAt: string;
    /** The _meta key the operation id was sent under (a server's duplicate-prevention contract). */
    idempotencyMeta?: string;
    /** `call --idempotency-key`: the name the caller gave the operation; the opId is derived from it. */
    idempotencyKey?: string;
    annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean };
  };
  phase: VaultPhase;
  /** The last observed state of the task (without result, which lives in `result`/`error`). */
  last?: Omit<TaskSnapshot, 'result' | 'error'>;
  history: StatusEntry[];
  inputKeysSeen: string[];
  inputKeysAnswered: string[];
  /** When keys were last answered (tasks/update sent): a relisted key is only "stuck" well after it. */
  inputAnsweredAt?: string;
  /**
   * Who answered each key, and when: claimed in the store (one locked write) before its
   * tasks/update leaves, so of several processes (machines sharing a team store) one sends it.
   * Absent for keys answered by versions that did not record it.
   */
  inputAnsweredBy?: InputAnswerClaim[];
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
  /**
   * 2025-11-25: the server session the task was created in (Mcp-Session-Id and negotiated version),
   * rejoined by later commands because many servers scope tasks to it. Absent on 2026-07-28.
   */
  session?: {
    protocolVersion: string;
    sessionId?: string;
    /** Input requests the server handed out for this task and nobody answered yet (its JSON-RPC id kept to answer it later). */
    pendingInput?: Array<{ key: string; requestId: string | number; request: { method: string; params?: Record<string, unknown> } }>;
    /** When mcp-tasks ended the session on the server (HTTP DELETE), no task in the vault needing it any more. */
    endedAt?: string;
  };
  /** Why the record is lost or in doubt, in words. */
  reason?: string;
  /**
   * Closed by hand after an out-of-band check (`recover <ref> --resolve`): what the person found,
   * and what the record was before (kept; the record is then terminal, so `prune` may drop it).
   */
  resolution?: { outcome: 'completed' | 'not-run' | 'failed'; note?: string; at: string; was: VaultPhase; reason?: string };
  labels: Record<string, string>;
  /** While `submitting`: the process sending the request (set by the vault), see writer.ts; `host` in a team store. */
  writer?: { pid: number; startedAtMs: number; host?: string };
  /** Who and where the record was written first (user, host, CI run): `list --origin`, `--mine`. */
  origin?: Origin;
  /** Kept in the local vault because the team store could not take it: `store push` copies it there. */
  pushPending?: boolean;
  createdAt: string;
  updatedAt: string;
}

/**
 * What `list` prints and filters on, as the sealed listing keeps it (listing-index.ts): a record
 * without its auth, history, input keys, session and server identity.
 */
export type ListedRecord = Pick<VaultRecord, 'opId' | 'taskId' | 'phase' | 'last' | 'result' | 'error' | 'labels' | 'reason' | 'resolution' | 'createdAt' | 'updatedAt'> & {
  server: Pick<VaultRecord['server'], 'name'>;
  operation: Pick<VaultRecord['operation'], 'method' | 'name' | 'arguments'>;
};

/**
 * What `list` filters on and shows in its table, as the sealed listing keeps it beside each row's
 * JSON (listing-index.ts). A VaultRecord is one too.
 */
export type ListingMeta = Pick<VaultRecord, 'opId' | 'taskId' | 'phase' | 'labels' | 'createdAt' | 'updatedAt' | 'writer' | 'origin'> & {
  server: Pick<VaultRecord['server'], 'name'>;
  operation: Pick<VaultRecord['operation'], 'name'>;
  last?: Pick<NonNullable<VaultRecord['last']>, 'status'>;
  /** Only whether there is one, and whether it is a tool error. */
  result?: { isError?: unknown };
  resolution?: Pick<NonNullable<VaultRecord['resolution']>, 'outcome'>;
  /** `list` only: the record file could not be opened when last read (see `vault check`). */
  damaged?: boolean;
};

/** One input key's answer as claimed: which key, when, and by whom (user, host, CI run). */
export interface InputAnswerClaim {
  key: string;
  at: string;
  by: Origin;
}

/** Who claimed the answer to `key`, and when, where the record says. */
export const answerClaimOf = (rec: Pick<VaultRecord, 'inputAnsweredBy'>, key: string): InputAnswerClaim | undefined => rec.inputAnsweredBy?.find((c) => c.key === key);

/** Who wrote a record, and where: the user, the host, and the CI run when the environment names one. */
export interface Origin {
  user: string;
  host: string;
  /** e.g. "github:owner/repo run 123", "gitlab:group/project job 45". */
  ci?: string;
}

/** The origin in one line, as `list` shows it and `--origin` matches it. */
export const originText = (o: Origin | undefined): string => (o ? `${o.user}@${o.host}${o.ci ? ` (${o.ci})` : ''}` : '');

/** The operation name of a task adopted by taskId (`--server … --save`): this vault never saw its call. */
export const UNKNOWN_OPERATION = '(unknown operation)';

/** A taskId this short is never printed whole, not even as its own "prefix": the opId stands for it. */
const SHORT_TASK_ID = 12;

/**
 * A short ref a person can type for this record (`vault.resolve` takes it): a taskId prefix, or,
 * when the taskId is 12 characters or fewer (a prefix would be the whole bearer handle), begins
 * with "-" (base64url) and would read as an option, carries anything but printable ASCII, or
 * there is none, an operation id prefix.
 */
export function typeableRef(rec: Pick<VaultRecord, 'taskId' | 'opId'>, length = 12): string {
  // A server-chosen id with controls or spaces in it is neither safe to print nor typeable: the opId is.
  const byTaskId = rec.taskId && rec.taskId.length > SHORT_TASK_ID && /^[\x21-\x7e]+$/.test(rec.taskId) && !rec.taskId.startsWith('-');
  return byTaskId ? rec.taskId!.slice(0, Math.min(length, SHORT_TASK_ID)) : rec.opId.slice(0, 8);
}

export const isActivePhase = (p: VaultPhase) => p === 'submitting' || p === 'active' || p === 'in-doubt';

/** Oldest first. ISO timestamps order as plain strings (localeCompare's collation is slow on 10,000 records). */
export const byCreatedAt = (a: Pick<VaultRecord, 'createdAt'>, b: Pick<VaultRecord, 'createdAt'>) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0);

/** No live state to show: the server forgot the task, or no handle ever came back. */
export const isLostOrInDoubt = (p: VaultPhase): p is 'lost' | 'in-doubt' => p === 'lost' || p === 'in-doubt';

/** The terminal state the record holds, with its result or error (a resolution by hand has none). */
export function storedTerminalState(rec: VaultRecord): TaskSnapshot | undefined {
  if (rec.phase !== 'terminal' || !rec.last || !isTerminalStatus(rec.last.status)) return undefined;
  return { ...rec.last, ...(rec.result ? { result: rec.result } : {}), ...(rec.error ? { error: rec.error } : {}) };
}

/** How `s` contradicts the terminal state the record holds; undefined when it does not. */
export function terminalConflictOf(rec: VaultRecord, s: TaskSnapshot): TerminalConflict | undefined {
  const first = storedTerminalState(rec);
  if (!first || !isTerminalStatus(s.status)) return undefined;
  const differs = terminalDifference(first, s);
  if (!differs) return undefined;
  return { kept: first.status, said: s.status, differs, ...(s.error && s.status === 'failed' ? { errorMessage: s.error.message } : {}) };
}

/**
 * Fold an observed snapshot into a record: status history, input keys, terminal result. A terminal
 * state once stored is immutable: a later, different terminal answer is only noted in the history
 * (and returned, for the warning), never stored over the first.
 */
export function applySnapshot(rec: VaultRecord, s: TaskSnapshot, at: string): TerminalConflict | undefined {
  // A terminal state once stored is never replaced by a non-terminal one (a status going backwards).
  if (rec.phase === 'terminal' && rec.last && isTerminalStatus(rec.last.status) && !isTerminalStatus(s.status)) return undefined;
  const conflict = terminalConflictOf(rec, s);
  if (conflict) {
    noteConflict(rec, conflict, at);
    return conflict;
  }
  const { result, error, ...rest } = s;
  const prev = lastObserved(rec.history);
  if (!prev || prev.status !== s.status || prev.statusMessage !== s.statusMessage) {
    rec.history.push({ at, status: s.status, ...(s.statusMessage !== undefined ? { statusMessage: s.statusMessage } : {}) });
    // Bound the history: a long task with chatty status messages must not grow the vault forever.
    if (rec.history.length > 200) rec.history.splice(1, rec.history.length - 200);
  }
  rec.last = rest;
  rec.taskId = s.taskId;
  for (const k of Object.keys(s.inputRequests ?? {})) if (!rec.inputKeysSeen.includes(k)) rec.inputKeysSeen.push(k);
  if (s.status === 'completed' || s.status === 'failed' || s.status === 'cancelled') {
    rec.phase = 'terminal';
    if (result) rec.result = result;
    if (error) rec.error = error;
    delete rec.reason;
  } else if (rec.phase !== 'terminal') {
    rec.phase = 'active';
    delete rec.reason;
  }
  rec.updatedAt = at;
  return undefined;
}

/** The last entry that is a state observed (not a note of an answer not believed). */
function lastObserved(history: StatusEntry[]): StatusEntry | undefined {
  for (let i = history.length - 1; i >= 0; i--) if (!history[i]!.note) return history[i];
  return undefined;
}

/** The history says once (per kind of contradiction) that the server later answered otherwise. */
function noteConflict(rec: VaultRecord, c: TerminalConflict, at: string): void {
  const what = c.differs === 'status' ? `${c.said}` : `${c.said} with a different ${c.differs}`;
  const note = `not believed: the server later said ${what}; the first terminal state (${c.kept}) is kept`;
  if (rec.history.some((h) => h.note === note)) return;
  rec.history.push({ at, status: c.said, note });
  if (rec.history.length > 200) rec.history.splice(1, rec.history.length - 200);
  rec.updatedAt = at;
}

/** JSON with object keys sorted at every depth: one text for arguments that are equal as values. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o).sort().filter((k) => o[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The parts of a record that name its intent. */
export interface IntentOf {
  server: { name: string };
  operation: { name: string; arguments: Record<string, unknown> };
}

/**
 * A call that may have run but holds no handle yet (submitting, or in doubt): what an identical
 * call must not repeat. Only such records carry an intent hint, so the check reads no history.
 */
export const isUnsettled = (r: VaultRecord): boolean => !r.taskId && (r.phase === 'submitting' || r.phase === 'in-doubt');

/** Intent hints an earlier version left on settled records, removed by one identical-call check (either engine). */
export const STALE_HINTS_DROPPED = 200;

/** What makes two calls the same intent: the server's name, the tool and its arguments as values. */
export const intentOf = (rec: IntentOf): string => `${rec.server.name}\0${rec.operation.name}\0${canonicalJson(rec.operation.arguments)}`;
