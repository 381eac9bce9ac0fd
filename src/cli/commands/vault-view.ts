// `list` and `show`: what the vault holds. Human output shows short id prefixes; --json full ids.
import { describePrincipal } from '../../tasks/principal.js';
import type { Context } from '../../context.js';
import { CliError, ExitCode } from '../../errors.js';
import { openVault } from '../../app/task-target.js';
import { jsonLine, makeStyle, renderCallToolResult, renderTable, renderTsv, statusWord, taskJson } from '../../output/render.js';
import type { TaskFailure, TaskReport } from '../../app/outcomes.js';
import { LIST_STATUSES } from '../choices.js';
import { didYouMean } from '../did-you-mean.js';
import { isPlainId, safeJson, safeName, sanitize, shortenIdsIn } from '../../output/sanitize.js';
import { describeIdentity } from '../../servers/server-entry.js';
import { byCreatedAt, isActivePhase, isLostOrInDoubt, typeableRef, type ListingMeta, type VaultRecord } from '../../vault/vault-record.js';
import type { ListingRow } from '../../vault/listing-index.js';
import { parseLabels } from '../duration.js';
import { asInvoked } from '../../invocation.js';

const COMMA = Buffer.from(',');

export interface ListOptions {
  server?: string;
  status?: string;
  label?: string[];
  all?: boolean;
  /** Only the N most recently created matching records. */
  limit?: number;
  /** Poll each listed active task first (one tasks/get each). */
  refresh?: boolean;
}

const statusOf = (r: ListingMeta) => (r.resolution ? `resolved ${r.resolution.outcome}` : isLostOrInDoubt(r.phase) || r.phase === 'submitting' ? r.phase : (r.last?.status ?? (r.result ? 'completed' : 'unknown')));

/** The filters of `list` as one predicate (labels parsed once). */
export function recordFilter(opts: ListOptions): (r: ListingMeta) => boolean {
  const labels = Object.entries(parseLabels(opts.label));
  return (r) =>
    Boolean(opts.all || opts.status || isActivePhase(r.phase) || r.phase === 'lost') &&
    (!opts.server || r.server.name === opts.server) &&
    (!opts.status || statusOf(r) === opts.status || r.phase === opts.status) &&
    labels.every(([k, v]) => r.labels[k] === v);
}

export function filterRecords<R extends ListingMeta>(records: R[], opts: ListOptions): R[] {
  return records.filter(recordFilter(opts)).sort(byCreatedAt);
}

/** "3m ago", as people read ages; a time ahead of this clock (another machine's) is "just now". */
export function ago(iso: string, nowMs: number): string {
  const ms = nowMs - Date.parse(iso);
  if (!Number.isFinite(ms)) return 'unknown';
  const s = Math.floor(ms / 1000);
  if (s < 5) return 'just now';
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86400)}d ago`;
}

/** Local time with its zone offset ("2026-12-01 09:15:03 +01:00"), for `show`. */
export function localTime(iso: string): string {
  const d = new Date(iso);
  if (!Number.isFinite(d.getTime())) return iso;
  const p = (n: number) => String(Math.abs(n)).padStart(2, '0');
  const off = -d.getTimezoneOffset();
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())} ${off < 0 ? '-' : '+'}${p(Math.trunc(off / 60))}:${p(off % 60)}`;
}

/** What --refresh saw for one record: polled now, or why it could not be. */
type Refreshed = { polled: true } | { polled: false; why: string };

/**
 * Poll every listed active task once, through the same seam as `get` (withTasks: one session per
 * server, the vault updated on the one record path). Returns the records as they are now.
 */
async function refreshRecords(ctx: Context, records: VaultRecord[]): Promise<{ records: VaultRecord[]; seen: Map<string, Refreshed> }> {
  const { withTasks } = await import('../../app/with-task.js');
  const { report } = await import('../../app/outcomes.js');
  const seen = new Map<string, Refreshed>();
  const pollable = records.filter((r) => r.phase === 'active' && r.taskId);
  const fresh = new Map<string, VaultRecord>();
  const settle = (r: TaskReport | TaskFailure) => {
    fresh.set(r.target.record.opId, r.target.record);
    seen.set(r.target.record.opId, r.kind === 'task' ? { polled: true } : { polled: false, why: r.error.message });
  };
  // One at a time per ref set: withTasks resolves each ref before anything is sent.
  const refs = pollable.map((r) => r.taskId!);
  try {
    if (refs.length) {
      await withTasks(
        ctx,
        refs,
        {},
        async (scope) => {
          const snapshot = scope.settled(await scope.session.getTask(scope.target.taskId, { signal: ctx.interrupt }));
          scope.observe(snapshot);
          return report(scope.target, { kind: 'observed', snapshot });
        },
        settle,
      );
    }
  } catch (err) {
    // withTasks throws when its only task fails: that task was not polled, the list still prints.
    if (pollable.length !== 1) throw err;
    seen.set(pollable[0]!.opId, { polled: false, why: err instanceof Error ? err.message : String(err) });
  }
  return { records: records.map((r) => fresh.get(r.opId) ?? r), seen };
}

