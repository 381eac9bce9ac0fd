// A server that offers no tools (resources and prompts only, no `tools` capability): `server
// check` describes what it offers and exits 0; `tools` says it offers no tools (exit 0, `--json`:
// an empty list). A real SDK server over stdio (test/helpers/resources-only-server.ts).
// Also: an unknown tool's "Its tools:" list says how many it leaves out.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newHome, parseJsonDoc, startDemo, tempDir } from '../helpers/cli.js';

const SERVER = fileURLToPath(new URL('../helpers/resources-only-server.js', import.meta.url));

describe('a server without tools', { timeout: 120_000 }, () => {
  test('server check describes what it offers; tools says it offers none; both exit 0', async () => {
    const h = newHome();
    await h.ok(['server', 'add', 'docs', '--', process.execPath, SERVER]);
    const check = await h.run(['server', 'check', 'docs']);
    assert.equal(check.code, 0, check.stderr);
    assert.match(check.stdout, /^docs: resources-only 1\.0\.0$/m);
    assert.match(check.stdout, /^ {2}offers {4}prompts, resources$/m);
    assert.match(check.stdout, /^ {2}tasks {5}extension not advertised$/m);
    assert.match(check.stdout, /^ {2}tools {5}none: this server offers no tools$/m);
    const checkJson = parseJsonDoc((await h.ok(['--json', 'server', 'check', 'docs'])).stdout);
    assert.deepEqual([checkJson.capabilities, checkJson.offersTools, checkJson.tools, checkJson.tasksExtension], [['prompts', 'resources'], false, [], false]);

    const tools = await h.run(['tools', 'docs']);
    assert.equal(tools.code, 0, tools.stderr);
    assert.equal(tools.stdout, 'docs: this server offers no tools (it offers prompts, resources)\n');
    const toolsJson = await h.run(['--json', 'tools', 'docs']);
    assert.equal(toolsJson.code, 0, toolsJson.stderr);
    assert.deepEqual(parseJsonDoc(toolsJson.stdout), []);
  });

  test('call: a one-line refusal, "offers no tools", exit 1 like an unknown tool, nothing sent and nothing kept', async () => {
    const h = newHome();
    const log = join(tempDir(), 'requests.log');
    writeFileSync(log, '');
    await h.ok(['server', 'add', 'docs', '--env', `RESOURCES_ONLY_LOG=${log}`, '--', process.execPath, SERVER]);
    const r = await h.run(['call', 'docs', 'anything', 'x=1']);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr.split('\n').filter((l) => l.startsWith('mcp-tasks: ') && !/created a vault key/.test(l)).length, 1, r.stderr);
    assert.match(r.stderr, /^mcp-tasks: server "docs" offers no tools \(it offers prompts, resources\), so none is called "anything"; nothing was sent$/m);
    assert.match(r.stderr, /next: See what it offers: `[^`]*server check docs`/);
    const j = await h.run(['--json', 'call', 'docs', 'anything']);
    assert.equal(j.code, 1, j.stderr);
    assert.equal(parseJsonDoc(j.stdout).error.kind, 'not-found');
    const methods = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    assert.ok(methods.length > 0, `the server was reached: ${methods.join(', ')}`);
    assert.ok(!methods.includes('tools/call') && !methods.includes('tools/list'), `nothing was asked of its tools: ${methods.join(', ')}`);
    assert.deepEqual(parseJsonDoc((await h.ok(['--json', 'list', '--all'])).stdout), []);
  });

  test('an unknown tool: "Its tools:" names fifteen and says how many more there are', async () => {
    const demo = await startDemo({ verbose: true });
    try {
      const h = newHome();
      await h.ok(['server', 'add', 'web', '--url', demo.url]);
      const all = (parseJsonDoc((await h.ok(['--json', 'tools', 'web'])).stdout) as Array<{ name: string }>).map((t) => t.name);
      assert.ok(all.length > 15, `the demo has ${all.length} tools`);
      const r = await h.run(['call', 'web', 'no_such_tool']);
      assert.equal(r.code, 1, r.stderr);
      assert.ok(r.stderr.includes(`Its tools: ${all.slice(0, 15).join(', ')}, and ${all.length - 15} more. See \`mcp-tasks tools web\`.`), r.stderr);
      assert.equal(await demo.count('tools/call'), 0);
    } finally {
      await demo.stop();
    }
  });
});
