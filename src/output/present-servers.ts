// The presenter's part for named servers, their tools and their task lists (`server add | list |
// show | remove | import | check | login | logout`, `tools`, `list --remote`): human lines or one JSON document. Entries are shown redacted: a
// credential header, env value or URL query value is never printed.
import type { Context } from '../context.js';
import type { RemoteTasksListed, ServerAdded, ServerChecked, ServerOutcome, ServerRemoved, ServersImported, ServersListed, ServerShown, ToolsListed } from './outcomes.js';
import type { TaskGeneration } from '../protocol/constants.js';
import { SECRET_HEADER, SECRET_QUERY_PARAM, type ServerEntry } from '../servers/server-entry.js';
import { typeableRef } from '../vault/vault-record.js';
import { jsonLine, makeStyle, renderArgumentTable, renderToolLines, statusWord } from './render.js';
import { safeJson, sanitize, shortenIdsIn, shortTaskId } from './sanitize.js';
import { cmd, hint, renderHint } from '../hint.js';

/** A URL for display: credential query values (an entry stored before they were refused) redacted. */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    let changed = false;
    for (const k of [...url.searchParams.keys()]) {
      if (!SECRET_QUERY_PARAM.test(k)) continue;
      url.searchParams.set(k, 'redacted');
      changed = true;
    }
    if (url.username || url.password) {
      url.username = 'redacted';
      url.password = '';
      changed = true;
    }
    return changed ? url.toString() : raw;
  } catch {
    return raw;
  }
}

/** A server entry for people and JSON: secrets never shown (env values and header values redacted). */
export function redactEntry(e: ServerEntry): Record<string, unknown> {
  if (e.transport === 'http') {
    return {
      name: e.name,
      transport: 'http',
      url: redactUrl(e.url),
      ...(e.headers ? { headers: Object.fromEntries(Object.entries(e.headers).map(([k, v]) => [k, v.startsWith('env:') ? v : SECRET_HEADER.test(k) ? '(redacted)' : v])) } : {}),
      auth: e.bearerEnv ? { kind: 'bearer-env', variable: e.bearerEnv } : { kind: 'none' },
      ...(e.roots ? { roots: e.roots } : {}),
      ...(e.idempotencyMeta ? { idempotencyMeta: e.idempotencyMeta } : {}),
      ...(e.discovered ? { protocolVersion: e.discovered.protocolVersion, tasksAdvertised: e.discovered.tasksAdvertised, checkedAt: e.discovered.checkedAt } : {}),
    };
  }
  return {
    name: e.name,
    transport: 'stdio',
    command: e.command,
    args: e.args,
    ...(e.env ? { env: Object.fromEntries(Object.keys(e.env).map((k) => [k, e.env![k] === '' ? '(passed through)' : '(set)'])) } : {}),
    ...(e.cwd ? { cwd: e.cwd } : {}),
    ...(e.builtin ? { builtin: true } : {}),
    ...(e.roots ? { roots: e.roots } : {}),
    ...(e.idempotencyMeta ? { idempotencyMeta: e.idempotencyMeta } : {}),
    ...(e.discovered ? { protocolVersion: e.discovered.protocolVersion, tasksAdvertised: e.discovered.tasksAdvertised, checkedAt: e.discovered.checkedAt } : {}),
  };
}

/** The advertised capabilities in words (server text: names only, cleaned); extensions have their own line. */
function offered(capabilities: string[]): string {
  const names = capabilities.filter((c) => c !== 'extensions' && c !== 'experimental').map((c) => sanitize(c, { singleLine: true, maxLength: 40 }));
  return names.length ? names.join(', ') : 'no capabilities';
}

/**
 * `server check --json`'s `era`: the SDK's word for the generation ('modern' | 'legacy'), kept
 * for this release beside `generation` for scripts that read it. Deprecated (reference.md).
 */
const deprecatedEraOf = (generation: TaskGeneration): 'modern' | 'legacy' => (generation === '2026-07-28' ? 'modern' : 'legacy');

function describe(e: ServerEntry): string {
  return e.transport === 'http' ? redactUrl(e.url) : `stdio: ${[e.command, ...e.args].join(' ')}`;
}

export function presentServerOutcome(ctx: Context, o: ServerOutcome): void {
  switch (o.kind) {
    case 'server-added':
    case 'servers-listed':
    case 'server-shown':
    case 'server-removed':
    case 'servers-imported':
      return presentEntries(ctx, o);
    case 'server-checked':
      return presentServerChecked(ctx, o);
    case 'signed-in':
    case 'signed-out':
      return presentSignIn(ctx, o);
    case 'remote-tasks-listed':
      return presentRemoteTasks(ctx, o);
    case 'tools-listed':
      return presentTools(ctx, o);
  }
}

