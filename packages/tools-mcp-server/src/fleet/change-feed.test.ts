// Issue 30 §5: serveTools({ changes }): a change published on the feed reaches the clients of
// every server subscribed to it: `notifications/tools/list_changed` on 2025-11-25 (on the GET
// notification stream) and `subscriptions/listen` on 2026-07-28.
import { defineTool } from '@agcore/tools-core';
import { McpClient, type McpProtocol } from '@agcore/tools-mcp';
import { ToolRegistry } from '@agcore/tools-registry';
import { InMemoryServerEventBus } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryChangeFeed, type ServeToolsOptions, serveTools } from '../index.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

const tool = (name: string) =>
  defineTool({
    name,
    description: `The tool ${name}`,
    parameters: { type: 'object', properties: {} },
    execute: async () => name,
  });

async function start(registry: ToolRegistry, options: ServeToolsOptions): Promise<string> {
  const served = serveTools(registry, options);
  const listening = await served.listen({ port: 0 });
  cleanups.push(() => served.close());
  return listening.url;
}

describe.each(['legacy', '2026-07-28'] as const satisfies readonly McpProtocol[])(
  'a change feed shared by two servers, McpClient on %s',
  (protocol) => {
    it('announces a tool registered and published on server A to a client of server B', async () => {
      const feed = new InMemoryChangeFeed();
      const registry = new ToolRegistry();
      registry.register(tool('first'));
      await start(registry, { changes: feed });
      const urlB = await start(registry, { changes: feed });
      const lists: string[][] = [];
      const client = new McpClient(
        'b',
        { type: 'streamable-http', url: urlB },
        { protocol, onToolsChanged: (tools) => lists.push(tools.map((t) => t.name)) },
      );
      cleanups.push(() => client.close());
      await client.connect();
      expect((await client.listTools()).map((t) => t.name)).toEqual(['first']);
      // The client's listen stream (2026) or GET stream (2025) is open once the feed has both
      // servers' subscriptions and B's bus has the client's: publishing before it would be lost.
      await expect.poll(() => feed.size, { timeout: 10_000 }).toBe(2);
      registry.register(tool('second'));
      await expect
        .poll(
          async () => {
            await feed.publish({ kind: 'tools_list_changed' });
            return lists.some((names) => names.includes('second'));
          },
          { timeout: 20_000, interval: 200 },
        )
        .toBe(true);
    }, 60_000);
  },
);

describe('the 2025 GET notification stream', () => {
  async function openGet(url: string, accept = 'text/event-stream') {
    const controller = new AbortController();
    cleanups.push(async () => controller.abort());
    return fetch(url, { headers: { accept }, signal: controller.signal });
  }

  it('streams each list change as a JSON-RPC notification, and ends when the server closes (and leaves the feed)', async () => {
    const feed = new InMemoryChangeFeed();
    const served = serveTools(new ToolRegistry(), { changes: feed });
    const { url } = await served.listen({ port: 0 });
    const response = await openGet(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    const until = async (part: string) => {
      while (!text.includes(part)) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`the stream ended before ${part}: ${text}`);
        text += decoder.decode(value, { stream: true });
      }
    };
    await until(': open');
    await feed.publish({ kind: 'tools_list_changed' });
    await feed.publish({ kind: 'resource_updated', uri: 'file:///a' });
    await feed.publish({ kind: 'prompts_list_changed' });
    await until('prompts/list_changed');
    expect(text).toContain(
      'data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n',
    );
    expect(text).not.toContain('resources/updated');
    await served.close();
    // Ended: at its end, or cut with the connection (close() ends open connections).
    expect(
      await reader.read().then(
        ({ done }) => done,
        () => true,
      ),
    ).toBe(true);
    expect(feed.size).toBe(0);
  });

  it('answers 405 without a feed or bus, 406 without text/event-stream, 401 unauthenticated', async () => {
    const plain = await start(new ToolRegistry(), {});
    expect((await openGet(plain)).status).toBe(405);
    const fed = await start(new ToolRegistry(), {
      changes: new InMemoryChangeFeed(),
      authenticate: (request) =>
        request.headers.get('authorization') === 'Bearer ok' ? { id: 'a' } : undefined,
    });
    expect((await openGet(fed)).status).toBe(401);
    const open = await start(new ToolRegistry(), { eventBus: new InMemoryServerEventBus() });
    expect((await openGet(open, 'application/json')).status).toBe(406);
    expect((await openGet(open)).status).toBe(200);
  });

  it('refuses eventBus and changes together', () => {
    expect(() =>
      serveTools(new ToolRegistry(), {
        eventBus: new InMemoryServerEventBus(),
        changes: new InMemoryChangeFeed(),
      }),
    ).toThrow(TypeError);
  });
});
