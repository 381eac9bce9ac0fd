// npm run check:commits: every commit subject after the one where this check began is at most 72
// characters (the detail goes in the body), as `git log --oneline` and GitHub show it untruncated.
// Merges are held to it too. Older history is left as it landed: rewriting published commits
// would cost every clone more than the long lines do. In a shallow clone without that commit,
// the newest commit is checked.
import { execFileSync } from 'node:child_process';

const SINCE = '30ae2c625e46eb7bf4dd36fc767984254dfc3f65';
const MAX = 72;
const git = (...args) => execFileSync('git', args, { encoding: 'utf8' }).trim();

let range = ['-1', 'HEAD'];
try {
  range = [`${git('rev-parse', '--verify', '--quiet', `${SINCE}^{commit}`)}..HEAD`];
} catch {
  // The commit is not in this clone (shallow): the newest one is checked.
}
const long = git('log', '--format=%h %s', ...range)
  .split('\n')
  .filter(Boolean)
  .map((line) => ({ hash: line.slice(0, line.indexOf(' ')), subject: line.slice(line.indexOf(' ') + 1) }))
  .filter((c) => c.subject.length > MAX);
for (const c of long) console.error(`check-commits: ${c.hash}: subject is ${c.subject.length} characters (at most ${MAX}): ${c.subject}`);
console.log(`check-commits: ${range.length === 2 ? 'the newest commit' : 'commits since the check began'}, ${long.length} subject(s) over ${MAX} characters`);
process.exit(long.length ? 1 : 0);
