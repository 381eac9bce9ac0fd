// Opening a server for a command: the SDK connection (with credentials redacted from -v output
// and the negotiated generation cached in the server config), then the TaskSession of the generation
// the server speaks. The one place that picks a generation.
import type { Connection, RefusedTool, ToolInfo } from '../connection/connect.js';
export { refusedToolError } from '../connection/connect.js';
import type { Context } from '../context.js';
import { TASKS_EXTENSION_ID } from '../protocol/constants.js';
import { sanitize } from '../output/sanitize.js';
import type { ServerEntry } from '../servers/server-entry.js';
import { ServerStore } from '../servers/server-store.js';
import { ModernTaskSession } from './modern/modern-session.js';
import type { ServerTaskCapabilitiesV1 } from '@modelcontextprotocol/ext-tasks/core/v1';
import { NoToolsError, type SessionResume, type TaskGeneration, type TaskSession } from './task-session.js';
import type { Principal } from '../tasks/principal.js';
import { loadInSteps } from '../fs/load-in-steps.js';

export { TASKS_EXTENSION_ID };

export interface OpenOptions {
  /** The environment to connect with (a vaulted task's stored credentials filled in); default ctx.env. */
  env?: NodeJS.ProcessEnv;
  /** Ignore the cached discover result and probe afresh (`server check`). */
  fresh?: boolean;
  /** 2025-11-25: the session a vaulted task was created in (its record's `session`), rejoined instead of a new one. */
  resume?: SessionResume | undefined;
  /**
   * The command can answer input (a terminal, --answers, `answer`). On 2025-11-25 only then is
   * tasks/result opened on an input_required task: the server may hand its queued question to
   * whoever opens it, and a command that cannot answer would drop it.
   */
  serveInput?: boolean;
  /** The principal a vaulted task was created under: its handle goes out only under that sign-in. */
  principal?: Principal | undefined;
}

/** What `server check` and `tools` show about a server, whichever generation it speaks. */
export interface ServerProbe {
  readonly generation: TaskGeneration;
  readonly protocolVersion: string;
  readonly serverInfo?: { name: string; version: string };
  /** The 2026-07-28 tasks extension is advertised. */
  readonly tasksAdvertised: boolean;
  /** The 2025-11-25 experimental tasks capability is advertised. */
  readonly legacyTasksAdvertised: boolean;
  /** 2025-11-25: what `capabilities.tasks` offers (tasks/list, tasks/cancel, tasks for tools/call). */
  readonly legacyTasks?: { list: boolean; cancel: boolean; toolsCall: boolean };
  /** The capabilities the server advertised (`tools`, `resources`, `prompts`, …); undefined when unknown. */
  readonly capabilities?: string[];
  /** False when the server advertised capabilities without `tools`: listTools() then asks nothing. */
  readonly offersTools: boolean;
  listTools(): Promise<ToolInfo[]>;
  refusedTools(): RefusedTool[];
  close(): Promise<void>;
}

async function connectServer(ctx: Context, entry: ServerEntry, opts: OpenOptions): Promise<{ conn: Connection; principal: () => Principal | undefined }> {
  const { connect } = await import('../connection/connect.js');
  const env = opts.env ?? ctx.env;
  // Credentials this connection will use never show up in -v output.
  if (entry.transport === 'http') {
    if (entry.bearerEnv) ctx.redact(env[entry.bearerEnv]);
    for (const v of Object.values(entry.headers ?? {})) if (v.startsWith('env:')) ctx.redact(env[v.slice(4)]);
  } else {
    for (const [k, v] of Object.entries(entry.env ?? {})) ctx.redact(v === '' ? ctx.env[k] : v);
  }
  // An HTTP server without a bearer variable may need a sign-in: its transport carries the OAuth provider.
  const signIn =
    entry.transport === 'http' && !entry.bearerEnv
      ? await import('../connection/oauth-provider.js').then((m) => m.signInTransportFor(m.signInIO(ctx), entry, { tty: ctx.interactive, storedAuthOnly: ctx.storedAuthOnly }, opts.principal))
      : undefined;
  const httpTransport = signIn?.factory;
  const started = ctx.now();
  // The session id, like a token, never shows up in -v output.
  if (opts.resume?.sessionId) ctx.redact(opts.resume.sessionId);
  const conn = await connect(entry, {
    ...(httpTransport ? { httpTransport } : {}),
    env,
    ...(opts.fresh ? { fresh: true } : {}),
    ...(opts.resume?.sessionId ? { resume: { protocolVersion: opts.resume.protocolVersion, sessionId: opts.resume.sessionId } } : {}),
    debug: (l) => ctx.debug(l),
    onServerStderr: (line) => ctx.debug(`[${entry.name} stderr] ${sanitize(line, { singleLine: true, maxLength: 300 })}`),
  });
  ctx.debug(`connected to ${entry.name} over ${entry.transport} in ${ctx.now() - started} ms: ${conn.protocolVersion}, the ${conn.generation} generation${entry.discovered?.generation === '2026-07-28' && conn.generation === '2026-07-28' ? ' (cached discover result, no probe)' : ''}, tasks extension ${conn.tasksAdvertised ? 'advertised' : 'not advertised'}`);
  return { conn, principal: signIn ? () => signIn.principal() : () => undefined };
}

