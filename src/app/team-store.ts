// The `store` use cases: which store holds the handles (status), creating or migrating the team
// store's schema (init), copying local records into it (push), and keeping the team key in this
// machine's OS keychain (key save, key forget). The database engine is loaded only here and when
// MCP_TASKS_STORE names a team store.
import type { Context } from '../context.js';
import { CliError } from '../errors.js';
import type { StoreInitialised, StoreKeyForgotten, StoreKeyGenerated, StoreKeySaved, StorePushed, StoreStatus } from './outcomes.js';
import { VaultError } from '../vault/vault-errors.js';
import { keychainName } from '../vault/keychain.js';
import { forgetTeamKey, KeychainUnavailable, lookUpTeamKey, saveTeamKey } from '../vault/postgres/team-key-source.js';
import { newTeamKey } from '../vault/postgres/team-key.js';
import { isTeamStoreUrl, redactStoreUrl } from '../vault/postgres/store-url.js';
import { LIST_JSON_ROWS, openLocalStore } from './open-vault.js';
import type { VaultRecord } from '../vault/vault-record.js';
import { cmd, hint } from '../hint.js';

function teamUrl(ctx: Context, command: string): string {
  const url = ctx.env.MCP_TASKS_STORE;
  if (!url) throw new CliError('usage', `\`store ${command}\` works on a team store, and MCP_TASKS_STORE is not set`, 'Set MCP_TASKS_STORE to the team database (postgres://user@host/db) and MCP_TASKS_TEAM_KEY to the team key, then retry.');
  if (!isTeamStoreUrl(url)) throw new CliError('usage', 'MCP_TASKS_STORE is set but is not a postgres:// or postgresql:// URL', 'Set it to the team database, e.g. postgres://user@host:5432/db?sslmode=verify-full.');
  return url;
}

async function teamStore(ctx: Context, command: string) {
  const { PgHandleStore } = await import('../vault/postgres/pg-store.js');
  return new PgHandleStore(teamUrl(ctx, command), ctx.env, ctx.home, LIST_JSON_ROWS);
}

/** Local records the team store could not take when they were written. */
async function pendingLocally(ctx: Context): Promise<VaultRecord[]> {
  try {
    return await openLocalStore(ctx).query({ match: (r) => r.pushPending === true });
  } catch {
    return [];
  }
}

export async function storeStatus(ctx: Context): Promise<StoreStatus> {
  const url = ctx.env.MCP_TASKS_STORE;
  if (!url) {
    const local = openLocalStore(ctx);
    const all = await local.list();
    return { kind: 'store-status', engine: 'files', where: ctx.home, reachable: true, schemaVersion: null, records: all.length, active: all.filter((r) => r.phase !== 'terminal').length, origins: [], pushPending: all.filter((r) => r.pushPending).length, teamKey: null, keeper: null };
  }
  const store = await teamStore(ctx, 'status');
  try {
    const s = await store.status();
    return { kind: 'store-status', engine: 'postgres', where: store.describe().where, reachable: true, ...s, pushPending: (await pendingLocally(ctx)).length, teamKey: lookUpTeamKey(url, ctx.env).from ?? null };
  } finally {
    await store.close();
  }
}

/** A new generated team key: a store created with one opens without scrypt on every start. */
export function storeKeygen(): StoreKeyGenerated {
  return { kind: 'store-key-generated', key: newTeamKey() };
}

export async function storeInit(ctx: Context): Promise<StoreInitialised> {
  const store = await teamStore(ctx, 'init');
  try {
    const r = await store.init();
    return { kind: 'store-initialised', where: store.describe().where, ...r };
  } finally {
    await store.close();
  }
}

export async function storePush(ctx: Context, refs: string[]): Promise<StorePushed> {
  const store = await teamStore(ctx, 'push');
  const local = openLocalStore(ctx);
  try {
    await store.check();
    const records: VaultRecord[] = [];
    if (refs.length) {
      for (const ref of refs) {
        const r = await local.resolve(ref);
        if (!r) throw new CliError('not-found', `no task in the local vault matches "${ref}"`, hint`Run \`${cmd('list', '--all')}\` with MCP_TASKS_STORE unset to see the local records.`);
        if (!records.some((x) => x.opId === r.opId)) records.push(r);
      }
    } else records.push(...(await local.list()));
    // A handle kept locally because the team store was lost after its request left: the team
    // store holds that operation's intent without a handle; the local record, with it, replaces it.
    let attached = 0;
    for (const r of records.filter((x) => x.pushPending && x.taskId)) {
      let replaced = false;
      await store.update(r.opId, (x) => {
        replaced = false;
        if (x.taskId) return;
        for (const k of Object.keys(x) as Array<keyof VaultRecord>) delete x[k];
        Object.assign(x, structuredClone(r));
        replaced = true;
      });
      if (replaced) attached++;
    }
    // Credentials never enter the team store (the engine strips them): each person reconnects with their own.
    const added = (await store.merge(records)) + attached;
    // Once in the team store, a local record no longer waits for a push.
    for (const r of records.filter((x) => x.pushPending)) {
      await local.update(r.opId, (x) => {
        delete x.pushPending;
      });
    }
    return { kind: 'store-pushed', where: store.describe().where, added, alreadyPresent: records.length - added };
  } finally {
    await store.close();
  }
}

