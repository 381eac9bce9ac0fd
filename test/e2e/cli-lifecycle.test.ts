// The task lifecycle across processes: --detach, then get/watch/cancel from new processes (the
// built-in stdio `demo` and Streamable HTTP), refs by label, prefix and full id, taskIds handed
// over on stdin, and pollIntervalMs honoured (counted in the requests the server saw).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addHttpServer, newHome, parseJsonDoc, startDemo, type DemoRequest, type DemoServer, homeWithServer } from '../helpers/cli.js';

/** Gaps between consecutive requests, in ms. */
const gaps = (reqs: DemoRequest[]) => reqs.slice(1).map((r, i) => r.at - reqs[i]!.at);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

describe('task lifecycle across processes', { concurrency: 4 }, () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemo();
  });
  after(async () => {
    await demo?.stop();
  });

  test('stdio demo: --detach, then get and watch from new processes', async () => {
    const h = newHome();
    // Long enough to still be running when the next process asks, even on a loaded machine.
    const d = await h.run(['call', 'demo', 'slow_compute', 'seconds=4', '--detach', '--label', 'job=nightly']);
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stdout, /slow_compute on demo: task started \(working\)/);
    // The printed hint names a ref that works from another process.
    const hinted = /follow it: +mcp-tasks watch (\S+)/.exec(d.stdout)?.[1];
    assert.ok(hinted, d.stdout);
    // Human output names the task by a shortened id (it ends up in scrollback and CI logs); the
    // whole handle is in the vault, and `show` prints it.
    const [listed] = parseJsonDoc((await h.run(['--json', 'list'])).stdout) as Array<{ taskId: string }>;
    const id = listed!.taskId;
    assert.match(d.stdout, new RegExp(`task ${id.slice(0, 10)}… \\(kept in the vault; the whole id: mcp-tasks show ${hinted}\\)`));
    assert.ok(!d.stdout.includes(id), d.stdout);

    const g = await h.run(['get', 'nightly']);
    assert.equal(g.code, 0, g.stderr);
    // Normally still working; on a very loaded machine the next process may start after the end.
    const state = /slow_compute on demo: (working|completed)/.exec(g.stdout)?.[1];
    assert.ok(state, g.stdout);
    if (state === 'working') assert.match(g.stdout, /Computing slow_compute \(4s\)/);

    const w = await h.run(['watch', '--', hinted]);
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stdout, /slow_compute on demo: completed/);
    assert.match(w.stdout, /Computed slow_compute after 4 second/);
    assert.match(w.stderr, /slow_compute on demo: completed/);

    // The terminal result is in the vault: get by an 8-character prefix and show by full id report it.
    const again = await h.run(['--json', 'get', '--', id.slice(0, 8)]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(parseJsonDoc(again.stdout).status, 'completed');
    assert.ok(!w.stdout.includes(id) && !w.stderr.includes(id), 'watch does not print the whole handle');
    const show = await h.run(['show', '--', id]);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, new RegExp(`^task +${id}$`, 'm'));
    assert.match(show.stdout, /phase\s+terminal/);
    assert.match(show.stdout, /working\s+Computing slow_compute/);
    assert.match(show.stdout, /completed/);
    assert.deepEqual(parseJsonDoc((await h.run(['--json', 'list'])).stdout), []);
  });

  test('HTTP: --detach, then watch, get and cancel from new processes', async () => {
    const h = await homeWithServer('web', demo.url);
    const a = parseJsonDoc((await h.ok(['--json', 'call', 'web', 'slow_compute', 'seconds=1', '--detach', '--label', 'job=a'])).stdout);
    const b = parseJsonDoc((await h.ok(['--json', 'call', 'web', 'slow_compute', 'seconds=30', '--detach', '--label', 'job=b'])).stdout);
    assert.notEqual(a.taskId, b.taskId);

    const w = await h.run(['watch', 'a']);
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stdout, /slow_compute on web: completed/);

    // Cancelling a task the vault holds as finished sends nothing and says so (--force would send).
    const late = await h.run(['cancel', 'a', '--wait']);
    assert.equal(late.code, 0, late.stderr);
    assert.match(late.stdout, /already ended completed .*no cancellation was sent/);

    const c = await h.run(['cancel', 'b']);
    assert.equal(c.code, 0, c.stderr);
    assert.match(c.stdout, /cancellation requested/);
    assert.match(c.stdout, /may still complete or fail/);
    const g = await h.run(['get', 'b']);
    assert.equal(g.code, 3, g.stderr);
    assert.match(g.stdout, /slow_compute on web: cancelled/);
  });

  test('watch several tasks at once: the first failure decides the exit code', async () => {
    const h = await homeWithServer('web', demo.url);
    await h.ok(['call', 'web', 'slow_compute', 'seconds=1', '--detach', '--label', 'job=ok']);
    await h.ok(['call', 'web', 'failing_job', '--detach', '--label', 'job=bad']);
    const w = await h.run(['watch', 'ok', 'bad']);
    assert.equal(w.code, 4, w.stderr);
    assert.match(w.stdout, /slow_compute on web: completed/);
    assert.match(w.stdout, /failing_job on web: completed with a tool error/);
  });

  test('a taskId handed over on stdin (--server), inspected without and with --save', async () => {
    const producer = await homeWithServer('web', demo.url);
    const d = parseJsonDoc((await producer.ok(['--json', 'call', 'web', 'slow_compute', 'seconds=1', '--detach'])).stdout);

    const consumer = await homeWithServer('web', demo.url);
    const peek = await consumer.run(['--json', 'get', '-', '--server', 'web'], { input: d.taskId });
    assert.equal(peek.code, 0, peek.stderr);
    assert.equal(parseJsonDoc(peek.stdout).taskId, d.taskId);
    assert.deepEqual(parseJsonDoc((await consumer.run(['--json', 'list', '--all'])).stdout), [], 'get without --save wrote the vault');

    const saved = await consumer.run(['watch', '-', '--server', 'web', '--save'], { input: `${d.taskId}\n` });
    assert.equal(saved.code, 0, saved.stderr);
    const all = parseJsonDoc((await consumer.run(['--json', 'list', '--all'])).stdout);
    assert.deepEqual(
      all.map((x: any) => [x.taskId, x.status]),
      [[d.taskId, 'completed']],
    );
    // The full handle never had to appear in argv, and is not echoed on stderr.
    assert.ok(!saved.stderr.includes(d.taskId));
  });

  test('a taskId that begins with "-" (base64url) is passed after --', async () => {
    const h = await homeWithServer('web', demo.url);
    // One taskId in 64 begins with "-": as a bare argument it reads as an option.
    const bare = await h.run(['get', '-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', '--server', 'web']);
    assert.equal(bare.code, 1, bare.stderr);
    // The message says what to do, and does not echo the whole handle into a CI log.
    assert.match(bare.stderr, /"-AAAAA…" begins with "-" and was read as an option/);
    assert.match(bare.stderr, /mcp-tasks get \[options\] -- <ref>/);
    assert.ok(!bare.stderr.includes('-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), bare.stderr);
    const json = await h.run(['--json', 'cancel', '--wait', '-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']);
    assert.equal(json.code, 1, json.stderr);
    assert.match(parseJsonDoc(json.stdout).error.message, /mcp-tasks cancel \[options\] -- <ref>/);
    assert.ok(!json.stdout.includes('-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), json.stdout);
    // One whose second character is one of our short flags (-V, -h, -v) is no version, help or -v:
    // commander would print the version or the help and exit 0 for a command that never ran.
    for (const flag of ['V', 'h', 'v']) {
      const ref = `-${flag}AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`;
      const r = await h.run(['get', ref]);
      assert.equal(r.code, 1, `${ref}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, new RegExp(`"-${flag}AAAA…" begins with "-" and was read as an option`), ref);
      assert.equal(r.stdout, '', ref);
      const j = await h.run(['--json', 'watch', ref]);
      assert.equal(j.code, 1, j.stderr);
      assert.match(parseJsonDoc(j.stdout).error.message, /mcp-tasks watch \[options\] -- <ref>/);
    }
    // An option that is simply unknown keeps commander's own words.
    const typo = await h.run(['get', '--jsno', 'abcdefgh']);
    assert.equal(typo.code, 1);
    assert.match(typo.stderr, /unknown option '--jsno'/);
    const r = await h.run(['get', '--server', 'web', '--', '-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']);
    assert.equal(r.code, 6, r.stderr);
    assert.match(r.stderr, /unknown or expired taskId/);
  });

  test('a long watch leaks nothing per request: no Node warnings after many polls', async () => {
    const h = await homeWithServer('web', demo.url);
    await h.ok(['call', 'web', 'slow_compute', 'seconds=60', '--detach', '--label', 'job=long']);
    // Counted, not timed: a loaded machine polls more slowly, so wait for the 12th poll (more than
    // 10 requests on one signal is what would trip a listener leak warning), then interrupt.
    // --poll: this counts tasks/get requests (a pushing server would need none).
    const watch = h.spawn(['-v', 'watch', '--poll', 'long', '--timeout', '10m']);
    try {
      await watch.waitFor(/(?:→ tasks\/get[^\n]*\n[^]*?){12}/, { timeoutMs: 180_000 });
    } finally {
      watch.kill('SIGINT');
    }
    const w = await watch.done;
    assert.equal(w.code, 130, w.stderr);
    assert.doesNotMatch(w.stderr, /Warning|MaxListeners/);
  });

  test('a server whose task ids begin with "-": hints, list, watch and get still work', async () => {
    const dashed = await startDemo({ faults: ['dash-task-ids'] });
    try {
      const h = await homeWithServer('dash', dashed.url);
      const d = await h.run(['call', 'dash', 'slow_compute', 'seconds=2', '--detach', '--label', 'job=dashed']);
      assert.equal(d.code, 0, d.stderr);
      const [rec] = parseJsonDoc((await h.run(['--json', 'list'])).stdout) as Array<{ taskId: string }>;
      assert.ok(rec!.taskId.startsWith('-'), rec!.taskId);
      // Every command printed for a person can be typed as shown: no ref begins with "-".
      const hints = [...d.stdout.matchAll(/mcp-tasks (?:show|watch|get|cancel) ([^\s)]+)/g)].map((m) => m[1]!);
      assert.equal(hints.length, 4, d.stdout);
      for (const ref of hints) assert.ok(!ref.startsWith('-') && ref.length >= 6, `hint ${ref}`);
      const list = await h.run(['list']);
      assert.match(list.stdout, new RegExp(`^${hints[0]}\\s+working\\s+dash\\s+slow_compute`, 'm'));

      const w = await h.run(['watch', hints[1]!]);
      assert.equal(w.code, 0, w.stderr);
      assert.match(w.stdout, /slow_compute on dash: completed/);
      // The whole id works after "--", and as a bare argument gets the usage error that says so.
      const bare = await h.run(['get', rec!.taskId]);
      assert.equal(bare.code, 1);
      assert.match(bare.stderr, /begins with "-" and was read as an option/);
      const g = await h.run(['--json', 'get', '--', rec!.taskId]);
      assert.equal(g.code, 0, g.stderr);
      assert.equal(parseJsonDoc(g.stdout).status, 'completed');
    } finally {
      await dashed.stop();
    }
  });

  test('a handle is only sent to the server it was created on', async () => {
    const other = await startDemo();
    try {
      const h = await homeWithServer('web', demo.url);
      await h.ok(['call', 'web', 'slow_compute', 'seconds=1', '--detach', '--label', 'job=bound']);
      await addHttpServer(h, 'web', other.url, ['--force']);
      const r = await h.run(['get', 'bound']);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /only sent where it was created/);
      // --rebind without a TTY needs --yes; then it is sent (the other demo server does not know it: lost).
      const unconfirmed = await h.run(['get', 'bound', '--rebind']);
      assert.equal(unconfirmed.code, 1, unconfirmed.stderr);
      assert.match(unconfirmed.stderr, /--rebind --yes/);
      const moved = await h.run(['get', 'bound', '--rebind', '--yes']);
      assert.equal(moved.code, 6, moved.stderr);
    } finally {
      await other.stop();
    }
  });

  test('call honours pollIntervalMs: count the tasks/get the server saw', async (t) => {
    const counted = await startDemo({ verbose: true });
    try {
      const h = await homeWithServer('web', counted.url);
      const r = await h.run(['call', 'web', 'slow_compute', 'seconds=3']);
      assert.equal(r.code, 0, r.stderr);
      const gets = counted.requests('tasks/get');
      t.diagnostic(`${gets.length} tasks/get, gaps ${gaps(gets).join(' ')} ms`);
      // 3 s at the advertised 500 ms is 6 polls; a client ignoring it (1 s default, or 100 ms) is far off.
      assert.ok(gets.length >= 4 && gets.length <= 8, `${gets.length} tasks/get for a 3 s task at pollIntervalMs 500`);
      assert.equal(await counted.count('tools/call'), 1);
      // Times are when this process read the server's log lines: a median is robust to a stall.
      assert.ok(median(gaps(gets)) >= 400, `median gap ${median(gaps(gets))} ms`);
    } finally {
      await counted.stop();
    }
  });

  test('call follows a changing pollIntervalMs (250 → 500 → 1000 ms)', async (t) => {
    const counted = await startDemo({ verbose: true });
    try {
      const h = await homeWithServer('web', counted.url);
      const r = await h.run(['call', 'web', 'generate_report', 'seconds=4']);
      assert.equal(r.code, 0, r.stderr);
      const gets = counted.requests('tasks/get');
      const g = gaps(gets);
      t.diagnostic(`${gets.length} tasks/get, gaps ${g.join(' ')} ms`);
      // Stages: 1 s at 250 ms, 1.4 s at 500 ms, 1.6 s at 1000 ms: about 9 polls.
      // A fixed 250 ms would make 16, a fixed 1 s 4, a fixed 100 ms 40.
      assert.ok(gets.length >= 5 && gets.length <= 12, `${gets.length} tasks/get for generate_report seconds=4`);
      assert.ok(Math.min(...g.slice(0, 2)) < Math.max(...g.slice(-2)), `early gaps ${g.slice(0, 3).join(', ')} vs late ${g.slice(-3).join(', ')}: the interval did not grow from the 250 ms stage`);
      assert.ok(Math.max(...g.slice(-2)) >= 800, `late gaps ${g.slice(-3).join(', ')}: the 1000 ms stage was not used`);
      assert.match(r.stderr, /Collecting data/);
      assert.match(r.stderr, /Writing PDF/);
    } finally {
      await counted.stop();
    }
  });

  test('watch from a new process honours pollIntervalMs too', async (t) => {
    const counted = await startDemo({ verbose: true });
    try {
      const h = await homeWithServer('web', counted.url);
      const d = await h.run(['--json', 'call', 'web', 'slow_compute', 'seconds=3', '--detach']);
      assert.equal(d.code, 0, d.stderr);
      // --poll: the pollIntervalMs rule is about tasks/get.
      const w = await h.run(['watch', '--poll', '--', parseJsonDoc(d.stdout).taskId]);
      assert.equal(w.code, 0, w.stderr);
      const gets = counted.requests('tasks/get');
      t.diagnostic(`${gets.length} tasks/get, gaps ${gaps(gets).join(' ')} ms`);
      assert.ok(gets.length >= 1 && gets.length <= 7, `${gets.length} tasks/get`);
      if (gets.length >= 3) assert.ok(median(gaps(gets)) >= 400, `median gap ${median(gaps(gets))} ms`);
    } finally {
      await counted.stop();
    }
  });

  test('no poll is rate-limited by a server enforcing pollIntervalMs (rate-limit fault)', async () => {
    const strict = await startDemo({ faults: ['rate-limit'], verbose: true });
    try {
      const h = await homeWithServer('web', strict.url);
      const r = await h.run(['--json', 'call', 'web', 'generate_report', 'seconds=2']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(parseJsonDoc(r.stdout).status, 'completed');
      const gets = strict.requests('tasks/get').length;
      assert.ok(gets >= 3 && gets <= 9, `${gets} tasks/get`);
    } finally {
      await strict.stop();
    }
  });
});
