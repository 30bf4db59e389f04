/**
 * `value` (a promise or thenable adopted), or a rejection with the signal's reason as soon as
 * `signal` aborts: a callback that waits (a policy asking a person, a run store's claim) must
 * not hold a cancelled submit. What it waited on is left to settle on its own.
 */
export function untilAborted<T>(value: T | PromiseLike<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  // Adopts any thenable; a throwing `then` getter becomes a rejection.
  const promise = Promise.resolve(value);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (result) => {
        signal.removeEventListener('abort', onAbort);
        resolve(result);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
