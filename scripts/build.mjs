// npm run build (run by `npm ci` through prepare, and by `npm pack` through prepack): the bin's
// bundle in build/bundle/. esbuild with code splitting: bin.js holds the start-up path only
// (commander and the program's wiring); every `await import()` in src/ stays lazy, so `--help`
// never parses the SDK or zod, and `get` parses only what it uses. Rollup then merges the small
// chunks where no command runs more for it (scripts/merge-chunks.mjs says why). Dependencies are
// bundled (fewer files to resolve and read at start-up) except native ones.
// Type checking is `npm run typecheck` (tsc); the tests compile src/ and test/ with tsc themselves.
import { build } from 'esbuild';
import { lazyChildProcessInCommander, takeBuiltinsDirect } from './builtins-direct.mjs';
import { mergeChunks } from './merge-chunks.mjs';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}build/bundle`;
// esbuild writes here; scripts/merge-chunks.mjs merges its chunks into outdir, then it goes.
const stageDir = `${root}build/.esbuild`;
// Every chunk of esbuild's starts with this; scripts/builtins-direct.mjs says why built-ins come
// through __mcpTasksBuiltin (require() too: no createRequire until one is not built in), and
// removes it where nothing uses it. One module defines both (written to the stage below), so the
// merged chunks share one definition.
const BANNER = 'import{__mcpTasksBuiltin,__mcpTasksBuiltin as require}from"./builtin.js";';
const BUILTIN_MODULE = "import { createRequire } from 'node:module';\nlet required;\nexport const __mcpTasksBuiltin = (id) => globalThis.process.getBuiltinModule?.(id) ?? (required ??= createRequire(import.meta.url))(id);\n";
const pgNodeOnly = {
  // pg asks at load whether it runs on Cloudflare Workers by constructing `new Response(…)`,
  // which on Node loads the whole of undici (its fetch), TLS and the web streams: ~15 ms on
  // team-store paths that reach no HTTP server (`list`, `show`, `store status`, stdio servers),
  // for an answer that is always no here. Only that probe is replaced; the rest of the file stays.
  name: 'pg-node-only',
  setup(b) {
    let seen = false;
    b.onLoad({ filter: /[\\/]node_modules[\\/]pg[\\/]lib[\\/]stream\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const probe = /function isCloudflareRuntime\(\) \{/;
      if (!probe.test(text)) throw new Error(`${args.path}: pg's isCloudflareRuntime() is not where the build expects it`);
      seen = true;
      return { contents: text.replace(probe, 'function isCloudflareRuntime() {\n  return false;'), loader: 'js' };
    });
    b.onEnd((result) => {
      if (result.errors.length === 0 && !seen) throw new Error("pg-node-only: pg's lib/stream.js was not in the bundle");
    });
    // pg's crypto helpers on node:crypto (src/vault/postgres/pg-node-crypto.cjs says why).
    let crypto = false;
    b.onLoad({ filter: /[\\/]node_modules[\\/]pg[\\/]lib[\\/]crypto[\\/]utils\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const exported = /module\.exports = \{([^}]*)\}/.exec(text)?.[1]?.split(',').map((n) => n.trim()).filter(Boolean).sort().join(',');
      if (exported !== 'deriveKey,hashByName,hmacSha256,md5,postgresMd5PasswordHash,randomBytes,sha256') throw new Error(`${args.path}: pg's crypto helpers are not the ones pg-node-crypto.cjs replaces (${exported})`);
      crypto = true;
      return { contents: readFileSync(`${root}src/vault/postgres/pg-node-crypto.cjs`, 'utf8'), loader: 'js' };
    });
    b.onEnd((result) => {
      if (result.errors.length === 0 && !crypto) throw new Error("pg-node-only: pg's lib/crypto/utils.js was not in the bundle");
    });
  },
};

