// The last step of every command that returns an outcome: the presenter prints it, exitCodeOf
// decides the code. Nothing else prints a verdict or picks an exit code.
import type { Context } from '../context.js';
import type { Outcome } from '../app/outcomes.js';
import { exitCodeOf } from '../app/exit-code.js';
import { present } from '../output/present.js';

export function finish(ctx: Context, outcome: Outcome): number {
  present(ctx, outcome);
  return exitCodeOf(outcome);
}
