// A task id is opaque base64url or similar, so one may begin with "-"; pasted after a command it
// reads as an unknown option. Commander's message would then echo the whole bearer handle into
// stderr (and CI logs) and not say what to do. This rewrites that one message.
import { cmd, hint, renderHint } from '../hint.js';
import { PROGRAM } from '../invocation.js';

/** Commands whose operands are task references. */
const REF_COMMANDS = new Set(['get', 'watch', 'answer', 'cancel', 'show', 'recover', 'export']);

/**
 * Our own options are short words; an "option" this long made of id characters is a pasted ref.
 * A base64url id may also begin with "--" (one in 64 of those that begin with "-"), or with more
 * dashes: then only one far longer than any of our long options counts.
 */
const OPTION_LIKE_REF = /unknown option '(-[A-Za-z0-9_][A-Za-z0-9_-]{7,}|--[A-Za-z0-9_-]{20,})'/;

const explanation = (ref: string, command: string, invocation: string) =>
  `error: "${ref.slice(0, 6)}…" begins with "-" and was read as an option. ` +
  renderHint(hint`Put a task reference that begins with "-" after "--": ${cmd(command, '[options]', '--', '<ref>')}\n`, invocation);

/** `invocation`: how the user started the program, which the usage line starts with. */
export function explainOptionLikeRef(message: string, argv: readonly string[], invocation = PROGRAM): string {
  const m = OPTION_LIKE_REF.exec(message);
  if (!m) return message;
  const command = argv.find((a) => REF_COMMANDS.has(a));
  if (!command) return message;
  return explanation(m[1]!, command, invocation);
}

/** A pasted ref that begins with "-" and one of our short flags (-V, -h, -v) as its second character. */
const SHORT_FLAG_REF = /^-[A-Za-z0-9_][A-Za-z0-9_-]{7,}$/;

/**
 * Before commander sees it: commander splits "-Vabc…" into -V and -abc…, so a ref that begins
 * with "-V" or "-h" printed the version or the help and exited 0, a success for a command that
 * never ran. A ref command's single-dash word this long is a pasted ref (our short flags stand
 * alone), unless it is the value of the option before it (`--note -no_ticket_yet`), which
 * commander takes as given: `takesValue` says which flags take one.
 */
export function optionLikeRefBeforeParse(argv: readonly string[], takesValue: (flag: string) => boolean, invocation = PROGRAM): string | undefined {
  const end = argv.indexOf('--');
  const words = end === -1 ? argv : argv.slice(0, end);
  const command = words.find((a) => REF_COMMANDS.has(a));
  if (!command) return undefined;
  const ref = words.find((a, i) => SHORT_FLAG_REF.test(a) && !(i > 0 && takesValue(words[i - 1]!)));
  return ref ? explanation(ref, command, invocation) : undefined;
}
