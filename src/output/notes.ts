// Lines a use case says on the way (a warning, what a decision rests on): stderr, one line each.
// Its verdict is an outcome the presenter renders; these are what a person reads before it.
import type { Context } from '../context.js';

/** A use case's way to say a line while it works, without writing to a stream itself. */
export type Say = (line: string) => void;

export const sayOn = (ctx: Pick<Context, 'stderr'>): Say => (line) => ctx.stderr.write(`${line}\n`);