export async function runList(opts: ListOptions, ctx: Context): Promise<number> {
  if (opts.status !== undefined && !(LIST_STATUSES as readonly string[]).includes(opts.status)) {
    throw new CliError('usage', `--status "${opts.status}" is not a status or phase${didYouMean(opts.status, LIST_STATUSES)}`, `Use one of ${LIST_STATUSES.map((x) => (x.includes(' ') ? `"${x}"` : x)).join(', ')}.`);
  }
  const vault = openVault(ctx);
  const labels = opts.label ?? [];
  // `--all` without filters keeps every row: nothing of a row is parsed, its stored JSON is copied.
  const match = opts.server || opts.status || labels.length ? recordFilter(opts) : undefined;
  const listedByDefault = !opts.all && !opts.status;
  const limit = opts.limit !== undefined ? { limit: opts.limit } : {};
  if (ctx.json && opts.limit === undefined && !opts.refresh) {
    // Streamed from the sealed listing, each row as stored in its output form: at 100,000 records,
    // holding every row costs more in GC than reading them. The same bytes as one JSON array.
    let pending: Buffer[] = [Buffer.from('[')];
    let size = 1;
    let first = true;
    const out = (bytes: Buffer) => {
      if (!first) pending.push(COMMA);
      first = false;
      pending.push(bytes);
      size += bytes.length + 1;
      if (size > 1 << 20) {
        ctx.stdout.write(Buffer.concat(pending));
        pending = [];
        size = 0;
      }
    };
    vault.eachListed({ listedByDefault, ...(match ? { match } : {}) }, (r) => out(r.json), (rows) => out(rows));
    pending.push(Buffer.from(']\n'));
    ctx.stdout.write(Buffer.concat(pending));
    return ExitCode.Ok;
  }
  let records: ListingMeta[];
  let seen = new Map<string, Refreshed>();
  if (opts.refresh) {
    // --refresh polls and writes records: it reads them from their files, not from the listing.
    ({ records, seen } = await refreshRecords(ctx, filterRecords(vault.query({ listedByDefault, ...limit, ...(match ? { match } : {}) }), opts)));
    if (ctx.json) {
      ctx.stdout.write(jsonLine((records as VaultRecord[]).map((r) => Object.assign(taskJson(r), { opId: r.opId, phase: r.phase }))));
      return ExitCode.Ok;
    }
  } else {
    // From the sealed listing (a few large reads); --limit reads it from the newest end and stops early.
    const rows = vault.listing({ listedByDefault, ...(match ? { match } : {}), ...limit });
    if (ctx.json) {
      // The rows' stored JSON (taskJson through safeJson): the same bytes as jsonLine of the objects.
      const sorted = [...rows].sort(byCreatedAt);
      ctx.stdout.write(`[${sorted.map((r: ListingRow) => r.json.toString('utf8')).join(',')}]\n`);
      return ExitCode.Ok;
    }
    records = rows.map((r) => r.meta()).sort(byCreatedAt);
  }
  const polled = [...seen.values()];
  if (opts.refresh) {
    const failed = polled.filter((p): p is { polled: false; why: string } => !p.polled);
    const whys = [...new Set(failed.map((f) => f.why))];
    ctx.stderr.write(`mcp-tasks: polled ${polled.length - failed.length} of ${polled.length} active task(s)${failed.length ? `; ${failed.length} not reached (${whys.map((w) => sanitize(w, { singleLine: true, maxLength: 200 })).join('; ')}): their status is the last one seen` : ''}\n`);
  }
  if (records.length === 0) {
    ctx.stdout.write(opts.all ? 'the vault is empty\n' : 'no active tasks (use --all to include finished ones)\n');
    return ExitCode.Ok;
  }
  const now = ctx.now();
  const labelsOf = (r: ListingMeta) => safeName(Object.entries(r.labels).map(([k, v]) => `${k}=${v}`).join(' '), 1000);
  /** A live-looking status is only what was last seen: say when, unless it was polled just now. */
  const seenNote = (r: ListingMeta): string | undefined => {
    if (r.phase !== 'active' || !r.last) return undefined;
    const s = seen.get(r.opId);
    if (s?.polled) return 'polled now';
    return `seen ${ago(r.updatedAt, now)}${s && !s.polled ? ', not reached now' : ''}`;
  };
  if (!ctx.stdout.isTTY) {
    // For scripts (as gh does): tab-separated, no header, no colour, ISO times; the last-seen time has its own column.
    ctx.stdout.write(renderTsv(records.map((r) => [typeableRef(r), statusOf(r), safeName(r.server.name), safeName(r.operation.name), r.createdAt, r.phase === 'active' && r.last ? r.updatedAt : '', labelsOf(r)])));
    return ExitCode.Ok;
  }
  const st = makeStyle(ctx.color);
  const rows = records.map((r) => {
    const note = seenNote(r);
    return [typeableRef(r), `${statusWord(statusOf(r) as never, st, r.result?.isError === true)}${note ? st.c.gray(` (${note})`) : ''}`, safeName(r.server.name, 40), safeName(r.operation.name, 60), ago(r.createdAt, now), labelsOf(r)];
  });
  const width = ctx.stdout.columns?.();
  ctx.stdout.write(renderTable(['ref', 'status', 'server', 'tool', 'created', 'labels'], rows, { ...(width !== undefined ? { width } : {}), flex: 5, flexStyle: (t) => st.c.gray(t) }));
  return ExitCode.Ok;
}

