// What use cases return (the types live in output/outcomes.ts, below app/, so presenters read
// them without importing the use cases) and the one constructor of a task report.
import type { Observed, TaskEnd, TaskReport, TaskTarget } from '../output/outcomes.js';
export type * from '../output/outcomes.js';

export const report = (target: TaskTarget, end: TaskEnd | Observed, extra: Partial<Pick<TaskReport, 'notes' | 'statePrinted' | 'jsonExtra'>> = {}): TaskReport => ({
  kind: 'task',
  target,
  end,
  notes: extra.notes ?? [],
  ...(extra.statePrinted ? { statePrinted: true } : {}),
  ...(extra.jsonExtra ? { jsonExtra: extra.jsonExtra } : {}),
});
