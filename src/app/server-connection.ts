// Opening a connection to a named server for a command: the SDK client, era caching in the
// server config, and the clear refusal of servers that only speak the 2025-11-25 generation.
import type { Context } from '../context.js';
import { CliError } from '../errors.js';
import { LEGACY_PROTOCOL_VERSION, MODERN_PROTOCOL_VERSION } from '../protocol/constants.js';
import type { ServerEntry } from '../servers/server-entry.js';
import { ServerStore } from '../servers/server-store.js';
import type { Connection } from '../connection/connect.js';
import { sanitize } from '../output/sanitize.js';
import { toCliError } from './remote-error.js';
import { reconnectEnv } from './task-target.js';
import type { VaultRecord } from '../vault/vault-record.js';

/** Run `fn`; a remote failure is reported naming the server it came from. */
export async function withServerName<T>(server: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toCliError(err, server) ?? err;
  }
}

export interface OpenOptions {
  requireModern?: boolean;
  capabilities?: Record<string, unknown>;
  fresh?: boolean;
  /** A vaulted task being reconnected to: its stored credentials fill in what the shell lacks. */
  record?: VaultRecord;
}

export async function openConnection(ctx: Context, entry: ServerEntry, opts: OpenOptions = {}): Promise<Connection> {
  const { connect } = await import('../connection/connect.js');
  const env = opts.record ? reconnectEnv(opts.record, ctx.env) : ctx.env;
  // Credentials this connection will use never show up in -v output.
  if (entry.transport === 'http') {
    if (entry.bearerEnv) ctx.redact(env[entry.bearerEnv]);
    for (const v of Object.values(entry.headers ?? {})) if (v.startsWith('env:')) ctx.redact(env[v.slice(4)]);
  } else {
    for (const [k, v] of Object.entries(entry.env ?? {})) ctx.redact(v === '' ? ctx.env[k] : v);
  }
  const httpTransport = entry.transport === 'http' && !entry.bearerEnv
    ? await import('../connection/oauth-provider.js').then((m) => m.signInTransportFor(m.signInIO(ctx), entry, { tty: ctx.interactive, storedAuthOnly: ctx.storedAuthOnly }))
    : undefined;
  const started = ctx.now();
  const conn = await withServerName(entry.name, () => connect(entry, {
    ...(httpTransport ? { httpTransport } : {}),
    env,
    ...(opts.capabilities ? { capabilities: opts.capabilities } : {}),
    ...(opts.fresh ? { fresh: true } : {}),
    debug: (l) => ctx.debug(l),
    onServerStderr: (line) => ctx.debug(`[${entry.name} stderr] ${sanitize(line, { singleLine: true, maxLength: 300 })}`),
  }));
  ctx.debug(`connected to ${entry.name} over ${entry.transport} in ${ctx.now() - started} ms: ${conn.protocolVersion} (${conn.era}${entry.discovered?.era === 'modern' && conn.era === 'modern' ? ', cached discover result, no probe' : ''}), tasks extension ${conn.tasksAdvertised ? 'advertised' : 'not advertised'}`);
  if (conn.era !== 'modern' && opts.requireModern !== false) {
    await conn.close();
    throw new CliError(
      'protocol',
      `server "${entry.name}" speaks only ${conn.protocolVersion === 'unknown' ? LEGACY_PROTOCOL_VERSION : conn.protocolVersion}, the experimental tasks generation; mcp-tasks follows the ${MODERN_PROTOCOL_VERSION} tasks extension`,
      `Upgrade the server to ${MODERN_PROTOCOL_VERSION}, or use a client that speaks the 2025-11-25 tasks API for it.`,
    );
  }
  // Cache what we found, so later calls adopt it without a server/discover probe.
  if (!('builtin' in entry && entry.builtin) && (opts.fresh || !entry.discovered || entry.discovered.protocolVersion !== conn.protocolVersion)) {
    try {
      await new ServerStore(ctx.home).rememberEra(entry.name, conn.discovered(), entry);
    } catch (err) {
      ctx.debug(`could not cache the server era: ${(err as Error).message}`);
    }
  }
  return conn;
}
