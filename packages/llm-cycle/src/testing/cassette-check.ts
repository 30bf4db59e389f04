/**
 * The checks `replayCassette` makes before it replays anything: a cassette that could not be
 * replayed as written, or options that would not do what they say, are refused at once with a
 * `TypeError` naming the field and its value, rather than failing later as a `network` or
 * `invalid_response` error of the provider (or, worse, replaying as something else).
 */
import type { Cassette, ReplayOptions, ReplayReads } from './cassette.js';

/** Statuses whose response has no body (the Fetch standard's null body statuses). */
export const nullBodyStatuses: ReadonlySet<number> = new Set([204, 205, 304]);
/** An HTTP header name (RFC 9110 `token`). */
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What a header value cannot hold (RFC 9110: no CR, LF or NUL). */
const badHeaderValue = /[\r\n\0]/;

/**
 * `options` checked: `reads` is `whole`, `recorded` or `{ minBytes, maxBytes, seed }` with
 * integers `1 <= minBytes <= maxBytes` and an integer `seed`; `ignoredFields` an array of strings.
 * @throws {TypeError} naming the option and the value
 */
export function checkReplayOptions(options: unknown): ReplayOptions {
  if (options === undefined) return {};
  if (!isObject(options)) refuse('options', options, 'an object');
  checkReads(options.reads);
  const ignored = options.ignoredFields;
  if (
    ignored !== undefined &&
    (!Array.isArray(ignored) || !ignored.every((field) => typeof field === 'string'))
  )
    refuse('options.ignoredFields', ignored, 'an array of top-level field names (strings)');
  return options as ReplayOptions;
}

function checkReads(reads: unknown): asserts reads is ReplayReads | undefined {
  if (reads === undefined || reads === 'whole' || reads === 'recorded') return;
  if (!isObject(reads))
    refuse('options.reads', reads, "'whole', 'recorded' or { minBytes, maxBytes, seed }");
  const { minBytes, maxBytes, seed } = reads;
  if (!isSafeInteger(minBytes) || minBytes < 1)
    refuse('options.reads.minBytes', minBytes, 'an integer >= 1');
  if (!isSafeInteger(maxBytes) || maxBytes < minBytes)
    refuse('options.reads.maxBytes', maxBytes, `an integer >= minBytes (${minBytes})`);
  if (!isSafeInteger(seed)) refuse('options.reads.seed', seed, 'an integer');
}

/**
 * `cassette` checked: version 1, a `baseURL` that parses, and exchanges whose every field is
 * what a replay reads (a request's `method` and `path`; a response's integer `status` from 200
 * to 599, string `headers`, string `body`, and `chunks`, when present, strings that add up to
 * the body). A null-body status (204, 205, 304) has an empty body.
 * @throws {TypeError} naming the exchange, the field and its value
 */
export function checkCassette(cassette: unknown): Cassette {
  if (!isObject(cassette) || cassette.version !== 1 || !Array.isArray(cassette.exchanges)) {
    throw new TypeError('replayCassette: not a cassette (version 1 with an exchanges array).');
  }
  const { baseURL } = cassette;
  if (typeof baseURL !== 'string' || !parses(baseURL))
    refuse('cassette.baseURL', baseURL, 'an absolute URL');
  if (cassette.source !== undefined && typeof cassette.source !== 'string')
    refuse('cassette.source', cassette.source, 'a string');
  cassette.exchanges.forEach((exchange: unknown, index: number) => {
    checkExchange(exchange, `cassette.exchanges[${index}]`);
  });
  return cassette as unknown as Cassette;
}

function checkExchange(exchange: unknown, where: string): void {
  if (!isObject(exchange)) refuse(where, exchange, 'an object with request and response');
  const { request, response } = exchange;
  if (!isObject(request)) refuse(`${where}.request`, request, 'an object');
  if (typeof request.method !== 'string' || request.method === '')
    refuse(`${where}.request.method`, request.method, 'an HTTP method');
  if (typeof request.path !== 'string' || !request.path.startsWith('/'))
    refuse(`${where}.request.path`, request.path, 'a path starting with /');
  if (!isObject(response)) refuse(`${where}.response`, response, 'an object');
  const { status, headers, body, chunks } = response;
  if (!isSafeInteger(status) || status < 200 || status > 599)
    refuse(`${where}.response.status`, status, 'an integer HTTP status from 200 to 599');
  if (
    !isObject(headers) ||
    !Object.entries(headers).every(
      ([name, value]) =>
        headerName.test(name) && typeof value === 'string' && !badHeaderValue.test(value),
    )
  )
    refuse(`${where}.response.headers`, headers, 'an object of header names to header values');
  if (typeof body !== 'string') refuse(`${where}.response.body`, body, 'a string');
  if (nullBodyStatuses.has(status) && body !== '')
    refuse(`${where}.response.body`, body, `empty (an HTTP ${status} answer has no body)`);
  if (chunks === undefined) return;
  if (!Array.isArray(chunks) || !chunks.every((chunk) => typeof chunk === 'string'))
    refuse(`${where}.response.chunks`, chunks, 'an array of strings');
  if (chunks.join('') !== body)
    refuse(`${where}.response.chunks`, chunks, 'reads that add up to the body');
}

function refuse(field: string, value: unknown, expected: string): never {
  throw new TypeError(`replayCassette: ${field} must be ${expected}, got ${shown(value)}.`);
}

function shown(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (value === undefined) return 'undefined (missing)';
  let text: string;
  try {
    text = typeof value === 'function' ? 'a function' : (JSON.stringify(value) ?? String(value));
  } catch {
    text = `a value JSON cannot hold (${typeof value})`;
  }
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

function parses(url: string): boolean {
  try {
    new URL(url);
    return true;
  } catch {
    return false;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSafeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}