/**
 * What `show` says about a 2025-11-25 record's server session: the generation, that an
 * Mcp-Session-Id is kept (its first characters only: it may act as a bearer), whether mcp-tasks
 * has ended it, and the unanswered server requests kept with it. Null on 2026-07-28 (no session).
 */
function sessionView(r: VaultRecord): { generation: '2025-11-25'; protocolVersion: string; transport: 'http' | 'stdio'; sessionIdPrefix: string | null; state: 'kept' | 'ended' | 'process'; endedAt?: string; pendingInput: string[] } | null {
  const s = r.session;
  if (!s) return null;
  const id = s.sessionId ? sanitize(s.sessionId, { singleLine: true }) : undefined;
  return {
    generation: '2025-11-25',
    protocolVersion: s.protocolVersion,
    transport: id ? 'http' : 'stdio',
    sessionIdPrefix: id ? `${id.slice(0, 8)}…` : null,
    state: !id ? 'process' : s.endedAt ? 'ended' : 'kept',
    ...(s.endedAt ? { endedAt: s.endedAt } : {}),
    pendingInput: (s.pendingInput ?? []).map((p) => p.key),
  };
}

function describeSession(v: NonNullable<ReturnType<typeof sessionView>>): string {
  const head = `${v.generation} (${sanitize(v.protocolVersion, { singleLine: true, maxLength: 40 })})`;
  const pending = v.pendingInput.length ? `; ${v.pendingInput.length} unanswered server request(s) kept with it: ${v.pendingInput.map((k) => safeName(k, 80)).join(', ')}` : '';
  if (v.state === 'process') return `${head} over stdio: the session is the server process, not kept${pending}`;
  if (v.state === 'ended') return `${head}, Mcp-Session-Id ${v.sessionIdPrefix} ended by mcp-tasks at ${v.endedAt} (no task in the vault needed it)${pending}`;
  return `${head}, Mcp-Session-Id ${v.sessionIdPrefix} kept (encrypted in the vault; later commands rejoin it)${pending}`;
}

