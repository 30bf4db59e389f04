// What a new user's project does first, run in a project that installed the packed tarballs:
// every entry imports, and the tool loop runs (plain and streamed, the SSE parsed by the
// packages' own dependency) with a local tool and an MCP server's tool, against a local Chat
// Completions server. Prints `consumer check passed` and exits 0, or throws.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { createOpenAICompatibleProvider, LlmCycle } from '@agcore/llm-cycle';
import {
  startChatCompletionsServer,
  textCompletion,
  textStream,
  toolCallCompletion,
  toolCallStream,
} from '@agcore/llm-cycle/testing';
import { defineTool, ToolError } from '@agcore/tools-core';
import { createSchemaCompiler } from '@agcore/tools-core/schema';
import { McpClient } from '@agcore/tools-mcp';
import { PermissionChecker } from '@agcore/tools-permission';
import { ToolRegistry } from '@agcore/tools-registry';

assert.equal(typeof ToolError, 'function');
assert.equal(typeof createSchemaCompiler, 'function');
assert.equal(typeof PermissionChecker, 'function');

const mcp = new McpClient(
  'adder',
  {
    type: 'stdio',
    command: process.execPath,
    args: [fileURLToPath(new URL('./mcp-server.mjs', import.meta.url))],
  },
  { timeoutMs: 20_000 },
);
await mcp.connect();
const standIn = await startChatCompletionsServer();
try {
  standIn.reply(
    {
      kind: 'json',
      body: toolCallCompletion([{ id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}' }]),
    },
    { kind: 'json', body: textCompletion('It is 22 °C in Paris.') },
    {
      kind: 'sse',
      writes: toolCallStream([{ id: 'c2', name: 'adder__add', pieces: ['{"a":2,', '"b":3}'] }]),
    },
    { kind: 'sse', writes: textStream(['2 + 3 ', 'is 5.']) },
  );
  const weather = defineTool({
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    execute: async ({ city }) => ({ city, temperature: 22 }),
  });
  const registry = new ToolRegistry()
    .register(weather)
    .registerAll(await mcp.tools({ prefix: true }));
  const cycle = new LlmCycle({
    provider: createOpenAICompatibleProvider({ baseURL: standIn.baseURL, apiKey: 'sk-local' }),
    model: 'gpt-4o-mini',
  });
  const response = await cycle.submitWithTools('Weather in Paris?', registry);
  assert.equal(response.message.content, 'It is 22 °C in Paris.');

  let text = '';
  const outputs = [];
  for await (const event of cycle.submitStreamWithTools('And 2 + 3?', registry)) {
    if (event.type === 'assistant_text_delta') text += event.text;
    if (event.type === 'tool_execution_completed')
      outputs.push(event.error?.message ?? event.output);
  }
  assert.equal(text, '2 + 3 is 5.');
  assert.equal(JSON.stringify(outputs), JSON.stringify(['5']));
  assert.equal(cycle.messages().filter((message) => message.role === 'tool').length, 2);
} finally {
  await standIn.close();
  await mcp.close();
}
process.stdout.write('consumer check passed\n');
