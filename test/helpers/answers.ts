// Helpers shared by the answer tests: start a task that waits for input, write an answers
// file, read what the vault and the server show.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJsonDoc, type Home } from './cli.js';

/** Start `tool` on `server` without following it (no TTY); returns the taskId. */
export async function startTask(h: Home, server: string, tool: string, args: string[], label: string): Promise<string> {
  const r = await h.run(['--json', 'call', server, tool, ...args, '--detach', '--label', `job=${label}`]);
  assert.equal(r.code, 0, r.stderr);
  const doc = parseJsonDoc(r.stdout);
  assert.equal(doc.status, 'input_required', `${tool} should start by asking for input`);
  return doc.taskId as string;
}

/** Follow a task to its end without a TTY. */
export const finish = (h: Home, ref: string) => h.run(['watch', '--timeout', '20s', '--', ref]);

/** Write an answers file in the home dir (raw text, or JSON for anything else). */
export function answersFile(h: Home, content: unknown): string {
  const file = join(h.dir, `answers-${randomUUID()}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

export const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });

/** What the server lists as pending now (`get --json`). */
export async function pendingKeys(h: Home, ref: string): Promise<string[]> {
  const doc = parseJsonDoc((await h.run(['--json', 'get', '--', ref])).stdout);
  return Object.keys(doc.inputRequests ?? {}).sort();
}

/** Every vault record, active or not. */
export async function allRecords(h: Home): Promise<any[]> {
  const r = await h.run(['--json', 'list', '--all']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}
