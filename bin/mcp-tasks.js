#!/usr/bin/env node
// Thin launcher: the compiled entry point lives in build/ (npm ci runs the build).
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 12)) {
  process.stderr.write(`mcp-tasks: needs Node.js 20.12 or newer (this is ${process.version}).\n  next: install a current Node.js LTS and run it again.\n`);
  process.exit(1);
}
import('../build/src/bin.js').catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('build/src/bin.js')) {
    process.stderr.write('mcp-tasks: not built yet.\n  next: run `npm ci` (or `npm run build`) in the project directory.\n');
    process.exitCode = 1;
    return;
  }
  throw err;
});
