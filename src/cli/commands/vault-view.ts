// `list` and `show`: what the vault holds. Human output shows short id prefixes; --json full ids.
import type { Context } from '../../context.js';
import { CliError, ExitCode } from '../../errors.js';
import { openVault } from '../../app/task-target.js';
import { jsonLine, makeStyle, renderCallToolResult, statusWord, taskJson } from '../../output/render.js';
import { isPlainId, safeJson, safeName, sanitize, shortenIdsIn } from '../../output/sanitize.js';
import { describeIdentity } from '../../servers/server-entry.js';
import { byCreatedAt, isActivePhase, isLostOrInDoubt, typeableRef, type VaultRecord } from '../../vault/vault-record.js';
import { parseLabels } from '../duration.js';

export interface ListOptions {
  server?: string;
  status?: string;
  label?: string[];
  all?: boolean;
  /** Only the N most recently created matching records. */
  limit?: number;
}

const statusOf = (r: VaultRecord) => (r.resolution ? `resolved ${r.resolution.outcome}` : isLostOrInDoubt(r.phase) || r.phase === 'submitting' ? r.phase : (r.last?.status ?? (r.result ? 'completed' : 'unknown')));

export function filterRecords(records: VaultRecord[], opts: ListOptions): VaultRecord[] {
  const labels = parseLabels(opts.label);
  return records
    .filter((r) => opts.all || opts.status || isActivePhase(r.phase) || r.phase === 'lost')
    .filter((r) => !opts.server || r.server.name === opts.server)
    .filter((r) => !opts.status || statusOf(r) === opts.status || r.phase === opts.status)
    .filter((r) => Object.entries(labels).every(([k, v]) => r.labels[k] === v))
    .sort(byCreatedAt);
}

/** Pad by visible width: colour codes must not count. */
function padStatus(text: string, width: number): string {
  const visible = text.replace(/\x1b\[[0-9;]*m/g, '').length;
  return text + ' '.repeat(Math.max(1, width - visible));
}

export async function runList(opts: ListOptions, ctx: Context): Promise<number> {
  // Only records the default view shows are read from their own hints; --limit stops early.
  const records = filterRecords(openVault(ctx).query({ listedByDefault: !opts.all && !opts.status, ...(opts.limit !== undefined ? { limit: opts.limit, match: (r) => filterRecords([r], opts).length === 1 } : {}) }), opts);
  if (ctx.json) {
    ctx.stdout.write(jsonLine(records.map((r) => Object.assign(taskJson(r), { opId: r.opId, phase: r.phase }))));
    return ExitCode.Ok;
  }
  if (records.length === 0) {
    ctx.stdout.write(opts.all ? 'the vault is empty\n' : 'no active tasks (use --all to include finished ones)\n');
    return ExitCode.Ok;
  }
  const st = makeStyle(ctx.color);
  for (const r of records) {
    const status = statusOf(r);
    const labelText = safeName(Object.entries(r.labels).map(([k, v]) => `${k}=${v}`).join(' '), 1000);
    ctx.stdout.write(
      `${typeableRef(r, 10).padEnd(10)}  ${padStatus(statusWord(status as never, st, r.result?.isError === true), 16)}  ${safeName(r.server.name)}  ${safeName(r.operation.name)}  ${st.c.gray(r.createdAt.replace('T', ' ').slice(0, 19))}${labelText ? `  ${st.c.gray(labelText)}` : ''}\n`,
    );
  }
  return ExitCode.Ok;
}

export async function runShow(ref: string, ctx: Context): Promise<number> {
  const vault = openVault(ctx);
  const r = vault.resolve(ref);
  if (!r) throw new CliError('not-found', `no task in the vault matches "${ref}"`, 'Run `mcp-tasks list --all`.');
  if (ctx.json) {
    ctx.stdout.write(jsonLine({ ...taskJson(r), opId: r.opId, phase: r.phase, serverIdentity: r.server.identity, protocolVersion: r.server.protocolVersion ?? null, serverInfo: r.server.serverInfo ?? null, auth: { kind: r.auth.kind, ...(r.auth.bearerEnv ? { variable: r.auth.bearerEnv } : {}), storedCredentials: Object.keys(r.auth.secrets ?? {}) }, submittedAt: r.operation.submittedAt, history: r.history, ...(r.resolution ? { resolution: r.resolution } : {}), inputKeysSeen: r.inputKeysSeen, inputKeysAnswered: r.inputKeysAnswered, ...(r.reason ? { reason: r.reason } : {}) }));
    return ExitCode.Ok;
  }
  const st = makeStyle(ctx.color);
  const line = (k: string, v: string) => ctx.stdout.write(`${st.c.gray(k.padEnd(12))} ${v}\n`);
  line('task', r.taskId ? (isPlainId(r.taskId) ? r.taskId : `${safeName(r.taskId, 4096)} (the server's id carries control characters; shown cleaned, the exact id: mcp-tasks show --json ${typeableRef(r)})`) : st.c.red('(no handle received)'));
  line('operation', `${r.operation.method} ${safeName(r.operation.name)} ${sanitize(safeJson(r.operation.arguments), { singleLine: true, maxLength: 2000 })}`);
  line('op id', r.opId);
  line('server', safeName(`${r.server.name} · ${describeIdentity(r.server.identity)}${r.server.protocolVersion ? ` · ${r.server.protocolVersion}` : ''}`, 1000));
  if (r.server.serverInfo) line('server info', sanitize(`${r.server.serverInfo.name} ${r.server.serverInfo.version}`, { singleLine: true, maxLength: 120 }));
  const stored = Object.keys(r.auth.secrets ?? {});
  line('auth', `${r.auth.kind === 'bearer-env' ? `bearer token from $${r.auth.bearerEnv}` : r.auth.kind === 'env-headers' ? 'headers read from the environment' : 'none'}${stored.length ? `; stored for reconnecting: ${stored.map((n) => `$${n}`).join(', ')} (values hidden)` : ''}`);
  line('phase', r.phase + (r.reason ? ` (${safeName(r.reason, 500)})` : ''));
  if (r.resolution) line('resolved', `${r.resolution.outcome} by hand at ${r.resolution.at}${r.resolution.note ? `: ${sanitize(r.resolution.note, { singleLine: true, maxLength: 300 })}` : ''} (was ${r.resolution.was}${r.resolution.reason ? `: ${safeName(r.resolution.reason, 300)}` : ''})`);
  line('submitted', r.operation.submittedAt);
  if (Object.keys(r.labels).length) line('labels', safeName(Object.entries(r.labels).map(([k, v]) => `${k}=${v}`).join(' '), 1000));
  if (r.inputKeysSeen.length) line('input keys', `seen ${r.inputKeysSeen.map((k) => safeName(k, 80)).join(', ')}; answered ${r.inputKeysAnswered.map((k) => safeName(k, 80)).join(', ') || 'none'}`);
  if (r.history.length) {
    ctx.stdout.write(`${st.c.gray('history')}\n`);
    for (const h of r.history) ctx.stdout.write(`  ${h.at}  ${statusWord(h.status, st)}${h.statusMessage ? `  ${sanitize(h.statusMessage, { singleLine: true, maxLength: 120 })}` : ''}\n`);
  }
  if (r.result) ctx.stdout.write(`${st.c.gray('result')}\n${shortenIdsIn(renderCallToolResult(r.result, st), [r.taskId])}\n`);
  if (r.error) ctx.stdout.write(`${st.c.gray('error')} ${r.error.code}: ${sanitize(r.error.message, { maxLength: 2000 })}\n`);
  return ExitCode.Ok;
}
