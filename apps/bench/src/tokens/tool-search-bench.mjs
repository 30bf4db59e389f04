// The tool search bench (issue 25 §2): 200 tools from real MCP listings (mcp-registry.mjs),
// bytes of tool definitions per turn with and without `toolSearch`, and a scripted 5-turn task
// that needs 3 of the tools (one per server) and must still finish. The scripted model refuses
// (HTTP 400) a call to a tool the request did not define, so a tool not found is a failure.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createOpenAICompatibleProvider, LlmCycle } from '@agcore/llm-cycle';
import {
  startChatCompletionsServer,
  textCompletion,
  toolCallCompletion,
} from '@agcore/llm-cycle/testing';
import { mcpRegistry } from './mcp-registry.mjs';

function script(workspace) {
  const call = (id, name, args) => ({ id, name, arguments: JSON.stringify(args) });
  return [
    [call('call_s1', 'search_tools', { query: 'create a directory' })],
    [
      call('call_mk', 'create_directory', { path: join(workspace, 'out') }),
      call('call_s2', 'search_tools', { query: 'create entities in the knowledge graph' }),
    ],
    [
      call('call_ent', 'create_entities', {
        entities: [{ name: 'out', entityType: 'directory', observations: ['made by the bench'] }],
      }),
      call('call_s3', 'search_tools', { query: 'echo a message back' }),
    ],
    [call('call_echo', 'echo', { message: 'task done' })],
  ];
}

async function scriptedModel(workspace) {
  const server = await startChatCompletionsServer({ recordRequests: true });
  const turns = script(workspace);
  server.fallback((request) => {
    const body = request.body ?? {};
    const turn = (body.messages ?? []).filter((message) => message.role === 'assistant').length;
    if (turn >= turns.length) return { kind: 'json', body: textCompletion('All done.') };
    const defined = new Set((body.tools ?? []).map((tool) => tool.function.name));
    const missing = turns[turn].filter((call) => !defined.has(call.name));
    if (missing.length > 0) {
      const names = missing.map((call) => call.name).join(', ');
      return {
        kind: 'json',
        status: 400,
        body: { error: { message: `tool not defined: ${names}` } },
      };
    }
    return { kind: 'json', body: toolCallCompletion(turns[turn]) };
  });
  return server;
}

/** Runs the task with tool search on; returns the bytes of definitions per turn and whether it finished. */
export async function runToolSearchBench(total = 200) {
  const mcp = await mcpRegistry(total);
  const server = await scriptedModel(mcp.workspace);
  try {
    const cycle = new LlmCycle({
      provider: createOpenAICompatibleProvider({ baseURL: server.baseURL, apiKey: 'bench-key' }),
      model: 'tool-search',
      systemPrompt: 'Use search_tools to find the tools you need.',
      toolSearch: { threshold: 20 },
    });
    const response = await cycle.submitWithTools(
      'Make the out directory, record it, say done.',
      mcp.registry,
    );
    const perTurn = server.requests.map((request) =>
      Buffer.byteLength(JSON.stringify(request.body.tools ?? [])),
    );
    const without = Buffer.byteLength(JSON.stringify(mcp.registry.definitions()));
    const echoed = cycle
      .messages()
      .some((message) => message.role === 'tool' && message.content.includes('task done'));
    const memory = join(mcp.workspace, 'memory.jsonl');
    return {
      tools: mcp.registry.size,
      realTools: mcp.realCount,
      turns: server.requests.length,
      withoutBytesPerTurn: without,
      withBytesPerTurn: perTurn,
      finished:
        response.message.content === 'All done.' &&
        existsSync(join(mcp.workspace, 'out')) &&
        existsSync(memory) &&
        readFileSync(memory, 'utf8').includes('made by the bench') &&
        echoed,
    };
  } finally {
    await server.close();
    await mcp.close();
  }
}

/** The result as lines of text. */
export function formatToolSearch(result) {
  const average =
    result.withBytesPerTurn.reduce((a, b) => a + b, 0) / result.withBytesPerTurn.length;
  const fewer = Math.round((1 - average / result.withoutBytesPerTurn) * 100);
  return [
    `${result.tools} tools (${result.realTools} from server-everything, -filesystem and -memory), ${result.turns} requests`,
    `definition bytes per turn without toolSearch: ${result.withoutBytesPerTurn.toLocaleString('en')}`,
    `with toolSearch { threshold: 20 }: ${result.withBytesPerTurn.map((bytes) => bytes.toLocaleString('en')).join(', ')} (average ${Math.round(average).toLocaleString('en')}, ${fewer} % fewer)`,
    `task needing create_directory, create_entities and echo: ${result.finished ? 'finished' : 'NOT finished'}`,
  ].join('\n');
}
