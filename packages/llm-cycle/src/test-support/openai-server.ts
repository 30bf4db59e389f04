/**
 * A real HTTP server on 127.0.0.1 that speaks the OpenAI Chat Completions wire format, for
 * tests and benchmarks. Each request takes the next scripted reply; the chunk shapes follow
 * responses recorded from api.openai.com (ids `chatcmpl-…`, `object`, `created`, `model`,
 * `system_fingerprint`, `service_tier`, `obfuscation`, `usage: null` on every chunk when
 * `include_usage` is on, the usage chunk with empty `choices`, `data: [DONE]`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the server received. */
export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  // biome-ignore lint/suspicious/noExplicitAny: test helper reading arbitrary JSON bodies
  readonly body: any;
}

/** A scripted reply. */
export type Reply =
  | {
      readonly kind: 'json';
      readonly status?: number;
      readonly headers?: Record<string, string>;
      readonly body: unknown;
    }
  | {
      readonly kind: 'text';
      readonly status: number;
      readonly headers?: Record<string, string>;
      readonly body: string;
    }
  | {
      readonly kind: 'sse';
      /** Raw writes, each written separately (`data: …\n\n`, `: keep-alive\n\n`, or pieces of either). */
      readonly writes: readonly (string | Uint8Array)[];
      /** `end` closes the response normally (default); `cut` destroys the socket after the writes; `hold` leaves the response open until the client goes away. */
      readonly finish?: 'end' | 'cut' | 'hold';
      /** Pause between writes, in ms (default 0: written back to back). */
      readonly delayMs?: number;
    }
  /** Never answers; the socket stays open until the client goes away. */
  | { readonly kind: 'hang' }
  | ((request: ReceivedRequest) => Reply);

/** The server handle. */
export interface OpenAIServer {
  /** `http://127.0.0.1:<port>/v1` */
  readonly baseURL: string;
  /** Every request received. */
  readonly requests: ReceivedRequest[];
  /** How many requests the client abandoned before the reply was complete. */
  readonly disconnects: () => number;
  /** How many TCP connections were opened to the server. */
  readonly connections: () => number;
  /** Appends replies to the script. */
  reply(...replies: Reply[]): void;
  /** Replies not used yet. */
  pending(): number;
  /** A reply used when the script is empty (the bench uses one that never runs out). */
  fallback(reply: Reply | undefined): void;
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1 on a free port. */
export async function startOpenAIServer(): Promise<OpenAIServer> {
  const script: Reply[] = [];
  const requests: ReceivedRequest[] = [];
  let fallbackReply: Reply | undefined;
  let disconnects = 0;
  const server: Server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = text;
      }
      const received: ReceivedRequest = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body,
      };
      requests.push(received);
      let reply = script.shift() ?? fallbackReply;
      while (typeof reply === 'function') reply = reply(received);
      let finished = false;
      response.on('finish', () => {
        finished = true;
      });
      response.on('close', () => {
        if (!finished) disconnects++;
      });
      void send(response, reply);
    });
  });
  server.keepAliveTimeout = 5_000;
  let connections = 0;
  server.on('connection', () => {
    connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    disconnects: () => disconnects,
    connections: () => connections,
    reply: (...replies) => {
      script.push(...replies);
    },
    pending: () => script.length,
    fallback: (reply) => {
      fallbackReply = reply;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function send(
  response: ServerResponse,
  reply: Exclude<Reply, (request: ReceivedRequest) => Reply> | undefined,
): Promise<void> {
  if (reply === undefined) {
    response.writeHead(500, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        error: { message: 'test server: no scripted reply left', type: 'server_error' },
      }),
    );
    return;
  }
  switch (reply.kind) {
    case 'json': {
      const payload = JSON.stringify(reply.body);
      response.writeHead(reply.status ?? 200, {
        'content-type': 'application/json',
        ...reply.headers,
      });
      response.end(payload);
      return;
    }
    case 'text':
      response.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
      response.end(reply.body);
      return;
    case 'hang':
      response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      response.flushHeaders();
      return;
    case 'sse': {
      response.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        'openai-processing-ms': '161',
        'x-request-id': 'req_0b7d3c94a9c6e0c8d1a2f0e7b2c4d5e6',
      });
      for (const write of reply.writes) {
        if (response.destroyed) return;
        response.write(write);
        if (reply.delayMs !== undefined && reply.delayMs > 0)
          await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
      }
      if (reply.finish === 'hold') return;
      if (reply.finish === 'cut') {
        // Let the writes leave before the socket dies, as a proxy dropping the connection would.
        await new Promise((resolve) => setTimeout(resolve, 20));
        response.socket?.destroy();
        return;
      }
      response.end();
      return;
    }
  }
}

// ---- Wire shapes recorded from real responses -------------------------------------------------

const model = 'gpt-4o-mini-2024-07-18';
const fingerprint = 'fp_34a54ae93c';
let sequence = 0;

/** A fresh completion id in OpenAI's shape. */
export function completionId(): string {
  sequence++;
  return `chatcmpl-C3N2Vhx8lxKfZrJ8yS2j${String(sequence).padStart(6, '0')}`;
}

