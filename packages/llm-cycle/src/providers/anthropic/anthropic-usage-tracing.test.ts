// What the loop makes of a native provider's usage and name: the cache counts add up across
// turns in `cycle.usage()`, and spans name the provider (`gen_ai.provider.name`) without a
// `tracing.providerName` option.
import { afterEach, describe, expect, it } from 'vitest';
import { LlmCycle } from '../../loop/llm-cycle.js';
import { registry } from '../../test-support/cycle-kit.js';
import { startTestTracing, type TestTracing } from '../../test-support/otel.js';
import { messagesStream, startMessagesServer } from '../../testing/index.js';
import { createAnthropicProvider } from './anthropic-provider.js';

let tracing: TestTracing | undefined;
afterEach(async () => {
  await tracing?.stop();
  tracing = undefined;
});

async function twoTurns(tracingOption?: { providerName: string }) {
  const server = await startMessagesServer();
  server.reply(
    {
      kind: 'sse',
      writes: messagesStream({
        calls: [{ id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }],
        usage: { input: 40, output: 10, cacheWrite: 1200 },
      }),
    },
    {
      kind: 'sse',
      writes: messagesStream({
        text: 'Sunny.',
        usage: { input: 60, output: 5, cacheRead: 1200 },
      }),
    },
  );
  const cycle = new LlmCycle({
    provider: createAnthropicProvider({ apiKey: 'sk-ant-test', baseURL: server.baseURL }),
    model: 'claude-test',
    ...(tracingOption === undefined ? {} : { tracing: tracingOption }),
  });
  try {
    const events = [];
    for await (const event of cycle.submitStreamWithTools('Weather in Paris?', registry()))
      events.push(event);
    return { cycle, events };
  } finally {
    await server.close();
  }
}

describe('createAnthropicProvider in the loop: usage and provider name', () => {
  it('cycle.usage() adds up the cache reads and writes of every turn', async () => {
    const { cycle } = await twoTurns();
    const usage = cycle.usage();
    expect(usage.cacheWriteTokens).toBe(1200);
    expect(usage.cacheReadTokens).toBe(1200);
    expect(usage.completionTokens).toBe(15);
  });

  it("spans name the provider 'anthropic' by default; tracing.providerName still wins", async () => {
    tracing = startTestTracing();
    await twoTurns();
    // The loop's spans (invoke_agent, chat) carry it; the registry's execute_tool spans do not.
    const loopSpans = () =>
      tracing
        ?.spans()
        .filter((span) => span.attributes['gen_ai.operation.name'] !== 'execute_tool') ?? [];
    expect(loopSpans().length).toBeGreaterThanOrEqual(3);
    const names = new Set(loopSpans().map((span) => span.attributes['gen_ai.provider.name']));
    expect(names).toEqual(new Set(['anthropic']));
    tracing.exporter.reset();
    await twoTurns({ providerName: 'aws.bedrock' });
    const named = new Set(loopSpans().map((span) => span.attributes['gen_ai.provider.name']));
    expect(named).toEqual(new Set(['aws.bedrock']));
  });
});
