import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff.js';

describe('backoffDelay', () => {
  it('doubles per attempt up to the cap, and jitters between half and all of it', () => {
    const options = { initialDelayMs: 100, maxDelayMs: 1000, jitter: false };
    expect([1, 2, 3, 4, 5].map((attempt) => backoffDelay(attempt, options))).toEqual([
      100, 200, 400, 800, 1000,
    ]);
    expect(backoffDelay(10_000, options)).toBe(1000);
    for (let attempt = 1; attempt < 20; attempt++) {
      const delay = backoffDelay(attempt, { initialDelayMs: 100, maxDelayMs: 1000 });
      const base = Math.min(1000, 100 * 2 ** (attempt - 1));
      expect(delay).toBeGreaterThanOrEqual(base / 2);
      expect(delay).toBeLessThanOrEqual(base);
    }
  });
});
