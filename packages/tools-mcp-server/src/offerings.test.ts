// Issue 31 §3 and §4 (server part): resources, prompts, completions and logging served beside the
// tools, on both eras, to the real SDK clients over HTTP on 127.0.0.1; a tool that needs a client
// capability the request did not declare is answered -32021 and not run (SEP-2575).
import { defineTool, Permission } from '@agcore/tools-core';
import { PermissionChecker } from '@agcore/tools-permission';
import { ToolRegistry } from '@agcore/tools-registry';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type ServeToolsOptions, serveTools, staticPrompts, staticResources } from './index.js';
import { connectV1 } from './test-support/fixtures.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

const pngBytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 255]);

const resources = staticResources(
  [
    { uri: 'docs://readme', name: 'readme', mimeType: 'text/markdown', text: '# Hello' },
    { uri: 'docs://logo', name: 'logo', mimeType: 'image/png', bytes: pngBytes },
    { uri: 'docs://notes', name: 'notes', mimeType: 'text/plain', text: 'notes' },
  ],
  {
    pageSize: 2,
    templates: [
      {
        uriTemplate: 'records://{table}/{id}',
        name: 'record',
        mimeType: 'application/json',
        read: ({ table, id }, uri) =>
          table === 'users'
            ? [{ uri, mimeType: 'application/json', text: `{"id":"${id}"}` }]
            : undefined,
        complete: { table: ['users', 'orders', 'usage'] },
      },
    ],
  },
);

const prompts = staticPrompts(
  [
    {
      name: 'review',
      description: 'Review some code',
      arguments: [
        { name: 'language', required: true },
        { name: 'style', required: false },
      ],
      messages: ({ language, style }) => [
        {
          role: 'user',
          content: {
            type: 'text',
            text: `Review this ${language} code${style ? ` (${style})` : ''}.`,
          },
        },
      ],
      complete: { language: ['python', 'perl', 'typescript'] },
    },
    { name: 'hello', messages: () => [{ role: 'user', content: { type: 'text', text: 'hi' } }] },
  ],
  { pageSize: 1 },
);

interface Seen {
  runs: number;
}

function registry(seen: Seen, checker?: PermissionChecker): ToolRegistry {
  const tools = new ToolRegistry({ timeoutMs: 20_000 });
  if (checker !== undefined) tools.withPermissionChecker(checker);
  tools.register(
    defineTool({
      name: 'noisy',
      description: 'Logs at three levels',
      parameters: { type: 'object', properties: {} },
      execute: async (_args, context) => {
        context.log?.('debug', 'looking');
        context.log?.('warning', { disk: 'almost full' });
        context.log?.('error', 'gave up on one file');
        return 'done';
      },
    }),
  );
  tools.register(
    defineTool({
      name: 'summarise',
      description: 'Would ask the client to sample',
      parameters: { type: 'object', properties: {} },
      execute: async () => {
        seen.runs += 1;
        return 'ran';
      },
    }),
  );
  return tools;
}

async function start(
  options: ServeToolsOptions = {},
  checker?: PermissionChecker,
): Promise<{ url: string; seen: Seen }> {
  const seen: Seen = { runs: 0 };
  const served = serveTools(registry(seen, checker), {
    resources,
    prompts,
    requiredClientCapabilities: { summarise: ['sampling'] },
    ...options,
  });
  const listening = await served.listen({ port: 0 });
  cleanups.push(() => served.close());
  return { url: listening.url, seen };
}

async function v1(url: string): Promise<Client> {
  const client = await connectV1(url);
  cleanups.push(() => client.close());
  return client;
}

async function v2(url: string, capabilities: Record<string, object> = {}): Promise<ClientV2> {
  const client = new ClientV2(
    { name: 'test-v2', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities },
  );
  await client.connect(new TransportV2(new URL(url)));
  cleanups.push(() => client.close());
  return client;
}

/** What both clients have in common for resources, prompts and completions. */
type Reader = Pick<
  Client,
  | 'listResources'
  | 'readResource'
  | 'listResourceTemplates'
  | 'listPrompts'
  | 'getPrompt'
  | 'complete'
