// `server add | list | show | remove | import | check`: named servers.
import { readFileArg, type Context } from '../../context.js';
import { CliError, ExitCode } from '../../errors.js';
import { jsonLine, makeStyle, renderToolLines } from '../../output/render.js';
import { rememberTools } from '../../app/tool-cache.js';
import { safeJson, sanitize } from '../../output/sanitize.js';
import { SECRET_HEADER, isLoopbackUrl, type ServerEntry, type StdioServerEntry, type HttpServerEntry } from '../../servers/server-entry.js';
import { ServerStore, validateServerName } from '../../servers/server-store.js';
import { withServerName } from '../../app/remote-error.js';
import { asInvoked } from '../../invocation.js';
import { probeServer, TASKS_EXTENSION_ID } from '../../session/open-session.js';

export interface ServerAddOptions {
  url?: string;
  header?: string[];
  bearerEnv?: string;
  env?: string[];
  cwd?: string;
  root?: string[];
  idempotencyMeta?: string;
  allowHttp?: boolean;
  force?: boolean;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Environment names whose values are credentials: only ever passed through, never stored. */
const SECRET_ENV = /(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_?KEY|CREDENTIAL|AUTH)/i;

function parseHeaders(values: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of values) {
    const i = h.indexOf(':');
    if (i <= 0) throw new CliError('invalid-input', `--header "${h}" is not "Name: value"`, 'Write it as --header "X-Team: search".');
    const name = h.slice(0, i).trim();
    const value = h.slice(i + 1).trim();
    if (SECRET_HEADER.test(name) && !value.startsWith('env:')) {
      throw new CliError(
        'invalid-input',
        `refusing to store the credential header ${name} in the config file`,
        `Use --bearer-env VAR for a bearer token, or --header "${name}: env:VAR" to read the value from $VAR at connect time.`,
      );
    }
    out[name] = value;
  }
  return out;
}

function parseEnv(values: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kv of values) {
    const i = kv.indexOf('=');
    const key = i < 0 ? kv : kv.slice(0, i);
    if (!ENV_NAME.test(key)) throw new CliError('invalid-input', `--env "${kv}" is not KEY=VALUE or KEY`, 'KEY alone passes your current value of $KEY through at connect time.');
    // KEY alone (empty value) means: pass the caller's $KEY through when connecting.
    if (i >= 0 && SECRET_ENV.test(key) && kv.length > i + 1) {
      throw new CliError('invalid-input', `refusing to store a value for ${key} in the config file: it looks like a credential`, `Pass it through instead: --env ${key} (your $${key} is read at connect time).`);
    }
    out[key] = i < 0 ? '' : kv.slice(i + 1);
  }
  return out;
}

/** Query parameter names that carry credentials (api_key, access_token, token, key, secret, sig, …). */
const SECRET_QUERY_PARAM = /^(?:api[-_]?key|apikey|key|access[-_]?token|token|auth|authorization|secret|client[-_]?secret|password|passwd|pwd|sig|signature|x-api-key|session)$/i;

