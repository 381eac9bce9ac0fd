// Who and where a record comes from: the user, the host, and the CI run when the environment
// names one (GitHub Actions, GitLab CI, Buildkite, Jenkins, CircleCI). Shown by `list`, matched
// by `--origin` and `--mine`, so on-call can tell a CI runner's submission from a colleague's.
import { hostname, userInfo } from 'node:os';
import type { Origin } from './vault-record.js';

function user(env: NodeJS.ProcessEnv): string {
  if (env.USER) return env.USER;
  if (env.USERNAME) return env.USERNAME;
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/** The CI run the environment describes, in one short line; undefined outside CI. */
export function ciRunOf(env: NodeJS.ProcessEnv): string | undefined {
  const join = (...parts: Array<string | undefined>) => parts.filter(Boolean).join(' ');
  if (env.GITHUB_ACTIONS === 'true') return join(`github:${env.GITHUB_REPOSITORY ?? '?'}`, env.GITHUB_RUN_ID && `run ${env.GITHUB_RUN_ID}`, env.GITHUB_RUN_ATTEMPT && env.GITHUB_RUN_ATTEMPT !== '1' ? `attempt ${env.GITHUB_RUN_ATTEMPT}` : undefined, env.GITHUB_JOB && `job ${env.GITHUB_JOB}`);
  if (env.GITLAB_CI) return join(`gitlab:${env.CI_PROJECT_PATH ?? '?'}`, env.CI_PIPELINE_ID && `pipeline ${env.CI_PIPELINE_ID}`, env.CI_JOB_ID && `job ${env.CI_JOB_ID}`);
  if (env.BUILDKITE) return join(`buildkite:${env.BUILDKITE_PIPELINE_SLUG ?? '?'}`, env.BUILDKITE_BUILD_NUMBER && `build ${env.BUILDKITE_BUILD_NUMBER}`, env.BUILDKITE_JOB_ID && `job ${env.BUILDKITE_JOB_ID}`);
  if (env.JENKINS_URL) return join(`jenkins:${env.JOB_NAME ?? '?'}`, env.BUILD_NUMBER && `build ${env.BUILD_NUMBER}`);
  if (env.CIRCLECI) return join(`circleci:${env.CIRCLE_PROJECT_USERNAME ? `${env.CIRCLE_PROJECT_USERNAME}/` : ''}${env.CIRCLE_PROJECT_REPONAME ?? '?'}`, env.CIRCLE_WORKFLOW_ID && `workflow ${env.CIRCLE_WORKFLOW_ID}`, env.CIRCLE_BUILD_NUM && `job ${env.CIRCLE_BUILD_NUM}`);
  return undefined;
}

export function originOf(env: NodeJS.ProcessEnv): Origin {
  const ci = ciRunOf(env);
  // Names only, bounded: an environment is not a place for long text.
  const cut = (s: string) => s.replace(/[\x00-\x1f\x7f]/g, '').slice(0, 200);
  return { user: cut(user(env)), host: cut(hostname()), ...(ci ? { ci: cut(ci) } : {}) };
}

/** `--mine`: written by this user on this host. */
export const isMine = (o: Origin | undefined, env: NodeJS.ProcessEnv): boolean => {
  if (!o) return false;
  const me = originOf(env);
  return o.user === me.user && o.host === me.host;
};
