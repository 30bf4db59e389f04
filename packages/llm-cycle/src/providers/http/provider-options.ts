/**
 * The options every HTTP provider shares (each provider's options type extends
 * `HttpProviderOptions`), and the limits they resolve to, once, at creation.
 */

/** The options of the HTTP layer, the same for every provider (Chat Completions, Messages, Responses, …). */
export interface HttpProviderOptions {
  /**
   * Extra headers for every request (`api-key` for Azure, `OpenAI-Organization`, …); credential
   * values are treated as secrets, like the API key.
   */
  readonly headers?: Readonly<Record<string, string>>;
  /** The `fetch` to use (default: the global one), e.g. a cassette's `recordCassette().fetch`. */
  readonly fetch?: typeof globalThis.fetch;
  /**
   * Gives up when the server sends no byte for this long, in ms (default 60 000; `Infinity`:
   * never), from the moment the request is sent, streamed or not. A non-streamed answer sends no
   * byte until it is complete: long non-streamed generations need a larger value (or
   * streaming). Per request: `ChatCallOptions` / `SubmitOptions`.
   */
  readonly idleTimeoutMs?: number;
  /**
   * Gives up when a whole request takes longer, body included, in ms (default: none for streams,
   * 600 000 otherwise; `Infinity`: none). Per request too.
   */
  readonly timeoutMs?: number;
  /**
   * Refuses an answer larger than this many bytes with `invalid_response` (default 32 MiB; at
   * once when `content-length` says so; memory stays within a small multiple of it).
   */
  readonly maxResponseBytes?: number;
}

/** The limits of a provider, resolved at creation. */
export interface ProviderLimits {
  readonly idleTimeoutMs: number;
  /** `undefined`: none for streams, `defaultWholeTimeoutMs` otherwise. */
  readonly timeoutMs: number | undefined;
  readonly maxResponseBytes: number;
}

/** The idle limit when none is set (a minute). */
const defaultIdleTimeoutMs = 60_000;
/** The size cap when none is set (32 MiB). */
const defaultMaxResponseBytes = 32 * 1024 * 1024;
/** The total limit of a non-streamed request when none is set (10 minutes). */
export const defaultWholeTimeoutMs = 600_000;

/**
 * `value` when it is a positive number (`Infinity` included), `undefined` when absent.
 * @throws {RangeError} for zero, a negative number, `NaN` or a non-number
 */
export function positiveLimit(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !(value > 0)) {
    throw new RangeError(`${name} must be a number > 0, got ${String(value)}.`);
  }
  return value;
}

/**
 * The limits of `options`, defaults filled in.
 * @throws {RangeError} for a limit that is not a positive number
 */
export function resolveLimits(options: HttpProviderOptions): ProviderLimits {
  return {
    idleTimeoutMs: positiveLimit(options.idleTimeoutMs, 'idleTimeoutMs') ?? defaultIdleTimeoutMs,
    timeoutMs: positiveLimit(options.timeoutMs, 'timeoutMs'),
    maxResponseBytes:
      positiveLimit(options.maxResponseBytes, 'maxResponseBytes') ?? defaultMaxResponseBytes,
  };
}
