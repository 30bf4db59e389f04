import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  acceptedContent,
  createMcpHandler,
  inputRequired,
  type McpHttpHandler,
  McpServer,
} from '@modelcontextprotocol/server';
import { z } from 'zod';

/** A server on the v2 SDK (`@modelcontextprotocol/server` 2.x), served over HTTP on 127.0.0.1. */
export interface ModernHttpServer {
  readonly url: string;
  readonly handler: McpHttpHandler;
  /** The JSON-RPC methods the server received, in order. */
  readonly methods: string[];
  /** The HTTP requests the server received (`POST initialize`, `GET`), in order. */
  readonly requests: string[];
  /** What the tools saw: `cancelled slow`, `meta {...}`. */
  readonly events: string[];
  stop(): Promise<void>;
}

/** What the test server serves besides its tools. */
export interface ModernServerOptions {
  /** `'reject'`: modern-only (2026-07-28); `'stateless'`: both eras. */
  readonly legacy: 'reject' | 'stateless';
  /** The `ttlMs` of its tool lists (default 0: no promise). */
  readonly toolsTtlMs?: number;
  /** Registers more on each request's server (resources, prompts). */
  readonly extend?: (server: McpServer) => void;
}

/**
 * The tools of the v2 test server: echo, add; deploy (asks for confirmation through an MRTR
 * `input_required` round); slow (progress each step, stops when cancelled); meta (returns the
 * request's `_meta`).
 */
export function modernMcpServer(events: string[] = [], toolsTtlMs = 0): McpServer {
  const server = new McpServer(
    { name: 'modern-test', version: '2.0.0' },
    { cacheHints: { 'tools/list': { ttlMs: toolsTtlMs } } },
  );
  server.registerTool(
    'echo',
    { description: 'Echoes its message', inputSchema: z.object({ message: z.string() }) },
    async ({ message }) => ({ content: [{ type: 'text', text: `Echo: ${message}` }] }),
  );
  server.registerTool(
    'add',
    { description: 'Adds two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }) },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  const confirmation = z.object({ confirm: z.boolean() });
  server.registerTool(
    'deploy',
    { description: 'Deploys after confirmation', inputSchema: z.object({ env: z.string() }) },
    async ({ env }, context) => {
      const answer = acceptedContent(context.mcpReq.inputResponses, 'confirm', confirmation);
      if (answer === undefined) {
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({
              message: `Deploy to ${env}?`,
              requestedSchema: confirmation,
            }),
          },
        });
      }
      return {
        content: [{ type: 'text', text: answer.confirm ? `deployed to ${env}` : 'not deployed' }],
      };
    },
  );
  const slowSchema = z.object({ steps: z.number(), stepMs: z.number() });
  const slow = async (
    { steps, stepMs }: z.infer<typeof slowSchema>,
    context: { mcpReq: SlowRequest },
  ) => {
    const request = context.mcpReq;
    const token = request._meta?.progressToken;
    for (let step = 1; step <= steps; step++) {
      const stopped = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), stepMs);
        request.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      if (stopped || request.signal.aborted) {
        events.push('cancelled slow');
        return { content: [{ type: 'text' as const, text: 'cancelled' }] };
      }
      if (token !== undefined) {
        await request.notify({
          method: 'notifications/progress',
          params: { progressToken: token, progress: step, total: steps },
        });
      }
    }
    return { content: [{ type: 'text' as const, text: `done after ${steps} steps` }] };
  };
  server.registerTool(
    'slow',
    { description: 'Reports progress each step', inputSchema: slowSchema },
    slow,
  );
  // The HTTP layer cuts the response stream of this one after its first event.
  server.registerTool('cut', { description: 'Its stream is cut', inputSchema: slowSchema }, slow);
  server.registerTool(
    'refuse',
    {
      description: 'Fails with the ToolError code it is given, as @agcore/tools-mcp-server does',
      inputSchema: z.object({ code: z.string() }),
    },
    async ({ code }) => ({
      isError: true,
      content: [{ type: 'text', text: `refused with ${code}` }],
      _meta: { 'dev.agcore/errorCode': code },
    }),
  );
  server.registerTool(
    'meta',
    { description: "Returns the request's _meta", inputSchema: z.object({}) },
    async (_args, context) => {
      const meta = JSON.stringify(context.mcpReq._meta ?? {});
      events.push(`meta ${meta}`);
      return { content: [{ type: 'text', text: meta }] };
    },
  );
  return server;
}

/** Starts the v2 test server on a free port of 127.0.0.1 (`/mcp`). */
export async function startModernHttp(options: ModernServerOptions): Promise<ModernHttpServer> {
  const events: string[] = [];
  const handler = createMcpHandler(
    () => {
      const server = modernMcpServer(events, options.toolsTtlMs);
      options.extend?.(server);
      return server;
    },
    { legacy: options.legacy },
  );
  const methods: string[] = [];
  const requests: string[] = [];
  const http = createServer((request, response) => {
    void serve(handler, { methods, requests }, request, response);
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const address = http.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    handler,
    methods,
    requests,
    events,
    stop: () => stopServer(http, handler),
  };
}

async function serve(
  handler: McpHttpHandler,
  log: { readonly methods: string[]; readonly requests: string[] },
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const method = rpcMethodOf(body);
  const cut = method === 'tools/call' && body.toString('utf8').includes('"name":"cut"');
  if (method !== undefined) log.methods.push(method);
  log.requests.push(`${request.method ?? 'GET'}${method === undefined ? '' : ` ${method}`}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
  }
  const controller = new AbortController();
  response.on('close', () => controller.abort());
  try {
    const answer = await handler.fetch(
      new Request(`http://127.0.0.1${request.url ?? '/'}`, {
        method: request.method ?? 'GET',
        headers,
        signal: controller.signal,
        ...(body.length > 0 ? { body } : {}),
      }),
    );
    response.writeHead(answer.status, Object.fromEntries(answer.headers.entries()));
    if (answer.body === null) {
      response.end();
      return;
    }
    for await (const chunk of answer.body) {
      response.write(chunk);
      if (cut) {
        // After the first event has reached the client: the stream dies mid-call.
        setTimeout(() => response.destroy(), 100);
        return;
      }
    }
    response.end();
  } catch {
    response.destroy();
  }
}

async function stopServer(http: Server, handler: McpHttpHandler): Promise<void> {
  await handler.close();
  http.closeAllConnections();
  http.close();
}

/** What the slow tool uses of its request context. */
interface SlowRequest {
  readonly _meta?: { readonly progressToken?: string | number } | undefined;
  readonly signal: AbortSignal;
  notify(notification: {
    method: 'notifications/progress';
    params: { progressToken: string | number; progress: number; total: number };
  }): Promise<void>;
}

function rpcMethodOf(body: Buffer): string | undefined {
  if (body.length === 0) return undefined;
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { method?: unknown };
    return typeof parsed.method === 'string' ? parsed.method : undefined;
  } catch {
    return undefined;
  }
}
