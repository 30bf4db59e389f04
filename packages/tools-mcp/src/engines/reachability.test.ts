import { describe, expect, it } from 'vitest';
import { defaultUnreachable, ReachabilityWindow, unreachablePolicy } from './reachability.js';

/** A window on a clock the test moves. */
function windowAt(failures: number, windowMs: number) {
  const clock = { ms: 1_000 };
  const window = new ReachabilityWindow({ failures, windowMs }, () => clock.ms);
  return { clock, window };
}

describe('ReachabilityWindow', () => {
  it('decides unreachable only after N consecutive failures spanning at least T ms', () => {
    const { clock, window } = windowAt(3, 5_000);
    expect(window.failed()).toBe(false);
    clock.ms += 100;
    expect(window.failed()).toBe(false);
    clock.ms += 100;
    // Three failures, but 200 ms apart: not yet.
    expect(window.failed()).toBe(false);
    clock.ms += 4_799;
    expect(window.failed()).toBe(false);
    clock.ms += 1;
    expect(window.failed()).toBe(true);
  });

  it('needs N failures however long they span', () => {
    const { clock, window } = windowAt(3, 5_000);
    expect(window.failed()).toBe(false);
    clock.ms += 60_000;
    expect(window.failed()).toBe(false);
    expect(window.failed()).toBe(true);
  });

  it('starts over on an answer: failures on both sides of it never add up', () => {
    const { clock, window } = windowAt(3, 5_000);
    window.failed();
    window.failed();
    clock.ms += 10_000;
    window.answered();
    expect(window.failures).toBe(0);
    expect(window.failed()).toBe(false);
    expect(window.failed()).toBe(false);
    // Three since the answer, but the first of them is only now: the span counts from it.
    expect(window.failed()).toBe(false);
    clock.ms += 5_000;
    expect(window.failed()).toBe(true);
  });

  it('with one failure and no span, the first failure decides (the old behaviour, opted in)', () => {
    const { window } = windowAt(1, 0);
    expect(window.failed()).toBe(true);
  });
});

describe('unreachablePolicy', () => {
  it('defaults to 5 failures over 10 s, as the README says', () => {
    expect(unreachablePolicy(undefined)).toEqual({ failures: 5, windowMs: 10_000 });
    expect(defaultUnreachable).toEqual({ failures: 5, windowMs: 10_000 });
    expect(unreachablePolicy({ failures: 2 })).toEqual({ failures: 2, windowMs: 10_000 });
  });

  it('rejects a count that is not a positive integer and a negative or infinite span', () => {
    for (const failures of [0, -1, 1.5, Number.NaN]) {
      expect(() => unreachablePolicy({ failures })).toThrow(TypeError);
    }
    for (const windowMs of [-1, Number.POSITIVE_INFINITY, Number.NaN]) {
      expect(() => unreachablePolicy({ windowMs })).toThrow(TypeError);
    }
  });
});
