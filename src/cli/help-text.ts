// What `--help` adds to commander's own text: EXAMPLES for every command (as gh prints them) and
// the duration syntax. Examples are real command lines: the built-in `demo` server and its tools,
// refs as `list` prints them (a label value here), flags that exist (a test parses each line).
import { cmd, hint, renderHint, type Hint } from '../hint.js';

/** For every flag that takes a duration: a bare number is milliseconds, which surprises people. */
export const DURATION_SYNTAX = '<duration>: 90s, 5m, 1h or 250ms; a bare number is milliseconds (--timeout 2 is 2 ms)';

/** Examples by command path (`server add`, `call`, …); `#` starts a comment shown after the line. */
export const EXAMPLES: Record<string, Hint[]> = {
  '': [
    hint`${cmd('call', 'demo', 'slow_compute', 'seconds=2')}            # call a tool and follow its task to the end`,
    cmd('call', 'demo', 'slow_compute', 'seconds=60', '--detach', '--label', 'job=nightly'),
    hint`${cmd('list')}                                        # active tasks in the vault`,
    hint`${cmd('watch', 'nightly')}                               # follow it again (a label value is a ref)`,
    hint`${cmd('completion', 'bash')} >> ~/.bashrc                # shell completion`,
  ],
  server: [cmd('server', 'list'), cmd('server', 'add', 'search', '--url', 'https://mcp.example.com/mcp', '--bearer-env', 'SEARCH_TOKEN'), cmd('server', 'check', 'demo')],
  'server add': [
    cmd('server', 'add', 'search', '--url', 'https://mcp.example.com/mcp', '--bearer-env', 'SEARCH_TOKEN'),
    cmd('server', 'add', 'api', '--url', 'https://api.example.com/mcp', '--header', '"X-Api-Key: env:API_KEY"'),
    hint`${cmd('server', 'add', 'local', '--env', 'GITHUB_TOKEN', '--', 'npx', '-y', 'some-mcp-server', '--flag')}   # stdio`,
  ],
  'server list': [cmd('server', 'list'), cmd('server', 'list', '--json')],
  'server show': [cmd('server', 'show', 'demo'), cmd('server', 'show', 'demo', '--json')],
  'server remove': [cmd('server', 'remove', 'search')],
  'server import': [cmd('server', 'import', '~/.cursor/mcp.json'), cmd('server', 'import', 'mcp.json', '--only', 'search,files', '--force')],
  'server check': [cmd('server', 'check', 'demo'), cmd('server', 'check', 'demo', '--json')],
  'server login': [cmd('server', 'login', 'search'), cmd('server', 'login', 'search', '--no-browser', '--timeout', '10m'), cmd('server', 'login', 'search', '--client-credentials', '--client-id', 'ci-bot', '--client-secret-env', 'CI_SECRET')],
  'server logout': [cmd('server', 'logout', 'search')],
  tools: [cmd('tools', 'demo'), hint`${cmd('tools', 'demo', 'slow_compute')}            # one tool's arguments`, cmd('tools', 'demo', '--json')],
  call: [
    cmd('call', 'demo', 'slow_compute', 'seconds=2'),
    cmd('call', 'demo', 'slow_compute', 'seconds:=30', '--detach', '--label', 'job=nightly'),
    cmd('call', 'demo', 'greet', '--args-json', `'{"name":"Ada"}'`, '--timeout', '5m'),
    hint`${cmd('call', 'demo', 'confirm_delete', 'filename=old.txt', '--answers', 'answers.json')}   # CI: answers by key`,
  ],
  get: [cmd('get', 'nightly'), cmd('get', 'nightly', '--json'), hint`printf %s "$TASK_ID" | ${cmd('get', '-', '--server', 'demo', '--save')}   # a taskId from elsewhere`],
  watch: [cmd('watch', 'nightly'), cmd('watch', 'nightly', '--timeout', '10m'), cmd('watch', '--active'), hint`${cmd('watch', 'nightly', '--json', '--answers', 'answers.json')}   # CI`, hint`${cmd('watch', 'nightly', '--accept-defaults')}   # CI: accept each form whose required fields have defaults`],
  answer: [
    hint`${cmd('answer', 'nightly')}                              # prompts in a terminal`,
    hint`${cmd('answer', 'nightly', 'confirm=true')}                 # inline, one form pending`,
    hint`${cmd('answer', 'nightly', '--template')} > answers.json    # then fill it in and:`,
    cmd('answer', 'nightly', '--answers', 'answers.json'),
  ],
  cancel: [cmd('cancel', 'nightly'), cmd('cancel', 'nightly', '--wait', '--timeout', '2m')],
  list: [cmd('list'), cmd('list', '--all', '--limit', '20'), hint`${cmd('list', '--refresh')}                # poll each active task first`, cmd('list', '--status', 'input_required', '--server', 'demo'), cmd('list', '--json'), hint`${cmd('list', '--all', '--origin', 'github:acme')}  # team store: whose records`],
  show: [cmd('show', 'nightly'), hint`${cmd('show', 'nightly', '--json')}              # the whole taskId`],
  recover: [cmd('recover'), cmd('recover', 'nightly', '--resubmit'), cmd('recover', 'nightly', '--resolve', 'not-run', '--note', '"checked the server: no such job"')],
  vault: [cmd('vault', 'check'), cmd('vault', 'check', '--repair')],
  'vault check': [cmd('vault', 'check'), cmd('vault', 'check', '--json'), hint`${cmd('vault', 'check', '--repair')}   # move damaged records aside, rebuild the listing`],
  prune: [cmd('prune'), cmd('prune', '--older-than', '168h')],
  store: [cmd('store', 'status'), cmd('store', 'init'), cmd('store', 'keygen'), cmd('store', 'key', 'save'), cmd('store', 'push')],
  'store status': [cmd('store', 'status'), cmd('store', 'status', '--json')],
  'store init': [hint`${cmd('store', 'init')}   # with MCP_TASKS_STORE and MCP_TASKS_TEAM_KEY set`],
  'store keygen': [hint`${cmd('store', 'keygen')}   # a new team key on stdout: into your secret store, then MCP_TASKS_TEAM_KEY from there`],
  'store key': [cmd('store', 'key', 'save'), cmd('store', 'key', 'forget')],
  'store key save': [hint`${cmd('store', 'key', 'save')}                          # asks for it, hidden`, hint`printf %s "$TEAM_KEY" | ${cmd('store', 'key', 'save')}   # from a secret store`],
  'store key forget': [cmd('store', 'key', 'forget')],
  'store push': [cmd('store', 'push'), cmd('store', 'push', 'deploy-42')],
  export: [hint`${cmd('export', 'nightly', '--out', 'tasks.bundle')}        # with $MCP_TASKS_EXPORT_KEY set`, hint`${cmd('export', 'nightly', 'other-job')} > tasks.bundle`],
  import: [hint`${cmd('import', 'tasks.bundle')}                      # with the same $MCP_TASKS_EXPORT_KEY`],
  'demo-server': [cmd('demo-server', '--http', '8931'), cmd('demo-server', '--http', '0', '--fault', 'rate-limit', '--fault', 'ttl=60000')],
  completion: [hint`${cmd('completion', 'bash')} > ~/.local/share/bash-completion/completions/mcp-tasks`, hint`${cmd('completion', 'zsh')} > "\${fpath[1]}/_mcp-tasks"`, hint`${cmd('completion', 'fish')} > ~/.config/fish/completions/mcp-tasks.fish`],
};

/** The EXAMPLES block for a command, written with the command as the user invoked it. */
export function examplesBlock(path: string, invocation: string): string {
  const lines = EXAMPLES[path];
  if (!lines?.length) return '';
  return `\nExamples:\n${lines.map((l) => `  $ ${renderHint(l, invocation)}`).join('\n')}\n`;
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
