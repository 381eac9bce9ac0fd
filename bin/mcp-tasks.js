#!/usr/bin/env node
// Thin launcher: the compiled entry point lives in build/ (npm ci runs the build).
import('../build/src/bin.js').catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('build/src/bin.js')) {
    process.stderr.write('mcp-tasks: not built yet. Run `npm ci` (or `npm run build`) in the project directory.\n');
    process.exitCode = 1;
    return;
  }
  throw err;
});
