// Durations on the command line: 90s, 5m, 1h, 250ms, or plain milliseconds.
import { CliError } from '../errors.js';

export function parseDuration(value: string, flag = '--timeout'): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (!m) throw new CliError('usage', `${flag} "${value}" is not a duration`, 'Use 90s, 5m, 1h, or a number of milliseconds.');
  const n = Number(m[1]);
  const unit = m[2] ?? 'ms';
  const ms = unit === 'h' ? n * 3_600_000 : unit === 'm' ? n * 60_000 : unit === 's' ? n * 1000 : n;
  if (!Number.isFinite(ms) || ms <= 0) throw new CliError('usage', `${flag} must be more than zero`, 'Use 90s, 5m, 1h, or a number of milliseconds.');
  return Math.round(ms);
}
