// Timeouts for the team store's connections that count only the time this process could run.
// On a loaded runner (a fleet of jobs started at once on one machine; Node 22+ loading a
// command's modules in one synchronous run) the event loop can stall for longer than a whole
// timeout. A plain timer then fires on the loop's first turn, before the socket's waiting answer
// is read (timers run before I/O), and a database that did answer is reported unreachable: a
// CI job failed for its own machine's load. Here a stall counts for two ticks at most, so a
// timeout still ends a wait on a database that does not answer while this process runs freely.
// The price: a process starved throughout waits longer in wall time (a tick counts 200 ms at most).
import type { PgDriver } from './pg-driver.js';
import { monotonicMs } from '../../fs/own-process.js';

const TICK_MS = 100;

/**
 * Calls `expired` once `ms` of this process's running time have passed, unless the returned
 * stop function is called first. A stall of the event loop counts as at most two ticks.
 */
export function patientTimer(ms: number, expired: () => void): () => void {
  let counted = 0;
  let last = monotonicMs();
  const tick = setInterval(() => {
    const now = monotonicMs();
    counted += Math.min(now - last, 2 * TICK_MS);
    last = now;
    if (counted >= ms) {
      clearInterval(tick);
      expired();
    }
  }, TICK_MS);
  // The socket it watches keeps the process alive while it matters; the timer alone never does.
  tick.unref();
  return () => clearInterval(tick);
}

type ClientConfig = ConstructorParameters<PgDriver['Client']>[0];

/** A connect or query that the database did not answer within its timeout. */
export class DatabaseSilent extends Error {}

/**
 * The driver's Client with its connect and query timeouts counted by patientTimer (instead of
 * the driver's `connectionTimeoutMillis` and `query_timeout`, which must stay unset). On expiry
 * the connection's socket is destroyed: the pending connect or query fails with DatabaseSilent,
 * saying how long the database was silent, and the connection is not used again.
 */
export function patientClient(pg: PgDriver, connectMs: number, queryMs: number): PgDriver['Client'] {
  return class PatientClient extends pg.Client {
    constructor(config?: ClientConfig) {
      super(config);
      // A connection cut while nobody listens (a query's wait ran out before the pool's listener
      // was added) must not end the process: the pending connect or query carries the error.
      this.on('error', () => {});
      const self = this as unknown as Record<'connect' | 'query', (...args: unknown[]) => unknown>;
      const connect = self.connect.bind(this);
      const query = self.query.bind(this);
      // The driver's pool connects with a callback, a command's own client with a promise.
      self.connect = (...args: unknown[]) => {
        const stop = patientTimer(connectMs, () => this.cut(`the database did not answer within ${seconds(connectMs)}`));
        const callback = args[0];
        if (typeof callback === 'function') {
          return connect((err: Error) => {
            stop();
            callback(err);
          });
        }
        return watched(connect(), stop);
      };
      self.query = (...args: unknown[]) => watched(query(...args), patientTimer(queryMs, () => this.cut(`the database did not answer a query for ${seconds(queryMs)}`)));
    }

    private cut(message: string): void {
      const stream = (this as unknown as { connection?: { stream?: { destroy(err: Error): void } } }).connection?.stream;
      stream?.destroy(new DatabaseSilent(message));
    }
  };
}

/** `pending` as it was, with `stop` called once it settles (at once when it is no promise: a query given a callback or a submittable, which this code never sends, is not timed). */
function watched(pending: unknown, stop: () => void): unknown {
  if (pending instanceof Promise) pending.then(stop, stop);
  else stop();
  return pending;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms % 1000 ? 1 : 0)} s`;
