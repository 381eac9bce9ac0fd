// The use cases behind `server add | list | show | remove | import | check`: named servers. Each
// returns an outcome (app/outcomes.ts) that output/present-servers.ts renders.
import { readFileArg, type Context } from '../context.js';
import { CliError } from '../errors.js';
import { rememberTools } from './tool-cache.js';
import { sanitize } from '../output/sanitize.js';
import { SECRET_HEADER, SECRET_QUERY_PARAM, isLoopbackUrl, type ServerEntry, type StdioServerEntry, type HttpServerEntry } from '../servers/server-entry.js';
import { ServerStore, validateServerName } from '../servers/server-store.js';
import { withServerName } from './remote-error.js';
import { probeServer, TASKS_EXTENSION_ID } from '../session/open-session.js';
import type { Outcome } from './outcomes.js';
import { cmd, hint } from '../hint.js';

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
  if (!command.length) throw new CliError('invalid-input', 'a server needs --url <url> (HTTP) or a command after -- (stdio)', hint`e.g. ${cmd('server', 'add', name, '--', 'npx', '-y', '@modelcontextprotocol/server-everything')}`);
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

export async function addServer(ctx: Context, name: string, command: string[], opts: ServerAddOptions): Promise<Outcome> {
  const store = new ServerStore(ctx.home);
  const entry = buildEntry(name, opts, command);
  if (store.find(name) && !opts.force) throw new CliError('invalid-input', `a server named "${name}" already exists`, hint`Pass --force to replace it, or \`${cmd('server', 'remove', name)}\` first.`);
  await store.put(entry);
  const requiresSignIn = await (await import('./sign-in.js')).requiresSignIn(entry);
  return { kind: 'server-added', entry, requiresSignIn };
}

export function listServers(ctx: Context): Outcome {
  return { kind: 'servers-listed', entries: new ServerStore(ctx.home).list() };
}

export async function showServer(ctx: Context, name: string): Promise<Outcome> {
  const entry = new ServerStore(ctx.home).get(name);
  const signIn = (await import('./sign-in.js')).signInView(entry, ctx);
  return { kind: 'server-shown', entry, signIn };
}

export async function removeServer(ctx: Context, name: string): Promise<Outcome> {
  validateServerName(name);
  const removed = await new ServerStore(ctx.home).remove(name);
  if (!removed) throw new CliError('not-found', `no server named "${name}"`, hint`Run \`${cmd('server', 'list')}\`.`);
  (await import('../connection/oauth-store.js')).removeSignIn(ctx.home, name);
  return { kind: 'server-removed', name };
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

export async function importServers(ctx: Context, file: string, opts: { only?: string; force?: boolean }): Promise<Outcome> {
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
  return { kind: 'servers-imported', imported, skipped };
}

const envNameFor = (server: string, header: string) => `${server}_${header}`.toUpperCase().replace(/[^A-Z0-9_]/g, '_');

export async function checkServer(ctx: Context, name: string): Promise<Outcome> {
  const entry = new ServerStore(ctx.home).get(name);
  const conn = await withServerName(name, () => probeServer(ctx, entry, { fresh: true }));
  try {
    const tools = await conn.listTools();
    await rememberTools(ctx, entry, conn.protocolVersion, tools);
    return {
      kind: 'server-checked',
      server: name,
      protocolVersion: conn.protocolVersion,
      generation: conn.generation,
      serverInfo: conn.serverInfo ?? null,
      tasksExtension: conn.tasksAdvertised,
      tasksExtensionId: TASKS_EXTENSION_ID,
      legacyTasks: conn.legacyTasksAdvertised,
      legacyTaskCapabilities: conn.legacyTasks ?? null,
      capabilities: conn.capabilities ?? null,
      offersTools: conn.offersTools,
      tools,
    };
  } finally {
    await conn.close();
  }
}
