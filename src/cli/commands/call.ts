// `call <server> <tool> [args...]`: the call use case (app/call.ts), then either its outcome or,
// when an earlier submission under the same key has a live task, `watch` of that task.
import type { Context } from '../../context.js';
import { call } from '../../app/call.js';
import { openVault } from '../../app/task-target.js';
import { sayOn } from '../../output/notes.js';
import type { CallOptions } from '../task-options.js';
import { finish } from '../finish.js';

export async function runCall(server: string, tool: string, pairs: string[], opts: CallOptions, ctx: Context): Promise<number> {
  const decision = await call(ctx, { vault: openVault(ctx), say: sayOn(ctx) }, server, tool, pairs, opts);
  if (decision.kind === 'outcome') return finish(ctx, decision.outcome);
  const { runWatch } = await import('./watch.js');
  return runWatch([decision.record.opId], { ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}), ...(opts.answers !== undefined ? { answers: opts.answers } : {}), ...(opts.acceptDefaults ? { acceptDefaults: true } : {}) }, ctx);
}
