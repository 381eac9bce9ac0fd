// The bundle's own chunks (build/bundle/<name>-<hash>.js importing './<name>-<hash>.js') resolve to
// their sibling URL at once, through a module.registerHooks resolve hook (Node 22.15+, 23.5+).
// Why: a `get` links ~40 chunks through ~160 relative imports, and Node's default resolver runs
// fileURLToPath, a stat, realpathSync and pathToFileURL for each: enough path-string loops that V8
// compiles path's normalizeString with TurboFan, which alone adds ~5 MB to the peak RSS of a `get`
// on Node 24 (87 → 82 MB), for no gain in CPU. What the default resolver would check is already
// known here: the chunks are ES modules that the build wrote side by side, and the directory the
// launcher was loaded from is its real path (Node resolves the main script through realpath).
// Anything else (node: built-ins, bare specifiers, paths outside the bundle, require()) goes to
// the default resolver unchanged.

/** A specifier esbuild writes for a sibling chunk: './' and a file name, no directory. */
const CHUNK_SPECIFIER = /^\.\/[\w.-]+\.js$/;

/**
 * The resolve hook for the bundle in `bundleDir` (a file: URL ending in '/'): a sibling chunk
 * imported from inside the bundle resolves to its URL; everything else is `nextResolve`'s.
 */
export function chunkResolver(bundleDir) {
  return function resolve(specifier, context, nextResolve) {
    const parent = context.parentURL;
    if (CHUNK_SPECIFIER.test(specifier) && parent !== undefined && parent.startsWith(bundleDir) && !parent.slice(bundleDir.length).includes('/')) {
      return { url: bundleDir + specifier.slice(2), format: 'module', shortCircuit: true };
    }
    return nextResolve(specifier, context);
  };
}

/** Registers the hook where the Node line has module.registerHooks; a no-op elsewhere (Node 20, 22 before 22.15). */
export function registerChunkResolve(nodeModule, bundleDir) {
  if (typeof nodeModule.registerHooks !== 'function') return false;
  nodeModule.registerHooks({ resolve: chunkResolver(bundleDir) });
  return true;
}
