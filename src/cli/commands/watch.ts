// `watch <ref>...` · `watch --active`: the use case (app/watch.ts), each task's verdict presented
// as it ends (never into an open prompt), then what is left to say.
import type { Context } from '../../context.js';
import { openVault } from '../../app/task-target.js';
import { watch } from '../../app/watch.js';
import { ResolvedRecordError } from '../../app/in-doubt.js';
import { present } from '../../output/present.js';
import type { WatchOptions } from '../task-options.js';
import { finish } from '../finish.js';

export async function runWatch(refs: string[], opts: WatchOptions, ctx: Context): Promise<number> {
  try {
    // A verdict printed while another task's prompt is open would be erased by its redraw: it waits.
    return finish(ctx, await watch(ctx, openVault(ctx), refs, opts, (settled) => ctx.whenNoPrompt(() => present(ctx, settled))));
  } catch (err) {
    // One record, closed by hand: its verdict and note, nothing sent (several: each one's failure line says so).
    if (err instanceof ResolvedRecordError) return finish(ctx, { kind: 'resolved-record', record: err.record });
    throw err;
  }
}
