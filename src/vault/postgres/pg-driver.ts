// The PostgreSQL driver (`pg`), loaded on a team store's first connection and never before. The
// bundle carries it as a CommonJS file of its own (build/bundle/pg-driver.cjs, scripts/build.mjs),
// run with a V8 code cache (fs/code-cache.ts) in the directory the launcher names
// (bin/mcp-tasks.js): on Node 20, which has no compile cache, parsing and compiling the driver
// was most of what a team store added to a command's start. Unbundled (build/src, the in-process
// tests) it is the pg of node_modules.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Pg from 'pg';
import { requireWithCodeCache } from '../../fs/code-cache.js';

export type PgDriver = typeof Pg;

/** Where the launcher keeps compiled code (set by bin/mcp-tasks.js before the bundle loads). */
const CODE_CACHE_DIR = Symbol.for('mcp-tasks.code-cache-dir');

let driver: PgDriver | undefined;

export function loadPg(): PgDriver {
  if (!driver) {
    const bundled = join(dirname(fileURLToPath(import.meta.url)), 'pg-driver.cjs');
    const cacheDir = (globalThis as Record<symbol, unknown>)[CODE_CACHE_DIR];
    if (!existsSync(bundled)) driver = createRequire(import.meta.url)('pg') as PgDriver;
    else if (typeof cacheDir === 'string') driver = requireWithCodeCache<PgDriver>(bundled, cacheDir, 'pg-driver');
    else driver = createRequire(import.meta.url)(bundled) as PgDriver;
  }
  return driver;
}
