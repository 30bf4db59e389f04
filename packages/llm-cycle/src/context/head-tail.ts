// Tool results are cut head + tail (the tail holds the totals of reports, the last lines of
// logs); the head-only cut of tools-core stays for error messages and span attributes.
import type { TruncatedText } from '@agcore/tools-core';

/**
 * How a long tool result is cut: the first `head` and the last `tail` UTF-8 bytes are kept,
 * with a marker between them. Both shrink in proportion when they do not fit
 * `maxToolResultBytes` (the total, marker included).
 */
export interface TruncationOptions {
  /** Bytes kept from the start (default: three quarters of what fits). */
  readonly head?: number;
  /** Bytes kept from the end (default: one quarter of what fits). */
  readonly tail?: number;
}

/** A tool result cut, with every default filled in. */
export interface ResultCut {
  /** The most UTF-8 bytes of a tool message, marker included. */
  readonly limit: number;
  readonly head: number;
  readonly tail: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The call that reads a spilled result, as the markers show it. */
export function readResultCall(handle: string): string {
  return `read_result({"handle":${JSON.stringify(handle)}})`;
}

/**
 * `text` cut to at most `cut.limit` UTF-8 bytes, never inside a character: its head, a marker
 * saying how many bytes were cut (and, with a `handle`, how to read the whole), its tail. A
 * text that fits is returned as is. Never throws.
 */
export function cutHeadTail(text: string, cut: ResultCut, handle?: string): TruncatedText {
  // Every UTF-16 code unit is at most 3 UTF-8 bytes: most results need no encoding at all.
  if (text.length * 3 <= cut.limit) return { text, truncated: false };
  const bytes = encoder.encode(text);
  const total = bytes.length;
  if (total <= cut.limit) return { text, truncated: false };
  const room = Math.max(0, cut.limit - encoder.encode(markerFor(total, total, handle)).length);
  let head = cut.head;
  let tail = cut.tail;
  if (head + tail > room) {
    tail = head + tail === 0 ? 0 : Math.floor((room * tail) / (head + tail));
    head = room - tail;
  }
  while (head > 0 && ((bytes[head] ?? 0) & 0xc0) === 0x80) head--;
  let tailStart = total - tail;
  while (tailStart < total && ((bytes[tailStart] ?? 0) & 0xc0) === 0x80) tailStart++;
  const marker = markerFor(tailStart - head, total, handle);
  return {
    text:
      decoder.decode(bytes.subarray(0, head)) + marker + decoder.decode(bytes.subarray(tailStart)),
    truncated: true,
  };
}

function markerFor(cut: number, total: number, handle: string | undefined): string {
  const how =
    handle === undefined
      ? ''
      : `; the whole is kept: ${readResultCall(handle)} reads it (offset, length, grep)`;
  return `\n…[truncated: ${cut} of ${total} bytes cut from the middle${how}]…\n`;
}
