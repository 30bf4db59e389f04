import { settleWithin } from '@agcore/tools-core';
import { nextTurn, onNextTurn } from './event-loop-turn.js';

/**
 * When a response is read to its end, Node's `fetch` (undici) puts its connection back in the
 * pool only on the next turn of the event loop: it waits one `setImmediate` after the end of the
 * response "to make sure that non-spec compliant servers are not closing the connection" (undici,
 * `client-h1.js`, `onMessageComplete`). A request sent before that turn finds no free connection
 * and opens another one: a tool loop whose tools answer at once would open about two connections
 * per conversation, and a thousand conversations would run out of file descriptors.
 *
 * So each request of the provider returns only after that turn, once its own body was read to
 * its end: the next request of the same conversation then finds the connection free. Immediates
 * run in the order they were queued, and undici queued its own when the end arrived, before the
 * body reader saw it, so one `setImmediate` queued after seeing the end runs after undici's —
 * usually in the very check phase that follows the read, so it costs no extra turn of the loop.
 */

/** How long the end of a streamed response may take after `[DONE]` before the connection is cut. */
const endAfterDoneMs = 50;

/**
 * After `[DONE]`: reads the end of the response (servers end it right after `[DONE]`, mostly in
 * the same network read), then waits for the turn on which the connection goes back to the
 * pool. A server that sends more, or holds the response open for `endAfterDoneMs`, has the
 * connection cut instead (the next request opens a new one). Never rejects.
 *
 * The usual case (the end read before the next turn) runs on callbacks: one promise for the
 * caller, the read's, and two immediates, instead of the races and awaits of the slow path
 * (this runs once per streamed request; see the performance section of the README).
 * @param reader the body's reader, positioned after `[DONE]`
 * @param cancel cuts the connection (cancels the body)
 */
export function releaseAfterDone(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  cancel: () => void,
): Promise<void> {
  return new Promise<void>((resolve) => {
    let decided = false;
    const read = reader.read().then(
      (result) => result.done,
      () => false,
    );
    // Usually the end came with [DONE] and is read before the next turn: no timer then.
    void read.then((ended) => {
      if (decided) return;
      decided = true;
      if (ended) onNextTurn(resolve);
      else {
        cancel();
        resolve();
      }
    });
    onNextTurn(() => {
      if (decided) return;
      decided = true;
      void endLater(read, cancel).then(resolve);
    });
  });
}

/** The end did not come before the next turn: wait for it up to `endAfterDoneMs`. */
async function endLater(read: Promise<boolean>, cancel: () => void): Promise<void> {
  // When the process stalled, the timer and the end may be due together: timers run first,
  // so the end gets the poll phase that follows before the connection is given up.
  const ended = (await settleWithin(read, endAfterDoneMs))
    ? await read
    : await Promise.race([read, nextTurn().then(() => false)]);
  if (ended) await nextTurn();
  else cancel();
}
