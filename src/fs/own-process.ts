// What locks, temporary names and the built-in demo server need of the operating system's process
// table: this process's pid and start time, whether another pid is alive, the platform, the node
// binary and its major version, and a monotonic clock for spans of time (a timeout's running time,
// the vault's own timing); and what runs as it exits, or must finish before it does. They are
// facts of the running process, not of the user's environment (env, argv, stdio, cwd and the wall
// clock that records and messages carry come from the Context), so below cli/ they are read here
// and nowhere else (check:architecture holds every other module to that).

/** This process's pid: the owner written into lock files and temporary names. */
export const ownPid: number = process.pid;

/** When this process started, in ms since the epoch (from its uptime, to within a few ms). */
export function ownStartMs(now: number): number {
  return Math.round(now - process.uptime() * 1000);
}

/** True when a process with this pid exists (signal 0; EPERM: it exists but is not ours). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The operating system this binary runs on. */
export const osPlatform: NodeJS.Platform = process.platform;

/** This Node's major version (20, 22, 24). */
export const nodeMajor: number = Number(process.versions.node.split('.')[0]);

/**
 * Milliseconds on this process's monotonic clock, for spans of time (timeouts that count running
 * time, the vault's own timing). Not `performance.now()`: its first use loads Node's performance
 * module, about 1.7 ms of a command's start.
 */
export const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/** The node binary running this process (the built-in demo server is started with the same one). */
export const nodeBinary: string = process.execPath;

/** The runtime whose compiled code a V8 code cache holds: Node's version and the CPU architecture. */
export const runtimeId = `${process.version} ${process.arch}`;

/** Run `fn` as this process exits, however it ends normally (synchronous work only). */
export function atOwnExit(fn: () => void): void {
  process.once('exit', fn);
}

const unfinished = new Set<Promise<void>>();

/**
 * Work a command leaves running when it returns that the process must still finish: the bin
 * exits as soon as the command returns (bin.ts), so work nobody awaits is cut off unless it is
 * named here. Failures are the work's own business: it is only waited for.
 */
export function finishBeforeExit(work: Promise<unknown>): void {
  const settled: Promise<void> = work.then(
    () => void unfinished.delete(settled),
    () => void unfinished.delete(settled),
  );
  unfinished.add(settled);
}

/** Settles when every piece of work given to finishBeforeExit has, including any it started meanwhile. */
export async function unfinishedWork(): Promise<void> {
  while (unfinished.size > 0) await Promise.all(unfinished);
}
