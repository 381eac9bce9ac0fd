// `npm run check:commits` on a throw-away repository: a subject of 72 characters passes, one of
// 73 fails naming the commit (the repository lacks the commit the check began at, so the newest
// commit is what it checks).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../../helpers/temp-dirs.js';

const script = join(fileURLToPath(new URL('../../../../', import.meta.url)), 'scripts', 'check-commits.mjs');

function repoWithCommit(subject: string): string {
  const dir = tempDir('mcp-tasks-commits-');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir, encoding: 'utf8' });
  git('init', '-q');
  git('commit', '-q', '--allow-empty', '-m', subject, '-m', 'the body may be as long as it needs to be');
  return dir;
}

test('check:commits passes a 72-character subject and fails a 73-character one', () => {
  const ok = spawnSync(process.execPath, [script], { cwd: repoWithCommit('x'.repeat(72)), encoding: 'utf8' });
  assert.equal(ok.status, 0, ok.stderr);
  const long = spawnSync(process.execPath, [script], { cwd: repoWithCommit('y'.repeat(73)), encoding: 'utf8' });
  assert.equal(long.status, 1);
  assert.match(long.stderr, /subject is 73 characters \(at most 72\)/);
});
