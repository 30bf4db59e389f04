/**
 * One wire format as the parameterized loop suite (`src/loop/every-provider.test.ts`) sees it:
 * a local server that speaks it, the provider that talks to that server, and the few places
 * where the formats differ (how a failure and a tool result look on the wire). Adding a
 * dialect is one file implementing `WireDialect` and one entry in `dialects` (`index.ts`).
 */
import type { JsonValue } from '@agcore/tools-core';
import type { ChatProvider } from '../../chat-provider.js';
import type {
  ChatCompletionsServer,
  ReceivedRequest,
  ServerReply,
  WireObject,
} from '../../testing/index.js';
import type { Step } from '../pause-kit.js';

/** Provider options the suite varies. */
export interface DialectProviderOptions {
  /** A `fetch` to go through (a cassette's, one that cuts reads). */
  readonly fetch?: typeof globalThis.fetch;
  readonly idleTimeoutMs?: number;
  readonly maxResponseBytes?: number;
}

/**
 * A dialect's bytes, for the HTTP driver's suite (`src/providers/http/driver.test.ts`): what a
 * plain text answer looks like on the wire, streamed and whole, and an error inside a stream.
 */
export interface DialectWire {
  /** The SSE events of a streamed answer whose text is `pieces`, one string per event, in order. */
  streamed(pieces: readonly string[]): string[];
  /** The JSON body of a whole answer of `text`. */
  whole(text: string): WireObject;
  /** An SSE event reporting a server error mid-stream (`message` in it). */
  errorEvent(message: string): string;
  /** Whether the stream ends with a terminal event (`false`: it ends with the body). */
  readonly terminalEvent: boolean;
}

/** A dialect's running server. */
export interface DialectServer {
  /** The server (its script, requests, connections). */
  readonly server: ChatCompletionsServer;
  /** One step of the model as this server answers `request` (SSE when it asks for a stream). */
  reply(step: Step, request: ReceivedRequest): ServerReply;
  /** A fresh provider of this dialect on the server. */
  provider(options?: DialectProviderOptions): ChatProvider;
  /** The reply of an overloaded server, in this format: retryable, with `retry-after: 0`. */
  overloaded(): ServerReply;
  /** The tool results of request `index` as the server received them, in order. */
  toolResults(index: number): string[];
  /** The dialect's bytes (see `DialectWire`). */
  readonly wire: DialectWire;
  /** Request parameters the dialect's model is run with (e.g. Anthropic thinking on). */
  readonly parameters?: Readonly<Record<string, JsonValue>>;
  /** Stops the server. */
  close(): Promise<void>;
}

/** A wire format under test. */
export interface WireDialect {
  /** As the suite names it: `openai-compatible`, `anthropic`, `openai-responses`. */
  readonly name: string;
  /** Starts the dialect's server on 127.0.0.1. */
  start(): Promise<DialectServer>;
}
