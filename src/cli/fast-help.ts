// `mcp-tasks --help` (and `help [command]`, `<command> --help`, no arguments at all) from the help
// snapshot the build wrote beside the bundle (cli/help-snapshot.ts): the text commander would
// print, without loading commander and the program's wiring, which cost about half of --help's
// start-up on Node 20. Only where the text is exactly commander's: the snapshot's width (stdout
// not a terminal, or one of that width) and a form of help argv spells out; anything else, or no
// snapshot (tsc's build/src), goes through commander.
import { readFileSync } from 'node:fs';
import { detectInvocation } from '../invocation.js';

/** Same value as help-snapshot.ts's (kept apart so this module does not load commander). */
const INVOCATION_MARK = '\u0000invocation\u0000';

interface Snapshot {
  width: number;
  texts: Record<string, string>;
}

const HELP_FLAGS = new Set(['--help', '-h']);

/** The command path whose help `argv` asks for, when it asks for nothing else; undefined otherwise. */
export function helpPathOf(argv: readonly string[], texts: Record<string, string>): string | undefined {
  if (argv.length === 0) return '';
  const last = argv[argv.length - 1]!;
  if (HELP_FLAGS.has(last)) {
    const path = argv.slice(0, -1).join(' ');
    return argv.slice(0, -1).every((a) => !a.startsWith('-')) && Object.hasOwn(texts, path) ? path : undefined;
  }
  if (argv[0] === 'help' && argv.length <= 2) {
    const path = argv[1] ?? '';
    return !path.startsWith('-') && !path.includes(' ') && Object.hasOwn(texts, path) ? path : undefined;
  }
  return undefined;
}

export interface FastHelpIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  env: NodeJS.ProcessEnv;
  script?: string;
}

/** Print the help `argv` asks for from the snapshot at `snapshotFile`; false when commander must. */
export function printSnapshotHelp(argv: readonly string[], io: FastHelpIO, snapshotFile: URL): boolean {
  // Most commands ask for no help: they never read the snapshot.
  if (argv.length > 0 && argv[0] !== 'help' && !HELP_FLAGS.has(argv[argv.length - 1]!)) return false;
  let snapshot: Snapshot;
  try {
    snapshot = JSON.parse(readFileSync(snapshotFile, 'utf8')) as Snapshot;
  } catch {
    return false;
  }
  // The width main.ts gives commander.
  if (((io.stdout.isTTY && io.stdout.columns) || 80) !== snapshot.width) return false;
  const path = helpPathOf(argv, snapshot.texts);
  if (path === undefined) return false;
  io.stdout.write(snapshot.texts[path]!.replaceAll(INVOCATION_MARK, detectInvocation(io.env, io.script)));
  return true;
}
