// A full disk for one CLI process, injected at its file layer (for machines where no small tmpfs
// can be mounted): loaded with `NODE_OPTIONS=--import <this file>`, it makes every write under
// MCP_TASKS_HOME fail with ENOSPC while the file named by MCP_TEST_FULL_DISK_FLAG exists, as a
// file system that has run out of space does: files can still be opened, read and removed, but
// writing bytes (or creating a directory) fails. The test creates the flag file at the moment the
// disk "fills up", so the fault can hit at a chosen point of a command's life.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { resolve, sep } from 'node:path';

const flag = process.env.MCP_TEST_FULL_DISK_FLAG;
const home = process.env.MCP_TASKS_HOME ? resolve(process.env.MCP_TASKS_HOME) : undefined;

if (flag && home) {
  const underHome = (p: fs.PathLike): boolean => {
    const abs = resolve(String(p));
    return abs === home || abs.startsWith(home + sep);
  };
  const full = (): boolean => fs.existsSync(flag);
  const enospc = (syscall: string, p?: fs.PathLike): NodeJS.ErrnoException =>
    Object.assign(new Error(`ENOSPC: no space left on device, ${syscall}${p === undefined ? '' : ` '${String(p)}'`}`), { code: 'ENOSPC', errno: -28, syscall, ...(p === undefined ? {} : { path: String(p) }) });
  /** File descriptors opened under the home. */
  const homeFds = new Set<number>();

  const { openSync, closeSync, writeSync, writeFileSync, appendFileSync, mkdirSync } = fs;
  fs.openSync = ((p: fs.PathLike, ...rest: unknown[]) => {
    const fd = (openSync as (...a: unknown[]) => number)(p, ...rest);
    if (underHome(p)) homeFds.add(fd);
    return fd;
  }) as typeof fs.openSync;
  fs.closeSync = ((fd: number) => {
    homeFds.delete(fd);
    closeSync(fd);
  }) as typeof fs.closeSync;
  fs.writeSync = ((fd: number, ...rest: unknown[]) => {
    if (homeFds.has(fd) && full()) throw enospc('write');
    return (writeSync as (...a: unknown[]) => number)(fd, ...rest);
  }) as typeof fs.writeSync;
  fs.writeFileSync = ((p: fs.PathOrFileDescriptor, ...rest: unknown[]) => {
    if (typeof p !== 'number' && underHome(p as fs.PathLike) && full()) throw enospc('write', p as fs.PathLike);
    return (writeFileSync as (...a: unknown[]) => void)(p, ...rest);
  }) as typeof fs.writeFileSync;
  fs.appendFileSync = ((p: fs.PathOrFileDescriptor, ...rest: unknown[]) => {
    if (typeof p !== 'number' && underHome(p as fs.PathLike) && full()) throw enospc('write', p as fs.PathLike);
    return (appendFileSync as (...a: unknown[]) => void)(p, ...rest);
  }) as typeof fs.appendFileSync;
  fs.mkdirSync = ((p: fs.PathLike, ...rest: unknown[]) => {
    if (underHome(p) && !fs.existsSync(p) && full()) throw enospc('mkdir', p);
    return (mkdirSync as (...a: unknown[]) => string | undefined)(p, ...rest);
  }) as typeof fs.mkdirSync;
  // The CLI imports node:fs as an ES module: its named bindings follow these replacements.
  syncBuiltinESMExports();
}
