// Where a command's team key comes from: MCP_TASKS_TEAM_KEY (a CI job's secret store), else the
// key `store key save` kept in the OS keychain for this store (a person's machine). The variable
// wins, so a job's explicit key is never replaced by whatever the machine holds. The keychain
// entry is named by the store (its URL without the password), so a key only opens the store it
// was saved for; MCP_TASKS_NO_KEYCHAIN=1 keeps the keychain out of it.
import { KEYCHAIN_SERVICE, keychainEntry, keychainName } from '../keychain.js';

export type TeamKeyFrom = 'env' | 'keychain';

export interface TeamKeyLookup {
  key?: string;
  from?: TeamKeyFrom;
  /** Why the keychain could not be asked (none usable, locked), when it was asked. */
  keychainProblem?: string;
  /** MCP_TASKS_NO_KEYCHAIN: the keychain was not asked. */
  keychainOff?: boolean;
}

/** The store a keychain entry belongs to: user, host, port and database (no password, no parameters; postgresql:// as postgres://). */
export function teamKeyAccount(url: string): string {
  try {
    const u = new URL(url);
    const user = u.username ? `${decodeURIComponent(u.username)}@` : '';
    return `team-key postgres://${user}${u.host.toLowerCase()}${u.pathname}`;
  } catch {
    return `team-key (unparsable)`;
  }
}

const keychainOff = (env: NodeJS.ProcessEnv) => Boolean(env.MCP_TASKS_NO_KEYCHAIN);

/** The team key for the store at `url` (the keychain is asked each time: another process may have saved or forgotten it). */
export function lookUpTeamKey(url: string, env: NodeJS.ProcessEnv): TeamKeyLookup {
  const fromEnv = env.MCP_TASKS_TEAM_KEY;
  if (fromEnv) return { key: fromEnv, from: 'env' };
  if (keychainOff(env)) return { keychainOff: true };
  try {
    const key = keychainEntry(KEYCHAIN_SERVICE, teamKeyAccount(url)).getPassword();
    return key ? { key, from: 'keychain' } : {};
  } catch (err) {
    return { keychainProblem: oneLine(err) };
  }
}

export class KeychainUnavailable extends Error {
  constructor(
    message: string,
    /** MCP_TASKS_NO_KEYCHAIN said not to use it (rather than none being usable). */
    readonly off = false,
  ) {
    super(message);
  }
}

/** Keep `key` in the OS keychain for the store at `url`, read back to be sure; throws KeychainUnavailable. */
export function saveTeamKey(url: string, env: NodeJS.ProcessEnv, key: string): void {
  if (keychainOff(env)) throw new KeychainUnavailable('MCP_TASKS_NO_KEYCHAIN is set', true);
  try {
    const entry = keychainEntry(KEYCHAIN_SERVICE, teamKeyAccount(url));
    entry.setPassword(key);
    if (entry.getPassword() !== key) throw new Error(`${keychainName()} did not keep it`);
  } catch (err) {
    throw new KeychainUnavailable(oneLine(err));
  }
}

/** Remove the store's team key from the OS keychain: whether one was there. Throws KeychainUnavailable. */
export function forgetTeamKey(url: string, env: NodeJS.ProcessEnv): boolean {
  if (keychainOff(env)) throw new KeychainUnavailable('MCP_TASKS_NO_KEYCHAIN is set', true);
  try {
    return keychainEntry(KEYCHAIN_SERVICE, teamKeyAccount(url)).deletePassword();
  } catch (err) {
    throw new KeychainUnavailable(oneLine(err));
  }
}

const oneLine = (err: unknown) => String((err as Error)?.message ?? err).replace(/\s+/g, ' ').slice(0, 300);
