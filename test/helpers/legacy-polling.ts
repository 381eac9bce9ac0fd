// Shared by the 2025-11-25 TaskSession integration tests: follow a task at the server's own
// pollInterval (the test runner's timeout bounds the wait), and read a CallToolResult's text.
import { isTerminalStatus } from '../../src/session/task-session.js';
import type { LegacyTaskSession } from '../../src/session/legacy/legacy-session.js';
import type { TaskSnapshot } from '../../src/tasks/task-snapshot.js';

export const terminal = (s: TaskSnapshot): boolean => isTerminalStatus(s.status);

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function pollUntil(session: LegacyTaskSession, taskId: string, until: (s: TaskSnapshot) => boolean): Promise<TaskSnapshot> {
  for (;;) {
    const s = await session.getTask(taskId);
    if (until(s)) return s;
    await delay(s.pollIntervalMs ?? 500);
  }
}

export const resultText = (r: Record<string, unknown> | undefined): string => ((r?.content as Array<{ text?: string }> | undefined) ?? []).map((c) => c.text ?? '').join('\n');
