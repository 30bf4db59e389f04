// Small statistics helpers for the bench.

/** The median of a list of numbers (NaN for an empty list). */
export function median(values) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The q-quantile (0..1) of a list of numbers, by linear interpolation. */
export function quantile(values, q) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low] + (sorted[high] - sorted[low]) * (position - low);
}

/** The relative spread of the rounds: (p75 - p25) / median. */
export function spread(values) {
  return (quantile(values, 0.75) - quantile(values, 0.25)) / median(values);
}

/** Rotates `items` by `by` places, so that no framework always runs first in a round. */
export function rotate(items, by) {
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}
