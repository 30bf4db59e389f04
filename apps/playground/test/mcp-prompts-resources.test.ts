// MCP prompts seed an llm-cycle conversation and MCP resources reach the model as tools: the
// real client, server-everything over stdio, the real registry; only the model is scripted.
import { LlmCycle } from '@agcore/llm-cycle';
import { ScriptedProvider, textResponse, toolCallsResponse } from '@agcore/llm-cycle/testing';
import { McpClient } from '@agcore/tools-mcp';
import { ToolRegistry } from '@agcore/tools-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledServerConfig } from '../src/core/bundled-servers.js';

describe('MCP prompts and resources in an llm-cycle conversation', () => {
  let client: McpClient;
  beforeAll(async () => {
    const { command, args } = bundledServerConfig('everything', '.');
    client = new McpClient('everything', { type: 'stdio', command, args }, { timeoutMs: 20_000 });
    await client.connect();
  });
  afterAll(async () => {
    await client.close();
  });

  it('cycle.submitMessages(await client.getPrompt(...)) sends the prompt as the first turn', async () => {
    const provider = new ScriptedProvider([textResponse('Sunny.')]);
    const cycle = new LlmCycle({ provider, model: 'scripted' });
    const response = await cycle.submitMessages(
      await client.getPrompt('args-prompt', { city: 'Paris', state: 'TX' }),
    );
    expect(response.message.content).toBe('Sunny.');
    expect(provider.calls[0]?.request.messages).toEqual([
      { role: 'user', content: "What's weather in Paris, TX?" },
    ]);
  });

  it('a model reads a resource through read_resource', async () => {
    const provider = new ScriptedProvider([
      toolCallsResponse([
        {
          id: 'call_1',
          name: 'read_resource',
          arguments: { uri: 'demo://resource/dynamic/text/3' },
        },
      ]),
      textResponse('Read it.'),
    ]);
    const registry = new ToolRegistry();
    for (const tool of client.resourceTools()) registry.register(tool);
    const cycle = new LlmCycle({ provider, model: 'scripted' });
    await cycle.submitWithTools('Read resource 3.', registry);
    const sent = provider.calls[1]?.request.messages.find((message) => message.role === 'tool');
    expect(sent?.content).toContain('Resource 3');
  });
});
