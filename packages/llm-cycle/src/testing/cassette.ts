/**
 * Cassettes: the exchanges of a conversation with a Chat Completions endpoint (each request and
 * the raw answer on the wire, streamed or not) in a JSON file, recorded from a real endpoint and
 * replayed offline. The format is plain JSON, so a cassette can also be written by hand.
 */

/** One request and the answer to it. */
export interface CassetteExchange {
  readonly request: {
    readonly method: string;
    /** The path and query of the request, e.g. `/v1/chat/completions`. */
    readonly path: string;
    /** The JSON body (credentials removed). */
    readonly body: unknown;
  };
  readonly response: {
    readonly status: number;
    /** `content-type`, `retry-after` and `retry-after-ms`, when the server sent them. */
    readonly headers: Readonly<Record<string, string>>;
    /** The raw body as text (an SSE stream as it came, `data:` lines and all). */
    readonly body: string;
    /** The body as the network delivered it, one entry per read, when it came in several. */
    readonly chunks?: readonly string[];
  };
}

/** A cassette file: `JSON.parse` one and give it to `replayCassette`. */
export interface Cassette {
  /** The format version (1). */
  readonly version: 1;
  /** Where the exchanges come from: a recording, or the documentation they were written from. */
  readonly source?: string;
  /** The API root the requests went to (no credentials): the replaying provider's `baseURL`. */
  readonly baseURL: string;
  /** The exchanges, in order. */
  readonly exchanges: readonly CassetteExchange[];
}

const brand = Symbol.for('@agcore/llm-cycle.CassetteMismatchError');

/**
 * A replayed conversation diverged from its cassette: `requestIndex` (0-based) names the
 * request, `path` what differed in it (`method`, `path`, `body.messages[3].content`, or
 * `exchanges` when the cassette had no exchange left), with the recorded and the actual value.
 */
export class CassetteMismatchError extends Error {
  /** Always `cassette_mismatch`. */
  readonly code = 'cassette_mismatch';
  /** The request that diverged, counted from 0. */
  readonly requestIndex: number;
  /** Where in the request it diverged. */
  readonly path: string;
  /** The recorded value. */
  readonly expected: unknown;
  /** What the request carried instead. */
  readonly actual: unknown;

  /** Makes the error; the message says which request and what differed. */
  constructor(requestIndex: number, path: string, expected: unknown, actual: unknown) {
    super(
      path === 'exchanges'
        ? `Cassette mismatch: request ${requestIndex + 1} has no recorded exchange (the cassette has ${String(expected)}). The conversation went on longer than when it was recorded.`
        : `Cassette mismatch at request ${requestIndex + 1}: ${path} differs; recorded ${preview(expected)}, got ${preview(actual)}. The conversation diverged from the recording: record it again, or fix what changed.`,
    );
    this.name = 'CassetteMismatchError';
    this.requestIndex = requestIndex;
    this.path = path;
    this.expected = expected;
    this.actual = actual;
    Object.defineProperty(this, brand, { value: true });
  }

  /** Whether `value` is a `CassetteMismatchError` from any copy of this package. Never throws. */
  static isInstance(value: unknown): value is CassetteMismatchError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as { [brand]?: unknown })[brand] === true
    );
  }
}

/**
 * Where `actual` first differs from `expected` (a JSON path under `path`), or `undefined` when
 * they are equal as JSON. Top-level keys in `ignored` are skipped. Never throws.
 */
export function firstDifference(
  expected: unknown,
  actual: unknown,
  path: string,
  ignored: ReadonlySet<string> = new Set(),
): { path: string; expected: unknown; actual: unknown } | undefined {
  if (Object.is(expected, actual)) return undefined;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const length = Math.max(expected.length, actual.length);
    for (let index = 0; index < length; index++) {
      const found = firstDifference(expected[index], actual[index], `${path}[${index}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (isObject(expected) && isObject(actual)) {
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    for (const key of keys) {
      if (ignored.has(key)) continue;
      const found = firstDifference(expected[key], actual[key], `${path}.${key}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  return { path, expected, actual };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
}

/** How a replayed answer is cut into network reads. */
export type ReplayReads =
  | 'whole'
  | 'recorded'
  | { readonly minBytes: number; readonly maxBytes: number; readonly seed: number };

/** Options of `replayCassette`. */
export interface ReplayOptions {
  /**
   * `whole` (default): each answer in one read; `recorded`: as the network delivered it when
   * recorded; `{ minBytes, maxBytes, seed }`: reads of random sizes from `minBytes` to
   * `maxBytes` (integers, `1 <= minBytes <= maxBytes`; UTF-8 characters and SSE lines cut
   * anywhere), the same for the same integer `seed`.
   */
  readonly reads?: ReplayReads;
  /** Top-level body fields left out of the comparison (default `stream` and `stream_options`). */
  readonly ignoredFields?: readonly string[];
}