/** The team key to keep: stdin when it is not a terminal (from a secret store), else asked for, hidden. Never argv. */
async function teamKeyGiven(ctx: Context, where: string): Promise<string> {
  const pipeIt = hint`Pipe it in from your secret store: \`printf %s "$TEAM_KEY" | ${cmd('store', 'key', 'save')}\`.`;
  if (!ctx.stdin.isTTY) {
    // One trailing newline is the pipe's (echo), not the key's.
    const text = ctx.stdin.readAll().replace(/\r?\n$/, '');
    if (!text) throw new CliError('invalid-input', 'no team key on stdin', pipeIt);
    return text;
  }
  if (!ctx.interactive) throw new CliError('usage', '`store key save` asks for the team key, and prompting is off (--no-input or CI)', pipeIt);
  const key = await ctx.prompter.password(`Team key for ${where}`);
  if (!key) throw new CliError('invalid-input', 'no team key given', hint`Run \`${cmd('store', 'key', 'save')}\` again and type or paste the team key.`);
  return key;
}

const keychainFailed = (err: KeychainUnavailable, what: string) =>
  new VaultError(
    { reason: 'team-store', next: err.off ? 'Unset MCP_TASKS_NO_KEYCHAIN to use the OS keychain, or keep using MCP_TASKS_TEAM_KEY (from your secret store).' : 'Keep using MCP_TASKS_TEAM_KEY (from your secret store), or unlock the keychain (a desktop session; on Linux a Secret Service such as GNOME Keyring) and retry.' },
    `${keychainName()} cannot be used here (${err.message}); ${what}`,
  );

/**
 * `store key save`: check the given key against the store (its sealed key check), then keep it
 * in the OS keychain for this store, so commands on this machine need no MCP_TASKS_TEAM_KEY. A
 * wrong key, a store without a schema or an unreachable one save nothing.
 */
export async function storeKeySave(ctx: Context, words: string[] = []): Promise<StoreKeySaved> {
  const url = teamUrl(ctx, 'key save');
  if (words.length) {
    throw new CliError('usage', '`store key save` takes no argument: a team key on a command line is seen by other users of this machine and kept in shell history; nothing was saved', hint`Remove that line from your shell history, then pipe the key in from your secret store: \`printf %s "$TEAM_KEY" | ${cmd('store', 'key', 'save')}\` (or run it in a terminal to be asked).`);
  }
  const { PgHandleStore } = await import('../vault/postgres/pg-store.js');
  const key = await teamKeyGiven(ctx, redactStoreUrl(url));
  ctx.redact(key);
  // The given key, in memory only: the store opens with it, whatever MCP_TASKS_TEAM_KEY or the keychain hold.
  const store = new PgHandleStore(url, ctx.env, ctx.home, LIST_JSON_ROWS, key);
  try {
    const s = await store.status();
    if (s.schemaVersion === null) {
      throw new VaultError({ reason: 'team-store', next: hint`Create it first with the key set: \`${cmd('store', 'init')}\` (MCP_TASKS_TEAM_KEY from your secret store), then save the key.` }, `the team store ${store.describe().where} has no mcp-tasks schema yet: there is nothing to check the key against, so it was not saved`);
    }
  } finally {
    await store.close();
  }
  try {
    saveTeamKey(url, ctx.env, key);
  } catch (err) {
    if (err instanceof KeychainUnavailable) throw keychainFailed(err, 'the team key was checked but not saved');
    throw err;
  }
  return { kind: 'store-key-saved', where: store.describe().where, keychain: keychainName(), overridden: Boolean(ctx.env.MCP_TASKS_TEAM_KEY) };
}

/** `store key forget`: remove this store's team key from the OS keychain (the store itself is untouched). */
export async function storeKeyForget(ctx: Context): Promise<StoreKeyForgotten> {
  const url = teamUrl(ctx, 'key forget');
  let removed: boolean;
  try {
    removed = forgetTeamKey(url, ctx.env);
  } catch (err) {
    if (err instanceof KeychainUnavailable) throw keychainFailed(err, 'nothing was removed');
    throw err;
  }
  return { kind: 'store-key-forgotten', where: redactStoreUrl(url), keychain: keychainName(), removed };
}
