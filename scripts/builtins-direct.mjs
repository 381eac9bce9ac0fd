// Node's built-ins in the bundle, taken without an ES module facade, and commander without its
// eager child_process (used by scripts/build.mjs).
//
// Why: `import { readFileSync } from 'node:fs'` makes Node build that built-in's ES module facade,
// which reads every one of its exports once, getters included: fs's `promises` and `ReadStream`
// load fs/promises, its streams and readline; util's load parseArgs and the diff of assert;
// crypto's load webcrypto. A require() from CommonJS builds none. With the stdin change in
// src/bin.ts, a `list` starts about 10 ms sooner on Node 22 and 24 (whole processes, old build
// against new; docs/performance.md). process.getBuiltinModule (Node 20.16+, 22.3+) returns the
// module itself; on Node 20.12 to 20.15 __mcpTasksBuiltin falls back to a require() through
// createRequire, made on first use (scripts/build.mjs writes its one definition, builtin.js).
//
// How: after esbuild writes the chunks, each static import of a built-in, default or named,
// becomes a const at the top of its chunk (`const { readFileSync } = __mcpTasksBuiltin('node:fs')`),
// where the import was hoisted to before. node:module stays an import (builtin.js's own, and its
// facade reads no getter); so do namespace imports (`import * as`), whose object differs from the
// module's exports by its `default`. Checked against esbuild's metafile: a built-in the metafile
// names that the text does not show, or the reverse, stops the build.
import { isBuiltin } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';

/** An import statement as esbuild prints it with minifyWhitespace, at the start of a statement. */
const BUILTIN_IMPORT = /(?<=^|[;\n}])import\s*(?:([\w$]+)\s*,?\s*)?(\{[^}]*\}|\*\s*as\s*[\w$]+)?\s*from\s*"([^"]+)";?/g;

/** Rewrites the chunks in `outdir` (see the header); the banner stays only where it is used. */
export function takeBuiltinsDirect(outdir, metafile, banner) {
  const outputs = metafile.outputs;
  const rewritten = new Set();
  for (const [file, output] of Object.entries(outputs)) {
    if (!file.endsWith('.js')) continue;
    const name = file.slice(file.lastIndexOf('/') + 1);
    const path = `${outdir}/${name}`;
    const text = readFileSync(path, 'utf8');
    if (!text.startsWith(`${banner}\n`)) throw new Error(`${name}: the build's banner is missing`);
    let body = text.slice(banner.length + 1);
    const expected = new Set(output.imports.filter((i) => i.external && i.kind === 'import-statement' && isBuiltin(i.path)).map((i) => i.path));
    const seen = new Set();
    const consts = [];
    body = body.replace(BUILTIN_IMPORT, (statement, defaultName, clause, specifier) => {
      if (!isBuiltin(specifier)) return statement;
      seen.add(specifier);
      if (specifier === 'node:module' || clause?.startsWith('*') || (!defaultName && !clause)) return statement;
      const from = `__mcpTasksBuiltin(${JSON.stringify(specifier)})`;
      if (defaultName) consts.push(`${defaultName}=${from}`);
      if (clause) {
        const names = clause.slice(1, -1).split(',').map((n) => n.trim()).filter(Boolean);
        if (names.some((n) => /^default\b/.test(n))) throw new Error(`${name}: \`${statement}\` imports a built-in's default by name; the rewrite does not handle it`);
        consts.push(`{${names.map((n) => n.replace(/^([\w$]+)\s+as\s+([\w$]+)$/, '$1:$2')).join(',')}}=${from}`);
      }
      return '';
    });
    const missing = [...expected].filter((s) => !seen.has(s));
    const extra = [...seen].filter((s) => !expected.has(s));
    if (missing.length || extra.length) throw new Error(`${name}: built-in imports in the text (${[...seen]}) differ from esbuild's metafile (${[...expected]})`);
    if (consts.length) {
      rewritten.add(file);
      body = `const ${consts.join(',')};${body}`;
    }
    // The banner (an import of builtin.js) only where something calls what it imports.
    const used = consts.length > 0 || /\brequire\b/.test(body);
    writeFileSync(path, used ? `${banner}\n${body}` : body);
  }
  assertNoCycleThrough(rewritten, outputs);
}

/**
 * An import was ready before any code of its chunk ran, a const is not: a chunk in an import
 * cycle could be called into by another before its top ran. esbuild's chunks have none today; one
 * through a rewritten chunk stops the build rather than fail at run time.
 */
function assertNoCycleThrough(rewritten, outputs) {
  const staticImports = (file) => (outputs[file]?.imports ?? []).filter((dep) => dep.kind === 'import-statement' && !dep.external).map((dep) => dep.path);
  const cycle = importCycle(Object.keys(outputs), staticImports, (c) => c.some((f) => rewritten.has(f)));
  if (cycle) throw new Error(`builtins-direct: chunks import each other (${cycle.join(' → ')}); a rewritten built-in import could be read before its chunk ran`);
}

/**
 * The first import cycle among `files` (following `importsOf`) that `counts`, as the files around
 * it, the first repeated at the end; undefined when there is none. Also used by merge-chunks.mjs.
 */
export function importCycle(files, importsOf, counts = () => true) {
  const state = new Map();
  const visit = (file, trail) => {
    if (state.get(file) === 'done') return undefined;
    if (state.get(file) === 'open') {
      const cycle = [...trail.slice(trail.indexOf(file)), file];
      return counts(cycle) ? cycle : undefined;
    }
    state.set(file, 'open');
    for (const dep of importsOf(file)) {
      const found = visit(dep, [...trail, file]);
      if (found) return found;
    }
    state.set(file, 'done');
    return undefined;
  };
  for (const file of files) {
    const found = visit(file, []);
    if (found) return found;
  }
  return undefined;
}

/**
 * commander requires node:child_process when it loads, for executable subcommands (`git-style`
 * programs on the PATH), which this CLI never has: ~5 ms of every start on Node 24 (it brings
 * dgram, the socket list and more). It is required when commander would first spawn instead.
 */
export const lazyChildProcessInCommander = {
  name: 'lazy-child-process-in-commander',
  setup(b) {
    let seen = false;
    b.onLoad({ filter: /[\\/]node_modules[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const eager = "const childProcess = require('node:child_process');";
      if (!text.includes(eager) || (text.match(/childProcess\.(\w+)/g) ?? []).some((use) => use !== 'childProcess.spawn')) {
        throw new Error(`${args.path}: commander's use of child_process is not what the build expects (only childProcess.spawn, required at the top)`);
      }
      seen = true;
      return { contents: text.replace(eager, "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };"), loader: 'js' };
    });
    b.onEnd((result) => {
      if (result.errors.length === 0 && !seen) throw new Error("lazy-child-process-in-commander: commander's lib/command.js was not in the bundle");
    });
  },
};
