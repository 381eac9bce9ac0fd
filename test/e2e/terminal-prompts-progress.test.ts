// Prompts, the spinner and `watch` of several tasks, in a REAL pseudo-terminal (the CLI under
// `script`): keys are typed, the terminal is resized through its tty, and what is asserted is
// what a person sees, and what the server then holds. Every wait is on screen content.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTask, finish, pendingKeys, allRecords } from '../helpers/answers.js';
import { homeWithServer, parseJsonDoc, sleep, startDemo, type DemoServer } from '../helpers/cli.js';
import { KEY, spawnPty } from '../helpers/pty.js';
import { methodOf, startProxy, type Proxy } from '../helpers/proxy.js';
import { wrappedLines } from '../helpers/screen.js';
import { typeableRef } from '../../src/vault/vault-record.js';

/** Where each string first appears on the screen from `from` on (-1: not there). */
const positions = (screen: string, from: number, ...needles: Array<string | RegExp>): number[] =>
  needles.map((n) => {
    const rest = screen.slice(from);
    const i = typeof n === 'string' ? rest.indexOf(n) : (rest.match(n)?.index ?? -1);
    return i < 0 ? -1 : i + from;
  });

describe('prompts, spinner and watch in a real terminal', { concurrency: 2 }, () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemo({ verbose: true });
  });
  after(async () => {
    await demo?.stop();
  });

  test('a form: the server\'s question and its field come first, decline and cancel are choices after it', async () => {
    const h = await homeWithServer('web', demo.url);
    await startTask(h, 'web', 'confirm_delete', ['filename=q.txt'], 'q');
    const pty = spawnPty(['answer', 'q'], { home: h.dir });
    try {
      await pty.waitFor('Input request "confirm"');
      await pty.waitFor(/Confirm deletion[\s\S]*Cancel/);
      const screen = pty.text();
      const start = screen.indexOf('Input request "confirm"');
      const [question = -1, field = -1, yes = -1, no = -1, decline = -1, cancel = -1] = positions(screen, start, 'Delete q.txt?', 'Confirm deletion', /\bYes\b/, /\bNo\b/, 'Decline', 'Cancel');
      assert.ok(question > 0 && question < field, `the server's message comes first\n${screen}`);
      assert.ok(field < yes && yes < no && no < decline && decline < cancel, `the field's question, its answers, then Decline and Cancel\n${screen}`);
      assert.doesNotMatch(screen, /Fill in the form/, 'no menu before the question');
      await pty.type(KEY.down, KEY.enter); // Yes, [No], Decline
      await pty.waitFor('answered "confirm"');
      const end = await pty.done;
      assert.equal(end.code, 0, end.text);
    } finally {
      pty.kill();
    }
    const w = await finish(h, 'q');
    assert.match(w.stdout, /Deletion of q\.txt not confirmed \(decline\); nothing was deleted/, 'Decline was sent as a decline');
  });

  test('a URL elicitation: Enter alone is "not yet": nothing is sent and the task still waits', async () => {
    const h = await homeWithServer('web', demo.url);
    await startTask(h, 'web', 'approve_deploy', ['service=billing'], 'url');
    const pty = spawnPty(['answer', 'url'], { home: h.dir });
    try {
      await pty.waitFor(/Have you completed the step at this URL\?[\s\S]*Cancel/);
      const screen = pty.text();
      assert.match(screen, /open: https:\/\/deploy\.example\.com\/approve\/\S+/, 'the URL is shown, its origin first');
      const [notYet = -1, yes = -1] = positions(screen, screen.indexOf('Have you completed'), 'Not yet', 'Yes, I opened it');
      assert.ok(notYet > 0 && notYet < yes, `"Not yet" is the first choice\n${screen}`);
      await pty.type(KEY.enter); // a stray Enter
      await pty.waitFor('nothing sent');
      const end = await pty.done;
      assert.equal(end.code, 5, end.text);
      assert.doesNotMatch(end.text, /answered "approval"/);
    } finally {
      pty.kill();
    }
    const g = await h.run(['--json', 'get', 'url']);
    assert.equal(parseJsonDoc(g.stdout).status, 'input_required', g.stderr);
    assert.deepEqual(await pendingKeys(h, 'url'), ['approval']);
  });

  test('the spinner shows the task\'s age, and a resize to a narrow width keeps it on one line', async () => {
    const h = await homeWithServer('web', demo.url);
    const title = 'A title long enough to need more than thirty columns on its own';
    const d = await h.run(['--json', 'call', 'web', 'generate_report', 'seconds=600', `title=${title}`, '--detach', '--label', 'job=spin']);
    assert.equal(d.code, 0, d.stderr);
    const createdAt = Date.parse(parseJsonDoc(d.stdout).createdAt);
    // The task is made older than any watch of it can be when its first frame is drawn.
    while (Date.now() - createdAt < 6000) await sleep(200);
    const pty = spawnPty(['watch', 'spin'], { home: h.dir, cols: 120 });
    try {
      const first = await pty.waitFor(/generate_report on web: working · Collecting data[^\n]*\((\d+)s\)/);
      const age = Number(/\((\d+)s\)$/.exec(first)![1]);
      assert.ok(age >= 6, `the timer is the task's age (created over 6 s ago), not the watch's: ${first}`);
      pty.resize(30);
      // Drawn at the new width: the message and the label give way to the status and the age.
      await pty.waitFor(/working \((\d+)s\)/);
      const fitted = pty.raw.length;
      const ages = new Set<string>();
      while (ages.size < 3) ages.add(/working \((\d+)s\)[^(]*$/.exec(await pty.waitFor(/working \(\d+s\)/))?.[1] ?? '');
      assert.deepEqual(wrappedLines(pty.raw.slice(fitted), 30), [], 'a spinner frame wrapped at 30 columns');
      pty.kill();
    } finally {
      pty.kill();
    }
    await h.run(['cancel', 'spin']);
  });

  test('a narrow terminal from the start: the spinner never wraps', async () => {
    const h = await homeWithServer('web', demo.url);
    const pty = spawnPty(['call', 'web', 'generate_report', 'seconds=600', 'title=Another rather long title for a report'], { home: h.dir, cols: 40 });
    try {
      await pty.waitFor(/\(\d+s\)/);
      const ages = new Set<string>();
      while (ages.size < 2) ages.add(/\((\d+)s\)$/.exec(await pty.waitFor(/\(\d+s\)/))?.[1] ?? '');
      const start = pty.raw.indexOf('generate_report');
      assert.deepEqual(wrappedLines(pty.raw.slice(start), 40), [], 'a spinner frame wrapped at 40 columns');
    } finally {
      pty.kill();
    }
  });

  test('a Retry-After wait counts down on the spinner', async () => {
    // The proxy answers the first few tasks/get with HTTP 429 Retry-After: 4, then lets them through.
    let refusals = 0;
    const proxy: Proxy = await startProxy(demo.url, {
      answer: (req) => (methodOf(req.body) === 'tasks/get' && refusals++ < 1 ? { status: 429, headers: { 'retry-after': '4' }, body: '' } : undefined),
    });
    try {
      const h = await homeWithServer('slow', proxy.url);
      const pty = spawnPty(['call', 'slow', 'slow_compute', 'seconds=30'], { home: h.dir });
      try {
        // It counts down: 4, then a lower second (a stalled machine may skip one, never count up).
        await pty.waitFor(/asking again in 4 s/);
        await pty.waitFor(/asking again in [1-3] s/);
        await pty.waitFor(/slow_compute on slow: working · Computing/);
      } finally {
        pty.kill();
      }
    } finally {
      await proxy.close();
    }
  });

  test('watch --active with two tasks waiting: one prompt at a time, results held while it is open, one Ctrl-C → 130 with the refs', async () => {
    const h = await homeWithServer('web', demo.url, []);
    await startTask(h, 'web', 'confirm_delete', ['filename=one.txt'], 'one');
    await startTask(h, 'web', 'approve_deploy', ['service=two'], 'two');
    // A third task that only ends when the test says so (a cancel), while a prompt is open.
    const long = await h.run(['--json', 'call', 'web', 'slow_compute', 'seconds=600', '--detach', '--label', 'job=long']);
    assert.equal(long.code, 0, long.stderr);
    const pty = spawnPty(['watch', '--active'], { home: h.dir, timeoutMs: 180_000 });
    try {
      const firstAsk = await pty.waitFor(/Input request "(confirm|approval)"/);
      const firstKey = /"(\w+)"/.exec(firstAsk)![1]!;
      const secondKey = firstKey === 'confirm' ? 'approval' : 'confirm';
      await pty.waitFor(firstKey === 'confirm' ? /Confirm deletion[\s\S]*Cancel/ : /Have you completed[\s\S]*Cancel/);
      const openedAt = pty.text().length;
      // The third task ends while the prompt is open; the watch's next poll of it (the only task
      // polling now) sees the end, yet prints nothing into the prompt.
      let closed = false;
      void pty.done.finally(() => (closed = true)).catch(() => {});
      const c = await h.run(['cancel', 'long']);
      assert.equal(c.code, 0, c.stderr);
      // Wait until the task's end is in the vault (the cancelled state, which the watch observes on its next poll).
      const observed = async () => (await allRecords(h)).find((r) => r.labels.job === 'long')?.status === 'cancelled';
      while (!closed && !(await observed())) await sleep(300);
      assert.ok(!closed, pty.text());
      const during = pty.text().slice(openedAt);
      assert.doesNotMatch(during, /Input request/, `a second prompt opened while the first was open\n${during}`);
      assert.doesNotMatch(during, /slow_compute|\[\d+s\]/, `output printed into the open prompt\n${during}`);
      // Answer the first (Decline: Yes, [No], Decline — or Not yet, Open, Yes, Decline).
      if (firstKey === 'confirm') await pty.type(KEY.down, KEY.enter);
      else await pty.type(KEY.down, KEY.down, KEY.down, KEY.enter);
      await pty.waitFor(`answered "${firstKey}"`);
      await pty.waitFor(/slow_compute on web: cancelled/); // held, printed once the prompt closed
      await pty.waitFor(`Input request "${secondKey}"`);
      await pty.waitFor(secondKey === 'confirm' ? /Confirm deletion[\s\S]*Cancel/ : /Have you completed[\s\S]*Cancel/);
      await pty.type(KEY.ctrlC);
      const end = await pty.done;
      assert.equal(end.code, 130, end.text);
      const records = await allRecords(h);
      const waiting = records.find((r) => r.labels.job === (secondKey === 'confirm' ? 'one' : 'two'));
      const ref = typeableRef(waiting);
      const tail = end.text.slice(end.text.lastIndexOf('interrupted'));
      assert.match(tail, new RegExp(`waiting for input: [^\\n]*${ref.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')}`), tail);
      assert.match(tail, /`mcp-tasks watch --active`/, 'the command that resumes');
      assert.equal((end.text.match(/Input request/g) ?? []).length, 2, 'no prompt opened after Ctrl-C');
    } finally {
      pty.kill();
    }
  });
});
