// One seeded source for the random choices tests make (task ids, counts, order), so a failure
// that depends on them can be repeated: the seed is printed when a test file fails, and
// MCP_TASKS_TEST_SEED=<seed> replays it. Keys and secrets stay on node:crypto.
import { randomInt } from 'node:crypto';

const fromEnv = Number.parseInt(process.env.MCP_TASKS_TEST_SEED ?? '', 10);
/** This test file's seed. */
export const TEST_SEED = Number.isInteger(fromEnv) ? fromEnv >>> 0 : randomInt(2 ** 31);
let state = TEST_SEED;

process.on('exit', (code) => {
  if (code !== 0) process.stderr.write(`random choices in this file came from MCP_TASKS_TEST_SEED=${TEST_SEED}: set it to repeat them\n`);
});

/** mulberry32: a small, well-known 32-bit generator; a number in [0, 1). */
export function random(): number {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** n seeded bytes. */
export function seededBytes(n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = Math.floor(random() * 256);
  return b;
}

/** A uniformly random integer in [lo, hi]. */
export const randInt = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));

/** A version-4-shaped UUID from the seeded source. */
export function seededUuid(): string {
  const b = seededBytes(16);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A short seeded token for names and markers (base-36). */
export const seededWord = () => Math.floor(random() * 2 ** 48).toString(36);
