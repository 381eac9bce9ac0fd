// A module's chunks loaded a few at a time, with a turn of the event loop after each step, for a
// command whose team store connection opens meanwhile (main.ts) or whose server connection's
// modules load while the store answers (session/open-session.ts prepareSession). On Node 22 and
// 24 one dynamic import links and runs its whole graph in one synchronous run: the database's
// answers to the connection's start, there within a millisecond or two, wait for the end of it
// (about 50 ms for `get`), and then each further step of the exchange leaves the main thread idle
// while the database works. Loaded a step at a time, each answer is read and the next request
// sent between steps, while the database works on the other core.
//
// The steps come from the build (scripts/build.mjs writes load-steps.json beside the bundle from
// the merged chunks' imports): chunks in the order the import itself would run them, each after the
// chunks it imports, so nothing runs before its own imports. Unbundled (build/src) there is no
// such file and nothing is loaded ahead: the command's own import loads it all, as before.
import { readFileSync } from 'node:fs';
import { nodeMajor } from './own-process.js';

/**
 * Node 20 loads a graph a file at a time (asynchronous reads), serving the socket between files
 * already: steps there only add their own cost (a `get` on the team store measured 30 ms slower).
 */
const GRAPH_IN_ONE_RUN = nodeMajor >= 22;

const manifests = new Map<string, Record<string, string[]>>();

function stepsOf(entry: string, base: string): string[] {
  let steps = manifests.get(base);
  if (!steps) {
    try {
      steps = JSON.parse(readFileSync(new URL('./load-steps.json', base), 'utf8')) as Record<string, string[]>;
    } catch {
      steps = {};
    }
    manifests.set(base, steps);
  }
  return steps[entry] ?? [];
}

// A plain identifier: the bundler leaves the specifier alone (a './' + name written here would
// make it bundle every file beside this one).
const importSpecifier = (specifier: string): Promise<unknown> => import(specifier);
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Where the steps are, and how they are taken (the defaults are the bundle's; tests give their own). */
export interface StepOptions {
  /** Where load-steps.json and the chunks are: this module's own directory in the bundle. */
  base?: string;
  /** Load in steps on Node 20 too. */
  always?: boolean;
  /** How a chunk is imported. */
  importChunk?: (specifier: string) => Promise<unknown>;
}

/**
 * Load the chunks of `entry` (its source path, e.g. 'src/cli/commands/get.ts') a step at a time,
 * where a graph would otherwise load in one run. Never fails: a chunk that does not load is left
 * to the command's own import, which reports it.
 */
export async function loadInSteps(entry: string, opts: StepOptions = {}): Promise<void> {
  const { base = import.meta.url, always = false, importChunk = importSpecifier } = opts;
  if (!GRAPH_IN_ONE_RUN && !always) return;
  try {
    for (const chunk of stepsOf(entry, base)) {
      // Beside this module: the specifier the bundle's own imports use, resolved the same way
      // (bundle-resolve.ts), so each chunk is one module whoever imports it.
      await importChunk(base === import.meta.url ? `./${chunk}` : new URL(`./${chunk}`, base).href);
      await turn();
    }
  } catch { /* the command's own import reports it */ }
}
