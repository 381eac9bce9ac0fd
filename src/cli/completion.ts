// Shell completion: `completion bash|zsh|fish` prints a script; the script calls the hidden
// `__complete -- <cword> <words...>` for candidates. Candidates come from the command tree
// (commands, flags, enumerated values), the server config, the tools/list cache and the vault:
// nothing is sent over the network, and the SDK is never loaded.
import type { Command, Option } from 'commander';
import type { Context } from '../context.js';
import { resolveHome } from '../home.js';
import { CliError, ExitCode } from '../errors.js';
import { FAULT_NAMES, LIST_STATUSES, RESOLUTIONS, SHELLS } from './choices.js';
import { didYouMean } from '../output/did-you-mean.js';
import { cmd, hint, renderHint } from '../hint.js';

/** Said instead of candidates when the slot is a file name: the shell completes files itself. */
export const FILES_DIRECTIVE = ':files';

/**
 * Only words that can be inserted into a command line as they are: a tool name or label value a
 * server or a person chose may hold spaces, quotes, `$(…)` or escapes, and the shell would run or
 * mangle them. Those are left out (they can still be typed, quoted).
 */
const INSERTABLE = /^[A-Za-z0-9_./:@%+=,-]+$/;

const FILE_OPTIONS = new Set(['--home', '--answers', '--args-file', '--out', '--store', '--cwd']);
const SERVER_OPTIONS = new Set(['--server', '--remote']);

const longAndShort = (o: Option) => [o.long, o.short].filter((f): f is string => Boolean(f));
const visible = (cmd: Command) => cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);

/** The options a word may name at this point: the command's own and every parent's (global). */
function optionsOf(cmd: Command): Option[] {
  const out: Option[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) out.push(...c.options);
  return out;
}

export interface CompletionSlot {
  kind: 'words' | 'files';
  words: string[];
}

interface Sources {
  servers(): string[];
  tools(server: string): string[];
  toolArguments(server: string, tool: string): string[];
  refs(): string[];
}

/** What may go at `words[cword]` (words[0] is the program's name). */
export function completionSlot(program: Command, words: string[], cword: number, sources: Sources): CompletionSlot {
  const cur = words[cword] ?? '';
  let cmd = program;
  const operands: string[] = [];
  let pending: Option | undefined;
  let afterDashDash = false;
  for (const w of words.slice(1, cword)) {
    if (pending) {
      pending = undefined;
      continue;
    }
    if (w === '--' && !afterDashDash) {
      afterDashDash = true;
      continue;
    }
    if (w.startsWith('-') && w !== '-' && !afterDashDash) {
      const opt = optionsOf(cmd).find((o) => longAndShort(o).includes(w.split('=')[0]!));
      if (opt && (opt.required || opt.optional) && !w.includes('=')) pending = opt;
      continue;
    }
    const sub = operands.length === 0 ? visible(cmd).find((c) => c.name() === w) : undefined;
    if (sub) cmd = sub;
    else operands.push(w);
  }
  const words_ = (list: readonly string[]): CompletionSlot => ({ kind: 'words', words: list.filter((w) => w.startsWith(cur) && INSERTABLE.test(w) && w !== FILES_DIRECTIVE) });
  const files: CompletionSlot = { kind: 'files', words: [] };

  if (pending) {
    const flag = pending.long ?? '';
    if (FILE_OPTIONS.has(flag)) return files;
    if (SERVER_OPTIONS.has(flag)) return words_(sources.servers());
    if (flag === '--status') return words_(LIST_STATUSES.filter((s) => !s.includes(' ')));
    if (flag === '--resolve') return words_(RESOLUTIONS);
    if (flag === '--fault') return words_(FAULT_NAMES);
    return words_([]);
  }
  if (cur.startsWith('-') && !afterDashDash) return words_([...new Set(optionsOf(cmd).flatMap((o) => (o.long ? [o.long] : [])).concat('--help'))].sort());
  if (operands.length === 0 && visible(cmd).length) return words_(visible(cmd).map((c) => c.name()));
  if (afterDashDash && cmd.name() === 'add') return files; // a stdio server's command
  const args = cmd.registeredArguments;
  const arg = args[operands.length] ?? (args.at(-1)?.variadic ? args.at(-1) : undefined);
  switch (arg?.name()) {
    case 'server':
      return words_(sources.servers());
    case 'name':
      return cmd.name() === 'add' ? words_([]) : words_(sources.servers());
    case 'tool':
      return words_(operands[0] ? sources.tools(operands[0]) : []);
    case 'args':
      return operands[0] && operands[1] ? words_(sources.toolArguments(operands[0], operands[1]).map((a) => `${a}=`)) : words_([]);
    case 'ref':
      return words_(sources.refs());
    case 'file':
    case 'command':
      return files;
    case 'shell':
      return words_(SHELLS);
    default:
      return words_([]);
  }
}

