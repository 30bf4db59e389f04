import type { Redactor } from '@agcore/tools-core';
import { LlmError } from '../../llm-error.js';
import { errorMessageOf, isRecord, maxBodyChars } from './wire.js';

/** Reads at most this much of an error body. */
const maxErrorBytes = 64 * 1024;

/**
 * The `http_error` for a non-2xx answer (`rate_limited` for a 429): the status, the server's own message, `Retry-After`
 * (or `retry-after-ms`) and up to 4 KiB of the body, all redacted. Never rejects.
 */
export async function httpError(
  response: Response,
  where: string,
  redact: Redactor,
): Promise<LlmError> {
  const text = redact(await readSome(response, maxErrorBytes)).slice(0, maxBodyChars);
  const detail = serverMessage(text);
  const retryAfterMs = readRetryAfter(response.headers);
  return new LlmError(
    response.status === 429 ? 'rate_limited' : 'http_error',
    `${where} answered HTTP ${response.status}${response.statusText === '' ? '' : ` ${response.statusText}`}${detail === '' ? '' : `: ${detail}`}`,
    {
      statusCode: response.status,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      ...(text === '' ? {} : { responseBody: text }),
    },
  );
}

/** Up to `limit` bytes of a body as text; `''` when it cannot be read. Never rejects. */
async function readSome(response: Response, limit: number): Promise<string> {
  const body = response.body;
  if (body === null) return '';
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  try {
    for (;;) {
      const read = await reader.read();
      if (read.done) break;
      bytes += read.value.byteLength;
      text += decoder.decode(read.value, { stream: true });
      if (bytes >= limit) break;
    }
  } catch {
    // The status alone still makes a useful error.
  } finally {
    reader.cancel().catch(() => undefined);
  }
  return text;
}

/** The server's own words in an error body: `error.message`, `error`, `message` or `detail`. */
function serverMessage(text: string): string {
  if (text === '') return '';
  try {
    const body = JSON.parse(text) as unknown;
    if (isRecord(body)) {
      if (body.error !== undefined && body.error !== null) return errorMessageOf(body.error);
      if (typeof body.message === 'string') return body.message;
      if (typeof body.detail === 'string') return body.detail;
    }
  } catch {
    // Not JSON: the text is the message.
  }
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

/** `retry-after-ms` (milliseconds), else `Retry-After` (seconds or an HTTP date), in milliseconds. */
export function readRetryAfter(headers: Headers): number | undefined {
  const milliseconds = headers.get('retry-after-ms');
  if (milliseconds !== null) {
    const value = Number.parseFloat(milliseconds);
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  const retryAfter = headers.get('retry-after');
  if (retryAfter === null) return undefined;
  const seconds = Number(retryAfter);
  if (retryAfter.trim() !== '' && Number.isFinite(seconds) && seconds >= 0)
    return Math.round(seconds * 1000);
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Whether a fetch failure is a redirect refused by `redirect: 'error'` (undici's wording). */
export function isRedirect(error: unknown): boolean {
  return (
    error instanceof TypeError &&
    error.cause instanceof Error &&
    error.cause.message === 'unexpected redirect'
  );
}

/** The `invalid_response` for an answer that is a redirect (3xx). */
export function redirected(where: string): LlmError {
  return new LlmError(
    'invalid_response',
    `${where} answered with a redirect, which is not followed (a redirected POST may turn into a GET). Set baseURL to the address it redirects to (\`curl -i\` shows the Location header).`,
  );
}
