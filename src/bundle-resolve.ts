// The bundle's own chunks (build/bundle/<name>-<hash>.js importing './<name>-<hash>.js') resolve to
// their sibling URL at once, through a module.registerHooks resolve hook (Node 22.15+, 23.5+),
// registered by bin.ts before it loads main (plain help, printed from the snapshot, never needs it).
// Why: a `get` links ~40 chunks through ~160 relative imports, and Node's default resolver runs
// fileURLToPath, a stat, realpathSync and pathToFileURL for each: enough path-string loops that V8
// compiles path's normalizeString with TurboFan, which alone adds ~5 MB to the peak RSS of a `get`
// on Node 24 (87 → 82 MB), for no gain in CPU. What the default resolver would check is already
// known: the chunks are ES modules the build wrote side by side, in the directory bin.js was
// loaded from, which is a real path (Node resolves the main script through realpath). Anything else
// (node: built-ins, bare specifiers, other directories, require()) goes to the default resolver.
import type nodeModuleType from 'node:module';

/** A specifier the build writes for a sibling chunk: './' and a file name, no directory. */
const CHUNK_SPECIFIER = /^\.\/[\w.-]+\.js$/;

interface ResolveContext {
  parentURL?: string | undefined;
}
interface Resolved {
  url: string;
  format?: string | null | undefined;
  shortCircuit?: boolean | undefined;
}
type NextResolve = (specifier: string, context: ResolveContext) => Resolved;

/**
 * The resolve hook for the bundle in `bundleDir` (a file: URL ending in '/'): a sibling chunk
 * imported from a module directly in `bundleDir` resolves to its URL; the rest is `nextResolve`'s.
 */
export function chunkResolver(bundleDir: string): (specifier: string, context: ResolveContext, nextResolve: NextResolve) => Resolved {
  return (specifier, context, nextResolve) => {
    const parent = context.parentURL;
    if (CHUNK_SPECIFIER.test(specifier) && parent !== undefined && parent.startsWith(bundleDir) && !parent.slice(bundleDir.length).includes('/')) {
      return { url: bundleDir + specifier.slice(2), format: 'module', shortCircuit: true };
    }
    return nextResolve(specifier, context);
  };
}

/** Registers the hook where the Node line has module.registerHooks; false elsewhere (Node 20, 22 before 22.15). */
export function registerChunkResolve(nodeModule: typeof nodeModuleType, bundleDir: string): boolean {
  const register = (nodeModule as { registerHooks?: (hooks: { resolve: ReturnType<typeof chunkResolver> }) => unknown }).registerHooks;
  if (typeof register !== 'function') return false;
  register.call(nodeModule, { resolve: chunkResolver(bundleDir) });
  return true;
}
