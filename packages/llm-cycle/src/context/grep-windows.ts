/*
 * `read_result` with `grep`: the lines of a kept result that contain a text. A short line is
 * shown whole; a long one (minified JSON, the common case for tool results) as windows around
 * each match, labelled with their UTF-8 byte offsets in the result (what `offset` reads).
 */

import { truncateUtf8 } from '@agcore/tools-core';

/** A line of at most this many UTF-16 code units is shown whole. */
export const wholeLineChars = 500;
/** Characters (UTF-16 code units) shown on each side of a match in a longer line. */
export const windowChars = 200;

/** What `grep` needs to know of the call. */
export interface GrepRequest {
  readonly handle: string;
  /** The text looked for, literally (not a pattern), ignoring case. Not empty. */
  readonly needle: string;
  /** The first line to look at, 1-based. */
  readonly fromLine: number;
  /** The most bytes one answer holds. */
  readonly maxBytes: number;
}

/** UTF-8 bytes of `text[from, to)`, as `TextEncoder` writes it (a lone surrogate as 3 bytes). */
export function utf8Length(text: string, from = 0, to = text.length): number {
  let bytes = 0;
  for (let index = from; index < to; index++) {
    const unit = text.charCodeAt(index);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (
      unit >= 0xd800 &&
      unit <= 0xdbff &&
      isLow(text.charCodeAt(index + 1)) &&
      index + 1 < to
    ) {
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
}

function isLow(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

function isHigh(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/** A regular expression that finds `needle` as written, ignoring case. */
function literal(needle: string): RegExp {
  return new RegExp(needle.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'), 'giu');
}

/**
 * The windows of `line` around each match of `finder`, overlapping or touching ones merged,
 * as `[start, end)` code unit ranges that never split a surrogate pair.
 */
function windowsOf(line: string, finder: RegExp): [number, number][] {
  const windows: [number, number][] = [];
  finder.lastIndex = 0;
  for (let match = finder.exec(line); match !== null; match = finder.exec(line)) {
    let start = Math.max(0, match.index - windowChars);
    let end = Math.min(line.length, match.index + match[0].length + windowChars);
    if (start > 0 && isLow(line.charCodeAt(start)) && isHigh(line.charCodeAt(start - 1))) start--;
    if (end < line.length && isLow(line.charCodeAt(end)) && isHigh(line.charCodeAt(end - 1))) end++;
    const last = windows.at(-1);
    if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
    else windows.push([start, end]);
    // An empty match cannot happen (the needle is not empty); step on regardless.
    if (match[0].length === 0) finder.lastIndex++;
  }
  return windows;
}

/** The entries of one matching line: the line whole, or one labelled window per match. */
function entriesOf(line: string, number: number, lineByte: number, finder: RegExp): Entry[] {
  if (line.length <= wholeLineChars) return [{ text: `${number}: ${line}`, line: number }];
  const entries: Entry[] = [];
  let at = 0;
  let atByte = lineByte;
  for (const [start, end] of windowsOf(line, finder)) {
    const from = atByte + utf8Length(line, at, start);
    const to = from + utf8Length(line, start, end);
    entries.push({
      text: `${number}: [bytes ${from}-${to}] ${line.slice(start, end)}`,
      line: number,
      from,
    });
    at = end;
    atByte = to;
  }
  return entries;
}

interface Entry {
  readonly text: string;
  readonly line: number;
  /** Where a window starts (bytes into the result); absent for a line shown whole. */
  readonly from?: number;
}

/** The answer of `read_result({ handle, grep, offset })`. */
export function grep(content: string, request: GrepRequest): string {
  const finder = literal(request.needle);
  const out: string[] = [];
  let used = 0;
  let lineByte = 0;
  let number = 0;
  for (const line of content.split('\n')) {
    number++;
    const start = lineByte;
    lineByte += utf8Length(line) + 1;
    if (number < request.fromLine) continue;
    finder.lastIndex = 0;
    if (!finder.test(line)) continue;
    for (const entry of entriesOf(line, number, start, finder)) {
      const size = utf8Length(entry.text) + 1;
      if (used + size > request.maxBytes && out.length > 0) {
        out.push(moreMarker(entry, request.handle));
        return out.join('\n');
      }
      // One entry larger than a whole answer (a long needle) is cut, so that reading goes on.
      if (size > request.maxBytes) {
        out.push(truncateUtf8(entry.text, request.maxBytes).text);
        used = request.maxBytes;
        continue;
      }
      out.push(entry.text);
      used += size;
    }
  }
  return out.length === 0 ? `[no line contains ${JSON.stringify(request.needle)}]` : out.join('\n');
}

/** How to read on from `entry`, the first one that did not fit. */
function moreMarker(entry: Entry, handle: string): string {
  const next = `call again with "offset":${entry.line}`;
  if (entry.from === undefined) return `[more matches from line ${entry.line}: ${next}]`;
  return `[more matches in line ${entry.line} from byte ${entry.from}: read_result({"handle":${JSON.stringify(handle)},"offset":${entry.from}}) reads on from there; grep with "offset":${entry.line + 1} looks at the lines after]`;
}
