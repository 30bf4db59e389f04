import { createRedactor, type Redactor, secretsOfHeaders } from '@agcore/tools-core';
import { urlSecrets } from '../providers/http/endpoint.js';
import type { Cassette, CassetteExchange } from './cassette.js';

/** Options of `recordCassette`. */
export interface RecordCassetteOptions {
  /** The `fetch` that reaches the real endpoint (default: the global one). */
  readonly fetch?: typeof globalThis.fetch;
  /** More strings to take out of the cassette, besides credential headers and URL credentials. */
  readonly secrets?: readonly string[];
  /** Written as the cassette's `source`, e.g. where and when it was recorded. */
  readonly source?: string;
}

/** Records exchanges; see `recordCassette`. */
export interface CassetteRecorder {
  /** Give it to `createOpenAICompatibleProvider` as `fetch`: it sends each request for real and records it. */
  readonly fetch: typeof globalThis.fetch;
  /** The cassette so far, secrets removed: write it with `JSON.stringify(cassette, null, 2)`. */
  cassette(): Cassette;
}

interface Recording {
  readonly url: string;
  readonly method: string;
  readonly bodyText: string;
  status: number;
  headers: Record<string, string>;
  readonly chunks: string[];
}

const keptHeaders = ['content-type', 'retry-after', 'retry-after-ms'];

/**
 * Records the exchanges with a real endpoint as they happen: the requests and the raw answers,
 * streamed or not, passed on to the caller unchanged (a stream is still a stream). The cassette
 * holds no request header, and every credential it saw — `Authorization`, `api-key` and other
 * credential header values, the URL's user info and secret query values, `options.secrets` —
 * is replaced by `[redacted]`, in any escaping. Never throws; the `fetch` rejects as the real one.
 *
 * @example
 * const recorder = recordCassette({ source: 'api.openai.com, 2026-03-01' });
 * const provider = createOpenAICompatibleProvider({ baseURL, apiKey, fetch: recorder.fetch });
 * await new LlmCycle({ provider, model }).submitWithTools('Weather in Paris?', registry);
 * writeFileSync('paris.json', JSON.stringify(recorder.cassette(), null, 2));
 */
export function recordCassette(options: RecordCassetteOptions = {}): CassetteRecorder {
  const realFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const secrets = new Set<string>(options.secrets ?? []);
  const recordings: Recording[] = [];
  const recordingFetch: typeof globalThis.fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : {}));
    for (const secret of secretsOfHeaders(Object.fromEntries(headers))) secrets.add(secret);
    for (const secret of urlSecrets(url)) secrets.add(secret);
    const recording: Recording = {
      url,
      method: init?.method ?? (input instanceof Request ? input.method : 'GET'),
      bodyText: bodyText(init?.body),
      status: 0,
      headers: {},
      chunks: [],
    };
    recordings.push(recording);
    const response = await realFetch(input, init);
    recording.status = response.status;
    for (const name of keptHeaders) {
      const value = response.headers.get(name);
      if (value !== null) recording.headers[name] = value;
    }
    if (response.body === null) return response;
    return new Response(tap(response.body, recording.chunks), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  return {
    fetch: recordingFetch,
    cassette: () => toCassette(recordings, createRedactor(secrets), options.source),
  };
}

/** A stream passing `body` on unchanged while keeping the text of each read in `chunks`. */
function tap(body: ReadableStream<Uint8Array>, chunks: string[]): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const read = await reader.read();
      if (read.done) {
        const rest = decoder.decode();
        if (rest !== '') chunks.push(rest);
        controller.close();
        return;
      }
      chunks.push(decoder.decode(read.value, { stream: true }));
      controller.enqueue(read.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

function bodyText(body: unknown): string {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return new TextDecoder().decode(body);
  if (body instanceof ArrayBuffer) return new TextDecoder().decode(new Uint8Array(body));
  return '';
}

function toCassette(
  recordings: readonly Recording[],
  redact: Redactor,
  source: string | undefined,
): Cassette {
  const first = recordings[0];
  return {
    version: 1,
    ...(source === undefined ? {} : { source }),
    baseURL: first === undefined ? '' : apiRoot(first.url, redact),
    exchanges: recordings.map((recording): CassetteExchange => {
      const url = new URL(recording.url);
      const body = redact(recording.chunks.join(''));
      const chunks = recording.chunks.map(redact);
      return {
        request: {
          method: recording.method,
          path: redact(`${url.pathname}${url.search}`),
          body: parsed(redact(recording.bodyText)),
        },
        response: {
          status: recording.status,
          headers: recording.headers,
          body,
          ...(chunks.length > 1 && chunks.join('') === body ? { chunks } : {}),
        },
      };
    }),
  };
}

/** The API root of a request URL: no credentials, `/chat/completions` taken off the path. */
function apiRoot(url: string, redact: Redactor): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  parsed.pathname = parsed.pathname.replace(/\/chat\/completions\/?$/, '');
  return redact(parsed.toString());
}

function parsed(text: string): unknown {
  try {
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return text;
  }
}
