/**
 * A real HTTP server on 127.0.0.1 that answers from a script in the Chat Completions wire
 * format, for tests and benchmarks: each request takes the next scripted reply (or the fallback).
 * Node only: `node:http` is imported when the server starts, so this module loads anywhere.
 */
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';

/** A request the server received. */
export interface ReceivedRequest {
  /** `POST`, usually. */
  readonly method: string;
  /** The path and query, e.g. `/v1/chat/completions`. */
  readonly url: string;
  /** The request headers (names in lower case). */
  readonly headers: IncomingHttpHeaders;
  /** The body parsed as JSON, or the raw text when it is not JSON (`undefined` when empty). */
  readonly body: unknown;
}

/** Headers of a reply. */
export type ReplyHeaders = Readonly<Record<string, string>>;

/**
 * A scripted reply:
 * - `json`: `body` serialized, `content-type: application/json` (status 200 unless given).
 * - `text`: `body` as is (a string or bytes) with the given status; `content-type: text/plain`
 *   unless the headers say otherwise (an HTML page, a JSON body you serialized yourself).
 *   Both wait `delayMs` before answering at all, as a server computing a whole answer does.
 * - `sse`: `text/event-stream`; each of `writes` is written separately, with `pause` between
 *   writes (milliseconds, or `'next-turn'`: one turn of the event loop; default none). Then
 *   `finish`: `end` (default) ends the response after the last write, `end-with-last` ends it
 *   with the last write (one packet), `cut` destroys the socket, `hold` leaves it open until
 *   the client goes away.
 * - `hang`: accepts the request and never answers, not even headers.
 * - a function: called with the request, returns the reply to send.
 */
export type ServerReply =
  | {
      readonly kind: 'json';
      readonly status?: number;
      readonly headers?: ReplyHeaders;
      readonly body: unknown;
      readonly delayMs?: number;
    }
  | {
      readonly kind: 'text';
      readonly status: number;
      readonly headers?: ReplyHeaders;
      readonly body: string | Uint8Array;
      readonly delayMs?: number;
    }
  | {
      readonly kind: 'sse';
      readonly writes: readonly (string | Uint8Array)[];
      readonly status?: number;
      readonly headers?: ReplyHeaders;
      readonly pause?: number | 'next-turn';
      readonly finish?: 'end' | 'end-with-last' | 'cut' | 'hold';
    }
  | { readonly kind: 'hang' }
  | ((request: ReceivedRequest) => ServerReply);

/** Options of `startChatCompletionsServer`. */
export interface ChatCompletionsServerOptions {
  /** The port (default 0: a free one). */
  readonly port?: number;
  /** How long an idle kept-alive connection stays open, in milliseconds (default 5 000). */
  readonly keepAliveTimeoutMs?: number;
  /** Keep every request in `requests` (default `true`; turn off for long benchmark runs). */
  readonly recordRequests?: boolean;
}

/** A running server; see `startChatCompletionsServer`. */
export interface ChatCompletionsServer {
  /** `http://127.0.0.1:<port>/v1`: give it to `createOpenAICompatibleProvider` as `baseURL`. */
  readonly baseURL: string;
  /** Every request received, in order (clear it with `requests.length = 0`). */
  readonly requests: ReceivedRequest[];
  /** Appends replies to the script. */
  reply(...replies: ServerReply[]): this;
  /** The reply used when the script is empty (default: HTTP 500 saying so). */
  fallback(reply: ServerReply | undefined): this;
  /**
   * Plays DeepSeek's thinking mode (api-docs.deepseek.com/guides/thinking_mode, "Tool Calls"):
   * while on, a request whose history has an assistant message with tool calls but no
   * `reasoning_content` is answered HTTP 400 `invalid_request_error` naming that message, and
   * takes no scripted reply. Off by default and after `reset()`.
   */
  requireReasoningContent(required?: boolean): this;
  /** How many scripted replies were not used yet. */
  pending(): number;
  /** Drops the replies not used yet and the requests recorded, and turns `requireReasoningContent` off (e.g. between tests). */
  reset(): this;
  /** How many TCP connections were accepted. */
  connections(): number;
  /** How many replies the client abandoned before they were complete. */
  disconnects(): number;
  /** Closes every connection and stops listening. */
  close(): Promise<void>;
}

/**
 * Starts a Chat Completions server on 127.0.0.1 that plays a script of replies (build them with
 * `textStream`, `toolCallStream`, `textCompletion`, …). Resolves once it listens.
 * @throws {Error} when the port is taken
 */
