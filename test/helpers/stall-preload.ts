// A machine too loaded to run this process for a while, at the worst moment: loaded with
// `NODE_OPTIONS=--import <this file>`, it stalls the event loop for MCP_TEST_STALL_MS (a busy
// wait, as a process starved of CPU or loading its modules in one synchronous run is) right after
// each connection to the port MCP_TEST_STALL_PORT starts, before its answer can be read.
import net from 'node:net';

const stallMs = Number(process.env.MCP_TEST_STALL_MS);
const port = Number(process.env.MCP_TEST_STALL_PORT);

if (stallMs > 0 && port > 0) {
  const connect = net.Socket.prototype.connect as (...args: unknown[]) => net.Socket;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const socket = connect.apply(this, args);
    const first = args[0];
    const to = typeof first === 'object' && first !== null ? Number((first as { port?: unknown }).port) : Number(first);
    if (to === port) {
      setImmediate(() => {
        const until = performance.now() + stallMs;
        while (performance.now() < until) { /* the process gets no CPU */ }
      });
    }
    return socket;
  } as typeof net.Socket.prototype.connect;
}
