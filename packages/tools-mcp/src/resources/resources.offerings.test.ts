import { afterEach, describe, expect, it } from 'vitest';
import { McpClient, McpToolError } from '../index.js';
import { faultServer } from '../test-support/servers.js';

const server = () => faultServer('offerings-server.mjs');

/** Resolves when `check()` holds, polling on the event loop (no wall-clock assert). */
async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('condition never held');
}

describe.each(['legacy', 'auto'] as const)(
  'paged and changing offerings (protocol: %s)',
  (protocol) => {
    let client: McpClient | undefined;
    afterEach(async () => {
      await client?.close();
    });

    it('follows every page, leaves a malformed resource out (reported once), caches until list_changed', async () => {
      const errors: Error[] = [];
      client = new McpClient('offerings', server(), {
        protocol,
        timeoutMs: 20_000,
        onError: (error) => errors.push(error),
      });
      await client.connect();
      const first = await client.listResources();
      expect(first.map((r) => r.uri)).toEqual(['mem://a', 'mem://b', 'mem://big', 'mem://c']);
      expect(await client.listResources()).toBe(first);
      expect(errors.filter((e) => /without a uri/.test(e.message))).toHaveLength(1);
      await client.callTool('add-resource', {});
      await until(async () => (await client?.listResources())?.length === 5);
      expect((await client.listResources()).at(-1)?.uri).toBe('mem://added-5');
      expect(errors.filter((e) => /without a uri/.test(e.message))).toHaveLength(1);

      const prompts = await client.listPrompts();
      expect(prompts.map((p) => p.name)).toEqual(['greet', 'dialogue']);
      await client.callTool('add-prompt', {});
      await until(async () => (await client?.listPrompts())?.length === 3);
    });

    it('maps a prompt of user, image, assistant and resource messages', async () => {
      client = new McpClient('offerings', server(), { protocol, timeoutMs: 20_000 });
      await client.connect();
      expect(await client.getPrompt('greet', { who: 'Ada' })).toEqual([
        { role: 'user', content: 'Say hello to Ada.' },
      ]);
      expect(await client.getPrompt('dialogue')).toEqual([
        { role: 'user', content: 'What is in this picture?' },
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
        { role: 'assistant', content: 'A tiny square.' },
        { role: 'user', content: 'text of mem://a' },
      ]);
    });

    it('shares one subscribe per URI and unsubscribes after the last listener', async () => {
      client = new McpClient('offerings', server(), { protocol, timeoutMs: 20_000 });
      await client.connect();
      const heard: string[] = [];
      const one = await client.subscribeResource('mem://a', (uri) => heard.push(`one ${uri}`));
      const two = await client.subscribeResource('mem://a', (uri) => heard.push(`two ${uri}`));
      await client.callTool('touch', { uri: 'mem://a' });
      await client.callTool('touch', { uri: 'mem://c' });
      await until(async () => heard.length === 2);
      expect(heard.sort()).toEqual(['one mem://a', 'two mem://a']);
      await one();
      await two();
      const counts = await client.callTool('touch', { uri: 'mem://a' });
      expect(JSON.parse(String(counts.value))).toMatchObject({ subscribe: 1, unsubscribe: 1 });
      expect(heard).toHaveLength(2);
    });

    it('subscribes again after a reconnect, to the new server process', async () => {
      client = new McpClient('offerings', server(), { protocol, timeoutMs: 20_000 });
      await client.connect();
      const heard: string[] = [];
      await client.subscribeResource('mem://c', (uri) => heard.push(uri));
      await client.reconnect();
      await until(async () => {
        const counts = await client?.callTool('counts', {});
        return JSON.parse(String(counts?.value)).subscribe === 1;
      });
      await client.callTool('touch', { uri: 'mem://c' });
      await until(async () => heard.length === 1);
      expect(heard).toEqual(['mem://c']);
    });

    it('fails a malformed read as mcp_error and the client stays usable', async () => {
      client = new McpClient('offerings', server(), { protocol, timeoutMs: 20_000 });
      await client.connect();
      for (const uri of ['mem://not-base64', 'mem://no-contents']) {
        const error = await client.readResource(uri).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(McpToolError);
        expect(error).toMatchObject({ code: 'mcp_error', serverName: 'offerings' });
      }
      expect((await client.readResource('mem://a')).contents).toHaveLength(1);
    });

    it('reads a blob as base64 with its MIME type and decoded size', async () => {
      client = new McpClient('offerings', server(), { protocol, timeoutMs: 20_000 });
      await client.connect();
      const read = await client.readResource('mem://b');
      expect(read).toEqual({
        uri: 'mem://b',
        contents: [{ uri: 'mem://b', mimeType: 'application/octet-stream', blob: 'AAEC/w==' }],
        sizeBytes: 4,
      });
    });
  },
);
