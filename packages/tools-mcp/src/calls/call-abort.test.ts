import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { CallAbort } from './call-abort.js';

/** What the SDK does with the signal of a request: one listener, never removed. */
function sdkListens(call: CallAbort): { fired: number } {
  const seen = { fired: 0 };
  const signal = call.sdkSignal();
  signal.throwIfAborted();
  signal.addEventListener('abort', () => {
    seen.fired++;
  });
  return seen;
}

describe('CallAbort', () => {
  it('removes its listener from a one-off signal when the call ends', () => {
    const controller = new AbortController();
    const call = CallAbort.follow(controller.signal);
    const seen = sdkListens(call);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    call.release();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    controller.abort();
    expect(seen.fired).toBe(0);
    expect(call.aborted).toBe(false);
  });

  it('puts one listener on a signal that serves many calls, and aborts only the calls in flight', () => {
    const controller = new AbortController();
    const finished = Array.from({ length: 100 }, () => {
      const call = CallAbort.follow(controller.signal);
      const seen = sdkListens(call);
      call.release();
      return seen;
    });
    const pending = [CallAbort.follow(controller.signal), CallAbort.follow(controller.signal)];
    const pendingSeen = pending.map(sdkListens);
    expect(getEventListeners(controller.signal, 'abort').length).toBeLessThanOrEqual(1);
    const reason = new Error('stop');
    controller.abort(reason);
    expect(pendingSeen.map((seen) => seen.fired)).toEqual([1, 1]);
    expect(finished.every((seen) => seen.fired === 0)).toBe(true);
    expect(pending[0]?.aborted).toBe(true);
    expect(pending[0]?.reason).toBe(reason);
    expect(() => pending[0]?.sdkSignal().throwIfAborted()).toThrow(reason);
  });

  it('passes an abort on to a call linked one by one', () => {
    const controller = new AbortController();
    const call = CallAbort.follow(controller.signal);
    const seen = sdkListens(call);
    controller.abort('because');
    expect(seen.fired).toBe(1);
    expect(call.aborted).toBe(true);
    expect(call.reason).toBe('because');
    call.release();
  });
});