type Needs = { servers: boolean; tools?: string; refs: boolean };

/** Where the candidates come from: the words' own --home (else the usual home), read only as needed. */
function sourcesFor(ctx: Context, words: string[]): { sources: Sources; load(need: Needs): Promise<void> } {
  const homeAt = words.indexOf('--home');
  const homeEq = words.find((w) => w.startsWith('--home='));
  const homeFlag = homeAt > 0 && words[homeAt + 1] ? words[homeAt + 1] : homeEq?.slice('--home='.length);
  const home = homeFlag ? resolveHome(homeFlag, ctx.env, ctx.platform) : ctx.home;
  const quietly = async <T>(fn: () => Promise<T>, fallback: T): Promise<T> => {
    try {
      return await fn();
    } catch {
      return fallback; // a completion never prints an error into the person's command line
    }
  };
  const store = async () => new (await import('../servers/server-store.js')).ServerStore(home);
  let servers: string[] = [];
  let refs: string[] = [];
  const tools = new Map<string, Array<{ name: string; inputSchema?: unknown }>>();
  return {
    sources: {
      servers: () => servers,
      tools: (s) => (tools.get(s) ?? []).map((t) => t.name),
      toolArguments: (s, t) => Object.keys(((tools.get(s) ?? []).find((x) => x.name === t)?.inputSchema as { properties?: object } | undefined)?.properties ?? {}),
      refs: () => refs,
    },
    async load(need) {
      if (need.servers) servers = await quietly(async () => (await store()).list().map((e) => e.name), []);
      // The tools/list cache only (what `server check`, `tools` and `call` stored): no network.
      if (need.tools) tools.set(need.tools, await quietly(async () => ((await store()).find(need.tools!)?.discovered?.tools ?? []) as Array<{ name: string; inputSchema?: unknown }>, []));
      if (need.refs) {
        refs = await quietly(async () => {
          const [{ storeAt }, { typeableRef }] = await Promise.all([import('../app/open-vault.js'), import('../vault/vault-record.js')]);
          const records = await storeAt(home, ctx.env).query({ listedByDefault: true });
          return [...new Set([...records.flatMap((r) => Object.values(r.labels)), ...records.map((r) => typeableRef(r))])];
        }, []);
      }
    },
  };
}

/** `__complete -- <cword> <words...>`: one candidate per line, or the files directive. */
export async function runComplete(program: Command, argv: string[], ctx: Context): Promise<number> {
  const [cwordText, ...words] = argv;
  const cword = Number(cwordText);
  if (!Number.isInteger(cword) || cword < 1) return ExitCode.Ok;
  const { sources, load } = sourcesFor(ctx, words);
  // A first pass with empty sources finds the slot; only that slot's source is then read.
  const need: Needs = { servers: false, refs: false };
  completionSlot(program, words, cword, {
    servers: () => ((need.servers = true), []),
    tools: (s) => ((need.tools = s), []),
    toolArguments: (s) => ((need.tools = s), []),
    refs: () => ((need.refs = true), []),
  });
  await load(need);
  const slot = completionSlot(program, words, cword, sources);
  ctx.stdout.write(slot.kind === 'files' ? `${FILES_DIRECTIVE}\n` : slot.words.map((w) => `${w}\n`).join(''));
  return ExitCode.Ok;
}

