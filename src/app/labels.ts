// `--label k=v`: labels a record carries (call) and filters on (list).
import { CliError } from '../errors.js';

export function parseLabels(values: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values ?? []) {
    const i = v.indexOf('=');
    if (i <= 0 || i === v.length - 1) throw new CliError('usage', `--label "${v}" is not key=value`, 'e.g. --label uhp.response=resp_123');
    out[v.slice(0, i)] = v.slice(i + 1);
  }
  return out;
}
