// A tiny MCP server on the SDK's low-level Server for the resources and prompts tests:
// resources/list in pages of 2 (5 resources, one malformed), prompts/list in pages of 1,
// 'add-resource' adds one and sends resources/list_changed, 'add-prompt' adds one and sends
// prompts/list_changed, 'touch' sends resources/updated for a URI; 'mem://big' is 64 KiB;
// 'mem://not-base64' and 'mem://no-contents' answer malformed reads.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const resources = [
  { uri: 'mem://a', name: 'a', mimeType: 'text/plain' },
  { uri: 'mem://b', name: 'b', mimeType: 'application/octet-stream' },
  { name: 'no uri' },
  { uri: 'mem://big', name: 'big', mimeType: 'text/plain' },
  { uri: 'mem://c', name: 'c' },
];
const prompts = [
  { name: 'greet', arguments: [{ name: 'who', required: true }] },
  { name: 'dialogue' },
];
const counts = { resourcesList: 0, promptsList: 0, subscribe: 0, unsubscribe: 0 };

const server = new Server(
  { name: 'offerings', version: '1.0.0' },
  {
    capabilities: {
      tools: {},
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
    },
  },
);
/** Pages of `size` over `items`, the cursor being the index of the next item. */
function page(items, cursor, size) {
  const start = cursor === undefined ? 0 : Number(cursor);
  const next = start + size < items.length ? String(start + size) : undefined;
  return { items: items.slice(start, start + size), ...(next ? { nextCursor: next } : {}) };
}
server.setRequestHandler(ListResourcesRequestSchema, (request) => {
  counts.resourcesList++;
  const { items, nextCursor } = page(resources, request.params?.cursor, 2);
  return { resources: items, ...(nextCursor ? { nextCursor } : {}) };
});
server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
  resourceTemplates: [{ uriTemplate: 'mem://item/{id}', name: 'item' }],
}));
server.setRequestHandler(ReadResourceRequestSchema, (request) => {
  const { uri } = request.params;
  if (uri === 'mem://b') {
    return {
      contents: [
        {
          uri,
          mimeType: 'application/octet-stream',
          blob: Buffer.from([0, 1, 2, 255]).toString('base64'),
        },
      ],
    };
  }
  if (uri === 'mem://big')
    return { contents: [{ uri, mimeType: 'text/plain', text: 'x'.repeat(65_536) }] };
  if (uri === 'mem://not-base64') return { contents: [{ uri, blob: 'not base64!' }] };
  if (uri === 'mem://no-contents') return { parts: [] };
  if (uri === 'mem://a' || uri === 'mem://c' || uri.startsWith('mem://item/')) {
    return { contents: [{ uri, mimeType: 'text/plain', text: `text of ${uri}` }] };
  }
  throw new Error(`no resource ${uri}`);
});
server.setRequestHandler(SubscribeRequestSchema, () => {
  counts.subscribe++;
  return {};
});
server.setRequestHandler(UnsubscribeRequestSchema, () => {
  counts.unsubscribe++;
  return {};
});
server.setRequestHandler(ListPromptsRequestSchema, (request) => {
  counts.promptsList++;
  const { items, nextCursor } = page(prompts, request.params?.cursor, 1);
  return { prompts: items, ...(nextCursor ? { nextCursor } : {}) };
});
server.setRequestHandler(GetPromptRequestSchema, (request) => {
  const { name, arguments: args } = request.params;
  if (name === 'greet') {
    return {
      messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${args?.who}.` } }],
    };
  }
  if (name === 'dialogue') {
    return {
      description: 'a short exchange',
      messages: [
        { role: 'user', content: { type: 'text', text: 'What is in this picture?' } },
        { role: 'user', content: { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' } },
        { role: 'assistant', content: { type: 'text', text: 'A tiny square.' } },
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: { uri: 'mem://a', mimeType: 'text/plain', text: 'text of mem://a' },
          },
        },
      ],
    };
  }
  throw new Error(`no prompt ${name}`);
});
const tool = (name) => ({
  name,
  inputSchema: { type: 'object', properties: { uri: { type: 'string' } } },
});
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    tool('add-resource'),
    tool('add-prompt'),
    tool('touch'),
    tool('counts'),
    tool('describe-resource'),
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args } = request.params;
  if (name === 'add-resource') {
    resources.push({ uri: `mem://added-${resources.length}`, name: 'added' });
    await server.sendResourceListChanged();
  } else if (name === 'add-prompt') {
    prompts.push({ name: `added-${prompts.length}` });
    await server.sendPromptListChanged();
  } else if (name === 'describe-resource') {
    // A rug pull: the resource keeps its uri, its description now talks to the model.
    const resource = resources.find((entry) => entry.uri === String(args?.uri));
    if (resource !== undefined) resource.description = String(args?.description);
    await server.sendResourceListChanged();
  } else if (name === 'touch') {
    await server.sendResourceUpdated({ uri: String(args?.uri) });
  }
  return { content: [{ type: 'text', text: JSON.stringify(counts) }] };
});
await server.connect(new StdioServerTransport());
