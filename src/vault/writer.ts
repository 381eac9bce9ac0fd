// Who is writing a `submitting` record: the writer's pid and start time, so `recover` can call
// the submission in doubt as soon as that process is gone instead of after a fixed age. The start
// time tells a live writer from an unrelated process that was given the same pid later.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { VaultRecord } from './vault-record.js';
import { osPlatform, ownPid, ownStartMs, pidAlive } from '../fs/own-process.js';

export interface WriterStamp {
  pid: number;
  /** When the process started, in ms since the epoch (to within the tolerance below). */
  startedAtMs: number;
  /** Set in a team store, where records from many machines meet: a pid means something only on its host. */
  host?: string;
}

/** How a live process with this pid looks now: undefined when there is none. */
export interface ProcessInfo {
  /** Undefined where the platform does not tell a process's start time. */
  startedAtMs?: number;
}
export type ProcessProbe = (pid: number) => ProcessInfo | undefined;

/** Start times are read in clock ticks on Linux (records before this release estimated theirs from uptime): allow for both. */
const START_TOLERANCE_MS = 2_000;

let ownStart: number | undefined;

/**
 * This process as the writer of a record. Its start time comes from where systemProcessProbe
 * reads it (the kernel's, on Linux): estimated from Node's uptime it was later by however long
 * the process took to start Node, seconds on a loaded runner, and a live submitter looked gone.
 */
export function currentWriter(): WriterStamp {
  ownStart ??= (osPlatform === 'linux' ? linuxStartMs(ownPid) : undefined) ?? ownStartMs(Date.now());
  return { pid: ownPid, startedAtMs: ownStart };
}

let bootMs: number | undefined;
function linuxStartMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]); // field 22, starttime, in clock ticks since boot
    if (bootMs === undefined) {
      const btime = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
      if (!btime) return undefined;
      bootMs = Number(btime[1]) * 1000;
    }
    // USER_HZ is 100 on every Linux Node runs on.
    return Number.isFinite(ticks) ? bootMs + ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/** The system's view of a pid (signal 0: exists; EPERM means it exists but is not ours). */
export const systemProcessProbe: ProcessProbe = (pid) => {
  if (!pidAlive(pid)) return undefined;
  const startedAtMs = osPlatform === 'linux' ? linuxStartMs(pid) : undefined;
  return startedAtMs === undefined ? {} : { startedAtMs };
};

/**
 * True when the process that wrote this `submitting` record is certainly gone: no process has
 * its pid, or the one that has it started at another time. False when it may still be running
 * or the record names no writer (an older record: the caller falls back to its age).
 */
export function writerGone(record: Pick<VaultRecord, 'writer'>, probe: ProcessProbe = systemProcessProbe): boolean {
  const w = record.writer;
  if (!w || !Number.isInteger(w.pid) || w.pid <= 0) return false;
  // Another machine's process cannot be asked about from here: its record ages out instead.
  if (w.host !== undefined && w.host !== hostname()) return false;
  const now = probe(w.pid);
  if (!now) return true;
  if (now.startedAtMs === undefined || !Number.isFinite(w.startedAtMs)) return false;
  return Math.abs(now.startedAtMs - w.startedAtMs) > START_TOLERANCE_MS;
}

/** A record still `submitting` after this long belongs to a process that died mid-submit (or has no writer stamp to ask). */
export const STALE_SUBMITTING_MS = 2 * 60 * 1000;

/**
 * The phase to report and decide on: a `submitting` record whose writer is gone (killed after the
 * intent was written, maybe after the request left) is in doubt, for `list`, `show`, `--json` and
 * `recover` alike. Every other phase is as stored.
 */
export function reportedPhase<R extends Pick<VaultRecord, 'phase' | 'writer' | 'updatedAt'>>(record: R, nowMs: number, probe: ProcessProbe = systemProcessProbe): VaultRecord['phase'] {
  if (record.phase !== 'submitting') return record.phase;
  const stale = writerGone(record, probe) || nowMs - Date.parse(record.updatedAt) > STALE_SUBMITTING_MS;
  return stale ? 'in-doubt' : 'submitting';
}

/** Why a dead submitter's record is in doubt, in words (it has no reason of its own). */
export const SUBMITTER_GONE = 'the submitting process stopped before a handle came back: the request may have reached the server';