export async function runShow(ref: string, ctx: Context): Promise<number> {
  const vault = openVault(ctx);
  const r = vault.resolve(ref);
  if (!r) throw new CliError('not-found', `no task in the vault matches "${ref}"`, 'Run `mcp-tasks list --all`.');
  if (ctx.json) {
    ctx.stdout.write(jsonLine({ ...taskJson(r), opId: r.opId, phase: r.phase, serverIdentity: r.server.identity, protocolVersion: r.server.protocolVersion ?? null, serverInfo: r.server.serverInfo ?? null, auth: { kind: r.auth.kind, ...(r.auth.bearerEnv ? { variable: r.auth.bearerEnv } : {}), storedCredentials: Object.keys(r.auth.secrets ?? {}) }, ...(r.principal ? { signedInAs: describePrincipal(r.principal) } : {}), submittedAt: r.operation.submittedAt, history: r.history, ...(r.resolution ? { resolution: r.resolution } : {}), inputKeysSeen: r.inputKeysSeen, inputKeysAnswered: r.inputKeysAnswered, ...(r.reason ? { reason: r.reason } : {}), session: sessionView(r) }));
    return ExitCode.Ok;
  }
  const st = makeStyle(ctx.color);
  const line = (k: string, v: string) => ctx.stdout.write(`${st.c.gray(k.padEnd(12))} ${v}\n`);
  line('task', r.taskId ? (isPlainId(r.taskId) ? r.taskId : `${safeName(r.taskId, 4096)} (the server's id carries control characters; shown cleaned, the exact id: mcp-tasks show --json ${typeableRef(r)})`) : st.c.red('(no handle received)'));
  line('operation', `${r.operation.method} ${safeName(r.operation.name)} ${sanitize(safeJson(r.operation.arguments), { singleLine: true, maxLength: 2000 })}`);
  line('op id', r.opId);
  line('server', safeName(`${r.server.name} · ${describeIdentity(r.server.identity)}${r.server.protocolVersion ? ` · ${r.server.protocolVersion}` : ''}`, 1000));
  const session = sessionView(r);
  if (session) line('session', describeSession(session));
  if (r.server.serverInfo) line('server info', sanitize(`${r.server.serverInfo.name} ${r.server.serverInfo.version}`, { singleLine: true, maxLength: 120 }));
  const stored = Object.keys(r.auth.secrets ?? {});
  line('auth', `${r.auth.kind === 'bearer-env' ? `bearer token from $${r.auth.bearerEnv}` : r.auth.kind === 'env-headers' ? 'headers read from the environment' : 'none'}${stored.length ? `; stored for reconnecting: ${stored.map((n) => `$${n}`).join(', ')} (values hidden)` : ''}`);
  if (r.principal) line('sign-in', sanitize(describePrincipal(r.principal), { singleLine: true, maxLength: 300 }));
  line('phase', r.phase + (r.reason ? ` (${safeName(r.reason, 500)})` : ''));
  if (r.resolution) line('resolved', `${r.resolution.outcome} by hand at ${localTime(r.resolution.at)}${r.resolution.note ? `: ${sanitize(r.resolution.note, { singleLine: true, maxLength: 300 })}` : ''} (was ${r.resolution.was}${r.resolution.reason ? `: ${safeName(r.resolution.reason, 300)}` : ''})`);
  line('submitted', `${localTime(r.operation.submittedAt)} (${ago(r.operation.submittedAt, ctx.now())})`);
  if (r.phase === 'active' && r.last) line('last seen', asInvoked(`${localTime(r.updatedAt)} (${ago(r.updatedAt, ctx.now())}): ${r.last.status}, as last seen; \`mcp-tasks get ${typeableRef(r)}\` asks the server now`, ctx.invocation));
  if (Object.keys(r.labels).length) line('labels', safeName(Object.entries(r.labels).map(([k, v]) => `${k}=${v}`).join(' '), 1000));
  if (r.inputKeysSeen.length) line('input keys', `seen ${r.inputKeysSeen.map((k) => safeName(k, 80)).join(', ')}; answered ${r.inputKeysAnswered.map((k) => safeName(k, 80)).join(', ') || 'none'}`);
  if (r.history.length) {
    ctx.stdout.write(`${st.c.gray('history')}\n`);
    for (const h of r.history) ctx.stdout.write(`  ${localTime(h.at)}  ${statusWord(h.status, st)}${h.statusMessage ? `  ${sanitize(h.statusMessage, { singleLine: true, maxLength: 120 })}` : ''}\n`);
  }
  if (r.result) ctx.stdout.write(`${st.c.gray('result')}\n${shortenIdsIn(renderCallToolResult(r.result, st), [r.taskId])}\n`);
  if (r.error) ctx.stdout.write(`${st.c.gray('error')} ${r.error.code}: ${sanitize(r.error.message, { maxLength: 2000 })}\n`);
  return ExitCode.Ok;
}
