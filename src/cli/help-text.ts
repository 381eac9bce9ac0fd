// What `--help` adds to commander's own text: EXAMPLES for every command (as gh prints them) and
// the duration syntax. Examples are real command lines: the built-in `demo` server and its tools,
// refs as `list` prints them (a label value here), flags that exist (a test parses each line).
import { asInvoked } from '../invocation.js';

/** For every flag that takes a duration: a bare number is milliseconds, which surprises people. */
export const DURATION_SYNTAX = '<duration>: 90s, 5m, 1h or 250ms; a bare number is milliseconds (--timeout 2 is 2 ms)';

/** Examples by command path (`server add`, `call`, …); `#` starts a comment shown after the line. */
export const EXAMPLES: Record<string, string[]> = {
  '': [
    'mcp-tasks call demo slow_compute seconds=2            # call a tool and follow its task to the end',
    'mcp-tasks call demo slow_compute seconds=60 --detach --label job=nightly',
    'mcp-tasks list                                        # active tasks in the vault',
    'mcp-tasks watch nightly                               # follow it again (a label value is a ref)',
    'mcp-tasks completion bash >> ~/.bashrc                # shell completion',
  ],
  server: ['mcp-tasks server list', 'mcp-tasks server add search --url https://mcp.example.com/mcp --bearer-env SEARCH_TOKEN', 'mcp-tasks server check demo'],
  'server add': [
    'mcp-tasks server add search --url https://mcp.example.com/mcp --bearer-env SEARCH_TOKEN',
    'mcp-tasks server add api --url https://api.example.com/mcp --header "X-Api-Key: env:API_KEY"',
    'mcp-tasks server add local --env GITHUB_TOKEN -- npx -y some-mcp-server --flag   # stdio',
  ],
  'server list': ['mcp-tasks server list', 'mcp-tasks server list --json'],
  'server show': ['mcp-tasks server show demo', 'mcp-tasks server show demo --json'],
  'server remove': ['mcp-tasks server remove search'],
  'server import': ['mcp-tasks server import ~/.cursor/mcp.json', 'mcp-tasks server import mcp.json --only search,files --force'],
  'server check': ['mcp-tasks server check demo', 'mcp-tasks server check demo --json'],
  'server login': ['mcp-tasks server login search', 'mcp-tasks server login search --no-browser --timeout 10m', 'mcp-tasks server login search --client-credentials --client-id ci-bot --client-secret-env CI_SECRET'],
  'server logout': ['mcp-tasks server logout search'],
  tools: ['mcp-tasks tools demo', 'mcp-tasks tools demo slow_compute            # one tool\'s arguments', 'mcp-tasks tools demo --json'],
  call: [
    'mcp-tasks call demo slow_compute seconds=2',
    'mcp-tasks call demo slow_compute seconds:=30 --detach --label job=nightly',
    'mcp-tasks call demo greet --args-json \'{"name":"Ada"}\' --timeout 5m',
    'mcp-tasks call demo confirm_delete filename=old.txt --answers answers.json   # CI: answers by key',
  ],
  get: ['mcp-tasks get nightly', 'mcp-tasks get nightly --json', 'printf %s "$TASK_ID" | mcp-tasks get - --server demo --save   # a taskId from elsewhere'],
  watch: ['mcp-tasks watch nightly', 'mcp-tasks watch nightly --timeout 10m', 'mcp-tasks watch --active', 'mcp-tasks watch nightly --json --answers answers.json   # CI', 'mcp-tasks watch nightly --accept-defaults   # CI: accept each form whose required fields have defaults'],
  answer: [
    'mcp-tasks answer nightly                              # prompts in a terminal',
    'mcp-tasks answer nightly confirm=true                 # inline, one form pending',
    'mcp-tasks answer nightly --template > answers.json    # then fill it in and:',
    'mcp-tasks answer nightly --answers answers.json',
  ],
  cancel: ['mcp-tasks cancel nightly', 'mcp-tasks cancel nightly --wait --timeout 2m'],
  list: ['mcp-tasks list', 'mcp-tasks list --all --limit 20', 'mcp-tasks list --refresh                # poll each active task first', 'mcp-tasks list --status input_required --server demo', 'mcp-tasks list --json', 'mcp-tasks list --all --origin github:acme  # team store: whose records'],
  show: ['mcp-tasks show nightly', 'mcp-tasks show nightly --json              # the whole taskId'],
  recover: ['mcp-tasks recover', 'mcp-tasks recover nightly --resubmit', 'mcp-tasks recover nightly --resolve not-run --note "checked the server: no such job"'],
  vault: ['mcp-tasks vault check', 'mcp-tasks vault check --repair'],
  'vault check': ['mcp-tasks vault check', 'mcp-tasks vault check --json', 'mcp-tasks vault check --repair   # move damaged records aside, rebuild the listing'],
  prune: ['mcp-tasks prune', 'mcp-tasks prune --older-than 168h'],
  store: ['mcp-tasks store status', 'mcp-tasks store init', 'mcp-tasks store push'],
  'store status': ['mcp-tasks store status', 'mcp-tasks store status --json'],
  'store init': ['mcp-tasks store init   # with MCP_TASKS_STORE and MCP_TASKS_TEAM_KEY set'],
  'store push': ['mcp-tasks store push', 'mcp-tasks store push deploy-42'],
  export: ['mcp-tasks export nightly --out tasks.bundle        # with $MCP_TASKS_EXPORT_KEY set', 'mcp-tasks export nightly other-job > tasks.bundle'],
  import: ['mcp-tasks import tasks.bundle                      # with the same $MCP_TASKS_EXPORT_KEY'],
  'demo-server': ['mcp-tasks demo-server --http 8931', 'mcp-tasks demo-server --http 0 --fault rate-limit --fault ttl=60000'],
  completion: ['mcp-tasks completion bash > ~/.local/share/bash-completion/completions/mcp-tasks', 'mcp-tasks completion zsh > "${fpath[1]}/_mcp-tasks"', 'mcp-tasks completion fish > ~/.config/fish/completions/mcp-tasks.fish'],
};

