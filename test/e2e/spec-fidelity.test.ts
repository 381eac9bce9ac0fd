// What a compliant server expects of a client (2026-07-28), each behaviour against the demo server
// through a real proxy that plays the other server: x-mcp-header → Mcp-Param-* mirroring and the
// refusal of invalid declarations, a requestState-only InputRequiredResult, HTTP 429 with
// Retry-After, -32020, cancel of a finished task, and a server that keeps re-listing an answered key.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { homeWithServer, parseJsonDoc, startDemo, tempDir, type DemoServer } from '../helpers/cli.js';
import { startProxy, type ProxiedRequest } from '../helpers/proxy.js';
import { fakeClock, runInProcess } from '../helpers/in-process.js';

type Json = any;
const bodyOf = (req: ProxiedRequest): Json => JSON.parse(req.body.toString('utf8') || '{}');
const methodOf = (req: ProxiedRequest) => req.headers['mcp-method'];
const reply = (req: ProxiedRequest, result: unknown, status = 200) => ({ status, body: JSON.stringify({ jsonrpc: '2.0', id: bodyOf(req).id, result }) });

/** Rewrite tools/list answers: `edit` changes the listed tools in place. */
function toolListRewrite(edit: (tools: Json[]) => void) {
  return (req: ProxiedRequest) =>
    methodOf(req) === 'tools/list'
      ? (body: string) => {
          const doc = JSON.parse(body);
          edit(doc.result.tools);
          return JSON.stringify(doc);
        }
      : undefined;
}

