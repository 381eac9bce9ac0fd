// What a person is told to do next, with the commands in it kept as commands (issue 24): each is
// printed as the program was started (Context.invocation: `mcp-tasks`, `npx mcp-tasks` or `node
// <script>`) followed by its words, so it runs as printed. A hint is built from its parts where
// it is decided and rendered where it is printed; nothing rewrites text afterwards.
//
//   hint`Run \`${cmd('store', 'init')}\` once, then retry.`   →   Run `npx mcp-tasks store init` once, then retry.

const SAFE_WORD = /^[A-Za-z0-9_./:@%+=,-]+$/;
/** A word for a shell: as it is when nothing in it needs quoting, else in single quotes. */
export const shellQuote = (s: string) => (SAFE_WORD.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** A command of this program: the words after its name. */
interface Command {
  readonly words: readonly string[];
}

/** Prose with commands of this program in it. A plain string is a hint that names no command. */
export class Hint {
  constructor(readonly parts: readonly (string | Command)[]) {}
}

/**
 * One command, from its words after the program's name, written as typed: a word that is data a
 * shell could split or expand (a tool name, a URL, JSON) goes through shellQuote first. Server
 * names and task refs are typeable by construction.
 */
export const cmd = (...words: string[]): Hint => new Hint([{ words }]);

/** Prose interleaved with commands (and other hints): hint`See \`${cmd('server', 'list')}\`.` */
export function hint(text: TemplateStringsArray, ...values: ReadonlyArray<string | number | Hint>): Hint {
  const parts: Array<string | Command> = [];
  text.forEach((t, i) => {
    parts.push(t);
    const v = values[i];
    if (v instanceof Hint) parts.push(...v.parts);
    else if (v !== undefined) parts.push(String(v));
  });
  return new Hint(parts);
}

/** The hint as printed: each command as `<invocation> <words>`. */
export function renderHint(h: string | Hint, invocation: string): string {
  if (typeof h === 'string') return h;
  return h.parts.map((p) => (typeof p === 'string' ? p : [invocation, ...p.words].join(' '))).join('');
}