/** Usage in OpenAI's shape. */
export function wireUsage(promptTokens: number, completionTokens: number): Record<string, unknown> {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

/** One SSE event line pair for `payload`. */
export function sse(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

/** The final SSE event. */
export const done = 'data: [DONE]\n\n';

/** A `chat.completion.chunk` with one choice. */
export function chunk(
  id: string,
  delta: Record<string, unknown>,
  finishReason: string | null = null,
): Record<string, unknown> {
  return {
    id,
    object: 'chat.completion.chunk',
    created: 1754813855,
    model,
    service_tier: 'default',
    system_fingerprint: fingerprint,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    usage: null,
    obfuscation: 'kQ3x',
  };
}

/** The usage chunk OpenAI sends last when `stream_options.include_usage` is on: empty `choices`. */
export function usageChunk(
  id: string,
  promptTokens: number,
  completionTokens: number,
): Record<string, unknown> {
  return {
    id,
    object: 'chat.completion.chunk',
    created: 1754813855,
    model,
    service_tier: 'default',
    system_fingerprint: fingerprint,
    choices: [],
    usage: wireUsage(promptTokens, completionTokens),
    obfuscation: 'Zr',
  };
}

/** A streamed text answer: role chunk, one chunk per piece, finish chunk, usage chunk, [DONE]. */
export function textStream(
  pieces: readonly string[],
  options: { usage?: [number, number]; finishReason?: string } = {},
): string[] {
  const id = completionId();
  const writes = [sse(chunk(id, { role: 'assistant', content: '', refusal: null }))];
  for (const piece of pieces) writes.push(sse(chunk(id, { content: piece })));
  writes.push(sse(chunk(id, {}, options.finishReason ?? 'stop')));
  const [prompt, completion] = options.usage ?? [19, pieces.length];
  writes.push(sse(usageChunk(id, prompt, completion)), done);
  return writes;
}

/** A tool call to stream: the arguments are sent in the given pieces. */
export interface StreamedCall {
  readonly id: string;
  readonly name: string;
  readonly pieces: readonly string[];
}

/**
 * A streamed tool-call answer in OpenAI's shape: the first delta of each call carries
 * `index`, `id`, `type`, `function.name` and empty arguments; later ones only `index` and an
 * arguments piece. `interleave` alternates the calls' pieces (as some servers do).
 */
export function toolCallStream(
  calls: readonly StreamedCall[],
  options: {
    interleave?: boolean;
    finishReason?: string;
    usage?: [number, number];
    text?: string;
  } = {},
): string[] {
  const id = completionId();
  const writes: string[] = [];
  if (options.text !== undefined) {
    writes.push(
      sse(chunk(id, { role: 'assistant', content: '', refusal: null })),
      sse(chunk(id, { content: options.text })),
    );
  }
  const opening = (index: number, call: StreamedCall, first: boolean): string =>
    sse(
      chunk(id, {
        ...(first && options.text === undefined ? { role: 'assistant', content: null } : {}),
        tool_calls: [
          { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
        ],
        ...(first && options.text === undefined ? { refusal: null } : {}),
      }),
    );
  const piece = (index: number, text: string): string =>
    sse(chunk(id, { tool_calls: [{ index, function: { arguments: text } }] }));
  if (options.interleave === true) {
    calls.forEach((call, index) => {
      writes.push(opening(index, call, index === 0));
    });
    const longest = Math.max(...calls.map((call) => call.pieces.length));
    for (let step = 0; step < longest; step++) {
      calls.forEach((call, index) => {
        const text = call.pieces[step];
        if (text !== undefined) writes.push(piece(index, text));
      });
    }
  } else {
    calls.forEach((call, index) => {
      writes.push(opening(index, call, index === 0));
      for (const text of call.pieces) writes.push(piece(index, text));
    });
  }
  writes.push(sse(chunk(id, {}, options.finishReason ?? 'tool_calls')));
  const [prompt, completion] = options.usage ?? [82, 17];
  writes.push(sse(usageChunk(id, prompt, completion)), done);
  return writes;
}

/** A non-streaming `chat.completion` body with text. */
export function textCompletion(
  text: string,
  usage: [number, number] = [19, 10],
): Record<string, unknown> {
  return completion(
    { role: 'assistant', content: text, refusal: null, annotations: [] },
    'stop',
    usage,
  );
}

/** A non-streaming `chat.completion` body with tool calls. */
export function toolCallCompletion(
  calls: readonly { id: string; name: string; arguments: string }[],
  options: { finishReason?: string; usage?: [number, number] } = {},
): Record<string, unknown> {
  return completion(
    {
      role: 'assistant',
      content: null,
      tool_calls: calls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      })),
      refusal: null,
      annotations: [],
    },
    options.finishReason ?? 'tool_calls',
    options.usage ?? [82, 17],
  );
}

function completion(
  message: Record<string, unknown>,
  finishReason: string,
  usage: [number, number],
): Record<string, unknown> {
  return {
    id: completionId(),
    object: 'chat.completion',
    created: 1754813855,
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
    usage: wireUsage(usage[0], usage[1]),
    service_tier: 'default',
    system_fingerprint: fingerprint,
  };
}

/** OpenAI's error body. */
export function errorBody(
  message: string,
  type: string,
  code: string | null,
  param: string | null = null,
): Record<string, unknown> {
  return { error: { message, type, param, code } };
}