/** The types an mcp.json entry's fields must have; the first wrong one, in words. */
function mcpJsonProblem(def: unknown): string | undefined {
  if (!def || typeof def !== 'object' || Array.isArray(def)) return 'is not an object';
  const d = def as Record<string, unknown>;
  for (const k of ['url', 'command', 'cwd', 'type'] as const) if (d[k] !== undefined && typeof d[k] !== 'string') return `"${k}" must be a string, got ${JSON.stringify(d[k])?.slice(0, 40)}`;
  if (d.args !== undefined && !(Array.isArray(d.args) && d.args.every((a) => typeof a === 'string'))) return `"args" must be an array of strings, got ${JSON.stringify(d.args)?.slice(0, 40)}`;
  for (const k of ['env', 'headers'] as const) {
    const v = d[k];
    if (v !== undefined && !(v && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string'))) return `"${k}" must be an object of strings`;
  }
  if (d.url === undefined && d.command === undefined) return 'has neither "url" nor "command"';
  return undefined;
}

export function buildEntry(name: string, opts: ServerAddOptions, command: string[]): ServerEntry {
  validateServerName(name);
  const common = {
    ...(opts.root?.length ? { roots: opts.root } : {}),
    ...(opts.idempotencyMeta ? { idempotencyMeta: opts.idempotencyMeta } : {}),
  };
  if (opts.url !== undefined) {
    if (command.length) throw new CliError('invalid-input', 'give either --url or a command after --, not both', 'HTTP: --url <url>; stdio: -- <command> [args...].');
    let url: URL;
    try {
      url = new URL(opts.url);
    } catch {
      throw new CliError('invalid-input', `--url "${opts.url}" is not a URL`, 'Write it in full, e.g. https://mcp.example.com/mcp.');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError('invalid-input', `--url must be http(s), got ${url.protocol}`, 'Use https://…');
    if (url.username || url.password) throw new CliError('invalid-input', 'refusing a URL with credentials in it', 'Use --bearer-env VAR or --header "Name: env:VAR" instead.');
    // A secret in the query (?api_key=…) is a credential in the URL like userinfo: it would be
    // stored in the server list and printed by list/show. Refused, with the header way instead.
    const secretParam = [...url.searchParams.keys()].find((k) => SECRET_QUERY_PARAM.test(k));
    if (secretParam !== undefined) throw new CliError('invalid-input', `refusing a URL with a credential in its query (${sanitize(secretParam, { singleLine: true, maxLength: 40 })}=…)`, 'Send it as a header read from the environment instead, e.g. --header "X-Api-Key: env:MY_API_KEY" (if the server accepts only the query form, it cannot be stored safely).');
    if (url.protocol === 'http:' && !isLoopbackUrl(url) && !opts.allowHttp) {
      throw new CliError('invalid-input', `plain http:// to ${url.host} would send handles and tokens unencrypted`, 'Use https://, or pass --allow-http for a trusted network.');
    }
    if (opts.bearerEnv !== undefined && !ENV_NAME.test(opts.bearerEnv)) throw new CliError('invalid-input', '--bearer-env takes the name of an environment variable, and this is not one (the value is not repeated here in case it is a token)', 'Pass the name, e.g. --bearer-env MY_TOKEN, not the token.');
    if (opts.env?.length) throw new CliError('invalid-input', '--env applies to stdio servers only', 'Drop --env for an HTTP server.');
    const headers = parseHeaders(opts.header ?? []);
    const entry: HttpServerEntry = {
      name,
      transport: 'http',
      url: url.toString(),
      ...(Object.keys(headers).length ? { headers } : {}),
      ...(opts.bearerEnv ? { bearerEnv: opts.bearerEnv } : {}),
      ...(opts.allowHttp ? { allowHttp: true } : {}),
      ...common,
    };
    return entry;
  }
  if (!command.length) throw new CliError('invalid-input', 'a server needs --url <url> (HTTP) or a command after -- (stdio)', `e.g. mcp-tasks server add ${name} -- npx -y @modelcontextprotocol/server-everything`);
  if (opts.header?.length || opts.bearerEnv) throw new CliError('invalid-input', '--header and --bearer-env apply to HTTP servers only', 'Pass secrets to a stdio server with --env KEY (passed through from your shell).');
  const env = parseEnv(opts.env ?? []);
  const entry: StdioServerEntry = {
    name,
    transport: 'stdio',
    command: command[0]!,
    args: command.slice(1),
    ...(Object.keys(env).length ? { env } : {}),
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
    ...common,
  };
  return entry;
}

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

function describe(e: ServerEntry): string {
  return e.transport === 'http' ? redactUrl(e.url) : `stdio: ${[e.command, ...e.args].join(' ')}`;
}

export async function runServerAdd(name: string, command: string[], opts: ServerAddOptions, ctx: Context): Promise<number> {
  const store = new ServerStore(ctx.home);
  const entry = buildEntry(name, opts, command);
  if (store.find(name) && !opts.force) throw new CliError('invalid-input', `a server named "${name}" already exists`, `Pass --force to replace it, or \`mcp-tasks server remove ${name}\` first.`);
  await store.put(entry);
  const signIn = await (await import('./server-auth.js')).signInNoteForNewServer(entry);
  if (ctx.json) ctx.stdout.write(jsonLine({ ...redactEntry(entry), ...(signIn ? { requiresSignIn: true } : {}) }));
  else ctx.stdout.write(`added server ${name} (${describe(entry)})\n  next: ${signIn ? `${asInvoked(signIn.replace(/^.*: run /, ''), ctx.invocation)} (it requires sign-in)` : `\`${ctx.invocation} server check ${name}\``}\n`);
  return ExitCode.Ok;
}

export async function runServerList(ctx: Context): Promise<number> {
  const entries = new ServerStore(ctx.home).list();
  if (ctx.json) {
    ctx.stdout.write(jsonLine(entries.map(redactEntry)));
    return ExitCode.Ok;
  }
  const st = makeStyle(ctx.color);
  const width = Math.max(...entries.map((e) => e.name.length));
  for (const e of entries) {
    const era = e.discovered ? st.c.gray(` [${e.discovered.protocolVersion}${e.discovered.tasksAdvertised ? ', tasks' : ''}]`) : '';
    ctx.stdout.write(`${st.c.bold(e.name.padEnd(width))}  ${e.transport === 'stdio' && 'builtin' in e && e.builtin ? 'built-in demo server (stdio)' : describe(e)}${era}\n`);
  }
  return ExitCode.Ok;
}

export async function runServerShow(name: string, ctx: Context): Promise<number> {
  const entry = new ServerStore(ctx.home).get(name);
  const signIn = (await import('./server-auth.js')).signInView(entry, ctx);
  const view = { ...redactEntry(entry), ...(signIn ? { signIn } : {}) };
  if (ctx.json) ctx.stdout.write(jsonLine(view));
  else for (const [k, v] of Object.entries(view)) ctx.stdout.write(`${k.padEnd(18)} ${typeof v === 'string' ? sanitize(v, { singleLine: true, maxLength: 2000 }) : safeJson(v)}\n`);
  return ExitCode.Ok;
}

export async function runServerRemove(name: string, ctx: Context): Promise<number> {
  validateServerName(name);
  const removed = await new ServerStore(ctx.home).remove(name);
  if (!removed) throw new CliError('not-found', `no server named "${name}"`, 'Run `mcp-tasks server list`.');
  (await import('../../connection/oauth-store.js')).removeSignIn(ctx.home, name);
  if (ctx.json) ctx.stdout.write(jsonLine({ removed: name }));
  else ctx.stdout.write(`removed server ${name}; vaulted tasks created on it are kept, and will only be sent to the same server again\n`);
  return ExitCode.Ok;
}

interface McpJsonEntry {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  type?: string;
  headers?: Record<string, string>;
}

export async function runServerImport(file: string, opts: { only?: string; force?: boolean }, ctx: Context): Promise<number> {
  let parsed: { mcpServers?: Record<string, McpJsonEntry> };
  try {
    parsed = JSON.parse(readFileArg(ctx.stdin, file)) as typeof parsed;
  } catch (err) {
    throw new CliError('invalid-input', `cannot read ${file} as JSON: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'Pass an mcp.json file with an "mcpServers" object.');
  }
  const servers = parsed?.mcpServers;
  if (!servers || typeof servers !== 'object') throw new CliError('invalid-input', `${file} has no "mcpServers" object`, 'The common format is {"mcpServers": {"name": {"command": …} | {"url": …}}}.');
  const only = opts.only ? new Set(opts.only.split(',').map((s) => s.trim()).filter(Boolean)) : undefined;
  if (only) for (const n of only) if (!(n in servers)) throw new CliError('invalid-input', `--only names "${n}", which ${file} does not define`, `Defined: ${Object.keys(servers).join(', ')}.`);
  const store = new ServerStore(ctx.home);
  const imported: string[] = [];
  const skipped: Array<{ name: string; reason: string }> = [];
  for (const [name, def] of Object.entries(servers)) {
    if (only && !only.has(name)) continue;
    try {
      const problem = mcpJsonProblem(def);
      if (problem) throw new CliError('invalid-input', problem, '');
      if (store.find(name) && !opts.force) throw new CliError('invalid-input', 'already exists (use --force to replace)', '');
      if (def.type === 'sse') throw new CliError('invalid-input', 'uses the old HTTP+SSE transport, which the 2026-07-28 tasks extension does not run over', '');
      // Secret header values and env values are not copied in clear: env values become pass-through.
      const headers = Object.entries(def.headers ?? {}).map(([k, v]) => (SECRET_HEADER.test(k) && !String(v).startsWith('env:') ? `${k}: env:${envNameFor(name, k)}` : `${k}: ${v}`));
      const entry = buildEntry(
        name,
        {
          ...(def.url ? { url: def.url } : {}),
          header: headers,
          env: Object.keys(def.env ?? {}),
          ...(def.cwd ? { cwd: def.cwd } : {}),
        },
        def.url ? [] : [def.command ?? '', ...(def.args ?? [])].filter((x, i) => i > 0 || x !== ''),
      );
      await store.put(entry);
      imported.push(name);
    } catch (err) {
      skipped.push({ name, reason: err instanceof CliError ? err.message : (err as Error).message });
    }
  }
  if (ctx.json) ctx.stdout.write(jsonLine({ imported, skipped }));
  else {
    // Names and reasons come from the file (anyone's mcp.json): printed clean.
    for (const n of imported) ctx.stdout.write(`imported ${sanitize(n, { singleLine: true, maxLength: 100 })}\n`);
    for (const s of skipped) ctx.stderr.write(`skipped ${sanitize(s.name, { singleLine: true, maxLength: 100 })}: ${sanitize(s.reason, { singleLine: true, maxLength: 300 })}\n`);
    if (imported.length) ctx.stdout.write(`note: env values and credential headers were not copied; they are read from your environment at connect time (see \`${ctx.invocation} server show ${sanitize(imported[0]!, { singleLine: true, maxLength: 100 })}\`)\n`);
  }
  return skipped.length && !imported.length ? ExitCode.Usage : ExitCode.Ok;
}

const envNameFor = (server: string, header: string) => `${server}_${header}`.toUpperCase().replace(/[^A-Z0-9_]/g, '_');

export async function runServerCheck(name: string, ctx: Context): Promise<number> {
  const entry = new ServerStore(ctx.home).get(name);
  const conn = await withServerName(name, () => probeServer(ctx, entry, { fresh: true }));
  try {
    const tools = await conn.listTools();
    await rememberTools(ctx, entry, conn.protocolVersion, tools);
    const report = {
      server: name,
      protocolVersion: conn.protocolVersion,
      era: conn.era,
      generation: conn.generation,
      serverInfo: conn.serverInfo ?? null,
      tasksExtension: conn.tasksAdvertised,
      legacyTasks: conn.legacyTasksAdvertised,
      legacyTaskCapabilities: conn.legacyTasks ?? null,
      tools: tools.map((t) => ({ name: t.name, annotations: t.annotations ?? {}, ...(t.execution?.taskSupport ? { taskSupport: t.execution.taskSupport } : {}) })),
    };
    if (ctx.json) ctx.stdout.write(jsonLine(report));
    else {
      const st = makeStyle(ctx.color);
      const info = conn.serverInfo ? `${sanitize(conn.serverInfo.name, { singleLine: true, maxLength: 100 })} ${sanitize(conn.serverInfo.version, { singleLine: true, maxLength: 40 })}` : 'unnamed server';
      ctx.stdout.write(`${st.c.bold(name)}: ${info}\n`);
      ctx.stdout.write(`  protocol  ${conn.protocolVersion} (${conn.era === 'modern' ? 'stateless 2026-07-28 era, the tasks extension generation' : 'session era, the 2025-11-25 experimental tasks generation'})\n`);
      ctx.stdout.write(
        `  tasks     ${conn.tasksAdvertised ? st.c.green(`${TASKS_EXTENSION_ID} advertised`) : conn.legacyTasks ? legacyTasksLine(conn.legacyTasks, st) : st.c.yellow(conn.era === 'modern' ? 'extension not advertised: tools will answer synchronously' : 'no tasks capability: tools will answer synchronously')}\n`,
      );
      ctx.stdout.write(`  tools     ${tools.length}\n`);
      ctx.stdout.write(renderToolLines(tools, st, ctx.stdout.columns?.()));
    }
    return ExitCode.Ok;
  } finally {
    await conn.close();
  }
}

/** What a 2025-11-25 server's `capabilities.tasks` offers, in words. */
function legacyTasksLine(t: { list: boolean; cancel: boolean; toolsCall: boolean }, st: ReturnType<typeof makeStyle>): string {
  const offers = [t.toolsCall ? 'tools/call as tasks' : '', 'tasks/get', 'tasks/result', t.list ? 'tasks/list' : '', t.cancel ? 'tasks/cancel' : ''].filter(Boolean).join(', ');
  return `${st.c.green('2025-11-25 experimental tasks capability')}: ${offers}${t.toolsCall ? '' : st.c.yellow(' (no tasks for tools/call: tools answer synchronously)')}`;
}
