// Resolving what a command acts on: a vault record (by ref) or an ad-hoc taskId on a named
// server, and the server entry it must be sent to. A vaulted handle is only ever sent to the
// server identity it was created on.
import { randomUUID } from 'node:crypto';
import type { Context } from '../context.js';
import { CliError, ExitCode } from '../errors.js';
import { inDoubtOn, ResolvedRecordError } from './in-doubt.js';
export { ResolvedRecordError };
import { describeIdentity, identityOf, sameIdentity, authKind, secretVariables, type ServerEntry } from '../servers/server-entry.js';
import { ServerStore } from '../servers/server-store.js';
import type { HandleStore } from '../vault/handle-store.js';
import { openLocalVault, openVault } from './open-vault.js';
import { originOf } from '../vault/origin.js';
export { openLocalVault, openVault };
import { sanitize } from '../output/sanitize.js';
import { UNKNOWN_OPERATION, typeableRef, type VaultRecord } from '../vault/vault-record.js';
import type { ServerIdentity } from '../servers/server-entry.js';
import type { TaskTarget } from '../output/outcomes.js';
import { cmd, hint, shellQuote, type Hint } from '../hint.js';
export type { TaskTarget };

export interface TargetOptions {
  server?: string;
  save?: boolean;
  rebind?: boolean;
  /** The command can answer input (see OpenOptions.serveInput). */
  serveInput?: boolean;
  /** Confirms --rebind where no one can be asked (no TTY). */
  yes?: boolean;
  /** --save --new: add the task although a submission to that server is in doubt (it may be that submission's). */
  saveAnyway?: boolean;
}

/**
 * The command that adds a record's server under its name, when the record says enough to write it
 * (an HTTP URL); a stdio record keeps only a digest of its arguments.
 */
export function serverAddCommand(name: string, identity: ServerIdentity): Hint | undefined {
  return identity.kind === 'http' ? cmd('server', 'add', shellQuote(name), '--url', shellQuote(identity.url)) : undefined;
}

/** A vaulted task whose server is not configured here (an imported record): how to add it, with the URL the record holds. */
function serverNotHere(rec: VaultRecord, known: string[]): CliError {
  const add = serverAddCommand(rec.server.name, rec.server.identity);
  const others = known.length ? ` Known servers: ${known.join(', ')}.` : '';
  const next = add
    ? hint`Add it where the task was created: \`${add}\`, then \`${cmd('get', typeableRef(rec))}\`.${others}`
    : hint`Add it as it was configured where the task was created (${describeIdentity(rec.server.identity)}): ${cmd('server', 'add', rec.server.name, '--')} followed by that command.${others}`;
  return new CliError('not-found', `no server named "${rec.server.name}" (this task was created on ${describeIdentity(rec.server.identity)})`, next);
}

/** The auth context a record keeps: the kind, and the credential values in use right now. */
export function authContext(entry: ServerEntry, env: NodeJS.ProcessEnv): VaultRecord['auth'] {
  const kind = authKind(entry);
  if (kind === 'none') return { kind };
  const secrets: Record<string, string> = {};
  for (const name of secretVariables(entry)) if (env[name]) secrets[name] = env[name]!;
  return { kind, ...(entry.transport === 'http' && entry.bearerEnv ? { bearerEnv: entry.bearerEnv } : {}), ...(Object.keys(secrets).length ? { secrets } : {}) };
}

/**
 * The environment to reconnect a vaulted task with: the current environment, completed by the
 * credentials stored when the task was created (for a shell that lacks them, e.g. on-call).
 */
export function reconnectEnv(rec: VaultRecord, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const stored = rec.auth.secrets;
  if (!stored) return env;
  const out: NodeJS.ProcessEnv = { ...env };
  for (const [k, v] of Object.entries(stored)) if (!out[k]) out[k] = v;
  return out;
}

export function newRecord(entry: ServerEntry, home: string, operation: VaultRecord['operation'], labels: Record<string, string>, opId: string, now: string, env: NodeJS.ProcessEnv): VaultRecord {
  return {
    opId,
    server: { name: entry.name, identity: identityOf(entry, home), ...(entry.discovered?.protocolVersion ? { protocolVersion: entry.discovered.protocolVersion } : {}) },
    auth: authContext(entry, env),
    operation,
    phase: 'submitting',
    history: [],
    inputKeysSeen: [],
    inputKeysAnswered: [],
    labels,
    origin: originOf(env),
    createdAt: now,
    updatedAt: now,
  };
}

/** The configured servers' names, for a hint that names real ones. */
function serverChoices(servers: ServerStore): string | Hint {
  const names = servers.list().map((e) => e.name);
  if (names.length === 0) return hint`with a server added first (\`${cmd('server', 'add')}\`)`;
  return names.length === 1 ? names[0]! : `with one of: ${names.join(', ')}`;
}

/** `-` reads the taskId from stdin, so a full bearer handle never has to appear in argv. */
export function readRef(ctx: Context, ref: string): string {
  if (ref !== '-') return ref;
  const text = ctx.stdin.readAll().trim();
  if (!text) throw new CliError('invalid-input', 'no taskId on stdin', hint`Pipe the taskId in, e.g. \`printf %s "$TASK" | ${cmd('get', '-', '--server', 'NAME')}\`.`);
  return text;
}

