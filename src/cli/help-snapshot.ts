// Build time only (scripts/build.mjs): every command's `--help` exactly as commander prints it at
// one width, from the program definition itself (buildProgram), with a marker where the examples
// name the command as invoked. `mcp-tasks --help` then prints it without loading commander or the
// program's wiring (cli/fast-help.ts); a test compares both for every command.
import { CommanderError, type Command } from 'commander';
import { buildProgram } from './program.js';
import { VERSION } from '../version.js';

/** Stands for the invocation (`mcp-tasks`, `npx mcp-tasks`, `node <script>`) in the snapshot. */
export const INVOCATION_MARK = '\u0000invocation\u0000';

export interface HelpSnapshot {
  /** The width commander wrapped to. */
  width: number;
  /** Help text by command path ('' is the program, 'server add' a subcommand). */
  texts: Record<string, string>;
}

/** Every visible command path, the program's own ('') first. */
export function commandPaths(cmd: Command, prefix: string[] = []): string[][] {
  const out = [prefix];
  for (const sub of cmd.commands) {
    if ((sub as unknown as { _hidden?: boolean })._hidden) continue;
    out.push(...commandPaths(sub, [...prefix, sub.name()]));
  }
  return out;
}

/** What `<path> --help` prints on stdout at `width`, the examples written with `invocation`. */
export async function renderHelp(path: string[], width: number, invocation: string): Promise<string> {
  let out = '';
  const unused = () => {
    throw new Error('help runs no command');
  };
  const program = buildProgram(
    VERSION,
    unused,
    unused,
    { writeOut: (s) => (out += s), writeErr: unused, getOutHelpWidth: () => width, getErrHelpWidth: () => width },
    {},
    { invocation: () => invocation },
  );
  try {
    await program.parseAsync([...path, '--help'], { from: 'user' });
  } catch (err) {
    if (!(err instanceof CommanderError) || err.exitCode !== 0) throw err;
  }
  return out;
}

export async function helpSnapshot(width = 80): Promise<HelpSnapshot> {
  const noop = () => 0;
  const program = buildProgram(VERSION, noop as never, noop, { writeOut: noop, writeErr: noop });
  const texts: Record<string, string> = {};
  for (const path of commandPaths(program)) texts[path.join(' ')] = await renderHelp(path, width, INVOCATION_MARK);
  return { width, texts };
}