export async function startChatCompletionsServer(
  options: ChatCompletionsServerOptions = {},
): Promise<ChatCompletionsServer> {
  const { createServer } = await import('node:http');
  const state: ScriptState = {
    script: [],
    requests: [],
    fallbackReply: undefined,
    requireReasoning: false,
    disconnects: 0,
    connections: 0,
    options,
  };
  const server = createServer((request, response) => answer(state, request, response));
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5_000;
  server.on('connection', () => {
    state.connections++;
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return serverHandle(state, port, server);
}

/** What a running server plays and what it counted. */
interface ScriptState {
  readonly script: ServerReply[];
  readonly requests: ReceivedRequest[];
  fallbackReply: ServerReply | undefined;
  requireReasoning: boolean;
  disconnects: number;
  connections: number;
  /** The options the server started with. */
  readonly options: ChatCompletionsServerOptions;
}

/** Reads a request to its end, records it, and sends the next reply of the script. */
function answer(state: ScriptState, request: IncomingMessage, response: ServerResponse): void {
  const parts: Buffer[] = [];
  request.on('data', (part: Buffer) => parts.push(part));
  request.on('end', () => {
    const received = receive(request, Buffer.concat(parts).toString('utf8'));
    if (state.options.recordRequests !== false) state.requests.push(received);
    const refused = state.requireReasoning ? missingReasoning(received.body) : undefined;
    let reply = refused ?? state.script.shift() ?? state.fallbackReply;
    while (typeof reply === 'function') reply = reply(received);
    let finished = false;
    response.on('finish', () => {
      finished = true;
    });
    response.on('close', () => {
      if (!finished) state.disconnects++;
    });
    void send(response, reply);
  });
}

/** The public handle of a server listening on `port`. */
function serverHandle(state: ScriptState, port: number, server: Server): ChatCompletionsServer {
  const handle: ChatCompletionsServer = {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests: state.requests,
    reply: (...replies) => {
      state.script.push(...replies);
      return handle;
    },
    fallback: (reply) => {
      state.fallbackReply = reply;
      return handle;
    },
    requireReasoningContent: (required = true) => {
      state.requireReasoning = required;
      return handle;
    },
    pending: () => state.script.length,
    reset: () => {
      state.script.length = 0;
      state.requests.length = 0;
      state.requireReasoning = false;
      return handle;
    },
    connections: () => state.connections,
    disconnects: () => state.disconnects,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return handle;
}

function receive(request: IncomingMessage, text: string): ReceivedRequest {
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = text;
  }
  return {
    method: request.method ?? '',
    url: request.url ?? '',
    headers: request.headers,
    body,
  };
}

/** DeepSeek's answer to a history whose tool-call message lost its reasoning, or `undefined`. */
function missingReasoning(body: unknown): ServerReply | undefined {
  const messages = (body as { messages?: unknown } | undefined)?.messages;
  if (!Array.isArray(messages)) return undefined;
  const index = messages.findIndex(
    (message: { role?: unknown; tool_calls?: unknown; reasoning_content?: unknown } | null) =>
      message?.role === 'assistant' &&
      Array.isArray(message.tool_calls) &&
      message.tool_calls.length > 0 &&
      typeof message.reasoning_content !== 'string',
  );
  if (index < 0) return undefined;
  return {
    kind: 'json',
    status: 400,
    body: {
      error: {
        message: `Missing \`reasoning_content\` field in the assistant message at message index ${index}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`,
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_request_error',
      },
    },
  };
}

type PlainReply = Exclude<ServerReply, (request: ReceivedRequest) => ServerReply>;

async function send(response: ServerResponse, reply: PlainReply | undefined): Promise<void> {
  if (reply === undefined) {
    whole(response, 500, { 'content-type': 'application/json' }, noReplyBody);
    return;
  }
  if ((reply.kind === 'json' || reply.kind === 'text') && reply.delayMs !== undefined) {
    await pause(reply.delayMs);
    if (response.destroyed) return;
  }
  switch (reply.kind) {
    case 'json':
      whole(
        response,
        reply.status ?? 200,
        { 'content-type': 'application/json', ...reply.headers },
        JSON.stringify(reply.body),
      );
      return;
    case 'text':
      whole(response, reply.status, { 'content-type': 'text/plain', ...reply.headers }, reply.body);
      return;
    case 'hang':
      return;
    case 'sse':
      await stream(response, reply);
      return;
  }
}

const noReplyBody = JSON.stringify({
  error: { message: 'chat completions server: no scripted reply left', type: 'server_error' },
});

function whole(
  response: ServerResponse,
  status: number,
  headers: ReplyHeaders,
  body: string | Uint8Array,
): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  response.writeHead(status, { ...headers, 'content-length': String(bytes.byteLength) });
  response.end(bytes);
}

async function stream(
  response: ServerResponse,
  reply: Extract<PlainReply, { kind: 'sse' }>,
): Promise<void> {
  response.writeHead(reply.status ?? 200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    ...reply.headers,
  });
  // Headers go with the first write, as a server streaming at once sends them.
  if (reply.writes.length === 0) response.flushHeaders();
  const finish = reply.finish ?? 'end';
  for (const [index, write] of reply.writes.entries()) {
    const waiting = index > 0 ? pause(reply.pause) : undefined;
    if (waiting !== undefined) await waiting;
    if (response.destroyed) return;
    if (finish === 'end-with-last' && index === reply.writes.length - 1) {
      response.end(write);
      return;
    }
    response.write(write);
  }
  if (finish === 'hold') return;
  if (finish === 'cut') {
    // Let the writes leave before the socket dies, as a proxy dropping the connection would.
    await new Promise((resolve) => setTimeout(resolve, 20));
    response.socket?.destroy();
    return;
  }
  response.end();
}

function pause(between: number | 'next-turn' | undefined): Promise<void> | undefined {
  if (between === undefined) return undefined;
  if (between === 'next-turn') return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => setTimeout(resolve, between));
}
