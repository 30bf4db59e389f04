import { readFileSync, writeFileSync } from 'node:fs';

/** The line that marks a README block as a captured run, right before its ```text fence. */
export const captureMarker =
  '<!-- captured: pnpm playground, piped; `pnpm --filter @agcore/playground readme:update` rewrites it -->';

/** Where a captured block sits in a README: the lines between its fences. */
interface BlockPlace {
  readonly lines: string[];
  /** The index of the first line of the block's text (after the opening fence). */
  readonly start: number;
  /** The index of the closing fence. */
  readonly end: number;
}

function findBlock(readme: string): BlockPlace {
  const lines = readFileSync(readme, 'utf8').split('\n');
  const marker = lines.findIndex((line) => line.trim() === captureMarker);
  if (marker === -1 || lines[marker + 1]?.trim() !== '```text') {
    throw new Error(`${readme}: no captured run (the marker line, then a \`\`\`text block)`);
  }
  const start = marker + 2;
  const end = lines.findIndex((line, index) => index >= start && line.trim() === '```');
  if (end === -1) throw new Error(`${readme}: the captured run's block is not closed`);
  return { lines, start, end };
}

/** The text of the captured run in `readme` (a path). @throws {Error} when it has none */
export function capturedBlock(readme: string): string {
  const { lines, start, end } = findBlock(readme);
  return lines.slice(start, end).join('\n');
}

/** Replaces the captured run in `readme` with `output`. @throws {Error} when it has none */
export function replaceCapturedBlock(readme: string, output: string): void {
  const { lines, start, end } = findBlock(readme);
  const next = [...lines.slice(0, start), ...output.trimEnd().split('\n'), ...lines.slice(end)];
  writeFileSync(readme, next.join('\n'));
}

/** A progress line that is not the last step: how many of them a run prints depends on timing. */
const intermediateProgress = /^\s*… \S+ progress (\d+)\/(\d+) \(\d+%\)$/;

/**
 * A run's output with what changes from run to run made stable: pids, durations, token counts,
 * the progress lines between the first and the last step (printed at most once a second), and
 * the widths of the summary table's columns (runs of spaces and rules). Everything else (the
 * tools, the calls, the results, the text, the order) is kept. Never throws.
 */
export function normalizeRun(text: string): string {
  return text
    .replace(/\r/g, '')
    .replace(/\bpid \d+/g, 'pid N')
    .replace(/\b\d+ min \d+ s\b/g, 'T')
    .replace(/\b\d+(\.\d+)? (ms|s)\b/g, 'T')
    .replace(/\b\d+ prompt \+ \d+ completion\b/g, 'N prompt + N completion')
    .replace(/(│ tokens +│ +)\d+/g, '$1N')
    .split('\n')
    .filter((line) => {
      const progress = intermediateProgress.exec(line);
      return progress === null || progress[1] === progress[2];
    })
    .map((line) => line.replace(/ {2,}/g, ' ').replace(/─+/g, '─').trimEnd())
    .join('\n')
    .trim();
}