>;

const eras: [string, (url: string) => Promise<Reader>][] = [
  ['2025-11-25 (v1 SDK client)', v1],
  ['2026-07-28 (v2 SDK client)', async (url) => (await v2(url)) as unknown as Reader],
];

describe.each(eras)('resources and prompts on %s', (_era, connect) => {
  it('lists resources page by page and reads text and binary contents', async () => {
    const client = await connect((await start()).url);
    // The v1 client gives one page per call; the v2 client follows the cursors itself unless
    // asked for one page (an explicit cursor): both walks give every resource once, in order.
    const uris: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor === undefined ? undefined : { cursor });
      uris.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(uris).toEqual(['docs://readme', 'docs://logo', 'docs://notes']);
    const last = await client.listResources({ cursor: '2' });
    expect(last.resources.map((r) => r.uri)).toEqual(['docs://notes']);
    expect(last.nextCursor).toBeUndefined();
    await expect(client.listResources({ cursor: 'forged' })).rejects.toMatchObject({
      code: -32602,
    });
    const text = await client.readResource({ uri: 'docs://readme' });
    expect(text.contents).toEqual([
      { uri: 'docs://readme', mimeType: 'text/markdown', text: '# Hello' },
    ]);
    const binary = await client.readResource({ uri: 'docs://logo' });
    expect(binary.contents[0]).toMatchObject({ uri: 'docs://logo', mimeType: 'image/png' });
    const blob = (binary.contents[0] as { blob?: string }).blob ?? '';
    expect(new Uint8Array(Buffer.from(blob, 'base64'))).toEqual(pngBytes);
  });

  it('lists templates, reads through one and completes its variables', async () => {
    const client = await connect((await start()).url);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      { uriTemplate: 'records://{table}/{id}', name: 'record', mimeType: 'application/json' },
    ]);
    const read = await client.readResource({ uri: 'records://users/42' });
    expect(read.contents).toEqual([
      { uri: 'records://users/42', mimeType: 'application/json', text: '{"id":"42"}' },
    ]);
    const completed = await client.complete({
      ref: { type: 'ref/resource', uri: 'records://{table}/{id}' },
      argument: { name: 'table', value: 'us' },
    });
    expect(completed.completion.values).toEqual(['users', 'usage']);
  });

  it('lists prompts page by page, gets one with arguments and completes an argument', async () => {
    const client = await connect((await start()).url);
    const first = await client.listPrompts();
    expect(first.prompts[0]).toEqual({
      name: 'review',
      description: 'Review some code',
      arguments: [
        { name: 'language', required: true },
        { name: 'style', required: false },
      ],
    });
    const second = await client.listPrompts({ cursor: '1' });
    expect(second.prompts.map((p) => p.name)).toEqual(['hello']);
    expect(second.nextCursor).toBeUndefined();
    const prompt = await client.getPrompt({
      name: 'review',
      arguments: { language: 'python', style: 'terse' },
    });
    expect(prompt).toMatchObject({
      description: 'Review some code',
      messages: [
        { role: 'user', content: { type: 'text', text: 'Review this python code (terse).' } },
      ],
    });
    const completed = await client.complete({
      ref: { type: 'ref/prompt', name: 'review' },
      argument: { name: 'language', value: 'p' },
    });
    expect(completed.completion).toMatchObject({ values: ['python', 'perl'], total: 2 });
  });

  it('answers an invalid prompt call -32602 and a denied read -32003', async () => {
    const client = await connect((await start()).url);
    await expect(client.getPrompt({ name: 'review', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('needs the argument language'),
    });
    await expect(client.getPrompt({ name: 'missing' })).rejects.toMatchObject({ code: -32602 });
    const denied = await connect(
      (await start({}, new PermissionChecker({ denied: [Permission.Read] }))).url,
    );
    for (const call of [
      () => denied.readResource({ uri: 'docs://readme' }),
      () => denied.listResources(),
      () => denied.getPrompt({ name: 'hello' }),
    ]) {
      await expect(call()).rejects.toMatchObject({
        code: -32003,
        message: expect.stringContaining("needs the 'read' permission"),
      });
    }
  });
});

