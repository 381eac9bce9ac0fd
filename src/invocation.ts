// How the user started mcp-tasks, so every printed command runs as it is when pasted: `npx
// mcp-tasks` under npx, `mcp-tasks` when that is on PATH, else `node <the script>`. Decided once
// (Context.invocation); hints written without a Context say `mcp-tasks …` and are rewritten
// with asInvoked() where they are printed.
import { existsSync, realpathSync } from 'node:fs';
import { basename, delimiter, dirname, join, resolve } from 'node:path';

export const PROGRAM = 'mcp-tasks';

/** The subcommands: only `mcp-tasks <one of these>` is a command to rewrite, not prose ("mcp-tasks never…"). */
const SUBCOMMANDS = ['--help', 'call', 'get', 'watch', 'answer', 'cancel', 'list', 'show', 'recover', 'prune', 'export', 'import', 'server', 'vault', 'tools', 'demo-server', 'completion', 'help'];
const COMMAND_MENTION = new RegExp(`(^|[\\s\`(:'"])${PROGRAM} (?=(?:${SUBCOMMANDS.join('|')})(?![\\w-]))`, 'g');

const SAFE_WORD = /^[A-Za-z0-9_./:@%+=,-]+$/;
export const shellQuote = (s: string) => (SAFE_WORD.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

function onPath(env: NodeJS.ProcessEnv, script: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return undefined;
    }
  };
  const target = real(script);
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, PROGRAM);
    if (existsSync(candidate) && (resolve(candidate) === resolve(script) || (target !== undefined && real(candidate) === target))) return true;
  }
  return false;
}

/**
 * npx sets npm_command=exec (npm 7+) or npm_lifecycle_event=npx; a bin link on PATH runs as
 * `mcp-tasks`; anything else (node bin/mcp-tasks.js, a checkout) is named by its script path.
 */
export function detectInvocation(env: NodeJS.ProcessEnv, script: string | undefined): string {
  if (underNpx(env)) return `npx ${PROGRAM}`;
  return localCommand(env, script);
}

const underNpx = (env: NodeJS.ProcessEnv) => env.npm_command === 'exec' || env.npm_lifecycle_event === 'npx';

/**
 * The command that runs this very installation from any directory without asking a registry
 * (what shell completion calls on every Tab): `mcp-tasks` when that is on PATH outside npx
 * (npx puts its own bin directories on PATH), else `node` plus the script's absolute path.
 */
export function localCommand(env: NodeJS.ProcessEnv, script: string | undefined): string {
  if (!script) return PROGRAM;
  if (!underNpx(env) && onPath(env, script)) return PROGRAM;
  return `node ${shellQuote(resolve(dirname(script), basename(script)))}`;
}

/** Rewrite every `mcp-tasks <subcommand>` in a hint to the command as invoked. */
export function asInvoked(text: string, invocation: string): string {
  if (invocation === PROGRAM) return text;
  return text.replace(COMMAND_MENTION, (_m, lead: string) => `${lead}${invocation} `);
}