/** `server add | list | show | remove | import`: the entries as stored, redacted. */
function presentEntries(ctx: Context, o: ServerAdded | ServersListed | ServerShown | ServerRemoved | ServersImported): void {
  const out = (t: string) => ctx.stdout.write(t);
  switch (o.kind) {
    case 'server-added': {
      const { entry, requiresSignIn } = o;
      if (ctx.json) out(jsonLine({ ...redactEntry(entry), ...(requiresSignIn ? { requiresSignIn: true } : {}) }));
      else out(renderHint(hint`added server ${entry.name} (${describe(entry)})\n  next: ${requiresSignIn ? hint`\`${cmd('server', 'login', entry.name)}\` (it requires sign-in)` : hint`\`${cmd('server', 'check', entry.name)}\``}\n`, ctx.invocation));
      return;
    }
    case 'servers-listed': {
      const { entries } = o;
      if (ctx.json) return out(jsonLine(entries.map(redactEntry)));
      const st = makeStyle(ctx.color);
      const width = Math.max(...entries.map((e) => e.name.length));
      for (const e of entries) {
        const seen = e.discovered ? st.c.gray(` [${e.discovered.protocolVersion}${e.discovered.tasksAdvertised ? ', tasks' : ''}]`) : '';
        out(`${st.c.bold(e.name.padEnd(width))}  ${e.transport === 'stdio' && 'builtin' in e && e.builtin ? 'built-in demo server (stdio)' : describe(e)}${seen}\n`);
      }
      return;
    }
    case 'server-shown': {
      const view = { ...redactEntry(o.entry), ...(o.signIn ? { signIn: o.signIn } : {}) };
      if (ctx.json) out(jsonLine(view));
      else for (const [k, v] of Object.entries(view)) out(`${k.padEnd(18)} ${typeof v === 'string' ? sanitize(v, { singleLine: true, maxLength: 2000 }) : safeJson(v)}\n`);
      return;
    }
    case 'server-removed':
      if (ctx.json) out(jsonLine({ removed: o.name }));
      else out(`removed server ${o.name}; vaulted tasks created on it are kept, and will only be sent to the same server again\n`);
      return;
    case 'servers-imported': {
      const { imported, skipped } = o;
      if (ctx.json) return out(jsonLine({ imported, skipped }));
      // Names and reasons come from the file (anyone's mcp.json): printed clean.
      for (const n of imported) out(`imported ${sanitize(n, { singleLine: true, maxLength: 100 })}\n`);
      for (const s of skipped) ctx.stderr.write(`skipped ${sanitize(s.name, { singleLine: true, maxLength: 100 })}: ${sanitize(s.reason, { singleLine: true, maxLength: 300 })}\n`);
      if (imported.length) out(renderHint(hint`note: env values and credential headers were not copied; they are read from your environment at connect time (see \`${cmd('server', 'show', sanitize(imported[0]!, { singleLine: true, maxLength: 100 }))}\`)\n`, ctx.invocation));
      return;
    }
  }
}

/** `server check`: what the server negotiated and advertises, and its tools. */
function presentServerChecked(ctx: Context, o: ServerChecked): void {
  const out = (t: string) => ctx.stdout.write(t);
  if (ctx.json) {
    const { kind: _kind, tasksExtensionId: _id, tools, server, protocolVersion, ...report } = o;
    return out(jsonLine({ server, protocolVersion, era: deprecatedEraOf(o.generation), ...report, tools: tools.map((t) => ({ name: t.name, annotations: t.annotations ?? {}, ...(t.execution?.taskSupport ? { taskSupport: t.execution.taskSupport } : {}) })) }));
  }
  const st = makeStyle(ctx.color);
  const info = o.serverInfo ? `${sanitize(o.serverInfo.name, { singleLine: true, maxLength: 100 })} ${sanitize(o.serverInfo.version, { singleLine: true, maxLength: 40 })}` : 'unnamed server';
  out(`${st.c.bold(o.server)}: ${info}\n`);
  out(`  protocol  ${o.protocolVersion} (${o.generation === '2026-07-28' ? 'stateless, the 2026-07-28 tasks extension generation' : 'sessions, the 2025-11-25 experimental tasks generation'})\n`);
  out(
    `  tasks     ${o.tasksExtension ? st.c.green(`${o.tasksExtensionId} advertised`) : o.legacyTaskCapabilities ? legacyTasksLine(o.legacyTaskCapabilities, st) : st.c.yellow(`${o.generation === '2026-07-28' ? 'extension not advertised' : 'no tasks capability'}${o.offersTools ? ': tools will answer synchronously' : ''}`)}\n`,
  );
  if (o.capabilities) out(`  offers    ${offered(o.capabilities)}\n`);
  if (!o.offersTools) return out(`  tools     none: this server offers no tools\n`);
  out(`  tools     ${o.tools.length}\n`);
  out(renderToolLines(o.tools, st, ctx.stdout.columns?.()));
}

