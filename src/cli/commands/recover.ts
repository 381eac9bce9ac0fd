// `recover [<op-id> [--resubmit [--force]] | --attach - | --resolve OUTCOME]`: flags to typed
// options, then the use case (app/recover.ts).
import type { Context } from '../../context.js';
import { CliError } from '../../errors.js';
import { openVault } from '../../app/task-target.js';
import { recover, type RecoverOptions, type Resolution } from '../../app/recover.js';
import { RESOLUTIONS } from '../choices.js';
import { didYouMean } from '../../output/did-you-mean.js';
import { finish } from '../finish.js';
import { cmd, hint } from '../../hint.js';

type Flags = Omit<RecoverOptions, 'resolve'> & { resolve?: string };

export function recoverOptions(opId: string | undefined, flags: Flags): RecoverOptions {
  const { resolve, ...rest } = flags;
  if (resolve === undefined) return rest;
  if (!(RESOLUTIONS as readonly string[]).includes(resolve)) {
    throw new CliError('usage', `--resolve "${resolve}" is not one of ${RESOLUTIONS.join(', ')}${didYouMean(resolve, RESOLUTIONS)}`, hint`e.g. \`${cmd('recover', opId ?? '<op>', '--resolve', 'not-run', '--note', '"checked the server: no such job"')}\`.`);
  }
  return { ...rest, resolve: resolve as Resolution };
}

export async function runRecover(opId: string | undefined, flags: Flags, ctx: Context): Promise<number> {
  const opts = recoverOptions(opId, flags);
  return finish(ctx, await recover(ctx, openVault(ctx), opId, opts));
}
