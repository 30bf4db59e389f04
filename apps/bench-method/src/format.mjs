// How the method prints its figures: a ratio with its interval, and Markdown rows.
import { loadavg } from 'node:os';

/** `1.03× (0.99–1.07)`: the median ratio and its 95 % interval. */
export function ratioText(interval) {
  return `${interval.median.toFixed(2)}× (${interval.low.toFixed(2)}–${interval.high.toFixed(2)})`;
}

/** Whether an interval rules out 1 (the difference is resolved at its confidence). */
export function verdict(interval, b = 'B') {
  if (interval.high < 1) return `${b} faster`;
  if (interval.low > 1) return `${b} slower`;
  return 'no difference resolved';
}

/** A Markdown table of `rows` (arrays of cells) under `header`. */
export function markdownTable(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** The rows of results `{ name, result }`: per conversation A and B, the CPU and wall ratios. */
export function resultTable(entries, labels = { a: 'A', b: 'B' }) {
  const header = [
    'scenario',
    `${labels.a} CPU ms/conv`,
    `${labels.b} CPU ms/conv`,
    `CPU ${labels.b} ÷ ${labels.a} (95 %)`,
    'CPU verdict',
    `wall ${labels.b} ÷ ${labels.a} (95 %)`,
    'pairs',
  ];
  const rows = entries.map(({ name, result }) => [
    name,
    result.a.cpuMs.toFixed(3),
    result.b.cpuMs.toFixed(3),
    ratioText(result.cpuRatio),
    verdict(result.cpuRatio, labels.b),
    ratioText(result.wallRatio),
    String(result.pairs),
  ]);
  return markdownTable(header, rows);
}

/** One line on the run's conditions: Node, flags, load average. */
export function conditions() {
  const flags = process.execArgv.length > 0 ? process.execArgv.join(' ') : 'no flags';
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ');
  return `Node ${process.version} (${flags}), load average ${load}`;
}
