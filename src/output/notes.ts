// Lines a use case says on the way (a warning, what a decision rests on): stderr, one line each.
// Its verdict is an outcome the presenter renders; these are what a person reads before it.
import type { Context } from '../context.js';
import { jsonLine } from './render.js';

/** A use case's way to say a line while it works, without writing to a stream itself. */
export type Say = (line: string) => void;

export const sayOn = (ctx: Pick<Context, 'stderr'>): Say => (line) => ctx.stderr.write(`${line}\n`);

/** A task state streamed as it is seen (`watch --json`): one JSON document a line on stdout. */
export const streamJsonLine = (ctx: Pick<Context, 'stdout'>, doc: unknown): void => ctx.stdout.write(jsonLine(doc));

/** Text a prompt draws around itself (a header, a URL to open): stderr, as given. */
export const writePromptText = (ctx: Pick<Context, 'stderr'>) => (text: string): void => ctx.stderr.write(text);

/** One line on stdout that scripts read as it comes (the demo server's URL line). */
export const streamLine = (ctx: Pick<Context, 'stdout'>, line: string): void => ctx.stdout.write(`${line}\n`);
