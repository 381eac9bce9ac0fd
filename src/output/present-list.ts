// The presenter's part for `list`: the vault's records as a table in a terminal, tab-separated
// into a pipe, or one JSON array. The rows are read from the vault while they are printed: for
// --json each row's stored bytes (or a whole run of them) are copied out, nothing is parsed.
import type { Context } from '../context.js';
import type { Refreshed, TasksListed } from './outcomes.js';
import { byCreatedAt, isLostOrInDoubt, originText, typeableRef, type ListingMeta, type VaultRecord } from '../vault/vault-record.js';
import { listingRowJson } from './render.js';
import { makeStyle, renderTable, renderTsv, statusWord } from './render.js';
import { ago } from './present-record.js';
import { safeJson, safeName, sanitize } from './sanitize.js';
import { reportedPhase, SUBMITTER_GONE } from '../vault/writer.js';

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']\n');
/** --json output is written in pieces of about this size: neither a write per row nor the whole array held. */
const FLUSH_BYTES = 1 << 20;

/** The status `list` shows for a record (and `--status` matches). */
export const listedStatus = (r: ListingMeta, nowMs = Date.now()): string => {
  if (r.damaged) return 'damaged';
  if (r.resolution) return `resolved ${r.resolution.outcome}`;
  const phase = reportedPhase(r, nowMs);
  return isLostOrInDoubt(phase) || phase === 'submitting' ? phase : (r.last?.status ?? (r.result ? 'completed' : 'unknown'));
};

/**
 * A row's stored JSON, unless it is a `submitting` one whose writer is gone: that one is in
 * doubt, as `recover` says, so its JSON says so too (status, phase and the reason).
 */
export function rowJson(row: { json: Buffer; meta(): ListingMeta }, nowMs: number): Buffer {
  const meta = row.meta();
  if (meta.phase !== 'submitting' || reportedPhase(meta, nowMs) !== 'in-doubt') return row.json;
  const doc = JSON.parse(row.json.toString('utf8')) as Record<string, unknown>;
  return Buffer.from(safeJson({ ...doc, status: 'in-doubt', phase: 'in-doubt', reason: SUBMITTER_GONE }), 'utf8');
}

/** The columns of piped `list` output. */
const PIPED_HEADER = ['ref', 'status', 'server', 'tool', 'created', 'last_seen', 'labels'];

/** Why nothing was listed, naming the filters given and what the vault does hold. */
function nothingListed(o: TasksListed): string {
  const total = o.vaultTotal();
  if (total === 0) return 'the vault is empty';
  // Without --all or --status only active records are listed: finished ones may be what was meant.
  const activeOnly = !o.all && !o.filters.some((f) => f.startsWith('--status '));
  const where = `(${total} in the vault${activeOnly ? '; use --all to include finished ones' : ''})`;
  if (o.filters.length === 0) return `no active tasks ${where}`;
  return `no ${activeOnly ? 'active ' : ''}records match ${o.filters.map((f) => safeName(f, 100)).join(' ')} ${where}`;
}

