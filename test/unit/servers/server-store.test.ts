// servers.json on real files: a file written by 0.2.0 and earlier caches `discovered.era` (the
// SDK's 'modern' | 'legacy'); it is read as `discovered.generation`, and written in that form.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { ServerStore, serversPath } from '../../../src/servers/server-store.js';
import type { HttpServerEntry } from '../../../src/servers/server-entry.js';
import { tempDir } from '../../helpers/temp-dirs.js';

const checkedAt = '2026-11-30T10:00:00.000Z';
const discover = { supportedVersions: ['2026-07-28'], capabilities: { tools: {} } };

/** A servers.json as 0.2.0 wrote it: the generation cached as `era`. */
function oldFormatHome(): string {
  const home = tempDir('mcp-tasks-servers-');
  const entry = (name: string, discovered: Record<string, unknown>) => ({ name, transport: 'http', url: `http://127.0.0.1:1/${name}`, discovered });
  const servers = {
    modern: entry('modern', { protocolVersion: '2026-07-28', era: 'modern', tasksAdvertised: true, discover, checkedAt }),
    legacy: entry('legacy', { protocolVersion: '2025-11-25', era: 'legacy', tasksAdvertised: false, checkedAt }),
    unknown: entry('unknown', { protocolVersion: '2026-07-28', era: 'future', tasksAdvertised: true, checkedAt }),
  };
  writeFileSync(serversPath(home), JSON.stringify({ servers }, null, 2));
  return home;
}

test('an old servers.json is read: discovered.era becomes discovered.generation; a cache naming neither is dropped', () => {
  const store = new ServerStore(oldFormatHome());
  const modern = store.get('modern');
  assert.equal(modern.discovered?.generation, '2026-07-28');
  assert.deepEqual(modern.discovered?.discover, discover, 'the discover result is kept: no probe needed');
  assert.equal('era' in (modern.discovered ?? {}), false);
  assert.equal(store.get('legacy').discovered?.generation, '2025-11-25');
  assert.equal(store.get('unknown').discovered, undefined, 'an era no version wrote is no cache: probe again');
  assert.deepEqual(store.list().map((e) => [e.name, e.discovered?.generation]), [['demo', undefined], ['modern', '2026-07-28'], ['legacy', '2025-11-25'], ['unknown', undefined]]);
});

test('the next write stores discovered.generation only, for every entry', async () => {
  const home = oldFormatHome();
  const store = new ServerStore(home);
  const legacy = store.get('legacy') as HttpServerEntry;
  await store.rememberGeneration('legacy', { ...legacy.discovered!, protocolVersion: '2025-11-25', checkedAt: '2026-12-01T00:00:00.000Z' }, legacy);
  const onDisk = (JSON.parse(readFileSync(serversPath(home), 'utf8')) as { servers: Record<string, { discovered?: Record<string, unknown> }> }).servers;
  assert.equal(onDisk.legacy!.discovered!.generation, '2025-11-25');
  assert.equal(onDisk.legacy!.discovered!.checkedAt, '2026-12-01T00:00:00.000Z');
  assert.equal(onDisk.modern!.discovered!.generation, '2026-07-28', 'an entry the write did not touch is upgraded too');
  for (const name of ['modern', 'legacy']) assert.equal('era' in onDisk[name]!.discovered!, false, `${name}: no era is written`);
  assert.equal(onDisk.unknown!.discovered, undefined);
  assert.equal(new ServerStore(home).get('modern').discovered?.generation, '2026-07-28');
});
