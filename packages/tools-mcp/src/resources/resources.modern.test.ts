// Issue 31 §2 on the modern engine alone: a 2026-07-28 McpClient against the v2 SDK's server
// hears resources and prompts list changes through `subscriptions/listen` (the stream opened at
// connect asks for them when the server advertises `listChanged`), and lists again.
// (End to end against serveTools, with a subscribed resource's update: tools-mcp-server's
// offering-changes.test.ts.)
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpClient } from '../index.js';
import { type ModernHttpServer, startModernHttp } from '../test-support/modern-server.js';

let server: ModernHttpServer;
let client: McpClient | undefined;
const names = ['first'];

beforeEach(async () => {
  names.splice(1);
  server = await startModernHttp({
    legacy: 'reject',
    extend: (mcp) => {
      for (const name of names) {
        mcp.registerResource(name, `mem://${name}`, { mimeType: 'text/plain' }, async (uri) => ({
          contents: [{ uri: uri.href, text: name }],
        }));
        mcp.registerPrompt(name, { description: `prompt ${name}` }, async () => ({
          messages: [],
        }));
      }
    },
  });
});
afterEach(async () => {
  await client?.close();
  await server.stop();
});

describe('resources and prompts list changes on 2026-07-28 (v2 SDK server)', () => {
  it('drops the cached lists when subscriptions/listen says they changed', async () => {
    client = new McpClient(
      'modern',
      { type: 'streamable-http', url: server.url },
      { protocol: '2026-07-28', timeoutMs: 20_000 },
    );
    await client.connect();
    const listed = await client.listResources();
    expect(listed.map((r) => r.uri)).toEqual(['mem://first']);
    expect((await client.listPrompts()).map((p) => p.name)).toEqual(['first']);
    names.push('second');
    expect(await client.listResources()).toBe(listed);
    server.handler.notify.resourcesChanged();
    await expect
      .poll(async () => (await client?.listResources())?.length, { timeout: 20_000 })
      .toBe(2);
    expect((await client.listPrompts()).map((p) => p.name)).toEqual(['first']);
    server.handler.notify.promptsChanged();
    await expect
      .poll(async () => (await client?.listPrompts())?.length, { timeout: 20_000 })
      .toBe(2);
  });
});
