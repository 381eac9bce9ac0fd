// `store status|init|keygen|push`: where the handles live; the team store's schema; local records copied into it.
import type { Context } from '../../context.js';
import { storeInit, storeKeygen, storePush, storeStatus } from '../../app/team-store.js';
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
