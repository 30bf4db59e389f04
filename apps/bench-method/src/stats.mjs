// The statistics of the bench method: the median of the per-pair ratios and a
// distribution-free interval for it from order statistics (the sign test's binomial).

/** The median of `values` (the mean of the middle two for an even count); NaN when empty. */
export function median(values) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** P(X <= k) for X ~ Binomial(n, 1/2), exact (n up to ~1000 stays within doubles). */
export function binomialCdf(n, k) {
  if (k < 0) return 0;
  if (k >= n) return 1;
  let term = 0.5 ** n; // P(X = 0)
  let sum = term;
  for (let i = 1; i <= k; i++) {
    term = (term * (n - i + 1)) / i;
    sum += term;
  }
  return sum;
}

/**
 * The ranks (1-based) of the order statistics that bound a distribution-free interval for the
 * median of `n` values at `confidence`: the largest `low` with P(Bin(n, 1/2) <= low - 1) <=
 * (1 - confidence) / 2, and `high = n + 1 - low`. `coverage` is the exact probability that
 * [x(low), x(high)] holds the true median, at least `confidence`; when `n` is too small for
 * that (n < 6 at 95 %) the whole range is returned and `coverage` says what it is.
 */
export function medianRanks(n, confidence = 0.95) {
  const tail = (1 - confidence) / 2;
  let low = 1;
  while (low < n && binomialCdf(n, low) <= tail) low++;
  const high = n + 1 - low;
  if (high < low) return { low: 1, high: n, coverage: 1 - 2 * binomialCdf(n, 0) };
  return { low, high, coverage: 1 - 2 * binomialCdf(n, low - 1) };
}

/**
 * The median of `values` with its distribution-free interval at `confidence` (0.95 unless
 * given): `{ median, low, high, coverage, n }`. No assumption on the shape of the distribution,
 * only that the values are independent draws of one (the pairs of an alternating run are).
 */
export function medianInterval(values, confidence = 0.95) {
  const n = values.length;
  if (n === 0) return { median: Number.NaN, low: Number.NaN, high: Number.NaN, coverage: 0, n: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const ranks = medianRanks(n, confidence);
  return {
    median: median(sorted),
    low: sorted[ranks.low - 1],
    high: sorted[ranks.high - 1],
    coverage: ranks.coverage,
    n,
  };
}

/** `b[i] / a[i]` for each pair. */
export function pairRatios(a, b) {
  if (a.length !== b.length) throw new RangeError(`${a.length} A values against ${b.length} B`);
  return a.map((value, index) => b[index] / value);
}
