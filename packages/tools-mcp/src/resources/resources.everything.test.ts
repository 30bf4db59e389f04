import { createToolContext } from '@agcore/tools-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient, McpResourceTooLargeError, McpToolError } from '../index.js';
import { everythingStdio } from '../test-support/servers.js';

// Resources and prompts against server-everything (a 2025-11-25 server) over stdio, on both
// engines: the v1 SDK ('legacy') and the v2 SDK falling back to 2025-11-25 ('auto').
describe.each(['legacy', 'auto'] as const)(
  'resources and prompts (protocol: %s) against server-everything',
  (protocol) => {
    let client: McpClient;

    beforeAll(async () => {
      client = new McpClient('everything', everythingStdio(), { protocol, timeoutMs: 20_000 });
      await client.connect();
    });
    afterAll(async () => {
      await client.close();
    });

    it('lists the resources and the templates, cached', async () => {
      const resources = await client.listResources();
      const docs = resources.find(
        (r) => r.uri === 'demo://resource/static/document/architecture.md',
      );
      expect(docs).toMatchObject({ name: 'architecture.md', mimeType: 'text/markdown' });
      expect(await client.listResources()).toBe(resources);
      const templates = await client.listResourceTemplates();
      expect(templates.map((t) => t.uriTemplate)).toEqual(
        expect.arrayContaining([
          'demo://resource/dynamic/text/{resourceId}',
          'demo://resource/dynamic/blob/{resourceId}',
        ]),
      );
    });

    it('reads text as text and binary as base64 with its MIME type', async () => {
      const text = await client.readResource('demo://resource/dynamic/text/1');
      expect(text.contents[0]).toMatchObject({ uri: 'demo://resource/dynamic/text/1' });
      expect('text' in (text.contents[0] ?? {})).toBe(true);
      const blob = await client.readResource('demo://resource/dynamic/blob/1');
      const part = blob.contents[0];
      if (part === undefined || !('blob' in part)) throw new Error('expected a blob part');
      expect(typeof part.mimeType).toBe('string');
      expect(Buffer.from(part.blob, 'base64').length).toBe(blob.sizeBytes);
    });

    it('fails an unknown resource as mcp_error, naming the server', async () => {
      const error = await client.readResource('demo://nothing/here').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpToolError);
      expect((error as McpToolError).code).toBe('mcp_error');
      expect((error as McpToolError).serverName).toBe('everything');
    });

    it('hears resources/updated of a subscribed URI, and nothing after unsubscribing', async () => {
      const uri = 'demo://resource/static/document/architecture.md';
      const updated: string[] = [];
      let heard: () => void = () => {};
      const first = new Promise<void>((resolve) => {
        heard = resolve;
      });
      const unsubscribe = await client.subscribeResource(uri, (got) => {
        updated.push(got);
        heard();
      });
      await client.callTool('toggle-subscriber-updates', {});
      await first;
      expect(updated[0]).toBe(uri);
      await unsubscribe();
      await unsubscribe();
      await client.callTool('toggle-subscriber-updates', {});
    });

    it('lists prompts and gets one as chat messages', async () => {
      const prompts = await client.listPrompts();
      expect(prompts.find((p) => p.name === 'args-prompt')?.arguments?.[0]).toMatchObject({
        name: 'city',
        required: true,
      });
      expect(await client.getPrompt('args-prompt', { city: 'Paris', state: 'TX' })).toEqual([
        { role: 'user', content: "What's weather in Paris, TX?" },
      ]);
      const embedded = await client.getPrompt('resource-prompt', {
        resourceType: 'Text',
        resourceId: '1',
      });
      expect(embedded).toHaveLength(2);
      expect(embedded[1]?.role).toBe('user');
      expect(String(embedded[1]?.content)).toContain('Resource 1');
    });

    it('gives list_resources and read_resource tools that require read', async () => {
      const [list, read] = client.resourceTools({ prefix: true });
      expect(list?.name).toBe('everything__list_resources');
      expect(read?.name).toBe('everything__read_resource');
      expect(read?.requiredPermissions).toEqual(['read']);
      const listed = (await list?.execute({}, createToolContext())) as {
        resources: { uri: string }[];
      };
      expect(listed.resources.length).toBeGreaterThan(0);
      const got = (await read?.execute(
        { uri: 'demo://resource/dynamic/text/2' },
        createToolContext(),
      )) as { contents: { text?: string }[] };
      expect(got.contents[0]?.text).toContain('Resource 2');
    });
  },
);

describe('maxResourceBytes', () => {
  it('refuses a read over the bound with McpResourceTooLargeError, on both engines', async () => {
    for (const protocol of ['legacy', 'auto'] as const) {
      const client = new McpClient('everything', everythingStdio(), {
        protocol,
        timeoutMs: 20_000,
        maxResourceBytes: 100,
      });
      try {
        await client.connect();
        const uri = 'demo://resource/static/document/architecture.md';
        const error = await client.readResource(uri).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(McpResourceTooLargeError);
        expect(error).toMatchObject({ code: 'mcp_error', uri, limitBytes: 100 });
        expect((error as McpResourceTooLargeError).sizeBytes).toBeGreaterThan(100);
        const [, read] = client.resourceTools();
        await expect(read?.execute({ uri }, createToolContext())).rejects.toBeInstanceOf(
          McpResourceTooLargeError,
        );
      } finally {
        await client.close();
      }
    }
  });

  it('is a positive integer', () => {
    expect(() => new McpClient('x', everythingStdio(), { maxResourceBytes: 0 })).toThrow(TypeError);
  });
});