rmSync(outdir, { recursive: true, force: true });
rmSync(stageDir, { recursive: true, force: true });
const bundled = await build({
  absWorkingDir: root,
  // keeper: the team store's connection keeper, a process of its own (src/keeper.ts).
  entryPoints: { bin: 'src/bin.ts', keeper: 'src/keeper.ts' },
  metafile: true,
  outdir: stageDir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.12',
  // Flat, at the same depth as build/src/*.js: paths taken from import.meta.url (package.json,
  // bin/) resolve alike from both.
  chunkNames: '[name]-[hash]',
  // A native addon (loaded through createRequire where the keychain is used).
  external: ['@napi-rs/keyring'],
  // CommonJS dependencies inside an ES module bundle still call require() for Node built-ins
  // (through esbuild's __require), and the built-ins' imports are rewritten to use it (below).
  banner: { js: BANNER },
  // The SDK client's Node shim, with its AJV validator loaded on first use (see the module).
  plugins: [
    {
      // zod's `export * as locales` keeps all ~60 translations of its error messages in the bundle
      // (esbuild cannot drop a namespace re-export): 364 KB of the 755 KB zod chunk that `get` and
      // `call` parse on every start. Nothing here reads `z.locales`; zod registers English itself
      // (classic/schemas.js imports ../locales/en.js directly), so the namespace keeps only `en`.
      name: 'zod-english-only',
      setup(b) {
        b.onResolve({ filter: /locales\/index\.js$/ }, (args) => (args.importer.includes(`${sep}node_modules${sep}zod${sep}`) ? { path: 'zod-locales', namespace: 'zod-english-only' } : undefined));
        b.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, () => ({ contents: "export { default as en } from './en.js';", resolveDir: `${root}node_modules/zod/v4/locales` }));
      },
    },
    {
      // zod compiles a parser with `new Function` for each object schema on its first parse. A run
      // of the CLI parses a few messages per schema, so the compiling costs more than it saves:
      // with zod's own jitless setting (its reference parser, the same results) `get` takes 7 %
      // less CPU and 0.7 MB less peak RSS (npm run bench). Set in zod's core module itself, so
      // it holds before any schema of ours or of the SDK is built (a schema reads it when built).
      name: 'zod-jitless',
      setup(b) {
        let seen = false;
        b.onLoad({ filter: /[\\/]node_modules[\\/]zod[\\/]v4[\\/]core[\\/]core\.js$/ }, (args) => {
          const text = readFileSync(args.path, 'utf8');
          if (!/^export function config\(/m.test(text)) throw new Error(`${args.path}: zod's config() is not where the build expects it`);
          seen = true;
          return { contents: `${text}\nconfig({ jitless: true });\n`, loader: 'js' };
        });
        // A zod that moved its core module would otherwise leave the setting out without a word.
        b.onEnd((result) => {
          if (result.errors.length === 0 && !seen) throw new Error("zod-jitless: zod's core module (zod/v4/core/core.js) was not in the bundle");
        });
      },
    },
    lazyChildProcessInCommander,
    {
      name: 'lazy-sdk-validator',
      setup(b) {
        b.onResolve({ filter: /^@modelcontextprotocol\/client\/_shims$/ }, () => ({ path: `${root}src/connection/sdk-node-shims.ts` }));
      },
    },
  ],
  legalComments: 'none',
  // Whitespace and comments out (names kept: a -v stack trace still names its functions, at line 1
  // and a column): a quarter less source for V8 to hold per start, -1.5 MB peak RSS of `get` on
  // Node 22 and 24, CPU unchanged. Renaming identifiers too saved nothing more.
  minifyWhitespace: true,
  logLevel: 'warning',
});

// Static imports of Node's built-ins become __mcpTasksBuiltin calls; the banner stays only in
// chunks that use it (scripts/builtins-direct.mjs). Then the chunks are merged into fewer
// (scripts/merge-chunks.mjs), and the stage goes.
writeFileSync(`${stageDir}/builtin.js`, BUILTIN_MODULE);
takeBuiltinsDirect(stageDir, bundled.metafile, BANNER);
let merged;
try {
  merged = await mergeChunks({ root, stageDir, outdir, metafile: bundled.metafile });
} finally {
  rmSync(stageDir, { recursive: true, force: true });
}

// Each lazily loaded module's chunks in the order its import would run them (each chunk after the
// chunks it imports), for src/fs/load-in-steps.ts: build/bundle/load-steps.json, by source path.
// Chunks main's own graph already loaded are left out, and small ones are loaded with the next
// larger one that follows (an import each costs more than it lets through): a step holds at least
// STEP_BYTES of code, or ends the list.
const STEP_BYTES = 24 * 1024;
const staticOrder = (file) => {
  const order = [];
  const seen = new Set();
  const visit = (f) => {
    if (seen.has(f)) return;
    seen.add(f);
    for (const dep of merged.get(f).imports) visit(dep);
    order.push(f);
  };
  visit(file);
  return order;
};
const chunkOf = (source) => [...merged.keys()].find((f) => merged.get(f).entries.includes(source));
const alreadyLoaded = new Set([...staticOrder(chunkOf('src/bin.ts')), ...staticOrder(chunkOf('src/main.ts'))]);
const steps = {};
for (const [file, chunk] of merged) {
  if (alreadyLoaded.has(file)) continue;
  const list = [];
  let bytes = 0;
  for (const f of staticOrder(file)) {
    if (alreadyLoaded.has(f)) continue;
    bytes += merged.get(f).bytes;
    if (bytes >= STEP_BYTES || f === file) {
      list.push(f);
      bytes = 0;
    }
  }
  // A merged chunk may hold several lazily loaded modules (get, watch, cancel…): the same steps.
  for (const entry of chunk.entries) steps[entry] = list;
}
writeFileSync(`${outdir}/load-steps.json`, `${JSON.stringify(steps)}\n`);

// The team store's driver (pg) apart from the ES module bundle, as one CommonJS file that
// src/vault/postgres/pg-driver.ts runs with a V8 code cache (src/fs/code-cache.ts): an ES
// module cannot be given one on Node 20. pg-native (pg's optional libpq binding) is never used.
await build({
  absWorkingDir: root,
  entryPoints: ['pg'],
  outfile: `${outdir}/pg-driver.cjs`,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.12',
  external: ['pg-native'],
  plugins: [pgNodeOnly],
  legalComments: 'none',
  minifyWhitespace: true,
  logLevel: 'warning',
});

// The help snapshot (src/cli/help-snapshot.ts): every command's --help as commander prints it,
// rendered here from the same program definition, so `mcp-tasks --help` can print it without
// loading commander (src/cli/fast-help.ts). Built apart, two levels below the root as the bundle's
// chunks are (package-root.ts), then removed.
const snapshotDir = `${root}build/.help-snapshot`;
rmSync(snapshotDir, { recursive: true, force: true });
try {
  await build({
    absWorkingDir: root,
    entryPoints: { render: 'src/cli/help-snapshot.ts' },
    outdir: snapshotDir,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.12',
    packages: 'external',
    logLevel: 'warning',
  });
  const { helpSnapshot } = await import(pathToFileURL(`${snapshotDir}/render.js`).href);
  writeFileSync(`${outdir}/help-snapshot.json`, `${JSON.stringify(await helpSnapshot(80))}\n`);
} finally {
  rmSync(snapshotDir, { recursive: true, force: true });
}
