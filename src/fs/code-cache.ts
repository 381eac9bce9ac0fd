// A CommonJS file run with a V8 code cache of its own, made as the first process using it exits:
// it then holds the functions compiled while the file ran as well as its top level, so the next
// process neither parses nor compiles them again (Node 20 has no compile cache at all). Best
// effort: a cache that is missing, rejected by V8 or cannot be written only makes a start slower.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { atOwnExit, ownPid, runtimeId } from './own-process.js';

/** `require(file)`, compiled from `<cacheDir>/<name>-<hash>.v8` when that holds this file's code for this Node. */
export function requireWithCodeCache<T>(file: string, cacheDir: string, name: string): T {
  const source = readFileSync(file, 'utf8');
  // Named by the source itself and the runtime: V8 checks a cache against the source's length only.
  const cacheFile = join(cacheDir, `${name}-${createHash('sha256').update(source).update(runtimeId).digest('hex').slice(0, 20)}.v8`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch { /* first run on this runtime, or the cache was cleared */ }
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, ...(cachedData ? { cachedData } : {}) });
  const mod = { exports: {} as T };
  (script.runInThisContext() as (e: T, r: NodeJS.Require, m: { exports: T }, f: string, d: string) => void)(mod.exports, createRequire(file), mod, file, dirname(file));
  if (!cachedData || script.cachedDataRejected) {
    atOwnExit(() => {
      const tmp = `${cacheFile}.${ownPid}.${randomBytes(4).toString('hex')}.tmp`;
      try {
        mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
        writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
        // A rename: a process starting meanwhile reads the old cache or the new one, never half of one.
        renameSync(tmp, cacheFile);
      } catch {
        try {
          rmSync(tmp, { force: true });
        } catch { /* no directory to leave it in */ }
      }
    });
  }
  return mod.exports;
}