describe('a resource that does not exist', () => {
  it('is -32002 with data.uri on 2025-11-25', async () => {
    const client = await v1((await start()).url);
    await expect(client.readResource({ uri: 'docs://nope' })).rejects.toMatchObject({
      code: -32002,
      data: { uri: 'docs://nope' },
    });
  });

  it('is resource-not-found (-32602 with data.uri, the 2026-07-28 MUST) on 2026-07-28', async () => {
    const client = await v2((await start()).url);
    await expect(client.readResource({ uri: 'records://orders/1' })).rejects.toMatchObject({
      code: -32602,
      data: { uri: 'records://orders/1' },
    });
  });
});

describe('a provider that fails', () => {
  it('answers -32603 with the message scrubbed of secrets, and the server goes on', async () => {
    const { url } = await start({
      secrets: ['hunter2'],
      resources: {
        list: () => ({ resources: [] }),
        read: () => {
          throw new Error('database password hunter2 refused');
        },
      },
    });
    const client = await v1(url);
    const refused = await client.readResource({ uri: 'x://y' }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: -32603 });
    expect(String((refused as Error).message)).toContain('Serving resources/read failed');
    expect(String((refused as Error).message)).not.toContain('hunter2');
    expect(await client.listResources()).toMatchObject({ resources: [] });
  });

  it('takes a malformed escape in a templated URI for no resource (-32002)', async () => {
    const client = await v1((await start()).url);
    await expect(client.readResource({ uri: 'records://users/%E0%A4%A' })).rejects.toMatchObject({
      code: -32002,
    });
  });
});

describe('logging on 2025-11-25', () => {
  it("sends a tool's context.log as notifications/message, filtered by logging/setLevel", async () => {
    const { url } = await start();
    const client = await v1(url);
    const heard: { level: string; data: unknown }[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      heard.push({ level: notification.params.level, data: notification.params.data });
    });
    await client.callTool({ name: 'noisy', arguments: {} });
    expect(heard.map((entry) => entry.level)).toEqual(['debug', 'warning', 'error']);
    heard.length = 0;
    await client.setLoggingLevel('warning');
    await client.callTool({ name: 'noisy', arguments: {} });
    expect(heard).toEqual([
      { level: 'warning', data: { disk: 'almost full' } },
      { level: 'error', data: 'gave up on one file' },
    ]);
  });
});

describe('logging on 2026-07-28', () => {
  it('sends context.log only at or above the level the request carries, none without one', async () => {
    const { url } = await start();
    const client = await v2(url);
    const heard: string[] = [];
    client.setNotificationHandler('notifications/message', (notification) => {
      heard.push(notification.params.level);
    });
    await client.callTool({ name: 'noisy', arguments: {} });
    expect(heard).toEqual([]);
    // The level is per request on 2026-07-28 (the envelope's logLevel; logging/setLevel is gone).
    await client.callTool({
      name: 'noisy',
      arguments: {},
      _meta: { 'io.modelcontextprotocol/logLevel': 'warning' },
    });
    expect(heard).toEqual(['warning', 'error']);
  });
});

describe('a tool that needs a client capability (SEP-2575)', () => {
  it('is answered -32021 naming it, and not run, when the request did not declare it', async () => {
    const { url, seen } = await start();
    const client = await v2(url);
    await expect(client.callTool({ name: 'summarise', arguments: {} })).rejects.toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { sampling: {} } },
    });
    expect(seen.runs).toBe(0);
    const declaring = await v2(url, { sampling: {} });
    const result = await declaring.callTool({ name: 'summarise', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'ran' }]);
    expect(seen.runs).toBe(1);
  });

  it('is not run on 2025-11-25, where a stateless server cannot use the capability', async () => {
    const { url, seen } = await start();
    const client = await v1(url);
    const result = await client.callTool({ name: 'summarise', arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('sampling');
    expect(seen.runs).toBe(0);
  });
});
