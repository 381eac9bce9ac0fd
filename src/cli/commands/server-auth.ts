// `server login | logout`: flags to typed options, then the sign-in use cases (app/sign-in.ts).
import type { Context } from '../../context.js';
import { signIn, signOut, type SignInOptions } from '../../app/sign-in.js';
import { parseDuration } from '../duration.js';
import { finish } from '../finish.js';

/** What commander hands over: --no-browser sets `browser` to false; --timeout is a duration. */
export type ServerLoginFlags = Omit<SignInOptions, 'timeoutMs'> & { timeout?: string };

export async function runServerLogin(name: string, flags: ServerLoginFlags, ctx: Context): Promise<number> {
  const { timeout, ...rest } = flags;
  const opts: SignInOptions = { ...rest, ...(timeout ? { timeoutMs: parseDuration(timeout) } : {}) };
  return finish(ctx, await signIn(ctx, name, opts));
}

export async function runServerLogout(name: string, ctx: Context): Promise<number> {
  return finish(ctx, await signOut(ctx, name));
}
