// Which engine holds the handles: the local file vault, or the team store MCP_TASKS_STORE names
// (postgres:// or postgresql://, any libpq-style URL). The team store's code and its driver are
// loaded on its first use, so `--help`, `get` and the local vault never load them.
import { fileStore, type HandleStore, type StoreDescription } from './handle-store.js';
import type { ListingRows } from './listing-index.js';
import { VaultError } from './vault-errors.js';
import { isTeamStoreUrl, redactStoreUrl } from './postgres/store-url.js';

export { isTeamStoreUrl };

/** The team store, behind the seam, its module imported when first asked for anything. */
function lazyTeamStore(url: string, env: NodeJS.ProcessEnv, home: string, rows: ListingRows): HandleStore {
  let store: Promise<HandleStore> | undefined;
  const load = () => (store ??= import('./postgres/pg-store.js').then((m) => new m.PgHandleStore(url, env, home, rows)));
  const call =
    <K extends keyof HandleStore>(k: K) =>
    async (...args: unknown[]) => {
      const s = await load();
      return (s[k] as (...a: unknown[]) => unknown).apply(s, args);
    };
  // As the engine itself shows it (pg-connect.ts is small: the driver stays unloaded).
  const where = redactStoreUrl(url);
  return {
    engine: 'postgres',
    describe: (): StoreDescription => ({ engine: 'postgres', where }),
    check: call('check'),
    prepare: call('prepare'),
    get: call('get'),
    put: call('put'),
    create: call('create'),
    update: call('update'),
    query: call('query'),
    list: call('list'),
    listing: call('listing'),
    listed: call('listed'),
    count: call('count'),
    follow: call('follow'),
    resolve: call('resolve'),
    answersNearby: call('answersNearby'),
    unsettledSameIntent: call('unsettledSameIntent'),
    merge: call('merge'),
    bulkInsert: call('bulkInsert'),
    remove: call('remove'),
    damagedHops: call('damagedHops'),
    close: async () => {
      if (store) await (await store).close();
    },
  } as HandleStore;
}

/** `rows`: how the file vault's listing renders its rows (the output layer's `list --json` rows, handed in from app/). */
export function openHandleStore(home: string, env: NodeJS.ProcessEnv, rows: ListingRows, notice: (text: string) => void = () => {}): HandleStore {
  const url = env.MCP_TASKS_STORE;
  if (url) {
    if (!isTeamStoreUrl(url)) {
      throw new VaultError({ reason: 'team-store', next: 'Set MCP_TASKS_STORE to a postgres:// (or postgresql://) URL, or unset it to use the local vault.' }, 'MCP_TASKS_STORE is set but is not a postgres:// or postgresql:// URL');
    }
    return lazyTeamStore(url, env, home, rows);
  }
  return fileStore(home, env, rows, notice);
}

/** The local file vault, whatever MCP_TASKS_STORE says (`store push` reads it; a handle the team store could not take lands there). */
export function openLocalStore(home: string, env: NodeJS.ProcessEnv, rows: ListingRows, notice: (text: string) => void = () => {}): HandleStore {
  return fileStore(home, env, rows, notice);
}