/** Cache what we found, so later calls adopt it without a server/discover probe. */
async function rememberGeneration(ctx: Context, entry: ServerEntry, conn: Connection, fresh: boolean): Promise<void> {
  if ('builtin' in entry && entry.builtin) return;
  if (!fresh && entry.discovered && entry.discovered.protocolVersion === conn.protocolVersion) return;
  try {
    await new ServerStore(ctx.home).rememberGeneration(entry.name, conn.discovered(), entry);
  } catch (err) {
    ctx.debug(`could not cache the server's generation: ${(err as Error).message}`);
  }
}

/**
 * Begin loading what opening a session needs (the connection, the SDK client: about 80 ms of a
 * `get` on Node 24) without waiting for it, for a caller that first waits on the network (the team
 * store's read of the record): the modules load while the answer travels, not after it.
 */
export function prepareSession(): void {
  // Once a process: `watch` resolves each of its refs, `cancel` its ref twice.
  preparing ??= loadInSteps('src/connection/connect.ts').then(() => loadInSteps(SDK_CLIENT_ENTRY));
}
let preparing: Promise<void> | undefined;
/** The SDK client's module as the build names it (load-steps.json; a test checks the name against the build). */
export const SDK_CLIENT_ENTRY = 'node_modules/@modelcontextprotocol/client/dist/index.mjs';

/** A TaskSession on `entry`, of the generation the server negotiated. */
export async function openSession(ctx: Context, entry: ServerEntry, opts: OpenOptions = {}): Promise<TaskSession> {
  const { conn, principal } = await connectServer(ctx, entry, opts);
  const generation = conn.generation;
  // A resumed session skipped the handshake: nothing new was learnt to cache.
  if (!opts.resume?.sessionId) await rememberGeneration(ctx, entry, conn, opts.fresh === true);
  let session: TaskSession;
  if (generation === '2025-11-25') {
    const sessionId = conn.sessionId();
    if (sessionId) ctx.redact(sessionId);
    // Loaded only for a 2025-11-25 server: its ext-tasks v1 schemas (~190 zod schemas) are built at import.
    const { LegacyTaskSession } = await import('./legacy/legacy-session.js');
    session = new LegacyTaskSession(conn, { serverName: entry.name, serveInput: opts.serveInput === true, debug: (l) => ctx.debug(l), principal });
  } else session = new ModernTaskSession(conn, principal, (l) => ctx.debug(l));
  // A server without the tools capability has none to call: said as such, not as tools/list's -32601.
  const capabilities = conn.serverCapabilities ? Object.keys(conn.serverCapabilities) : undefined;
  if (capabilities && !capabilities.includes('tools')) session.listTools = () => Promise.reject(new NoToolsError(entry.name, capabilities));
  return session;
}

/** A look at a server without tasks: its generation, what it advertises, its tools. Any generation. */
export async function probeServer(ctx: Context, entry: ServerEntry, opts: OpenOptions = {}): Promise<ServerProbe> {
  const { conn } = await connectServer(ctx, entry, opts);
  await rememberGeneration(ctx, entry, conn, opts.fresh === true);
  const capabilities = conn.serverCapabilities ? Object.keys(conn.serverCapabilities) : undefined;
  // A server without the tools capability answers tools/list with -32601: it has none to list.
  const offersTools = capabilities === undefined || capabilities.includes('tools');
  return {
    generation: conn.generation,
    protocolVersion: conn.protocolVersion,
    ...(conn.serverInfo ? { serverInfo: conn.serverInfo } : {}),
    tasksAdvertised: conn.tasksAdvertised,
    legacyTasksAdvertised: conn.legacyTasksAdvertised,
    ...(conn.legacyTasksAdvertised ? { legacyTasks: legacyTaskOffer(conn) } : {}),
    ...(capabilities ? { capabilities } : {}),
    offersTools,
    listTools: () => (offersTools ? conn.listTools() : Promise.resolve([])),
    refusedTools: () => conn.refusedTools(),
    async close() {
      // A 2025-11-25 session opened only to look at the server holds no task: end it (DELETE).
      if (conn.generation === '2025-11-25') await conn.terminateSession().catch((e: unknown) => ctx.debug(`ending the probe's session: ${String(e)}`));
      await conn.close();
    },
  };
}

function legacyTaskOffer(conn: Connection): { list: boolean; cancel: boolean; toolsCall: boolean } {
  const tasks = ((conn.serverCapabilities as { tasks?: ServerTaskCapabilitiesV1 } | undefined)?.tasks ?? {}) as ServerTaskCapabilitiesV1;
  return { list: tasks.list !== undefined, cancel: tasks.cancel !== undefined, toolsCall: tasks.requests?.tools?.call !== undefined };
}
