import type { Writable } from 'node:stream';
import picocolors from 'picocolors';
import stringWidth from 'string-width';

/** The colour functions the renderer uses (picocolors' shape; identity functions when plain). */
export type Colors = ReturnType<typeof picocolors.createColors>;

/** Where and how the CLI writes. */
export interface Terminal {
  /** Standard output. */
  readonly out: Writable & { isTTY?: boolean; columns?: number };
  /** Standard error. */
  readonly err: Writable;
  /** Colours, or identity functions when colour is off. */
  readonly colors: Colors;
  /** Whether stdout is an interactive terminal (live progress bars are drawn only then). */
  readonly interactive: boolean;
  /** Terminal width; when not a terminal, `COLUMNS` or 80 (tables and summaries fit it). */
  readonly columns: number;
}

/** What decides colour. */
export interface TerminalOptions {
  /** `false` from `--no-color`. */
  readonly color?: boolean;
  /** The environment (for `NO_COLOR` and `FORCE_COLOR`). */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Whether to colour: never with `--no-color` or a non-empty `NO_COLOR`
 * (https://no-color.org), always with `FORCE_COLOR` (other than `0`), else only on a TTY.
 */
export function shouldColor(isTTY: boolean, options: TerminalOptions = {}): boolean {
  const env = options.env ?? process.env;
  if (options.color === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return isTTY;
}

/** Makes the `Terminal` for this process. Never throws. */
export function processTerminal(options: TerminalOptions = {}): Terminal {
  const isTTY = process.stdout.isTTY === true;
  return {
    out: process.stdout,
    err: process.stderr,
    colors: picocolors.createColors(shouldColor(isTTY, options)),
    interactive: isTTY,
    columns: (isTTY ? process.stdout.columns : undefined) ?? columnsOf(process.env.COLUMNS),
  };
}

/** `COLUMNS` when it is a sensible width (40 or more), else 80. Never throws. */
function columnsOf(value: string | undefined): number {
  const columns = Number(value);
  return Number.isInteger(columns) && columns >= 40 ? columns : 80;
}

/** How many terminal columns `text` takes (CJK and most emoji take two; colour codes none). */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The longest start of `text` that fits in `width` columns, never splitting a character. */
function fitStart(text: string, width: number): { text: string; rest: number } {
  let kept = '';
  let used = 0;
  let rest = 0;
  for (const { segment } of graphemes.segment(text)) {
    const columns = stringWidth(segment);
    if (rest > 0 || used + columns > width) {
      rest++;
      continue;
    }
    kept += segment;
    used += columns;
  }
  return { text: kept, rest };
}

/** `text` in at most `width` columns (at least 1), ending in `…` when cut. Never throws. */
export function ellipsize(text: string, width: number): string {
  const room = Math.max(1, width);
  return stringWidth(text) <= room ? text : `${fitStart(text, room - 1).text}…`;
}

/** `text` padded with spaces to `width` columns (as is when it is wider). Never throws. */
export function padToWidth(text: string, width: number): string {
  return `${text}${' '.repeat(Math.max(0, width - stringWidth(text)))}`;
}

/**
 * `text` broken into lines of at most `width` columns at spaces (a word longer than a line
 * is cut with `ellipsize`), every line after the first starting with `indent`. Never throws.
 */
export function wrap(text: string, width: number, indent = ''): string {
  const lines: string[] = [];
  const indentWidth = stringWidth(indent);
  let line = '';
  for (const word of text.split(' ')) {
    const room = width - (lines.length === 0 ? 0 : indentWidth);
    if (line !== '' && stringWidth(line) + 1 + stringWidth(word) > room) {
      lines.push(line);
      line = '';
    }
    line = line === '' ? ellipsize(word, width - indentWidth) : `${line} ${word}`;
  }
  lines.push(line);
  return lines.map((part, index) => (index === 0 ? part : `${indent}${part}`)).join('\n');
}

/**
 * Cuts `text` to `max` columns for display, saying how many characters were left out. Never
 * throws.
 */
export function cut(text: string, max: number): string {
  const flat = text.replace(/\s*\n\s*/g, ' ⏎ ');
  if (stringWidth(flat) <= max) return flat;
  const kept = fitStart(flat, Math.max(1, max - 16));
  return `${kept.text}… (+${kept.rest} chars)`;
}

/** A duration for people: `850 ms`, `2.4 s`, `1 min 05 s`. Never throws. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes} min ${String(seconds).padStart(2, '0')} s`;
}

/** JSON for display: compact, and never throws (falls back to `String`). */
export function displayJson(value: unknown): string {
  if (value === undefined) return 'undefined';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