/**
 * Adopting a taskId (`--save`) while exactly one submission to that server is in doubt: the id is
 * most likely that submission's task, and a second record would leave the first in doubt (and
 * `recover` offering to send it again). Say so and offer --attach; --new adds it anyway.
 */
async function refuseBesideInDoubt(vault: HandleStore, server: string, nowMs: number): Promise<void> {
  const doubts = await inDoubtOn(vault, server, nowMs);
  if (doubts.length !== 1) return;
  const d = doubts[0]!;
  throw new CliError(
    'in-doubt',
    `a submission to server "${server}" is in doubt (${d.operation.name}, operation ${d.opId.slice(0, 8)}, submitted ${d.operation.submittedAt}); this taskId may be its task, so it was not added as a record of its own`,
    hint`If it is that submission's task, attach it (the taskId on stdin): \`printf %s "$TASK_ID" | ${cmd('recover', d.opId.slice(0, 8), '--attach', '-')}\`. If it is another task, add it anyway with --save --new.`,
    ExitCode.InDoubt,
  );
}

export async function resolveTarget(ctx: Context, rawRef: string, opts: TargetOptions): Promise<{ vault: HandleStore; target: TaskTarget }> {
  const vault = openVault(ctx);
  const servers = new ServerStore(ctx.home);
  const ref = readRef(ctx, rawRef);
  ctx.redact(ref);
  const found = vault.resolve(ref);
  // A team store without its connection keeper answers over the network: the server connection's
  // modules load meanwhile (imported here, not above: `list`, `show` and `prune` load this module
  // and never connect). Through a keeper the answer is near (the named ref's rows usually came with
  // the store's opening), and loading beside it only added work (`get`: 5 to 12 ms on Node 20).
  if (vault.engine === 'postgres') void vault.answersNearby().then((near) => (near ? undefined : import('../session/open-session.js').then((m) => m.prepareSession())), () => {});
  const rec = await found;
  if (rec) {
    if (opts.server && opts.server !== rec.server.name) {
      throw new CliError('invalid-input', `this task was created on server "${rec.server.name}", not "${opts.server}"`, `Drop --server, or use --server ${rec.server.name}.`);
    }
    // A verdict given by hand stands: nothing is sent for a record closed with --resolve.
    if (rec.resolution) throw new ResolvedRecordError(rec);
    if (!rec.taskId) {
      throw new CliError(
        'in-doubt',
        `operation ${rec.opId.slice(0, 8)} (${rec.operation.name} on ${rec.server.name}) never received a task handle`,
        hint`Run \`${cmd('recover', rec.opId.slice(0, 8))}\` to see whether it is safe to resubmit.`,
      );
    }
    if (!servers.find(rec.server.name)) throw serverNotHere(rec, servers.list().map((e) => e.name));
    const entry = servers.get(rec.server.name);
    const now = identityOf(entry, ctx.home);
    if (!sameIdentity(now, rec.server.identity)) {
      const moved = `server "${rec.server.name}" now points at ${describeIdentity(now)}, but this task was created on ${describeIdentity(rec.server.identity)}`;
      if (!opts.rebind) {
        throw new CliError('invalid-input', `${moved}; its handle is only sent where it was created`, `Restore the server entry, or pass --rebind if the same server really moved.`);
      }
      if (ctx.interactive) {
        const ok = await ctx.prompter.confirm(`${sanitize(moved, { singleLine: true })}. Send this task handle to the new location?`, { default: false });
        if (!ok) throw new CliError('invalid-input', 'rebind declined; the handle was not sent', 'Restore the server entry to reach the original server.');
      } else if (!opts.yes) {
        throw new CliError('invalid-input', `${moved}; --rebind needs confirmation and there is no terminal to ask in`, 'Pass --rebind --yes if the same server really moved.');
      }
      // The handle now belongs to the new identity: record it so the move is explicit and one-time.
      // Credentials stored for the old origin never go to the new one: from now on they come from
      // this shell or the new origin's own sign-in. One update path: the vault's re-read record is the one we go on with.
      const rebound = await vault.update(rec.opId, (r) => {
        r.server.identity = now;
        delete r.auth.secrets;
      });
      const { secrets: _old, ...auth } = rec.auth;
      Object.assign(rec, rebound ? structuredClone(rebound) : { server: { ...rec.server, identity: now }, auth });
    }
    ctx.redact(rec.taskId);
    return { vault, target: { record: rec, persisted: true, entry, taskId: rec.taskId } };
  }
  if (!opts.server) {
    throw new CliError('not-found', `no task in the vault matches "${rawRef === '-' ? '(stdin)' : rawRef}"`, hint`Run \`${cmd('list', '--all')}\` to see vaulted tasks, or, for a taskId that is not in the vault, pass --server ${serverChoices(servers)}.`);
  }
  const entry = servers.get(opts.server);
  if (opts.save && !opts.saveAnyway) await refuseBesideInDoubt(vault, entry.name, ctx.now());
  const now = new Date(ctx.now()).toISOString();
  // A random operation id, as `call` makes: nothing of the bearer handle goes into it (opIds are printed).
  const record = newRecord(entry, ctx.home, { method: 'tools/call', name: UNKNOWN_OPERATION, arguments: {}, submittedAt: now }, {}, randomUUID(), now, ctx.env);
  record.taskId = ref;
  record.phase = 'active';
  if (opts.save) await vault.put(record);
  return { vault, target: { record, persisted: Boolean(opts.save), entry, taskId: ref } };
}
