// The team store's connection keeper as a process (vault/postgres/pg-keeper.ts): started detached
// by a command that found none (vault/postgres/pg-keeper-client.ts), with only what keeperEnv
// gives it. It exits once idle, when its socket goes, or on SIGTERM / SIGINT; never with a word:
// nobody reads its output.
import { keepMs } from './vault/postgres/pg-keeper-wire.js';
import { runKeeper } from './vault/postgres/pg-keeper.js';

const env = process.env;
const url = env.MCP_TASKS_STORE;
const socket = env.MCP_TASKS_KEEPER_SOCKET;
if (!url || !socket || keepMs(env) === 0) process.exit(2);
runKeeper({ url, env, socket, keepMs: keepMs(env) }).then(
  ({ stop, ended }) => {
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    return ended;
  },
).then(
  () => process.exit(0),
  () => process.exit(1),
);
