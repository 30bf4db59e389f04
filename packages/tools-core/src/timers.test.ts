import { describe, expect, it, vi } from 'vitest';
import { delay, settleWithin } from './timers.js';

describe('delay', () => {
  it('resolves after the time, rejects with the reason on abort, at once when already aborted', async () => {
    vi.useFakeTimers();
    try {
      let done = false;
      const waiting = delay(100).then(() => {
        done = true;
      });
      await vi.advanceTimersByTimeAsync(99);
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await waiting;
      expect(done).toBe(true);
      const controller = new AbortController();
      const aborted = delay(1_000, controller.signal);
      controller.abort(new Error('stop'));
      await expect(aborted).rejects.toThrow('stop');
      await expect(delay(1, AbortSignal.abort('early'))).rejects.toBe('early');
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('settleWithin', () => {
  it('tells whether a promise settled in time, never rejecting', async () => {
    vi.useFakeTimers();
    try {
      expect(await settleWithin(Promise.resolve(1), 10)).toBe(true);
      expect(await settleWithin(Promise.reject(new Error('no')), 10)).toBe(true);
      const never = settleWithin(new Promise(() => {}), 50);
      await vi.advanceTimersByTimeAsync(50);
      expect(await never).toBe(false);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
