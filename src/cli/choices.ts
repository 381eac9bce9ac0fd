// Enumerated flag values, in one place: the commands check them (with a did-you-mean) and shell
// completion offers them. No imports, so completion loads nothing else to know them.

/** `list --status`: a task status, a vault phase, or a hand resolution as `list` shows it. */
export const LIST_STATUSES = [
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
  'unknown',
  'submitting',
  'active',
  'terminal',
  'lost',
  'in-doubt',
  'resolved completed',
  'resolved not-run',
  'resolved failed',
] as const;

/** `recover --resolve`. */
export const RESOLUTIONS = ['completed', 'not-run', 'failed'] as const;

/** `demo-server --fault` (those taking `=<ms>` are offered with the `=`). */
export const FAULT_NAMES = ['drop-create-response', 'ttl=', 'rate-limit', 'slow-get=', 'hostile-text', 'hostile-ids', 'dash-task-ids', 'no-push'] as const;

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
