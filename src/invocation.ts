// How the user started mcp-tasks, so every printed command runs as it is when pasted: `npx
// mcp-tasks` under npx, `mcp-tasks` when that is on PATH, else `node <the script>`. Decided once
// (Context.invocation); a hint (hint.ts) prints each of its commands with it.
import { existsSync, realpathSync } from 'node:fs';
import { basename, delimiter, dirname, join, resolve } from 'node:path';
import { shellQuote } from './hint.js';

export const PROGRAM = 'mcp-tasks';

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
