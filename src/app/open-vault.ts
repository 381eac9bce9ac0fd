// Where the vault is opened: app/ hands it output's `list --json` row renderer, so vault/ keeps
// the listing's pre-rendered rows without depending on the output layer.
import type { Context } from '../context.js';
import { listingRowJson } from '../output/render.js';
import { listingRows } from '../vault/listing-index.js';
import { Vault } from '../vault/vault.js';

/** The listing's rows as `list --json` prints them; one instance, so its fingerprint is computed once. */
export const LIST_JSON_ROWS = listingRows(listingRowJson);

/** The vault under `home`, its notices given to `notice`. */
export const vaultAt = (home: string, env: NodeJS.ProcessEnv, notice?: (text: string) => void): Vault => new Vault(home, env, LIST_JSON_ROWS, notice);

/** The command's vault: notices on stderr. */
export const openVault = (ctx: Context): Vault => vaultAt(ctx.home, ctx.env, (text) => ctx.stderr.write(`mcp-tasks: ${text}\n`));