/** The EXAMPLES block for a command, written with the command as the user invoked it. */
export function examplesBlock(path: string, invocation: string): string {
  const lines = EXAMPLES[path];
  if (!lines?.length) return '';
  return `\nExamples:\n${lines.map((l) => `  $ ${asInvoked(l, invocation)}`).join('\n')}\n`;
}

/** The command part of an example line (no `$ `, no comment, no leading env assignment). */
export function exampleCommand(line: string): string {
  return line.replace(/\s+#.*$/, '').replace(/^[A-Z_]+=\S+\s+/, '').replace(/^.*\|\s*/, '');
}

/** Word-wrap a help paragraph to the width (example lines are never wrapped: they are pasted). */
export function wrapText(text: string, width: number): string {
  const room = Math.max(40, width);
  return text
    .split('\n')
    .map((line) => {
      const out: string[] = [];
      let rest = line;
      while (rest.length > room) {
        const cut = rest.lastIndexOf(' ', room);
        if (cut <= 0) break;
        out.push(rest.slice(0, cut));
        rest = rest.slice(cut + 1);
      }
      out.push(rest);
      return out.join('\n');
    })
    .join('\n');
}

/** `completion --help`: the scripts complete the command word `mcp-tasks`, which npx and `node …` do not provide. */
export const COMPLETION_NEEDS_COMMAND =
  'The script completes the command `mcp-tasks` and asks this same installation for candidates (no registry, no network). ' +
  'Under `npx mcp-tasks` or `node …/bin/mcp-tasks.js` there is no such command: run `npm link` in the checkout first, ' +
  'or define an alias, alias mcp-tasks="node /path/to/bin/mcp-tasks.js", then load the script.';
