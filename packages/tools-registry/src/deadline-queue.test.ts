import { describe, expect, it } from 'vitest';
import { scheduleDeadline } from './deadline-queue.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('scheduleDeadline', () => {
  it('fires deadlines of one duration in order, skipping cancelled ones', async () => {
    const fired: string[] = [];
    scheduleDeadline(25, () => fired.push('a'));
    const b = scheduleDeadline(25, () => fired.push('b'));
    await sleep(5);
    scheduleDeadline(25, () => fired.push('c'));
    b.cancel();
    b.cancel();
    await sleep(22);
    expect(fired).toEqual(['a']);
    await sleep(30);
    expect(fired).toEqual(['a', 'c']);
  });

  it('keeps durations apart and stops its timer when everything is cancelled', async () => {
    const fired: string[] = [];
    const long = scheduleDeadline(40, () => fired.push('long'));
    scheduleDeadline(5, () => fired.push('short'));
    long.cancel();
    await sleep(60);
    expect(fired).toEqual(['short']);
  });

  it('serves many deadlines, cancelled out of order, without losing a live one', async () => {
    const fired: number[] = [];
    const handles = Array.from({ length: 3000 }, (_, i) =>
      scheduleDeadline(30, () => fired.push(i)),
    );
    handles.forEach((handle, i) => {
      if (i % 1000 !== 999) handle.cancel();
    });
    await sleep(60);
    expect(fired).toEqual([999, 1999, 2999]);
  });
});
