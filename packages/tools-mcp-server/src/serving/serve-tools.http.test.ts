import { request as httpRequest } from 'node:http';
import type { Client as ClientV2 } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  errorCodeMetaKey,
  type ListeningServer,
  type ServeToolsOptions,
  serveTools,
  type ToolServer,
} from '../index.js';
import { connectV1, connectV2, fixtureRegistry, type Seen } from '../test-support/fixtures.js';

let served: ToolServer;
let listening: ListeningServer;
let seen: Seen;
const clients: { close(): Promise<void> }[] = [];

async function start(options: ServeToolsOptions = {}): Promise<void> {
  const fixture = fixtureRegistry();
  seen = fixture.seen;
  served = serveTools(fixture.registry, options);
  listening = await served.listen({ port: 0 });
}

async function v1(headers?: Record<string, string>): Promise<Client> {
  const client = await connectV1(listening.url, headers);
  clients.push(client);
  return client;
}

async function v2(answer?: string): Promise<ClientV2> {
  const client = await connectV2(listening.url, answer);
  clients.push(client);
  return client;
}

function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(listening.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** POSTs a ping with a given Host header (fetch does not let one set it). */
function statusWithHost(url: string, host: string): Promise<number> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, {
      method: 'POST',
      headers: {
        host,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
    });
    request.on('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
    request.end(body);
  });
}

beforeEach(() => start());
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
  await served.close();
});

describe('serveTools over Streamable HTTP, both eras', () => {
  it('lists every registered tool to a 2025 client and to a 2026-07-28 client', async () => {
    const names = ['echo', 'shell_run', 'slow', 'delete_all', 'confirm'];
    expect((await (await v1()).listTools()).tools.map((tool) => tool.name)).toEqual(names);
    expect((await (await v2()).listTools()).tools.map((tool) => tool.name)).toEqual(names);
  });

  it('runs a call through registry.invoke: the audit hook records it and progress reaches the client', async () => {
    const client = await v1();
    const progress: unknown[] = [];
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } }, undefined, {
      onprogress: (update) => progress.push(update),
    });
    expect(result.structuredContent).toEqual({ echoed: 'hi' });
    expect(progress).toEqual([expect.objectContaining({ progress: 1, total: 2, message: 'half' })]);
    expect(seen.audit.map((record) => record.toolName)).toEqual(['echo']);
    const modern = await v2();
    const modernResult = await modern.callTool({ name: 'echo', arguments: { text: 'yo' } });
    expect(modernResult.structuredContent).toEqual({ echoed: 'yo' });
    expect(seen.audit).toHaveLength(2);
  });

  it('keeps the ToolError code on the wire: permission_denied, invalid_arguments, not_found', async () => {
    for (const client of [await v1(), await v2()]) {
      const denied = await client.callTool({ name: 'shell_run', arguments: {} });
      expect(denied.isError).toBe(true);
      expect(denied._meta?.[errorCodeMetaKey]).toBe('permission_denied');
      const invalid = await client.callTool({ name: 'echo', arguments: { text: 5 } });
      expect(invalid._meta?.[errorCodeMetaKey]).toBe('invalid_arguments');
      const missing = await client.callTool({ name: 'nope', arguments: {} });
      expect(missing._meta?.[errorCodeMetaKey]).toBe('not_found');
    }
  });

  it('continues the caller trace: a traceparent in _meta becomes context.traceId', async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    await (await v1()).callTool({
      name: 'echo',
      arguments: { text: 'x' },
      _meta: { traceparent: `00-${traceId}-b7ad6b7169203331-01` },
    });
    expect(seen.contexts[0]?.traceId).toBe(traceId);
  });

  it('answers the 2026-07-28 tools/list with the configured ttlMs and cacheScope', async () => {
    await served.close();
    await start({ listCache: { ttlMs: 60_000, cacheScope: 'public' } });
    const client = await v2();
    const listed = await client.listTools();
    expect(listed).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
  });
});

describe('HTTP surface', () => {
  it('answers /healthz, refuses GET and DELETE on the endpoint with 405', async () => {
    const health = await fetch(new URL('/healthz', listening.url));
    expect(health.status).toBe(200);
    expect((await fetch(listening.url)).status).toBe(405);
    expect((await fetch(listening.url, { method: 'DELETE' })).status).toBe(405);
  });

  it('refuses a foreign Host or Origin on a loopback listener (DNS rebinding) and a body over the bound', async () => {
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    expect(await statusWithHost(listening.url, 'evil.example')).toBe(403);
    expect(await statusWithHost(listening.url, new URL(listening.url).host)).toBe(200);
    expect((await post(ping, { origin: 'https://evil.example' })).status).toBe(403);
    await served.close();
    await start({ maxRequestBodyBytes: 100 });
    expect((await post({ ...ping, params: { pad: 'x'.repeat(200) } })).status).toBe(413);
  });
});

describe('approval', () => {
  it('refuses a needsApproval tool with denied, naming the approval option', async () => {
    const result = await (await v1()).callTool({ name: 'delete_all', arguments: {} });
    expect(result._meta?.[errorCodeMetaKey]).toBe('denied');
    expect(JSON.stringify(result.content)).toContain('approval');
  });

  it('runs it when the server-side approval policy says yes', async () => {
    await served.close();
    const asked: string[] = [];
    await start({
      approval: ({ toolName }) => {
        asked.push(toolName);
        return true;
      },
    });
    const result = await (await v1()).callTool({ name: 'delete_all', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'deleted' }]);
    expect(asked).toEqual(['delete_all']);
  });
});

describe('cancellation', () => {
  for (const era of ['2025', '2026-07-28'] as const) {
    it(`aborts the tool's signal when a ${era} client aborts the call`, async () => {
      const client = era === '2025' ? await v1() : await v2();
      const started = new Promise<void>((resolve) => {
        seen.started = resolve;
      });
      const aborted = new Promise<unknown>((resolve) => {
        seen.aborted = resolve;
      });
      const call = client.callTool({ name: 'slow', arguments: {} });
      call.catch(() => undefined);
      await started;
      // The client goes away (closes its transport): its request's connection closes unanswered.
      await client.close();
      await expect(call).rejects.toThrow();
      await aborted;
      await expect
        .poll(() => seen.audit.at(-1)?.output)
        .toMatchObject({ ok: false, error: { code: 'cancelled' } });
    });
  }
});
