// agcore: LlmCycle.submitWithTools / submitStreamWithTools over createOpenAICompatibleProvider,
// tools in a ToolRegistry (validated with ajv before they run, as in production).
import { createOpenAICompatibleProvider, LlmCycle } from '@agcore/llm-cycle';
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import {
  loopToolImplementations,
  loopToolSchemas,
  PROMPT,
  SCALE_TURNS,
  SYSTEM_PROMPT,
  scaleToolImplementation,
  scaleToolSchemas,
} from '../scenario.mjs';

function registryOf(schemas, implementationOf) {
  const registry = new ToolRegistry();
  for (const [name, schema] of Object.entries(schemas)) {
    const implementation = implementationOf(name);
    registry.register(
      defineTool({
        name,
        description: schema.description,
        parameters: schema.parameters,
        execute: async (args) => implementation(args),
      }),
    );
  }
  return registry;
}

function finalText(cycle) {
  const last = cycle.messages().at(-1);
  return typeof last?.content === 'string' ? last.content : '';
}

/** agcore as a framework of the bench. */
export async function create({ baseURL, fetch }) {
  const provider = createOpenAICompatibleProvider({ baseURL, apiKey: 'bench-key', fetch });
  const loopRegistry = registryOf(loopToolSchemas, (name) => loopToolImplementations[name]);
  const scaleRegistry = registryOf(scaleToolSchemas, () => scaleToolImplementation);
  // Retries off, as for the other frameworks (`maxRetries: 0`): a failed request must show as
  // an error, not as a slower conversation (under `ulimit -n` agcore's default 3 retries with
  // backoff hide EMFILE).
  const cycle = (model, maxTurns = 10) =>
    new LlmCycle({
      provider,
      model,
      systemPrompt: SYSTEM_PROMPT,
      maxTurns,
      retry: { maxRetries: 0 },
    });
  const stream = async (model, onText) => {
    const conversation = cycle(model);
    for await (const event of conversation.submitStreamWithTools(PROMPT, loopRegistry)) {
      if (event.type === 'assistant_text_delta') onText?.(event.text);
    }
    return finalText(conversation);
  };
  return {
    loop: async () =>
      (await cycle('loop').submitWithTools(PROMPT, loopRegistry)).message.content ?? '',
    streamLoop: (onText) => stream('loop', onText),
    streamLong: (onText) => stream('long', onText),
    scale: async () =>
      (await cycle('scale', SCALE_TURNS + 1).submitWithTools(PROMPT, scaleRegistry)).message
        .content ?? '',
  };
}
