interface Watch {
  readonly callbacks: Set<() => void>;
  readonly listener: () => void;
}

const watches = new WeakMap<AbortSignal, Watch>();

/**
 * Calls `callback` when `signal` aborts; returns the function that stops watching. However
 * many calls watch one signal (a batch, a model turn with many tool calls), the signal carries
 * at most one listener of ours, removed when the last watcher stops: no
 * `MaxListenersExceededWarning`, nothing left on a long-lived signal.
 */
export function watchAbort(signal: AbortSignal, callback: () => void): () => void {
  let watch = watches.get(signal);
  if (watch === undefined) {
    const callbacks = new Set<() => void>();
    const listener = (): void => {
      watches.delete(signal);
      for (const each of [...callbacks]) each();
      callbacks.clear();
    };
    watch = { callbacks, listener };
    watches.set(signal, watch);
    signal.addEventListener('abort', listener, { once: true });
  }
  const { callbacks, listener } = watch;
  callbacks.add(callback);
  return () => {
    if (!callbacks.delete(callback) || callbacks.size > 0) return;
    signal.removeEventListener('abort', listener);
    if (watches.get(signal) === watch) watches.delete(signal);
  };
}
