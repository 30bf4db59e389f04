// McpClientOptions.retry: a call whose answer never came (the server dropped the connection
// after the tool ran) is made again only when it is safe to repeat: read-only by annotation or
// carrying an idempotency key. The end-to-end test against serveTools processes killed mid-call
// lives in @agcore/tools-mcp-server (client-retry.test.ts).
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { createMcpHandler, type McpHttpHandler, McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpClient, type McpToolError } from '../index.js';

const runs: string[] = [];
const dropped = new Set<string>();
let http: Server;
let handler: McpHttpHandler;
let url: string;

function toolServer(): McpServer {
  const server = new McpServer({ name: 'dropping', version: '1.0.0' });
  for (const [name, readOnlyHint] of [
    ['lookup', true],
    ['write', false],
  ] as const) {
    server.registerTool(
      name,
      {
        description: name,
        inputSchema: z.object({ id: z.string() }),
        annotations: { readOnlyHint },
      },
      async ({ id }, context) => {
        const key = (context.mcpReq._meta as Record<string, unknown> | undefined)?.[
          'dev.agcore/idempotencyKey'
        ];
        runs.push(`${name} ${id}${typeof key === 'string' ? ` ${key}` : ''}`);
        return { content: [{ type: 'text', text: `${name} ${id} done` }] };
      },
    );
  }
  return server;
}

beforeAll(async () => {
  handler = createMcpHandler(() => toolServer(), { legacy: 'stateless' });
  http = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string') headers.set(name, value);
    }
    // The first answer of each call id (the `id` argument) is lost: the connection drops after
    // the tool ran, as when a server dies between its commit and its answer.
    const id = /"arguments":\{"id":"([^"]+)"/.exec(body.toString('utf8'))?.[1];
    const drop = id !== undefined && !dropped.has(id);
    if (id !== undefined) dropped.add(id);
    const answer = await handler.fetch(
      new Request(`http://127.0.0.1${request.url ?? '/'}`, {
        method: request.method ?? 'GET',
        headers,
        ...(body.length > 0 ? { body } : {}),
      }),
    );
    if (drop) {
      await answer.text();
      response.destroy();
      return;
    }
    response.writeHead(answer.status, Object.fromEntries(answer.headers.entries()));
    if (answer.body !== null) for await (const chunk of answer.body) response.write(chunk);
    response.end();
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const address = http.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/mcp`;
});

afterAll(async () => {
  await handler.close();
  http.closeAllConnections();
  http.close();
});

describe.each(['legacy', 'auto'] as const)('retry, protocol: %s', (protocol) => {
  const client = () =>
    new McpClient(
      'dropping',
      { type: 'streamable-http', url },
      { protocol, retry: { attempts: 3, backoffMs: 10 } },
    );

  it('makes a read-only call again after its answer was lost, and it succeeds', async () => {
    const mcp = client();
    await mcp.connect();
    await mcp.listTools();
    expect((await mcp.callTool('lookup', { id: `${protocol}-1` })).value).toBe(
      `lookup ${protocol}-1 done`,
    );
    expect(runs.filter((run) => run === `lookup ${protocol}-1`)).toHaveLength(2);
    await mcp.close();
  });

  it('makes a call with an idempotency key again, the same key each time', async () => {
    const mcp = client();
    await mcp.connect();
    const result = await mcp.callTool(
      'write',
      { id: `${protocol}-2` },
      { idempotencyKey: `run:${protocol}` },
    );
    expect(result.value).toBe(`write ${protocol}-2 done`);
    expect(runs.filter((run) => run.startsWith(`write ${protocol}-2`))).toEqual([
      `write ${protocol}-2 run:${protocol}`,
      `write ${protocol}-2 run:${protocol}`,
    ]);
    await mcp.close();
  });

  it('never repeats a call that is not safe to: it fails at once with mcp_error', async () => {
    const mcp = client();
    await mcp.connect();
    await mcp.listTools();
    const error = (await mcp
      .callTool('write', { id: `${protocol}-3` })
      .catch((caught: unknown) => caught)) as McpToolError;
    expect(error.code).toBe('mcp_error');
    expect(runs.filter((run) => run === `write ${protocol}-3`)).toHaveLength(1);
    await mcp.close();
  });

  it('stops at the abort that comes while it waits to try again: cancelled, no further attempt', async () => {
    const mcp = new McpClient(
      'dropping',
      { type: 'streamable-http', url },
      { protocol, timeoutMs: 600_000, retry: { attempts: 3, backoffMs: 10_000 } },
    );
    await mcp.connect();
    await mcp.listTools();
    const controller = new AbortController();
    const call = mcp
      .callTool('lookup', { id: `${protocol}-4` }, { signal: controller.signal })
      .catch((caught: unknown) => caught);
    await expect.poll(() => runs.filter((run) => run === `lookup ${protocol}-4`).length).toBe(1);
    controller.abort();
    expect(((await call) as McpToolError).code).toBe('cancelled');
    expect(runs.filter((run) => run === `lookup ${protocol}-4`)).toHaveLength(1);
    await mcp.close();
  });
});

describe('retry options', () => {
  it('refuses attempts that are not a positive integer, and a negative backoff', async () => {
    const transport = { type: 'streamable-http', url: 'http://127.0.0.1:1/mcp' } as const;
    expect(() => new McpClient('x', transport, { retry: { attempts: 0 } })).toThrow(
      /retry.attempts/,
    );
    expect(() => new McpClient('x', transport, { retry: { attempts: 2, backoffMs: -1 } })).toThrow(
      /retry.backoffMs/,
    );
    await expect(
      new McpClient('x', transport).callTool('t', {}, { retry: { attempts: 1.5 } }),
    ).rejects.toThrow(TypeError);
  });
});
