// The CI answer path and the hints around it (issue 14): `answer --template` round-trips through
// `--answers`, inline answers are typed by the form's schema, the no-TTY hint prints exactly
// these commands, and Ctrl-C at a prompt after the task exists points to `answer <ref>`, never
// to running the call again. The demo server is real; only the CLI runs in this process.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDemo, tempDir, tempHome, type DemoServer } from '../helpers/cli.js';
import { runInProcess, scriptedPrompter } from '../helpers/in-process.js';
import { PromptAbortedError, type Prompter } from '../../src/prompts/prompter.js';
import { detectInvocation } from '../../src/invocation.js';
import { cmd, hint, renderHint } from '../../src/hint.js';

describe('in process: answering from CI', () => {
  let demo: DemoServer;
  let home: string;
  const cli = (args: string[], opts: Parameters<typeof runInProcess>[1] = {}) => runInProcess(args, { home, ...opts });
  before(async () => {
    demo = await startDemo();
    home = tempHome();
    assert.equal((await cli(['server', 'add', 'web', '--url', demo.url])).code, 0);
  });
  after(async () => {
    await demo.stop();
  });

  test('the template round-trips: --template, filled in, then --answers is accepted', async () => {
    const call = await cli(['call', 'web', 'confirm_delete', 'filename=a.txt', '--label', 'job=rt']);
    assert.equal(call.code, 5, call.stderr);
    const ref = /answer (\S+) --template > answers\.json/.exec(call.stderr)?.[1];
    assert.ok(ref, `the no-TTY hint names the template command:\n${call.stderr}`);
    // The hint prints exactly the inline and file commands, typed from the form's schema.
    assert.ok(call.stderr.includes(`\`mcp-tasks answer ${ref} confirm=true\``), call.stderr);
    assert.ok(call.stderr.includes(`\`mcp-tasks answer ${ref} --answers answers.json\``), call.stderr);

    const t = await cli(['answer', ref, '--template']);
    assert.equal(t.code, 0, t.stderr);
    const template = JSON.parse(t.stdout);
    assert.deepEqual(Object.keys(template), ['confirm']);
    assert.equal(template.confirm.action, 'accept');
    assert.match(template.confirm.content.confirm, /^<fill in: confirm: boolean, required — Confirm deletion>$/);

    // Left as it is, the skeleton fails validation and nothing is sent.
    const dir = tempDir();
    const file = join(dir, 'answers.json');
    writeFileSync(file, t.stdout);
    const unfilled = await cli(['answer', ref, '--answers', file]);
    assert.equal(unfilled.code, 1);
    assert.match(unfilled.stderr, /content\.confirm still holds the template's placeholder/);
    assert.equal((await cli(['get', ref])).code, 5, 'still waiting: nothing was sent');

    template.confirm.content.confirm = true;
    writeFileSync(file, JSON.stringify(template));
    const filled = await cli(['answer', ref, '--answers', file]);
    assert.equal(filled.code, 0, filled.stderr);
    assert.match(filled.stderr, /answered "confirm"/);
    const w = await cli(['watch', ref]);
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stdout, /Deleted a\.txt/);
  });

  test('"Not yet" at a URL step says the command ends here (exit 5) and how to come back; that command answers it', async () => {
    const tty = { env: { CI: undefined }, stdinIsTTY: true };
    const call = await cli(['call', 'web', 'approve_deploy', 'service=billing'], { ...tty, prompter: scriptedPrompter(['later']) });
    assert.equal(call.code, 5, call.stderr);
    const back = /nothing sent; this command ends here \(exit 5\) and the task keeps waiting for this answer: come back with `mcp-tasks answer (\S+)`\./.exec(call.stderr);
    assert.ok(back, call.stderr);
    const answered = await cli(['answer', back[1]!], { ...tty, prompter: scriptedPrompter(['accept']) });
    assert.equal(answered.code, 0, answered.stderr);
    assert.match(answered.stderr, /answered "approval"/);
    assert.match((await cli(['watch', back[1]!])).stdout, /Deployed billing/);
  });

  test('inline answers are typed by the schema; KEY.field picks the request when several are pending', async () => {
    await cli(['call', 'web', 'confirm_delete', 'filename=b.txt', '--label', 'job=inline1']);
    const one = await cli(['answer', 'inline1', 'confirm=true']);
    assert.equal(one.code, 0, one.stderr);
    // "true" became the boolean the form asks for: the demo deletes only on confirm === true.
    assert.match((await cli(['watch', 'inline1'])).stdout, /Deleted b\.txt/);

    await cli(['call', 'web', 'multi_input', '--label', 'job=inline2']);
    const ambiguous = await cli(['answer', 'inline2', 'name=Ada']);
    assert.equal(ambiguous.code, 1);
    assert.match(ambiguous.stderr, /several requests are pending \("name", "color"\): name one as KEY\.field=value/);
    const wrongChoice = await cli(['answer', 'inline2', 'name.name=Ada', 'color.color=purple']);
    assert.equal(wrongChoice.code, 1);
    assert.match(wrongChoice.stderr, /color must be one of red, green, blue/);
    const both = await cli(['answer', 'inline2', 'name.name=Ada', 'color.color=green']);
    assert.equal(both.code, 0, both.stderr);
    assert.match((await cli(['watch', 'inline2'])).stdout, /Got name=Ada color=green/);
  });

  test('Ctrl-C at a prompt inside call, after the task exists: the hint is answer <ref>, not "run it again"', async () => {
    const aborting: Prompter = { ...scriptedPrompter([]), confirm: () => Promise.reject(new PromptAbortedError()), select: () => Promise.reject(new PromptAbortedError()) };
    const r = await cli(['call', 'web', 'confirm_delete', 'filename=c.txt', '--label', 'job=ctrlc'], { stdinIsTTY: true, env: { CI: undefined }, prompter: aborting });
    assert.equal(r.code, 130, r.stderr);
    const ref = /`mcp-tasks answer (\S+)`/.exec(r.stderr)?.[1];
    assert.ok(ref, r.stderr);
    assert.doesNotMatch(r.stderr, /run the (same )?command again/i);
    // The ref printed is the task that exists: it is still waiting for the answer.
    assert.equal((await cli(['get', ref])).code, 5);
  });
});

describe('the command as invoked', () => {
  test('npx, a bin on PATH, or node and the script', () => {
    assert.equal(detectInvocation({ npm_command: 'exec' }, '/x/node_modules/.bin/mcp-tasks'), 'npx mcp-tasks');
    assert.equal(detectInvocation({ npm_lifecycle_event: 'npx' }, undefined), 'npx mcp-tasks');
    const bin = tempDir();
    writeFileSync(join(bin, 'mcp-tasks'), '');
    assert.equal(detectInvocation({ PATH: `/nowhere:${bin}` }, join(bin, 'mcp-tasks')), 'mcp-tasks');
    assert.equal(detectInvocation({ PATH: '/nowhere' }, '/opt/my dir/bin/mcp-tasks.js'), "node '/opt/my dir/bin/mcp-tasks.js'");
    assert.equal(renderHint(hint`Run \`${cmd('get', 'abc')}\`; mcp-tasks never answers twice`, 'npx mcp-tasks'), 'Run `npx mcp-tasks get abc`; mcp-tasks never answers twice');
  });
});
