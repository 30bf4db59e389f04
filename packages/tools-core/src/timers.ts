/**
 * The two timer helpers of agcore, written once: waiting, and waiting for something at most so
 * long. They use only `setTimeout`, so they run wherever the packages do (Node, Deno, Bun,
 * browsers); on Node they behave as `node:timers/promises` does.
 */

/**
 * Resolves after `ms` milliseconds; rejects with the signal's reason as soon as `signal`
 * aborts (at once when it already has). The timer is released either way.
 */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Waits for `promise` to settle, but at most `ms` milliseconds. Resolves `true` when it settled
 * (fulfilled or rejected) in time, `false` when the time ran out first. Never rejects; the timer
 * is released as soon as either happens, and `unref`'d where the platform can, so it never
 * keeps a process alive.
 */
export async function settleWithin(promise: PromiseLike<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    (timer as { unref?: () => void }).unref?.();
  });
  try {
    return await Promise.race([
      Promise.resolve(promise).then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
