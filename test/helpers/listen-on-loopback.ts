// Preloaded (`node --import`) into third-party servers that listen on a fixed or configured port
// and log the port they were asked for rather than the one they got (or read PORT=0 as "use my
// default"): it binds every listen(port) to 127.0.0.1 on an ephemeral port and reports the real
// port on stderr, so tests never depend on a fixed port.
import net from 'node:net';
import { PORT_LINE_PREFIX } from './port-line.js';

const originalListen = net.Server.prototype.listen;
net.Server.prototype.listen = function listenOnLoopback(this: net.Server, ...args: unknown[]) {
  this.once('listening', () => {
    const address = this.address();
    if (address && typeof address === 'object') process.stderr.write(`${PORT_LINE_PREFIX}${address.port}\n`);
  });
  // listen(port[, host][, backlog][, callback]) → listen(0, '127.0.0.1'[, ...]).
  if (typeof args[0] === 'number' || typeof args[0] === 'string') {
    args[0] = 0;
    if (typeof args[1] === 'string') args[1] = '127.0.0.1';
    else args.splice(1, 0, '127.0.0.1');
  }
  return (originalListen as (...a: unknown[]) => net.Server).apply(this, args);
} as typeof net.Server.prototype.listen;
