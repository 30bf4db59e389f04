import { afterEach, describe, expect, it, vi } from 'vitest';
import { InMemoryIdempotencyStore } from './idempotency-store.js';

describe('InMemoryIdempotencyStore leases', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('grants one of many concurrent reservations of a free key; the rest see in_progress', async () => {
    const store = new InMemoryIdempotencyStore();
    const answers = await Promise.all(Array.from({ length: 50 }, () => store.reserve('k', 10_000)));
    expect(answers.filter((answer) => answer.state === 'reserved')).toHaveLength(1);
    expect(answers.filter((answer) => answer.state === 'in_progress')).toHaveLength(49);
  });

  it('answers done with the committed result, and the first result wins', async () => {
    const store = new InMemoryIdempotencyStore();
    expect(await store.reserve('k', 1_000)).toEqual({ state: 'reserved' });
    await store.set('k', { n: 1 });
    await store.set('k', { n: 2 });
    expect(await store.reserve('k', 1_000)).toEqual({ state: 'done', value: { n: 1 } });
    expect(await store.get('k')).toEqual({ n: 1 });
  });

  it('lets a lease whose holder died be taken over once it expires', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const store = new InMemoryIdempotencyStore();
    expect(await store.reserve('k', 5_000)).toEqual({ state: 'reserved' });
    vi.setSystemTime(1_004_999);
    expect(await store.reserve('k', 5_000)).toEqual({ state: 'in_progress' });
    vi.setSystemTime(1_005_001);
    expect(await store.reserve('k', 5_000)).toEqual({ state: 'reserved' });
    expect(await store.get('k')).toBeUndefined();
  });

  it('grants the key again at once after release, and release keeps a committed result', async () => {
    const store = new InMemoryIdempotencyStore();
    await store.reserve('a', 60_000);
    await store.release('a');
    expect(await store.reserve('a', 60_000)).toEqual({ state: 'reserved' });
    await store.set('b', 'kept');
    await store.release('b');
    expect(await store.get('b')).toBe('kept');
  });

  it('refuses a lease that is not a positive finite number', async () => {
    const store = new InMemoryIdempotencyStore();
    for (const leaseMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(store.reserve('k', leaseMs)).rejects.toThrow(RangeError);
    }
  });
});
