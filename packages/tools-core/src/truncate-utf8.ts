const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The result of `truncateUtf8`. */
export interface TruncatedText {
  /** The text, cut with a marker at the end when it was too long. */
  readonly text: string;
  /** Whether anything was cut. */
  readonly truncated: boolean;
}

/**
 * Cuts `text` to at most `maxBytes` UTF-8 bytes, marker included, never inside a character,
 * and appends a marker saying how many bytes were cut, e.g.
 * `…[truncated: 48213 of 64597 bytes cut]`. `totalBytes`, when given, is the size of a longer
 * text that `text` is only the start of (a caller that stopped building it past the limit):
 * the marker then counts against that size. Never throws.
 */
export function truncateUtf8(text: string, maxBytes: number, totalBytes?: number): TruncatedText {
  // Every UTF-16 code unit is at most 3 UTF-8 bytes: most results need no encoding at all.
  if (text.length * 3 <= maxBytes && (totalBytes ?? 0) <= maxBytes)
    return { text, truncated: false };
  const bytes = encoder.encode(text);
  const total = Math.max(bytes.length, totalBytes ?? 0);
  if (total <= maxBytes) return { text, truncated: false };
  let marker = markerFor(total, total);
  let keep = Math.max(0, Math.min(bytes.length, maxBytes - encoder.encode(marker).length));
  while (keep > 0 && ((bytes[keep] ?? 0) & 0xc0) === 0x80) keep--;
  marker = markerFor(total - keep, total);
  return { text: decoder.decode(bytes.subarray(0, keep)) + marker, truncated: true };
}

function markerFor(cut: number, total: number): string {
  return `\n…[truncated: ${cut} of ${total} bytes cut]`;
}