/** `list --remote`: the server's own task list, marked by what this vault holds. */
function presentRemoteTasks(ctx: Context, { server, tasks }: RemoteTasksListed): void {
  const out = (t: string) => ctx.stdout.write(t);
  if (ctx.json) return out(jsonLine(tasks.map(({ snapshot: t, record: rec }) => ({ ...t, server, inVault: rec !== undefined, ...(rec ? { opId: rec.opId, operation: { method: rec.operation.method, name: rec.operation.name }, labels: rec.labels } : {}) }))));
  if (tasks.length === 0) return out(`server ${server} lists no tasks\n`);
  const st = makeStyle(ctx.color);
  for (const { snapshot: t, record: rec } of tasks) {
    // Never a whole id: a short one (or one not in this vault) as a prefix of at most half of it.
    const id = rec ? typeableRef(rec, 10) : shortTaskId(t.taskId);
    const what = rec ? `${rec.operation.name}  ${st.c.green('in vault')}` : st.c.gray('not in this vault');
    const message = t.statusMessage ? `  ${st.c.gray(shortenIdsIn(sanitize(t.statusMessage, { singleLine: true, maxLength: 80 }), [t.taskId]))}` : '';
    out(`${id.padEnd(10)}  ${statusWord(t.status as never, st, false)}  ${what}  ${st.c.gray(t.createdAt.replace('T', ' ').slice(0, 19))}${message}\n`);
  }
}

/** `tools [tool]`: a server's tools, or one tool's arguments. */
function presentTools(ctx: Context, o: ToolsListed): void {
  const out = (t: string) => ctx.stdout.write(t);
  const { server, tools, tool } = o;
  const asJson = (t: (typeof tools)[number]) => ({ name: t.name, ...(t.title ? { title: t.title } : {}), ...(t.description ? { description: t.description } : {}), inputSchema: t.inputSchema, annotations: t.annotations ?? {} });
  const width = ctx.stdout.columns?.();
  const st = makeStyle(ctx.color);
  if (tool) {
    if (ctx.json) return out(jsonLine(asJson(tool)));
    out(renderToolLines([tool], st, width).replace(/^ {4}/, ''));
    out(renderArgumentTable(tool.inputSchema, st, width));
    return;
  }
  if (ctx.json) return out(jsonLine(tools.map(asJson)));
  if (o.offersTools === false) return out(`${server}: this server offers no tools${o.capabilities ? ` (it offers ${offered(o.capabilities)})` : ''}\n`);
  out(`${tools.length} tool(s) on ${server}:\n`);
  out(renderToolLines(tools, st, width));
  // A hint that runs as printed: only with a tool name that can be typed as it is.
  const typeable = tools.find((t) => /^[A-Za-z0-9_.:@%+=,/][A-Za-z0-9_.:@%+=,/-]*$/.test(t.name));
  if (typeable) out(`\n${renderHint(hint`a tool's arguments: ${cmd('tools', server, typeable.name)}`, ctx.invocation)}\n`);
}

/** `server login` / `server logout`: the sign-in's state, never a token. */
function presentSignIn(ctx: Context, o: Extract<ServerOutcome, { kind: 'signed-in' | 'signed-out' }>): void {
  const out = (t: string) => ctx.stdout.write(t);
  const name = o.server;
  if (o.kind === 'signed-in') {
    const { view } = o;
    if (ctx.json) return out(jsonLine({ server: name, ...view }));
    const until = typeof view.expiresAt === 'string' ? `, token valid until ${view.expiresAt}${view.refreshable ? ' (renewed by itself)' : ''}` : '';
    out(renderHint(hint`signed in to ${name}${o.issuer ? ` at ${sanitize(o.issuer, { singleLine: true, maxLength: 200 })}` : ''}${until}\n  next: \`${cmd('server', 'check', name)}\`\n`, ctx.invocation));
    return;
  }
  const { removed, revoked, revocationProblem: why } = o;
  if (ctx.json) out(jsonLine({ server: name, signedIn: false, removed, revoked, ...(why ? { revocation: why } : {}) }));
  else if (!removed) out(`not signed in to ${name}; nothing to forget\n`);
  else if (revoked) out(`signed out of ${name}: the authorization server revoked its tokens, and its tokens and client registration are forgotten here\n`);
  else if (why) out(`signed out of ${name}: its tokens and client registration are deleted locally; the server did not confirm revocation (${sanitize(why, { singleLine: true, maxLength: 300 })}), so the tokens may stay valid there until they expire\n`);
  else out(`signed out of ${name}: no tokens were held; its client registration is forgotten\n`);
}

/** What a 2025-11-25 server's `capabilities.tasks` offers, in words. */
function legacyTasksLine(t: { list: boolean; cancel: boolean; toolsCall: boolean }, st: ReturnType<typeof makeStyle>): string {
  const offers = [t.toolsCall ? 'tools/call as tasks' : '', 'tasks/get', 'tasks/result', t.list ? 'tasks/list' : '', t.cancel ? 'tasks/cancel' : ''].filter(Boolean).join(', ');
  return `${st.c.green('2025-11-25 experimental tasks capability')}: ${offers}${t.toolsCall ? '' : st.c.yellow(' (no tasks for tools/call: tools answer synchronously)')}`;
}
