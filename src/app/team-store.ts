// The `store` use cases: which store holds the handles (status), creating or migrating the team
// store's schema (init), and copying local records into it (push). The database engine is
// loaded only here and when MCP_TASKS_STORE names a team store.
import type { Context } from '../context.js';
import { CliError } from '../errors.js';
import type { StoreInitialised, StoreKeyGenerated, StorePushed, StoreStatus } from './outcomes.js';
import { newTeamKey } from '../vault/postgres/team-key.js';
import { isTeamStoreUrl } from '../vault/open-store.js';
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
    return { kind: 'store-status', engine: 'files', where: ctx.home, reachable: true, schemaVersion: null, records: all.length, active: all.filter((r) => r.phase !== 'terminal').length, origins: [], pushPending: all.filter((r) => r.pushPending).length };
  }
  const store = await teamStore(ctx, 'status');
  try {
    const s = await store.status();
    return { kind: 'store-status', engine: 'postgres', where: store.describe().where, reachable: true, ...s, pushPending: (await pendingLocally(ctx)).length };
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
