// Where the vault is opened: app/ hands it output's `list --json` row renderer, so vault/ keeps
// the listing's pre-rendered rows without depending on the output layer.
import type { Context } from '../context.js';
import { listingRowJson } from '../output/render.js';
import { sayOn } from '../output/notes.js';
import { listingRows } from '../vault/listing-index.js';
import { Vault } from '../vault/vault.js';
import type { HandleStore } from '../vault/handle-store.js';
import { openHandleStore, openLocalStore as localStoreAt } from '../vault/open-store.js';

/** The listing's rows as `list --json` prints them; one instance, so its fingerprint is computed once. */
export const LIST_JSON_ROWS = listingRows(listingRowJson);

/** The vault under `home`, its notices given to `notice`. */
export const vaultAt = (home: string, env: NodeJS.ProcessEnv, notice?: (text: string) => void): Vault => new Vault(home, env, LIST_JSON_ROWS, notice);

const noticeOf = (ctx: Pick<Context, 'stderr'>) => (text: string) => sayOn(ctx)(`mcp-tasks: ${text}`);

/** The local file vault itself (`vault check` inspects its files, whichever store commands use). */
export const openLocalVault = (ctx: Context): Vault => vaultAt(ctx.home, ctx.env, noticeOf(ctx));

/** The handle store this command works on: the local file vault, or the team store MCP_TASKS_STORE names. */
export const openVault = (ctx: Context): HandleStore => openHandleStore(ctx.home, ctx.env, LIST_JSON_ROWS, noticeOf(ctx));

/** The handle store for `home` without a command's context (shell completion). */
export const storeAt = (home: string, env: NodeJS.ProcessEnv): HandleStore => openHandleStore(home, env, LIST_JSON_ROWS);

/** The local file vault behind the seam, whatever MCP_TASKS_STORE says (`store push`, a handle the team store could not take). */
export const openLocalStore = (ctx: Pick<Context, 'home' | 'env' | 'stderr'>): HandleStore => localStoreAt(ctx.home, ctx.env, LIST_JSON_ROWS, noticeOf(ctx));
