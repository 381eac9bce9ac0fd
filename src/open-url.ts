// The one way a URL is opened in a person's browser: $BROWSER's first entry ("%s" marks the
// URL) or the platform's opener, always as a program with arguments, never through a shell.
// The child gets the CLI's environment (the Context's, not this process's).
import { spawn } from 'node:child_process';

/** The command that opens `url`: $BROWSER (colon-separated, the first used) when given, else the platform's opener. */
export function openerFor(url: string, platform: NodeJS.Platform, browserEnv?: string): [string, string[]] {
  if (browserEnv) {
    const parts = browserEnv.split(':')[0]!.trim().split(/\s+/);
    const args = parts.slice(1);
    return [parts[0]!, args.some((a) => a.includes('%s')) ? args.map((a) => a.replace('%s', url)) : [...args, url]];
  }
  if (platform === 'darwin') return ['open', [url]];
  if (platform === 'win32') return ['rundll32', ['url.dll,FileProtocolHandler', url]];
  return ['xdg-open', [url]];
}

/** Start the opener; true once it started, false (with `onError` told why) when it could not. */
export function openUrl([command, args]: [string, string[]], env: NodeJS.ProcessEnv, onError: (message: string) => void = () => {}): Promise<boolean> {
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, { stdio: 'ignore', detached: true, env });
      child.once('error', (e) => {
        onError(`could not start the browser (${command}): ${e.message}`);
        resolve(false);
      });
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    } catch (e) {
      onError(`could not start the browser (${command}): ${(e as Error).message}`);
      resolve(false);
    }
  });
}