/** The script for a shell; it runs this program as it was invoked now. */
export interface CompletionScript {
  text: string;
  /** Said on stderr when the script cannot work as things stand: `mcp-tasks` is not the command here. */
  note?: string;
}

/**
 * The script for `shell`. It binds to the command word `mcp-tasks` and gets its candidates from
 * `candidates` (this installation run directly: never `npx`, which may ask a registry on every Tab).
 */
export function completionScript(shell: string, invocation: string, candidates: string): CompletionScript {
  const text = scriptText(shell, invocation, `${candidates} __complete --`);
  if (invocation === 'mcp-tasks') return { text };
  const alias = candidates.startsWith('node ') ? `, or alias mcp-tasks=${JSON.stringify(candidates)}` : '';
  return { text, note: `the script completes the command \`mcp-tasks\`, which is not on PATH here (started as \`${invocation}\`): run \`npm link\` in the checkout first${alias}` };
}

function scriptText(shell: string, invocation: string, run: string): string {
  switch (shell) {
    case 'bash':
      return `# mcp-tasks completion for bash. Load it with: source <(${renderHint(cmd('completion', 'bash'), invocation)})
_mcp_tasks() {
  local out line
  COMPREPLY=()
  out=$(${run} "$COMP_CWORD" "\${COMP_WORDS[@]}" 2>/dev/null) || return 0
  if [[ "$out" == "${FILES_DIRECTIVE}" ]]; then
    if ! compopt -o default 2>/dev/null; then
      local IFS=$'\\n'
      COMPREPLY=($(compgen -f -- "\${COMP_WORDS[COMP_CWORD]}"))
    fi
    return 0
  fi
  # Candidates are read as lines, never through compgen -W (which would expand them).
  while IFS= read -r line; do
    [[ -n "$line" ]] && COMPREPLY+=("$line")
  done <<< "$out"
}
complete -F _mcp_tasks mcp-tasks
`;
    case 'zsh':
      return `#compdef mcp-tasks
# mcp-tasks completion for zsh. Load it with: source <(${renderHint(cmd('completion', 'zsh'), invocation)})
_mcp_tasks() {
  local out
  local -a candidates
  out=$(${run} $((CURRENT - 1)) "\${words[@]}" 2>/dev/null) || return 1
  if [[ "$out" == "${FILES_DIRECTIVE}" ]]; then
    _files
    return
  fi
  candidates=("\${(@f)out}")
  (( \${#candidates} )) && compadd -- "\${candidates[@]}"
}
if [[ "\${funcstack[1]}" == "_mcp_tasks" ]]; then
  _mcp_tasks "$@"
else
  compdef _mcp_tasks mcp-tasks
fi
`;
    case 'fish':
      return `# mcp-tasks completion for fish. Load it with: ${renderHint(cmd('completion', 'fish'), invocation)} | source
function __mcp_tasks_complete
    set -l tokens (commandline -opc)
    set -l current (commandline -ct)
    set -l out (${run} (count $tokens) $tokens $current 2>/dev/null)
    if test "$out" = "${FILES_DIRECTIVE}"
        __fish_complete_path $current
        return
    end
    printf '%s\\n' $out
end
complete -c mcp-tasks -f -a '(__mcp_tasks_complete)'
`;
    default:
      throw new CliError('usage', `no completion for the shell "${shell}"${didYouMean(shell, SHELLS)}`, hint`Use one of ${SHELLS.join(', ')}: \`${cmd('completion', 'bash')}\`.`);
  }
}
