// The presenter's part for what the vault holds: `show` (one record as stored), `prune`, `export`,
// `import`, and the time words `list` and `show` use. Human lines or one JSON document; server text sanitised on its way out.
import { reportedPhase, SUBMITTER_GONE } from '../vault/writer.js';
import type { Context } from '../context.js';
import type { VaultOutcome } from './outcomes.js';
import { describePrincipal } from '../tasks/principal.js';
import { describeIdentity } from '../servers/server-entry.js';
import { typeableRef, type VaultRecord } from '../vault/vault-record.js';
import { jsonLine, makeStyle, renderCallToolResult, statusWord, taskJson } from './render.js';
import { isPlainId, safeJson, safeName, sanitize, shortenIdsIn } from './sanitize.js';
import { cmd, hint, renderHint, shellQuote } from '../hint.js';

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

export function presentVaultOutcome(ctx: Context, o: VaultOutcome): void {
  const out = (t: string) => ctx.stdout.write(t);
  switch (o.kind) {
    case 'record-shown':
      return presentRecord(ctx, o.record);
    case 'vault-checked': {
      if (ctx.json) {
        out(jsonLine({ exists: o.exists, sound: o.sound, damaged: o.findings.map((f) => ({ problem: f.problem, ...(f.path ? { path: f.path } : {}), next: renderHint(f.next, ctx.invocation) })), ...(o.repaired ? { repaired: o.repaired } : {}) }));
        return;
      }
      if (!o.exists) return out('no vault yet: nothing to check\n');
      if (o.findings.length === 0) return out(`vault check: ${o.sound} record(s) read, all sound; the listing matches them\n`);
      out(`vault check: ${o.sound} record(s) sound, ${o.findings.length} problem(s)${o.repaired ? ', repaired' : ''}:\n`);
      for (const f of o.findings) out(`  ${f.problem}${f.path ? ` (${f.path})` : ''}\n    ${o.repaired ? 'done' : 'next'}: ${renderHint(f.next, ctx.invocation)}\n`);
      if (o.repaired) {
        for (const m of o.repaired.moved) out(`moved ${m.from} to ${m.to} (kept, not deleted)\n`);
        if (o.repaired.listingRebuilt) out('the listing was rebuilt from the record files\n');
      }
      return;
    }
    case 'store-status': {
      if (ctx.json) {
        out(jsonLine({ engine: o.engine, where: o.where, reachable: o.reachable, schemaVersion: o.schemaVersion, records: o.records, active: o.active, origins: o.origins, pushPending: o.pushPending, ...(o.engine === 'postgres' ? { teamKey: o.teamKey, keeper: o.keeper } : {}) }));
        return;
      }
      out(`store: ${o.engine === 'postgres' ? `team store (PostgreSQL) ${safeName(o.where, 300)}` : `local vault in ${safeName(o.where, 300)}`}\n`);
      if (o.engine === 'postgres') {
        out(renderHint(hint`reachable: yes; schema version ${o.schemaVersion ?? hint`none (run \`${cmd('store', 'init')}\`)`}\n`, ctx.invocation));
        out(`team key: ${o.teamKey === 'keychain' ? 'from the OS keychain (store key save)' : 'from MCP_TASKS_TEAM_KEY'}\n`);
        if (o.keeper) {
          const k = o.keeper;
          out(`connection keeper: ${!k.keepSeconds ? 'off (MCP_TASKS_STORE_KEEP=0): each command connects itself' : k.used ? `in use; it leaves ${k.keepSeconds} s after the last command (MCP_TASKS_STORE_KEEP)` : 'none was running; one starts for the next command'}\n`);
        }
      }
      out(`records: ${o.records} (${o.active} active, in doubt or lost)\n`);
      for (const w of o.origins) out(`  ${w.records}\t${safeName(w.origin, 200)}\n`);
      if (o.pushPending) out(renderHint(hint`waiting for \`${cmd('store', 'push')}\`: ${o.pushPending} local record(s) the team store could not take when they were written\n`, ctx.invocation));
      return;
    }
    case 'store-initialised':
      if (ctx.json) out(jsonLine({ where: o.where, created: o.created, schemaVersion: o.schemaVersion }));
      else out(`${o.created ? 'created the team store' : 'the team store is ready'} at ${safeName(o.where, 300)} (schema version ${o.schemaVersion})\n`);
      return;
    case 'store-key-generated':
      // The key itself is the output (for a pipe into a secret store); the advice goes to stderr.
      if (ctx.json) out(jsonLine({ teamKey: o.key }));
      else {
        out(`${o.key}\n`);
        ctx.stderr.write(renderHint(hint`mcp-tasks: a new team key (256 random bits; nothing to stretch, so the store opens faster), kept nowhere else\n  keep it in your secret store; give it to each runner and person as MCP_TASKS_TEAM_KEY, never on a command line\n  next: with it set, \`${cmd('store', 'init')}\` creates a new store sealed with it\n`, ctx.invocation));
      }
      return;
    case 'store-key-saved':
      if (ctx.json) out(jsonLine({ where: o.where, saved: true, keychain: o.keychain }));
      else {
        out(`saved the team key for ${safeName(o.where, 300)} in ${o.keychain}; it was checked against the store\n`);
        ctx.stderr.write(o.overridden ? 'mcp-tasks: MCP_TASKS_TEAM_KEY is set here and wins over the saved key while it is\n' : 'mcp-tasks: commands on this store from this machine now need no MCP_TASKS_TEAM_KEY\n');
      }
      return;
    case 'store-key-forgotten':
      if (ctx.json) out(jsonLine({ where: o.where, removed: o.removed, keychain: o.keychain }));
      else out(o.removed ? `removed the team key for ${safeName(o.where, 300)} from ${o.keychain} (the store and its records are untouched)\n` : `${o.keychain} held no team key for ${safeName(o.where, 300)}; nothing was removed\n`);
      return;
    case 'store-pushed':
      if (ctx.json) out(jsonLine({ where: o.where, added: o.added, alreadyPresent: o.alreadyPresent }));
      else out(`pushed ${o.added} record(s) to ${safeName(o.where, 300)}${o.alreadyPresent ? `; ${o.alreadyPresent} already there` : ''} (stored credentials are never copied)\n`);
      return;
    case 'pruned':
      if (ctx.json) out(jsonLine({ pruned: o.removed }));
      else out(`pruned ${o.removed} finished task record(s); active, lost and in-doubt records are kept\n`);
      return;
    case 'exported':
      // Without --out the bundle is the output, --json or not.
      if (o.out === undefined) out(o.bundle);
      else if (ctx.json) out(jsonLine({ exported: o.count, out: o.out }));
      else ctx.stderr.write(renderHint(hint`exported ${o.count} task(s) to ${o.out} (encrypted with MCP_TASKS_EXPORT_KEY; stored credentials are not included)\n  next, on the other machine: MCP_TASKS_EXPORT_KEY=… ${cmd('import', shellQuote(o.out))}\n`, ctx.invocation));
      return;
    case 'records-imported': {
      const { added, alreadyPresent, warnings } = o;
      // The URL in a command comes from the bundle (another machine): sanitised, and shell-quoted when built.
      const next = o.next.map((c) => sanitize(renderHint(c, ctx.invocation), { singleLine: true, maxLength: 500 }));
      if (ctx.json) return out(jsonLine({ imported: added, alreadyPresent, warnings, ...(next.length ? { next } : {}) }));
      out(`imported ${added} task(s)${alreadyPresent ? `, ${alreadyPresent} already in the vault` : ''}\n`);
      for (const w of warnings) ctx.stderr.write(`warning: ${sanitize(w, { singleLine: true, maxLength: 500 })}\n`);
      for (const c of next) ctx.stderr.write(`  next: \`${c}\`\n`);
      return;
    }
  }
}

/** `show <ref>`: one vault record as stored, nothing asked of the server. */
function presentRecord(ctx: Context, r: VaultRecord): void {
  if (ctx.json) {
    const phase = reportedPhase(r, ctx.now());
    const gone = phase !== r.phase ? { status: phase, reason: SUBMITTER_GONE } : {};
    ctx.stdout.write(jsonLine({ ...taskJson(r), ...gone, opId: r.opId, phase, serverIdentity: r.server.identity, protocolVersion: r.server.protocolVersion ?? null, serverInfo: r.server.serverInfo ?? null, auth: { kind: r.auth.kind, ...(r.auth.bearerEnv ? { variable: r.auth.bearerEnv } : {}), storedCredentials: Object.keys(r.auth.secrets ?? {}) }, ...(r.principal ? { signedInAs: describePrincipal(r.principal) } : {}), submittedAt: r.operation.submittedAt, history: r.history, ...(r.resolution ? { resolution: r.resolution } : {}), inputKeysSeen: r.inputKeysSeen, inputKeysAnswered: r.inputKeysAnswered, ...(r.reason ? { reason: r.reason } : {}), ...gone, session: sessionView(r) }));
    return;
  }
  const st = makeStyle(ctx.color);
  const line = (k: string, v: string) => ctx.stdout.write(`${st.c.gray(k.padEnd(12))} ${v}\n`);
  line('task', r.taskId ? (isPlainId(r.taskId) ? r.taskId : renderHint(hint`${safeName(r.taskId, 4096)} (the server's id carries control characters; shown cleaned, the exact id: ${cmd('show', '--json', typeableRef(r))})`, ctx.invocation)) : st.c.red('(no handle received)'));
  line('operation', `${r.operation.method} ${safeName(r.operation.name)} ${sanitize(safeJson(r.operation.arguments), { singleLine: true, maxLength: 2000 })}`);
  line('op id', r.opId);
  line('server', safeName(`${r.server.name} · ${describeIdentity(r.server.identity)}${r.server.protocolVersion ? ` · ${r.server.protocolVersion}` : ''}`, 1000));
  const session = sessionView(r);
  if (session) line('session', describeSession(session));
  if (r.server.serverInfo) line('server info', sanitize(`${r.server.serverInfo.name} ${r.server.serverInfo.version}`, { singleLine: true, maxLength: 120 }));
  const stored = Object.keys(r.auth.secrets ?? {});
  line('auth', `${r.auth.kind === 'bearer-env' ? `bearer token from $${r.auth.bearerEnv}` : r.auth.kind === 'env-headers' ? 'headers read from the environment' : 'none'}${stored.length ? `; stored for reconnecting: ${stored.map((n) => `$${n}`).join(', ')} (values hidden)` : ''}`);
  if (r.principal) line('sign-in', sanitize(describePrincipal(r.principal), { singleLine: true, maxLength: 300 }));
  const phase = reportedPhase(r, ctx.now());
  const reason = r.reason ?? (phase !== r.phase ? SUBMITTER_GONE : undefined);
  line('phase', phase + (reason ? ` (${safeName(reason, 500)})` : ''));
  if (r.resolution) line('resolved', `${r.resolution.outcome} by hand at ${localTime(r.resolution.at)}${r.resolution.note ? `: ${sanitize(r.resolution.note, { singleLine: true, maxLength: 300 })}` : ''} (was ${r.resolution.was}${r.resolution.reason ? `: ${safeName(r.resolution.reason, 300)}` : ''})`);
  line('submitted', `${localTime(r.operation.submittedAt)} (${ago(r.operation.submittedAt, ctx.now())})`);
  if (r.phase === 'active' && r.last) line('last seen', renderHint(hint`${localTime(r.updatedAt)} (${ago(r.updatedAt, ctx.now())}): ${r.last.status}, as last seen; \`${cmd('get', typeableRef(r))}\` asks the server now`, ctx.invocation));
  if (Object.keys(r.labels).length) line('labels', safeName(Object.entries(r.labels).map(([k, v]) => `${k}=${v}`).join(' '), 1000));
  if (r.inputKeysSeen.length) line('input keys', `seen ${r.inputKeysSeen.map((k) => safeName(k, 80)).join(', ')}; answered ${r.inputKeysAnswered.map((k) => safeName(k, 80)).join(', ') || 'none'}`);
  if (r.history.length) {
    ctx.stdout.write(`${st.c.gray('history')}\n`);
    for (const h of r.history) {
      const text = h.note ? st.c.gray(`(${sanitize(h.note, { singleLine: true, maxLength: 200 })})`) : h.statusMessage ? sanitize(h.statusMessage, { singleLine: true, maxLength: 120 }) : '';
      ctx.stdout.write(`  ${localTime(h.at)}  ${statusWord(h.status, st)}${text ? `  ${text}` : ''}\n`);
    }
  }
  if (r.result) ctx.stdout.write(`${st.c.gray('result')}\n${shortenIdsIn(renderCallToolResult(r.result, st), [r.taskId])}\n`);
  if (r.error) ctx.stdout.write(`${st.c.gray('error')} ${r.error.code}: ${sanitize(r.error.message, { maxLength: 2000 })}\n`);
}