export function presentList(ctx: Context, o: TasksListed): void {
  if (ctx.json) return presentListJson(ctx, o);
  const records: ListingMeta[] = [];
  o.eachRow((r) => records.push(r.meta()));
  records.sort(byCreatedAt);
  const seen = o.refreshed ?? new Map<string, Refreshed>();
  if (o.refreshed) {
    const polled = [...seen.values()];
    const failed = polled.filter((p): p is { polled: false; why: string } => !p.polled);
    const whys = [...new Set(failed.map((f) => f.why))];
    ctx.stderr.write(`mcp-tasks: polled ${polled.length - failed.length} of ${polled.length} active task(s)${failed.length ? `; ${failed.length} not reached (${whys.map((w) => sanitize(w, { singleLine: true, maxLength: 200 })).join('; ')}): their status is the last one seen` : ''}\n`);
  }
  if (records.length === 0) return void ctx.stdout.write(`${nothingListed(o)}\n`);
  const now = ctx.now();
  const labelsOf = (r: ListingMeta) => safeName(Object.entries(r.labels).map(([k, v]) => `${k}=${v}`).join(' '), 1000);
  if (!ctx.stdout.isTTY) {
    // For scripts: tab-separated under one header row (so columns can be named), no colour, ISO
    // times; the last-seen time has its own column.
    // The team store adds whose each record is, as a last column (scripts reading the first ones are unaffected).
    const origin = (r: ListingMeta) => (o.showOrigin ? [safeName(originText(r.origin), 300)] : []);
    ctx.stdout.write(renderTsv([[...PIPED_HEADER, ...(o.showOrigin ? ['origin'] : [])], ...records.map((r) => [typeableRef(r), listedStatus(r, now), safeName(r.server.name), safeName(r.operation.name), r.createdAt, r.phase === 'active' && r.last ? r.updatedAt : '', labelsOf(r), ...origin(r)])]));
    return;
  }
  /** A live-looking status is only what was last seen: say when, unless it was polled just now. */
  const seenNote = (r: ListingMeta): string | undefined => {
    if (r.phase !== 'active' || !r.last) return undefined;
    const s = seen.get(r.opId);
    if (s?.polled) return 'polled now';
    return `seen ${ago(r.updatedAt, now)}${s && !s.polled ? ', not reached now' : ''}`;
  };
  const st = makeStyle(ctx.color);
  const rows = records.map((r) => {
    const note = seenNote(r);
    return [typeableRef(r), `${statusWord(listedStatus(r, now) as never, st, r.result?.isError === true)}${note ? st.c.gray(` (${note})`) : ''}`, safeName(r.server.name, 40), safeName(r.operation.name, 60), ago(r.createdAt, now), ...(o.showOrigin ? [safeName(originText(r.origin), 80)] : []), labelsOf(r)];
  });
  const width = ctx.stdout.columns?.();
  ctx.stdout.write(renderTable(['ref', 'status', 'server', 'tool', 'created', ...(o.showOrigin ? ['origin'] : []), 'labels'], rows, { ...(width !== undefined ? { width } : {}), flex: o.showOrigin ? 6 : 5, flexStyle: (t) => st.c.gray(t) }));
}

/**
 * `list --follow`: one record another machine just wrote, as one line: its `list --json` row
 * (NDJSON) with --json, else its ref, status, server, tool, origin and labels, tab-separated.
 */
export function presentFollowed(ctx: Context, rec: VaultRecord): void {
  const now = ctx.now();
  if (ctx.json) return void ctx.stdout.write(Buffer.concat([rowJson({ json: Buffer.from(listingRowJson(rec), 'utf8'), meta: () => rec }, now), Buffer.from('\n')]));
  const labels = safeName(Object.entries(rec.labels).map(([k, v]) => `${k}=${v}`).join(' '), 1000);
  ctx.stdout.write(`${[typeableRef(rec), listedStatus(rec, now), safeName(rec.server.name, 40), safeName(rec.operation.name, 60), safeName(originText(rec.origin), 120), labels].join('\t')}\n`);
}

/** One JSON array of the rows as stored (taskJson through safeJson): the same bytes as jsonLine of the row objects. */
function presentListJson(ctx: Context, o: TasksListed): void {
  let pending: Buffer[] = [OPEN];
  let size = OPEN.length;
  let first = true;
  const out = (bytes: Buffer) => {
    if (!first) pending.push(COMMA);
    first = false;
    pending.push(bytes);
    size += bytes.length + 1;
    if (size > FLUSH_BYTES) {
      ctx.stdout.write(Buffer.concat(pending));
      pending = [];
      size = 0;
    }
  };
  const now = ctx.now();
  o.eachRow((r) => out(rowJson(r, now)), out);
  pending.push(CLOSE);
  ctx.stdout.write(Buffer.concat(pending));
}
