// Issue 31 §2, end to end: McpClient against serveTools over HTTP on 127.0.0.1 hears the changes
// of resources and prompts published on the server's change feed, on 2026-07-28 through
// `subscriptions/listen` (a subscribed resource's update too), on 2025-11-25 on the GET stream.
import { McpClient, type McpProtocol } from '@agcore/tools-mcp';
import { ToolRegistry } from '@agcore/tools-registry';
import { afterEach, describe, expect, it } from 'vitest';
import {
  InMemoryChangeFeed,
  type McpPromptProvider,
  type McpResourceProvider,
  type StaticPrompt,
  type StaticResource,
  serveTools,
  staticPrompts,
  staticResources,
} from './index.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

/** A resource list that grows when `more` is called, and a prompt list likewise. */
function changing() {
  const entries: StaticResource[] = [{ uri: 'docs://a', name: 'a', text: 'first' }];
  const prompts: StaticPrompt[] = [{ name: 'one', messages: () => [] }];
  const resources: McpResourceProvider = {
    list: (cursor, info) => staticResources(entries).list(cursor, info),
    read: (uri, info) => staticResources(entries).read(uri, info),
  };
  const promptProvider: McpPromptProvider = {
    list: (cursor, info) => staticPrompts(prompts).list(cursor, info),
    get: (name, args, info) => staticPrompts(prompts).get(name, args, info),
  };
  return {
    resources,
    prompts: promptProvider,
    more: () => {
      entries.push({ uri: `docs://${entries.length}`, name: 'more', text: 'more' });
      prompts.push({ name: `p${prompts.length}`, messages: () => [] });
    },
  };
}

async function start(protocol: McpProtocol) {
  const feed = new InMemoryChangeFeed();
  const offerings = changing();
  const served = serveTools(new ToolRegistry(), {
    changes: feed,
    resources: offerings.resources,
    prompts: offerings.prompts,
  });
  const { url } = await served.listen({ port: 0 });
  cleanups.push(() => served.close());
  const client = new McpClient('docs', { type: 'streamable-http', url }, { protocol });
  cleanups.push(() => client.close());
  await client.connect();
  return { feed, client, more: offerings.more };
}

/** Publishes `change` until `check()` holds: a change before the client's stream is open is lost. */
async function publishUntil(
  feed: InMemoryChangeFeed,
  change: Parameters<InMemoryChangeFeed['publish']>[0],
  check: () => Promise<boolean>,
): Promise<void> {
  await expect
    .poll(
      async () => {
        await feed.publish(change);
        return check();
      },
      { timeout: 20_000, interval: 200 },
    )
    .toBe(true);
}

describe.each(['2026-07-28', 'legacy'] as const satisfies readonly McpProtocol[])(
  'resources and prompts changed on the server, McpClient on %s',
  (protocol) => {
    it('lists resources and prompts again after their list_changed', async () => {
      const { feed, client, more } = await start(protocol);
      const resources = await client.listResources();
      expect(resources.map((r) => r.uri)).toEqual(['docs://a']);
      expect((await client.listPrompts()).map((p) => p.name)).toEqual(['one']);
      more();
      // Cached: the server has not said anything yet.
      expect(await client.listResources()).toBe(resources);
      await publishUntil(
        feed,
        { kind: 'resources_list_changed' },
        async () => (await client.listResources()).length === 2,
      );
      await publishUntil(
        feed,
        { kind: 'prompts_list_changed' },
        async () => (await client.listPrompts()).length === 2,
      );
    }, 60_000);
  },
);

describe('a subscribed resource updated on the server, McpClient on 2026-07-28', () => {
  it('calls onUpdated through subscriptions/listen, and no more after the unsubscribe', async () => {
    const { feed, client, more } = await start('2026-07-28');
    const heard: string[] = [];
    const unsubscribe = await client.subscribeResource('docs://a', (uri) => heard.push(uri));
    await publishUntil(feed, { kind: 'resource_updated', uri: 'docs://a' }, async () =>
      heard.includes('docs://a'),
    );
    await feed.publish({ kind: 'resource_updated', uri: 'docs://other' });
    expect(heard.every((uri) => uri === 'docs://a')).toBe(true);
    await unsubscribe();
    const count = heard.length;
    await feed.publish({ kind: 'resource_updated', uri: 'docs://a' });
    // A list change published after it arrives, so the update had its chance to.
    more();
    await publishUntil(
      feed,
      { kind: 'resources_list_changed' },
      async () => (await client.listResources()).length === 2,
    );
    expect(heard.length).toBe(count);
  }, 60_000);

  it('refuses a subscription with mcp_error when the server announces no changes', async () => {
    const served = serveTools(new ToolRegistry(), { resources: changing().resources });
    const { url } = await served.listen({ port: 0 });
    cleanups.push(() => served.close());
    const client = new McpClient(
      'docs',
      { type: 'streamable-http', url },
      { protocol: '2026-07-28' },
    );
    cleanups.push(() => client.close());
    await client.connect();
    const error = await client.subscribeResource('docs://a', () => undefined).catch((e) => e);
    expect(error).toMatchObject({ code: 'mcp_error' });
    expect(String(error.message)).toMatch(/resources\.subscribe/);
    expect((await client.listResources()).map((r) => r.uri)).toEqual(['docs://a']);
  });
});
