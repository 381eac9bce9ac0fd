// The bundle's chunks merged into fewer, larger ones (used by scripts/build.mjs).
//
// Why: esbuild's code splitting makes a chunk for every set of lazy imports that share code, and
// this CLI has some fifty lazy imports: a `list` loaded 44 chunks (48 on the team store), 19 of
// them under 1 KB. Node spends about half a millisecond on each ES module it loads (resolve, read,
// compile, link, evaluate; 48 one-line modules start 28 ms slower than one on Node 20, 19 ms on
// Node 24), whatever its size. Rollup reads esbuild's chunks as its modules and merges those under
// MIN_CHUNK_BYTES that have no side effects when they run (definitions only) into chunks loaded
// under the same conditions (its experimentalMinChunkSize; esbuild has no such option): a command
// may load code it does not call, but runs nothing it did not run before. The same `list` loads 16
// chunks (19 on the team store).
//
// How: esbuild writes to a staging directory (built-ins already rewritten there by
// builtins-direct.mjs), rollup writes the bundle's directory from it, and each chunk loses its
// whitespace again. What the rest of the build needs of the result comes back as a graph: each
// chunk's static imports, its size, and the source entry points whose modules it holds (from
// esbuild's metafile).
import { rollup } from 'rollup';
import { transform } from 'esbuild';
import { importCycle } from './builtins-direct.mjs';
import { isBuiltin } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { relative, sep } from 'node:path';

/** Chunks smaller than this are merged where rollup can do it without running anything sooner. */
const MIN_CHUNK_BYTES = 24 * 1024;

/**
 * Merges the chunks esbuild wrote to `stageDir` (entries bin.js and keeper.js) into `outdir`.
 * Returns the merged chunks by file name: static imports (other chunks only), bytes, and the
 * esbuild entry points (source paths, e.g. 'src/main.ts') whose modules each holds.
 */
export async function mergeChunks({ root, stageDir, outdir, metafile }) {
  const entryOf = new Map(Object.entries(metafile.outputs).filter(([, o]) => o.entryPoint).map(([f, o]) => [f, o.entryPoint]));
  const bundle = await rollup({
    input: { bin: `${stageDir}/bin.js`, keeper: `${stageDir}/keeper.js` },
    external: (id) => isBuiltin(id) || id.startsWith('@napi-rs/'),
    onLog(level, log) {
      // rollup reports its merging at the info level; a warning means the bundle may differ.
      if (level === 'warn') throw new Error(`merge-chunks: ${log.code}: ${log.message}`);
    },
  });
  const { output } = await bundle.generate({
    format: 'es',
    generatedCode: 'es2015',
    entryFileNames: '[name].js',
    // esbuild's name without its hash ('vault-view-WPBIASDP' → 'vault-view'), rollup's hash after.
    chunkFileNames: (chunk) => `${chunk.name.replace(/-[A-Z0-9]{8}$/, '')}-[hash].js`,
    hashCharacters: 'base36',
    experimentalMinChunkSize: MIN_CHUNK_BYTES,
  });
  await bundle.close();
  mkdirSync(outdir, { recursive: true });
  const graph = new Map();
  for (const chunk of output) {
    if (chunk.type !== 'chunk') throw new Error(`merge-chunks: rollup emitted an asset (${chunk.fileName})`);
    const { code } = await transform(chunk.code, { loader: 'js', minifyWhitespace: true, legalComments: 'none' });
    writeFileSync(`${outdir}/${chunk.fileName}`, code);
    const entries = chunk.moduleIds.map((id) => entryOf.get(relative(root, id).split(sep).join('/'))).filter(Boolean);
    graph.set(chunk.fileName, { imports: chunk.imports.filter((i) => !isBuiltin(i) && !i.startsWith('@napi-rs/')), bytes: Buffer.byteLength(code), entries });
  }
  assertNoCycle(graph);
  return graph;
}

/**
 * A chunk's imports are ready before any of its code runs; a built-in taken as a const
 * (builtins-direct.mjs) is not. In an import cycle, one chunk could call into another before that
 * one's top ran: none today, and one stops the build rather than fail at run time.
 */
function assertNoCycle(graph) {
  const cycle = importCycle(graph.keys(), (file) => graph.get(file)?.imports ?? []);
  if (cycle) throw new Error(`merge-chunks: chunks import each other (${cycle.join(' → ')})`);
}
