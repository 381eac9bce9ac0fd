// Where a record comes from: the CI run each supported CI's own variables name, the user and
// host, and `--mine` (this user on this host).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { ciRunOf, isMine, originOf } from '../../../src/vault/origin.js';
import { originText } from '../../../src/vault/vault-record.js';
import { writerGone } from '../../../src/vault/writer.js';

describe('origin', () => {
  test('each CI names its run from its own variables', () => {
    assert.equal(ciRunOf({ GITHUB_ACTIONS: 'true', GITHUB_REPOSITORY: 'acme/deploy', GITHUB_RUN_ID: '77', GITHUB_RUN_ATTEMPT: '2', GITHUB_JOB: 'ship' }), 'github:acme/deploy run 77 attempt 2 job ship');
    assert.equal(ciRunOf({ GITLAB_CI: 'true', CI_PROJECT_PATH: 'grp/proj', CI_PIPELINE_ID: '5', CI_JOB_ID: '9' }), 'gitlab:grp/proj pipeline 5 job 9');
    assert.equal(ciRunOf({ BUILDKITE: 'true', BUILDKITE_PIPELINE_SLUG: 'deploy', BUILDKITE_BUILD_NUMBER: '12', BUILDKITE_JOB_ID: 'j1' }), 'buildkite:deploy build 12 job j1');
    assert.equal(ciRunOf({ JENKINS_URL: 'https://ci', JOB_NAME: 'release', BUILD_NUMBER: '3' }), 'jenkins:release build 3');
    assert.equal(ciRunOf({ CIRCLECI: 'true', CIRCLE_PROJECT_USERNAME: 'acme', CIRCLE_PROJECT_REPONAME: 'api', CIRCLE_WORKFLOW_ID: 'w', CIRCLE_BUILD_NUM: '8' }), 'circleci:acme/api workflow w job 8');
    assert.equal(ciRunOf({ CI: 'true' }), undefined, 'a bare CI=true names no run');
    assert.equal(ciRunOf({}), undefined);
  });

  test('user and host, control characters removed; --mine is this user on this host', () => {
    const o = originOf({ USER: 'ann\x1b[31m', GITLAB_CI: 'true', CI_PROJECT_PATH: 'g/p' });
    assert.equal(o.user, 'ann[31m');
    assert.equal(o.host, hostname());
    assert.equal(originText(o), `ann[31m@${hostname()} (gitlab:g/p)`);
    assert.equal(isMine(o, { USER: 'ann\x1b[31m' }), true);
    assert.equal(isMine(o, { USER: 'bob' }), false);
    assert.equal(isMine({ ...o, host: 'another-runner' }, { USER: 'ann\x1b[31m' }), false);
    assert.equal(isMine(undefined, {}), false);
  });

  test('a submitting record written on another host is never judged by a pid on this one', () => {
    const gone = () => undefined; // no process with that pid here
    assert.equal(writerGone({ writer: { pid: 4242, startedAtMs: 1, host: hostname() } }, gone), true, 'this host: its writer is gone');
    assert.equal(writerGone({ writer: { pid: 4242, startedAtMs: 1, host: 'ci-runner-7' } }, gone), false, 'another host: only its age can tell');
  });
});
