// How the report writes numbers: one formatter per kind of figure.

/** Milliseconds: 3 decimals below 10, 1 below 100, none above; '–' when not a number. */
export const ms = (value) =>
  Number.isFinite(value)
    ? value >= 100
      ? value.toFixed(0)
      : value.toFixed(value >= 10 ? 1 : 3)
    : '–';
/** Milliseconds written as microseconds. */
export const us = (value) => (Number.isFinite(value) ? `${(value * 1000).toFixed(0)} µs` : '–');
/** A ratio: `1.05×`. */
export const ratio = (value) => (Number.isFinite(value) ? `${value.toFixed(2)}×` : '–');
/** A relative spread (interquartile range ÷ median) as ± half of it in percent. */
export const percent = (value) =>
  Number.isFinite(value) ? `±${((value * 100) / 2).toFixed(0)}%` : '–';
/** Megabytes, one decimal. */
export const mb = (value) => (Number.isFinite(value) ? value.toFixed(1) : '–');
/** A whole number with thousands separators. */
export const count = (value) =>
  Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '–';

/** `met (1.02× ≤ 1.05×)` or `**missed** (…)` for a ratio against its target (lower is better). */
export function verdict(value, target) {
  if (!Number.isFinite(value)) return 'not measured';
  return value <= target
    ? `met (${ratio(value)} ≤ ${ratio(target)})`
    : `**missed** (${ratio(value)} > ${ratio(target)})`;
}
