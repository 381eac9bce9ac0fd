// The OS keychain (@napi-rs/keyring, a native module loaded on first use): the macOS Keychain,
// Windows Credential Manager, and on Linux the Secret Service (GNOME Keyring, KWallet) only:
// never the kernel keyring the binding may fall back to, whose keys are gone at logout.
import { createRequire } from 'node:module';
import { osPlatform } from '../fs/own-process.js';

export const KEYCHAIN_SERVICE = 'mcp-tasks';

export interface KeychainEntry {
  getPassword(): string | null | undefined;
  setPassword(v: string): void;
  /** True when an entry was there to delete. */
  deletePassword(): boolean;
}

type EntryOptions = { linux?: { store?: 'secret-service' | 'keyutils' } };

/** One keychain entry; throws where no keychain is usable (on Linux: no Secret Service on the session bus). */
export function keychainEntry(service: string, account: string): KeychainEntry {
  const { Entry } = createRequire(import.meta.url)('@napi-rs/keyring') as { Entry: new (s: string, a: string, o?: EntryOptions) => KeychainEntry };
  return new Entry(service, account, { linux: { store: 'secret-service' } });
}

/** The keychain's name as a person knows it on this system. */
export function keychainName(): string {
  if (osPlatform === 'darwin') return 'the macOS Keychain';
  if (osPlatform === 'win32') return 'Windows Credential Manager';
  return 'the Secret Service keyring';
}
