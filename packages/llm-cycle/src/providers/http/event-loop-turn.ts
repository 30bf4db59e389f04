/**
 * Calls `callback` on the next turn of the event loop: `setImmediate` where there is one (Node,
 * Bun, Deno), else a zero timeout.
 */
export function onNextTurn(callback: () => void): void {
  if (typeof globalThis.setImmediate === 'function') globalThis.setImmediate(callback);
  else setTimeout(callback, 0);
}

/** Resolves on the next turn of the event loop (see `onNextTurn`). */
export function nextTurn(): Promise<void> {
  return new Promise(onNextTurn);
}
