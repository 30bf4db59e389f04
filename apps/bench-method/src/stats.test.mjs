import { describe, expect, it } from 'vitest';
import { binomialCdf, median, medianInterval, medianRanks, pairRatios } from './stats.mjs';

describe('medianRanks: the order statistics of the 95 % interval for the median', () => {
  // Tables of the sign test (e.g. Conover, Practical Nonparametric Statistics, table A3):
  // n = 20 -> x(6)..x(15); n = 10 -> x(2)..x(9); n = 30 -> x(10)..x(21); n = 6 -> x(1)..x(6).
  it.each([
    [6, 1, 6, 0.96875],
    [10, 2, 9, 0.978515625],
    [20, 6, 15, 0.9586105346679688],
    [30, 10, 21, 0.9572284],
    [50, 18, 33, 0.9671],
  ])('n = %i: x(%i)..x(%i), coverage %f', (n, low, high, coverage) => {
    const ranks = medianRanks(n);
    expect(ranks.low).toBe(low);
    expect(ranks.high).toBe(high);
    expect(ranks.coverage).toBeCloseTo(coverage, 3);
    expect(ranks.coverage).toBeGreaterThanOrEqual(0.95);
  });

  it('below 6 values there is no 95 % interval: the whole range, its true coverage', () => {
    expect(medianRanks(5)).toEqual({ low: 1, high: 5, coverage: 0.9375 });
  });
});

describe('binomialCdf', () => {
  it('is exact for small n', () => {
    expect(binomialCdf(4, 0)).toBe(1 / 16);
    expect(binomialCdf(4, 1)).toBe(5 / 16);
    expect(binomialCdf(4, 4)).toBe(1);
    expect(binomialCdf(4, -1)).toBe(0);
    expect(binomialCdf(20, 5)).toBeCloseTo(0.020694732666015625, 12);
  });
});

describe('medianInterval', () => {
  it('takes the bounds from the sorted values at the ranks', () => {
    const values = Array.from({ length: 20 }, (_, index) => (20 - index) / 10); // 2.0 .. 0.1, unsorted
    const interval = medianInterval(values);
    expect(interval.median).toBeCloseTo(1.05, 12);
    expect(interval.low).toBeCloseTo(0.6, 12); // x(6)
    expect(interval.high).toBeCloseTo(1.5, 12); // x(15)
    expect(interval.n).toBe(20);
  });

  it('is NaN for no values', () => {
    expect(Number.isNaN(medianInterval([]).median)).toBe(true);
  });
});

describe('median and pairRatios', () => {
  it('median of odd and even counts', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('pairRatios is B ÷ A per pair and refuses unequal lengths', () => {
    expect(pairRatios([2, 4], [3, 2])).toEqual([1.5, 0.5]);
    expect(() => pairRatios([1], [1, 2])).toThrow(RangeError);
  });
});
