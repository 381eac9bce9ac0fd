// `--version`: what a bug report needs: the name and version, the Node running it, and the
// protocol versions (and task generations) this build speaks.
import { LEGACY_PROTOCOL_VERSION, MODERN_PROTOCOL_VERSION, TASKS_EXTENSION_ID } from '../protocol/constants.js';
import { PROGRAM } from '../invocation.js';

export interface VersionInfo {
  name: string;
  version: string;
  node: string;
  protocols: Array<{ protocolVersion: string; tasks: string }>;
}

export function versionInfo(version: string, node = process.version): VersionInfo {
  return {
    name: PROGRAM,
    version,
    node,
    protocols: [
      { protocolVersion: MODERN_PROTOCOL_VERSION, tasks: `${TASKS_EXTENSION_ID} extension` },
      { protocolVersion: LEGACY_PROTOCOL_VERSION, tasks: 'experimental tasks' },
    ],
  };
}

export function versionText(info: VersionInfo): string {
  return [`${info.name} ${info.version}`, `node ${info.node}`, `protocols: ${info.protocols.map((p) => `${p.protocolVersion} (${p.tasks})`).join(', ')}`, ''].join('\n');
}
