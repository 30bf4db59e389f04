/**
 * One provider request on the shared HTTP layer, whatever the wire format: the exchange and its
 * limits, the POST through the send pacer (redirects refused, non-2xx mapped to `http_error`, 429 to `rate_limited`),
 * the reading of the answer within its size cap, and the error as the caller sees it (secrets
 * out). A native provider builds its body and parses its answer; the rest is here.
 */
import { redactError } from '@agcore/tools-core';
import type { ChatCallOptions } from '../../chat-provider.js';
import { LlmError } from '../../llm-error.js';
import { checkContentLength, type Reading } from './body-reader.js';
import type { Endpoint } from './endpoint.js';
import { Exchange } from './exchange.js';
import { httpError, isRedirect, redirected } from './http-error.js';
import { defaultWholeTimeoutMs, type ProviderLimits, positiveLimit } from './provider-options.js';
import { sendPacer } from './send-pacer.js';

/** The exchange of one call: the call's limits over the provider's. */
export function openExchange(
  options: ChatCallOptions,
  limits: ProviderLimits,
  stream: boolean,
  where: string,
): Exchange {
  return new Exchange(
    options.signal,
    {
      idleTimeoutMs: positiveLimit(options.idleTimeoutMs, 'idleTimeoutMs') ?? limits.idleTimeoutMs,
      timeoutMs:
        positiveLimit(options.timeoutMs, 'timeoutMs') ??
        limits.timeoutMs ??
        (stream ? Number.POSITIVE_INFINITY : defaultWholeTimeoutMs),
    },
    where,
  );
}

/** What `post` sends. */
export interface PostOptions {
  readonly fetch: typeof globalThis.fetch;
  readonly endpoint: Endpoint;
  readonly exchange: Exchange;
  /** Where the request goes (default: the endpoint's URL). */
  readonly url?: string | undefined;
  /** Builds the JSON body, only when the pacer lets the request go. */
  readonly body: () => string;
  /** Adds the vendor's detail to the `http_error` of a non-2xx answer (default: as it is). */
  readonly onHttpError?: ((error: LlmError) => LlmError) | undefined;
}

/**
 * Sends the request through the pacer and resolves once a 2xx answer's headers came.
 * @throws {LlmError} `http_error`, `rate_limited`, `invalid_response` (a redirect), `network`, `timeout`, `cancelled`
 */
export async function post(options: PostOptions): Promise<Response> {
  const { endpoint, exchange } = options;
  let response: Response;
  try {
    response = await sendPacer.run(() => {
      // A limit that ran out while the request waited for the pacer: it is not sent at all.
      if (exchange.expired)
        return Promise.reject(exchange.failure(undefined, 'waiting to be sent'));
      exchange.touch();
      return exchange.guard(
        options.fetch(options.url ?? endpoint.url, {
          method: 'POST',
          headers: endpoint.headers,
          body: options.body(),
          // A redirected POST turns into a GET (301/302), and following one makes fetch copy the
          // request body per request: redirects are refused with a clear error instead. 'manual',
          // not 'error': Cloudflare's workerd refuses 'error' ("does not make sense at the edge").
          redirect: 'manual',
          signal: exchange.signal,
        }),
      );
    });
  } catch (error) {
    if (isRedirect(error)) throw redirected(endpoint.shown);
    throw exchange.failure(error, 'sending the request');
  }
  exchange.touch();
  // Sent with `redirect: 'manual'`, a redirect comes back as the answer: a 3xx (Node, Deno,
  // Bun, workerd) or, in a browser, an opaque one of status 0.
  if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
    await response.body?.cancel().catch(() => undefined);
    throw redirected(endpoint.shown);
  }
  if (!response.ok) {
    const error = await httpError(response, endpoint.shown, endpoint.redact);
    throw options.onHttpError === undefined ? error : options.onHttpError(error);
  }
  return response;
}

/**
 * How the answer is read: its content type, the size cap (refused at once when
 * `content-length` is over it).
 * @throws {LlmError} `invalid_response` for an empty body (naming `expected`) or one too large
 */
export function readingOf(
  exchange: Exchange,
  response: Response,
  endpoint: Endpoint,
  maxResponseBytes: number,
  expected: string,
): Reading {
  const reading: Reading = {
    exchange,
    endpoint,
    maxResponseBytes,
    contentType: response.headers.get('content-type') ?? '',
  };
  checkContentLength(response, reading);
  if (response.body === null) {
    throw new LlmError(
      'invalid_response',
      `${endpoint.shown} answered with an empty body; ${expected} was expected.`,
    );
  }
  return reading;
}

/** The error as the caller sees it: mapped by the exchange, every secret taken out. */
export function cleanError(error: unknown, exchange: Exchange, endpoint: Endpoint): unknown {
  const mapped = LlmError.isInstance(error)
    ? error
    : exchange.failure(error, 'reading the response');
  return endpoint.hasSecrets ? redactError(mapped, endpoint.redact) : mapped;
}
