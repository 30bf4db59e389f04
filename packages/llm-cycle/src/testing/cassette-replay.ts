import type { ChatProvider } from '../chat-provider.js';
import { LlmError } from '../llm-error.js';
import {
  createOpenAICompatibleProvider,
  type OpenAICompatibleProviderOptions,
} from '../providers/openai-compatible/openai-compatible-provider.js';
import {
  type Cassette,
  type CassetteExchange,
  CassetteMismatchError,
  firstDifference,
  type ReplayOptions,
  type ReplayReads,
} from './cassette.js';
import { checkCassette, checkReplayOptions, nullBodyStatuses } from './cassette-check.js';

export type { ReplayOptions, ReplayReads } from './cassette.js';

/** Provider options for `replay.provider()`: `baseURL` defaults to the cassette's. */
export type ReplayProviderOptions = Omit<OpenAICompatibleProviderOptions, 'fetch' | 'baseURL'> & {
  readonly baseURL?: string;
};

/** A cassette being replayed; see `replayCassette`. */
export interface CassetteReplay {
  /** Answers each request with the next exchange; rejects with `CassetteMismatchError` when they differ. */
  readonly fetch: typeof globalThis.fetch;
  /** An OpenAI-compatible provider over `fetch`; a divergence surfaces as the `CassetteMismatchError` itself. */
  provider(options?: ReplayProviderOptions): ChatProvider;
  /** How many exchanges were replayed. */
  used(): number;
  /**
   * @throws {CassetteMismatchError} the first divergence, if any
   * @throws {Error} when exchanges of the cassette were not used
   */
  assertComplete(): void;
}

/**
 * Replays a cassette offline: request `n` must match exchange `n` (method, path, and body as
 * JSON, `stream` and `stream_options` aside, so one cassette serves `chat` and `chatStream`),
 * and gets its recorded answer, cut into reads as `options.reads` says. The first divergence is
 * a `CassetteMismatchError` naming the request and what differed, and every later request gets
 * it too (a retry cannot hide it).
 * @throws {TypeError} when `cassette` is not a version 1 cassette a replay can play (a
 * `status` that is no HTTP status, a missing field, ...: the message names the exchange and
 * the field), or an option is not one `ReplayOptions` allows (the message names it)
 */
export function replayCassette(
  cassette: Cassette,
  replayOptions: ReplayOptions = {},
): CassetteReplay {
  checkCassette(cassette);
  const options = checkReplayOptions(replayOptions);
  const ignored = new Set(options.ignoredFields ?? ['stream', 'stream_options']);
  const reads = options.reads ?? 'whole';
  const random = typeof reads === 'object' ? seeded(reads.seed) : undefined;
  let next = 0;
  let mismatch: CassetteMismatchError | undefined;
  const replayFetch: typeof globalThis.fetch = async (input, init) => {
    const index = next++;
    if (mismatch !== undefined) throw mismatch;
    const signal = init?.signal ?? undefined;
    if (signal?.aborted) throw signal.reason;
    const exchange = cassette.exchanges[index];
    const difference =
      exchange === undefined
        ? new CassetteMismatchError(index, 'exchanges', cassette.exchanges.length, undefined)
        : compare(index, exchange, input, init, ignored);
    if (difference !== undefined) {
      mismatch = difference;
      throw difference;
    }
    const recorded = (exchange as CassetteExchange).response;
    const noBody = nullBodyStatuses.has(recorded.status);
    return new Response(noBody ? null : body(pieces(recorded, reads, random), signal), {
      status: recorded.status,
      headers: recorded.headers,
    });
  };
  return {
    fetch: replayFetch,
    provider: (providerOptions = {}) =>
      surfacing(
        createOpenAICompatibleProvider({
          ...providerOptions,
          baseURL: providerOptions.baseURL ?? cassette.baseURL,
          fetch: replayFetch,
        }),
      ),
    used: () => Math.min(next, cassette.exchanges.length),
    assertComplete: () => {
      if (mismatch !== undefined) throw mismatch;
      const left = cassette.exchanges.length - next;
      if (left > 0) {
        throw new Error(
          `The cassette has ${left} exchange(s) that were not replayed (${next} of ${cassette.exchanges.length} used).`,
        );
      }
    },
  };
}

function compare(
  index: number,
  exchange: CassetteExchange,
  input: Parameters<typeof globalThis.fetch>[0],
  init: RequestInit | undefined,
  ignored: ReadonlySet<string>,
): CassetteMismatchError | undefined {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const method = init?.method ?? 'GET';
  if (method !== exchange.request.method)
    return new CassetteMismatchError(index, 'method', exchange.request.method, method);
  const path = `${url.pathname}${url.search}`;
  if (path !== exchange.request.path)
    return new CassetteMismatchError(index, 'path', exchange.request.path, path);
  const text = typeof init?.body === 'string' ? init.body : '';
  let actual: unknown = text;
  try {
    actual = text === '' ? undefined : JSON.parse(text);
  } catch {
    // Compared as text.
  }
  const found = firstDifference(exchange.request.body, actual, 'body', ignored);
  return found === undefined
    ? undefined
    : new CassetteMismatchError(index, found.path, found.expected, found.actual);
}

function pieces(
  recorded: CassetteExchange['response'],
  reads: ReplayReads,
  random: (() => number) | undefined,
): Uint8Array[] {
  const encoder = new TextEncoder();
  if (reads === 'recorded' && recorded.chunks !== undefined)
    return recorded.chunks.map((chunk) => encoder.encode(chunk));
  const bytes = encoder.encode(recorded.body);
  if (typeof reads !== 'object' || random === undefined) return [bytes];
  const cut: Uint8Array[] = [];
  const span = Math.max(0, reads.maxBytes - reads.minBytes);
  for (let start = 0; start < bytes.length; ) {
    const size = Math.max(1, reads.minBytes + Math.floor(random() * (span + 1)));
    cut.push(bytes.subarray(start, start + size));
    start += size;
  }
  return cut;
}

/** A body that hands over one piece per read, and errors when `signal` aborts. */
function body(
  parts: readonly Uint8Array[],
  signal: AbortSignal | undefined,
): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      signal?.addEventListener('abort', () => controller.error(signal.reason), { once: true });
    },
    pull(controller) {
      const part = parts[index++];
      if (part === undefined) controller.close();
      else controller.enqueue(part.slice());
    },
  });
}

/** The provider, with a divergence thrown as the `CassetteMismatchError` rather than a network error. */
function surfacing(inner: ChatProvider): ChatProvider {
  const surface = (error: unknown): unknown => {
    const cause = LlmError.isInstance(error) ? error.cause : undefined;
    return CassetteMismatchError.isInstance(cause) ? cause : error;
  };
  return {
    chat: (request, options) =>
      inner.chat(request, options).catch((error: unknown) => {
        throw surface(error);
      }),
    async *chatStream(request, options) {
      try {
        yield* inner.chatStream(request, options);
      } catch (error) {
        throw surface(error);
      }
    },
    async *chatStreamBatches(request, options) {
      try {
        const batches = inner.chatStreamBatches?.(request, options);
        if (batches !== undefined) yield* batches;
        else for await (const chunk of inner.chatStream(request, options)) yield [chunk];
      } catch (error) {
        throw surface(error);
      }
    },
  };
}

/** A small seeded generator of numbers in [0, 1) (mulberry32). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}
