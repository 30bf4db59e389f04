import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { activeDeadlineQueues, scheduleDeadline } from './deadline-queue.js';

// Fake timers (and a fake performance.now), so the order of deadlines is tested, not the
// machine's speed.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('scheduleDeadline', () => {
  it('fires deadlines of one duration in order, skipping cancelled ones', () => {
    const fired: string[] = [];
    scheduleDeadline(25, { expire: () => fired.push('a') });
    const b = scheduleDeadline(25, { expire: () => fired.push('b') });
    vi.advanceTimersByTime(5);
    scheduleDeadline(25, { expire: () => fired.push('c') });
    b.cancel();
    b.cancel();
    vi.advanceTimersByTime(22);
    expect(fired).toEqual(['a']);
    vi.advanceTimersByTime(3);
    expect(fired).toEqual(['a', 'c']);
  });

  it('keeps durations apart and stops its timer when everything is cancelled', () => {
    const fired: string[] = [];
    const long = scheduleDeadline(40, { expire: () => fired.push('long') });
    scheduleDeadline(5, { expire: () => fired.push('short') });
    long.cancel();
    vi.advanceTimersByTime(60);
    expect(fired).toEqual(['short']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('serves many deadlines, cancelled out of order, without losing a live one', () => {
    const fired: number[] = [];
    const handles = Array.from({ length: 3000 }, (_, i) =>
      scheduleDeadline(30, { expire: () => fired.push(i) }),
    );
    handles.forEach((handle, i) => {
      if (i % 1000 !== 999) handle.cancel();
    });
    vi.advanceTimersByTime(29);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(2);
    expect(fired).toEqual([999, 1999, 2999]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('scheduleDeadline: idle queues', () => {
  it('keeps one emptied queue armed for the next call, drops it when another empties', () => {
    const fired: string[] = [];
    scheduleDeadline(70, { expire: () => fired.push('never') }).cancel();
    expect(activeDeadlineQueues()).toBe(1);
    scheduleDeadline(80, { expire: () => fired.push('never') }).cancel();
    expect(activeDeadlineQueues()).toBe(1);
    const again = scheduleDeadline(80, { expire: () => fired.push('eighty') });
    vi.advanceTimersByTime(81);
    expect(fired).toEqual(['eighty']);
    expect(again).toBeDefined();
    expect(activeDeadlineQueues()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
