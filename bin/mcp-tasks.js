#!/usr/bin/env node
// Thin launcher: the bundle lives in build/bundle/ (npm ci runs the build through prepare).
import nodeModule from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 12)) {
  process.stderr.write(`mcp-tasks: needs Node.js 20.12 or newer (this is ${process.version}).\n  next: install a current Node.js LTS and run it again.\n`);
  process.exit(1);
}

// Caches of compiled code live in the platform's cache dir, never in the mcp-tasks home: the home
// holds the vault, and a cache there would share its disk (a full home must fail only on the
// vault's own writes). Node 22.1+ keeps the V8 code of the bundle there between runs (a quarter
// less CPU per start on Node 22); the team store's driver keeps its own code cache there on every
// Node, and finds the directory under this symbol (src/vault/postgres/pg-driver.ts). Best effort:
// never fails.
const env = process.env;
const codeCacheDir = process.platform === 'win32'
    ? join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'mcp-tasks', 'compile-cache')
    : process.platform === 'darwin'
      ? join(homedir(), 'Library', 'Caches', 'mcp-tasks', 'compile')
      : join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'mcp-tasks', 'compile');
globalThis[Symbol.for('mcp-tasks.code-cache-dir')] = codeCacheDir;
if (typeof nodeModule.enableCompileCache === 'function') {
  try {
    nodeModule.enableCompileCache(codeCacheDir);
  } catch {
    /* no cache: start-up is slower, nothing else changes */
  }
}

import('../build/bundle/bin.js').catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('build/bundle/bin.js')) {
    process.stderr.write('mcp-tasks: not built yet.\n  next: run `npm ci` (or `npm run build`) in the project directory.\n');
    process.exitCode = 1;
    return;
  }
  throw err;
});
