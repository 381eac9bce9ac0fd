// Failures particular to the 2025-11-25 generation, typed so the commands map them to the
// contract's exit codes without reading messages.
import { CliError, ExitCode } from '../../errors.js';
import { cmd, hint } from '../../hint.js';

/** The session a task was scoped to is gone (server restarted, session expired or deleted). Exit 6. */
export class SessionEndedError extends CliError {
  /** What the vault records as the reason the task is lost. */
  readonly lostReason = 'the server scoped this task to a session that has ended';
  constructor(server: string) {
    super(
      'lost',
      `the server scoped this task to a session that has ended (server "${server}" no longer knows the session it was created in)`,
      hint`The task cannot be reached any more; run the call again if its effect is still needed (\`${cmd('recover')}\` lists what is in doubt).`,
      ExitCode.TaskLost,
    );
    this.name = 'SessionEndedError';
  }
}

/** The tool only runs as a task, and the server does not offer tasks for tools/call. Exit 1. */
export class TaskRequiredError extends CliError {
  constructor(server: string, tool: string) {
    super(
      'invalid-input',
      `tool "${tool}" on server "${server}" requires task execution (execution.taskSupport "required"), but the server does not advertise tasks for tools/call`,
      'Nothing was sent. The server contradicts itself: fix its tasks capability, or ask its maintainers.',
      ExitCode.Usage,
    );
    this.name = 'TaskRequiredError';
  }
}
