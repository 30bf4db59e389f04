import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toJsonPreview } from './json-preview.js';

describe('toJsonPreview', () => {
  it('copies plain JSON as it is', () => {
    const value = { city: 'Paris', days: [1, 2, 3], nested: { ok: true, none: null } };
    expect(toJsonPreview(value)).toEqual(value);
    expect(toJsonPreview('text')).toBe('text');
    expect(toJsonPreview(undefined)).toBeNull();
  });

  it('treats what JSON cannot hold as JSON.stringify does, or as a marker', () => {
    expect(
      toJsonPreview({
        gone: undefined,
        nan: Number.NaN,
        big: 12n,
        fn: () => 1,
        sym: Symbol('x'),
        when: new Date(0),
        list: [undefined, 1],
      }),
    ).toEqual({
      nan: null,
      big: '[BigInt 12]',
      fn: '[function]',
      sym: '[symbol]',
      when: '1970-01-01T00:00:00.000Z',
      list: [null, 1],
    });
  });

  it('marks cycles, but not an object seen twice on separate branches', () => {
    const shared = { id: 1 };
    const cycle: Record<string, unknown> = { shared, again: shared };
    cycle.self = cycle;
    expect(toJsonPreview(cycle)).toEqual({
      shared: { id: 1 },
      again: { id: 1 },
      self: '[Circular]',
    });
  });

  it('survives proxies whose traps throw, throwing getters and toJSON', () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('no keys for you');
        },
      },
    );
    const { proxy: revoked, revoke } = Proxy.revocable([], {});
    revoke();
    const value = {
      hostile,
      revoked,
      get boom() {
        throw new Error('getter exploded');
      },
      json: {
        toJSON: () => {
          throw new Error('toJSON exploded');
        },
      },
    };
    expect(toJsonPreview(value)).toEqual({
      hostile: '[unreadable: no keys for you]',
      revoked: expect.stringMatching(/^\[unreadable: .*revoked/),
      boom: '[unreadable: getter exploded]',
      json: '[unreadable: toJSON exploded]',
    });
  });

  it('cuts huge strings, arrays, objects and depth, saying what was left out', () => {
    const big = 'x'.repeat(100_000_000);
    const preview = toJsonPreview(
      { big, list: new Array(10_000_000).fill(7) },
      { maxStringLength: 10, maxItems: 3 },
    );
    expect(preview).toEqual({
      big: 'xxxxxxxxxx…[99999990 more characters]',
      list: [7, 7, 7, '[… 9999997 more items]'],
    });
    const wide = Object.fromEntries(Array.from({ length: 5 }, (_, index) => [`k${index}`, index]));
    expect(toJsonPreview(wide, { maxItems: 2 })).toEqual({ k0: 0, k1: 1, '…': '[3 more keys]' });
    let deep: unknown = 'bottom';
    for (let level = 0; level < 100_000; level++) deep = [deep];
    expect(JSON.stringify(toJsonPreview(deep, { maxDepth: 3 }))).toBe('[[["[nested too deep]"]]]');
  });

  it('always gives something JSON.stringify can write, within a bounded size', () => {
    fc.assert(
      fc.property(
        fc.anything({
          withBigInt: true,
          withMap: true,
          withSet: true,
          withTypedArray: true,
          withSparseArray: true,
          withBoxedValues: true,
        }),
        (value) => {
          const text = JSON.stringify(
            toJsonPreview(value, { maxStringLength: 50, maxItems: 5, maxValues: 100 }),
          );
          expect(typeof text).toBe('string');
          expect(text.length).toBeLessThan(100 * 120);
        },
      ),
      { seed: 1313, numRuns: 300 },
    );
  });
});
