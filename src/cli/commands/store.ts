// `store status|init|keygen|key save|key forget|push`: where the handles live; the team store's schema; local records copied into it.
import type { Context } from '../../context.js';
import { storeInit, storeKeyForget, storeKeygen, storeKeySave, storePush, storeStatus } from '../../app/team-store.js';
import { finish } from '../finish.js';

export async function runStoreStatus(ctx: Context): Promise<number> {
  return finish(ctx, await storeStatus(ctx));
}

export async function runStoreInit(ctx: Context): Promise<number> {
  return finish(ctx, await storeInit(ctx));
}

export async function runStoreKeygen(ctx: Context): Promise<number> {
  return finish(ctx, storeKeygen());
}

export async function runStorePush(refs: string[], ctx: Context): Promise<number> {
  return finish(ctx, await storePush(ctx, refs));
}

/** `words`: whatever followed `save` on the command line (refused: a key there is already exposed). */
export async function runStoreKeySave(words: string[], ctx: Context): Promise<number> {
  return finish(ctx, await storeKeySave(ctx, words));
}

export async function runStoreKeyForget(ctx: Context): Promise<number> {
  return finish(ctx, await storeKeyForget(ctx));
}
