// One abort listener per signal, however many requests wait on it at once. A command polls many
// tasks concurrently under the one Ctrl-C signal (list --refresh, watch a b c …): a listener
// per request passed Node's limit of 10 and printed MaxListenersExceededWarning.

export type AbortWatch = (signal: AbortSignal | undefined, onAbort: () => void) => () => void;

/** A registry for one connection: `watch(signal, fn)` returns the function that unregisters fn. */
export function abortFanout(): AbortWatch {
  const waiting = new Map<AbortSignal, { callbacks: Set<() => void>; listener: () => void }>();
  return (signal, onAbort) => {
    if (!signal) return () => {};
    let entry = waiting.get(signal);
    if (!entry) {
      const callbacks = new Set<() => void>();
      const listener = () => {
        waiting.delete(signal);
        for (const fn of [...callbacks]) fn();
      };
      entry = { callbacks, listener };
      waiting.set(signal, entry);
      signal.addEventListener('abort', listener, { once: true });
    }
    const { callbacks, listener } = entry;
    callbacks.add(onAbort);
    return () => {
      callbacks.delete(onAbort);
      if (callbacks.size > 0 || waiting.get(signal) !== entry) return;
      waiting.delete(signal);
      signal.removeEventListener('abort', listener);
    };
  };
}
