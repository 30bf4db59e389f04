// Runs one tool loop and prints what happened as JSON. Argument: `off` (no tracer provider),
// `sdk` (the real SDK registered), `fake-global` (a provider registered in the API's global
// slot without the API being loadable).
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { LlmCycle } from '../../loop/llm-cycle.js';
import { ScriptedProvider, textResponse, toolCallsResponse } from '../../testing/index.js';

const mode = process.argv[2];
let spans = (): number => 0;
if (mode === 'sdk') {
  const { startTestTracing } = await import('../otel.js');
  const tracing = startTestTracing();
  spans = () => tracing.spans().length;
} else if (mode === 'fake-global') {
  (globalThis as Record<symbol, unknown>)[Symbol.for('opentelemetry.js.api.1')] = {
    version: '1.9.1',
    trace: {},
  };
}
const unhandled: unknown[] = [];
process.on('unhandledRejection', (reason) => unhandled.push(String(reason)));

const registry = new ToolRegistry().register(
  defineTool({
    name: 'echo',
    description: 'Echoes',
    parameters: { type: 'object' },
    execute: async (args, context) => ({ args, traceId: context.traceId }),
  }),
);
const cycle = new LlmCycle({
  provider: new ScriptedProvider([
    toolCallsResponse([{ name: 'echo', arguments: { word: 'hi' } }]),
    textResponse('done'),
  ]),
  model: 'probe',
});
const response = await cycle.submitWithTools('Echo hi', registry);
const streamed: string[] = [];
const again = new LlmCycle({
  provider: new ScriptedProvider([
    toolCallsResponse([{ name: 'echo', arguments: { word: 'again' } }]),
    textResponse('done again'),
  ]),
  model: 'probe',
});
for await (const event of again.submitStreamWithTools('Echo again', registry))
  streamed.push(event.type);
await new Promise((resolve) => setTimeout(resolve, 20));
process.stdout.write(
  `${JSON.stringify({ answer: response.message.content, streamed: streamed.length, spans: spans(), unhandled })}\n`,
);