describe('spec fidelity: what compliant servers expect of a client', { concurrency: 4 }, () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemo();
  });
  after(async () => {
    await demo?.stop();
  });

  /** The demo behind a proxy that acknowledges every tasks/update without passing it on (the key stays listed); counts them. */
  async function forgetfulServer() {
    const updates = { n: 0 };
    const proxy = await startProxy(demo.url, {
      answer: (req) => {
        if (methodOf(req) !== 'tasks/update') return undefined;
        updates.n++;
        return reply(req, { resultType: 'complete' });
      },
    });
    return { proxy, updates };
  }

  /** An answers file accepting confirm_delete's form. */
  function confirmAnswers(): string {
    const answers = join(tempDir(), 'answers.json');
    writeFileSync(answers, JSON.stringify({ confirm: { action: 'accept', content: { confirm: true } } }));
    return answers;
  }

  test('x-mcp-header arguments are mirrored into Mcp-Param-* headers on tools/call (Base64 form for non-ASCII)', async () => {
    const calls: ProxiedRequest[] = [];
    const proxy = await startProxy(demo.url, {
      answer: (req) => {
        if (methodOf(req) === 'tools/call') calls.push(req);
        return undefined;
      },
      rewrite: toolListRewrite((tools) => {
        const greet = tools.find((t) => t.name === 'greet');
        greet.inputSchema.properties.name['x-mcp-header'] = 'Name';
        const slow = tools.find((t) => t.name === 'slow_compute');
        slow.inputSchema.properties.label['x-mcp-header'] = 'Label';
      }),
    });
    try {
      const h = await homeWithServer('mirror', proxy.url);
      const greeted = await h.run(['call', 'mirror', 'greet', 'name=Grüße, 世界']);
      assert.equal(greeted.code, 0, greeted.stderr);
      const plain = await h.run(['call', 'mirror', 'slow_compute', 'seconds=0', 'label=eu-west 1']);
      assert.equal(plain.code, 0, plain.stderr);
      assert.equal(calls.length, 2);
      assert.equal(calls[0]!.headers['mcp-param-name'], `=?base64?${Buffer.from('Grüße, 世界', 'utf8').toString('base64')}?=`);
      assert.equal(calls[1]!.headers['mcp-param-label'], 'eu-west 1', 'plain ASCII as is');
      assert.equal(calls[1]!.headers['mcp-param-seconds'], undefined, 'an argument without x-mcp-header is not mirrored');
    } finally {
      await proxy.close();
    }
  });

  test('a tool whose x-mcp-header is not a string is refused before sending, naming the server and the rule (exit 1)', async () => {
    let sent = 0;
    const proxy = await startProxy(demo.url, {
      answer: (req) => {
        if (methodOf(req) === 'tools/call') sent++;
        return undefined;
      },
      rewrite: toolListRewrite((tools) => {
        tools.find((t) => t.name === 'greet').inputSchema.properties.name['x-mcp-header'] = 7;
      }),
    });
    try {
      const h = await homeWithServer('badtool', proxy.url);
      const r = await h.run(['call', 'badtool', 'greet', 'name=x']);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /server "badtool" declares tool "greet" with an invalid x-mcp-header \(rule: string\): x-mcp-header on property "name" is 7, not a string/);
      assert.equal(r.stderr.trim().split('\n').filter((l) => l.startsWith('mcp-tasks:') && !l.startsWith('mcp-tasks: created a vault key')).length, 1, `one error line: ${r.stderr}`);
      assert.equal(sent, 0, 'nothing was sent');
      const listed = await h.run(['tools', 'badtool']);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stderr, /left out tool "greet": x-mcp-header on property "name" is 7, not a string/);
      assert.doesNotMatch(listed.stdout, /\bgreet\b/);
      // The other tools stay usable.
      const other = await h.run(['call', 'badtool', 'slow_compute', 'seconds=0']);
      assert.equal(other.code, 0, other.stderr);
    } finally {
      await proxy.close();
    }
  });

  test('an InputRequiredResult with requestState only is retried at once: a new id, the state echoed exactly', async () => {
    const state = 'opaque/+state==\u00e9';
    const calls: Json[] = [];
    const proxy = await startProxy(demo.url, {
      answer: (req) => {
        if (methodOf(req) !== 'tools/call') return undefined;
        const body = bodyOf(req);
        calls.push(body);
        if (body.params.requestState === undefined) return reply(req, { resultType: 'input_required', requestState: state });
        return reply(req, { resultType: 'complete', content: [{ type: 'text', text: 'state taken' }] });
      },
    });
    try {
      const h = await homeWithServer('mrtr', proxy.url);
      const r = await h.run(['call', 'mrtr', 'greet', 'name=x']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /state taken/);
      assert.equal(calls.length, 2);
      assert.notEqual(calls[0].id, calls[1].id, 'every round has a new id');
      assert.equal(calls[1].params.requestState, state);
      assert.deepEqual(calls[1].params.arguments, { name: 'x' }, 'the original request, retried');
    } finally {
      await proxy.close();
    }
  });

  test('HTTP 429 on tasks/get backs off by Retry-After; a malformed Retry-After is a one-line error naming the server and the value (exit 7)', async () => {
    let mode: 'once' | 'malformed' | 'off' = 'off';
    const gets: number[] = [];
    const proxy = await startProxy(demo.url, {
      answer: (req) => {
        if (methodOf(req) !== 'tasks/get') return undefined;
        gets.push(Date.now());
        if (mode === 'once') {
          mode = 'off';
          return { status: 429, headers: { 'retry-after': '1' }, body: '' };
        }
        if (mode === 'malformed') return { status: 429, headers: { 'retry-after': 'soon' }, body: '' };
        return undefined;
      },
    });
    try {
      const h = await homeWithServer('busy', proxy.url);
      const started = await h.run(['call', 'busy', 'slow_compute', 'seconds=1', '--detach', '--label', 'job=busy']);
      assert.equal(started.code, 0, started.stderr);
      mode = 'once';
      // --poll: this is about tasks/get answers; a pushing server would leave nothing to poll.
      const watched = await h.run(['watch', '--poll', 'busy']);
      assert.equal(watched.code, 0, watched.stderr);
      assert.ok(gets.length >= 2);
      assert.ok(gets[1]! - gets[0]! >= 950, `the next poll waited for Retry-After (${gets[1]! - gets[0]!} ms)`);

      const again = await h.run(['call', 'busy', 'slow_compute', 'seconds=60', '--detach', '--label', 'job=busier']);
      assert.equal(again.code, 0, again.stderr);
      mode = 'malformed';
      const got = await h.run(['get', 'busier']);
      assert.equal(got.code, 7, got.stderr);
      assert.match(got.stderr, /server "busy" answered HTTP 429 with a malformed Retry-After header: "soon"/);
      assert.equal(got.stderr.split('\n').filter((l) => l.startsWith('mcp-tasks:')).length, 1);
    } finally {
      await proxy.close();
    }
  });

  test('-32020 (header mismatch) on tools/call: the tools are listed again, one retry, then "not admitted, safe to retry" (exit 7), no record kept', async () => {
    let calls = 0;
    let lists = 0;
    const proxy = await startProxy(demo.url, {
      answer: (req) => {
        if (methodOf(req) === 'tools/list') lists++;
        if (methodOf(req) !== 'tools/call') return undefined;
        calls++;
        return { status: 400, body: JSON.stringify({ jsonrpc: '2.0', id: bodyOf(req).id, error: { code: -32020, message: 'Header mismatch: Mcp-Param-Region missing' } }) };
      },
    });
    try {
      const h = await homeWithServer('strict', proxy.url);
      const r = await h.run(['call', 'strict', 'greet', 'name=x']);
      assert.equal(r.code, 7, r.stderr);
      assert.match(r.stderr, /did not admit the request \(server "strict"\): header mismatch \(error -32020\): Header mismatch: Mcp-Param-Region missing/);
      assert.match(r.stderr, /safe to retry/);
      assert.equal(calls, 2, 'retried once after listing the tools again');
      assert.equal(lists, 2);
      const listed = parseJsonDoc((await h.run(['--json', 'list', '--all'])).stdout);
      assert.deepEqual(listed, [], 'nothing was admitted, so nothing is in doubt');
    } finally {
      await proxy.close();
    }
  });

  test('cancel of a task the vault holds as finished reports it and sends nothing; --force sends', async () => {
    let cancels = 0;
    const proxy = await startProxy(demo.url, {
      answer: (req) => {
        if (methodOf(req) === 'tasks/cancel') cancels++;
        return undefined;
      },
    });
    try {
      const h = await homeWithServer('done', proxy.url);
      const finished = await h.run(['call', 'done', 'slow_compute', 'seconds=1', '--label', 'job=finished']);
      assert.equal(finished.code, 0, finished.stderr);
      const r = await h.run(['cancel', 'finished']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /already ended completed .*no cancellation was sent/);
      assert.doesNotMatch(r.stdout, /may still complete/);
      assert.equal(cancels, 0);
      const forced = await h.run(['cancel', 'finished', '--force']);
      assert.equal(forced.code, 0, forced.stderr);
      assert.equal(cancels, 1);
    } finally {
      await proxy.close();
    }
  });

  test('cancel --force of a task already cancelled says what was observed, never "it may still complete"', async () => {
    let cancels = 0;
    let refuse = false;
    const proxy = await startProxy(demo.url, {
      answer: (req) => {
        if (methodOf(req) !== 'tasks/cancel') return undefined;
        cancels++;
        // A server that answers a cancel of an ended task with -32602 (as 2025-11-25 servers must).
        if (refuse) return { status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: bodyOf(req).id, error: { code: -32602, message: 'Task already terminal' } }) };
        return undefined;
      },
    });
    try {
      const h = await homeWithServer('done', proxy.url);
      await h.ok(['call', 'done', 'slow_compute', 'seconds=30', '--detach', '--label', 'job=doomed']);
      const cancelled = await h.run(['cancel', 'doomed', '--wait']);
      assert.equal(cancelled.code, 3, cancelled.stderr);
      assert.equal(cancels, 1);

      // The server takes the cancel (2026-07-28: idempotent on an ended task).
      const acked = await h.run(['cancel', 'doomed', '--force']);
      assert.equal(cancels, 2, 'tasks/cancel was sent');
      assert.equal(acked.code, 3, acked.stderr);
      assert.doesNotMatch(acked.stdout + acked.stderr, /may still complete/);
      assert.match(acked.stdout, /acknowledged it\. The task had already ended cancelled/);
      const ackedJson = parseJsonDoc((await h.run(['--json', 'cancel', 'doomed', '--force'])).stdout);
      assert.equal(ackedJson.status, 'cancelled');
      assert.equal(ackedJson.cancellation, 'requested');
      assert.equal(ackedJson.endedBefore, true);

      // The server refuses it, the task having ended: that is what is said.
      refuse = true;
      const refused = await h.run(['cancel', 'doomed', '--force']);
      assert.equal(refused.code, 3, refused.stderr);
      assert.doesNotMatch(refused.stdout + refused.stderr, /may still complete/);
      assert.match(refused.stdout, /the server refused it because the task had already ended: it is cancelled/);
      const refusedJson = parseJsonDoc((await h.run(['--json', 'cancel', 'doomed', '--force'])).stdout);
      assert.equal(refusedJson.cancellation, 'refused-ended');
      assert.equal(cancels, 5);
    } finally {
      await proxy.close();
    }
  });

  test('get right after an answer the server still lists: too soon to call it stuck; the verdict needs the time a watch would give', async () => {
    const { proxy, updates: counted } = await forgetfulServer();
    const updates = () => counted.n;
    try {
      const h = await homeWithServer('slowly', proxy.url);
      await h.ok(['call', 'slowly', 'confirm_delete', 'filename=a.txt', '--detach', '--label', 'job=slowly']);
      const answers = confirmAnswers();
      // Each command at a time of its own (the fake clocks): nothing here depends on the machine's speed.
      const answeredAt = Date.now();
      const answered = await runInProcess(['answer', 'slowly', '--answers', answers], { home: h.dir, clock: fakeClock(answeredAt) });
      assert.equal(answered.code, 0, answered.stderr);
      assert.equal(updates(), 1);
      const soon = await runInProcess(['get', 'slowly'], { home: h.dir, clock: fakeClock(answeredAt + 1000) });
      assert.equal(soon.code, 5, soon.stderr);
      assert.doesNotMatch(soon.stderr, /wait forever/);
      assert.match(soon.stderr, /"confirm" was answered just now; the server still lists it, and may not have taken the answer yet\./);
      assert.match(soon.stderr, /next: `mcp-tasks watch \S+` follows the task .*, or `mcp-tasks get \S+` again in a little while\./);
      // Long after the answer (the notice period and the one after it, 15 s each by default): stuck.
      const late = await runInProcess(['get', 'slowly'], { home: h.dir, clock: fakeClock(answeredAt + 31_000) });
      assert.equal(late.code, 5, late.stderr);
      assert.match(late.stderr, /the server keeps asking for "confirm", already answered; .*waiting longer would wait forever/);
      assert.equal(updates(), 1, 'get sent no answer');
    } finally {
      await proxy.close();
    }
  });

  test('a server that keeps re-listing an answered key: call ends with exit 5 after the notice and another period; answer and get say the same; answer --again sends on purpose', async () => {
    const { proxy, updates: counted } = await forgetfulServer();
    try {
      const h = await homeWithServer('forgetful', proxy.url);
      const answers = confirmAnswers();
      const env = { MCP_TASKS_INPUT_STUCK_MS: '300' };
      const r = await h.run(['call', 'forgetful', 'confirm_delete', 'filename=a.txt', '--answers', answers, '--label', 'job=forgetful'], { env });
      assert.equal(r.code, 5, r.stderr);
      assert.match(r.stderr, /the server still lists "confirm"/, 'the notice came first');
      assert.match(r.stderr, /the server keeps asking for "confirm", already answered/);
      assert.match(r.stderr, /next: `mcp-tasks cancel \S+` to stop the task, or `mcp-tasks answer \S+ --again confirm` to send a new answer on purpose/);
      assert.equal(counted.n, 1, 'answered once');

      for (const args of [['answer', 'forgetful', '--answers', answers], ['get', 'forgetful']]) {
        const s = await h.run(args, { env });
        assert.equal(s.code, 5, `${args[0]}: ${s.stderr}`);
        assert.match(s.stderr, /the server keeps asking for "confirm", already answered/, args[0]);
        assert.match(s.stderr, /--again confirm/, args[0]);
      }
      assert.equal(counted.n, 1, 'answer sent nothing without --again');

      const again = await h.run(['answer', 'forgetful', '--again', 'confirm', '--answers', answers], { env });
      assert.equal(counted.n, 2, `answer --again sends a new answer: ${again.stderr}`);
      assert.match(again.stderr, /answered "confirm"/);
    } finally {
      await proxy.close();
    }
  });
});
