// Throw-away directories for tests: each is removed when the test process exits (kept when
// MCP_TASKS_KEEP_TEST_DIRS is set, to look at after a failure).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set<string>();
process.on('exit', () => {
  if (!process.env.MCP_TASKS_KEEP_TEST_DIRS) for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A fresh temporary directory, removed when the test process exits. */
export function tempDir(prefix = 'mcp-tasks-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Remove `dir` (made by someone else, a child process say) when the test process exits. */
export function removeAtExit(dir: string): void {
  made.add(dir);
}
