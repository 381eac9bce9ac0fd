// The task-session seam holds only if nobody goes around it: commands and use cases reach the
// wire and the transports through session/ alone, and nothing below cli/ reads `process`
// (the Context carries stdin, streams, terminal width, platform, clock and sleep).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../../../../src/', import.meta.url));
const filesIn = (dir: string) => readdirSync(join(src, dir)).filter((n) => n.endsWith('.ts')).map((n) => `${dir}/${n}`);
const code = (file: string) =>
  readFileSync(join(src, file), 'utf8')
    .split('\n')
    .filter((l) => !/^\s*(\/\/|\*|\/\*\*)/.test(l))
    .join('\n');

test('commands and app/ import nothing from protocol/ or connection/ (error naming and sign-in aside)', () => {
  const offenders: string[] = [];
  for (const file of [...filesIn('cli/commands'), ...filesIn('app')]) {
    // remote-error.ts names wire errors, local-error.ts the typed failures of the layers below.
    if (file === 'app/remote-error.ts' || file === 'app/local-error.ts') continue;
    for (const m of code(file).matchAll(/(?:from\s+|import\(\s*)['"]([^'"]+)['"]/g)) {
      // Sign-in (connection/oauth-*) is about the server's door, not a task: a seam of its own is a follow-up.
      if (/(^|\/)(protocol|connection)\//.test(m[1]!) && !/\/connection\/oauth-/.test(m[1]!)) offenders.push(`${file} → ${m[1]}`);
    }
  }
  assert.deepEqual(offenders, []);
});

test('no process.* in app/, output/, session/ or prompts/', () => {
  const offenders = ['app', 'output', 'session', 'prompts'].flatMap(filesIn).filter((f) => /\bprocess\./.test(code(f)));
  assert.deepEqual(offenders, []);
});
