// The Vercel AI SDK: generateText / streamText with a step limit over @ai-sdk/openai-compatible.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import {
  loopToolImplementations,
  loopToolSchemas,
  PROMPT,
  SCALE_TURNS,
  SYSTEM_PROMPT,
  scaleToolImplementation,
  scaleToolSchemas,
} from '../scenario.mjs';

// The AI SDK prints warnings to the console by default; the bench output must stay readable.
globalThis.AI_SDK_LOG_WARNINGS = false;

function toolSet(schemas, implementationOf) {
  return Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => {
      const implementation = implementationOf(name);
      return [
        name,
        tool({
          description: schema.description,
          inputSchema: jsonSchema(schema.parameters),
          execute: async (input) => implementation(input),
        }),
      ];
    }),
  );
}

async function consume(result, onText) {
  for await (const part of result.fullStream) {
    if (part.type === 'text-delta') onText?.(part.text ?? part.delta);
    else if (part.type === 'error') throw part.error;
  }
  return await result.text;
}

/** The AI SDK as a framework of the bench. */
export async function create({ baseURL, fetch }) {
  const provider = createOpenAICompatible({
    name: 'bench',
    baseURL,
    apiKey: 'bench-key',
    includeUsage: true,
    fetch,
  });
  const loopTools = toolSet(loopToolSchemas, (name) => loopToolImplementations[name]);
  const scaleTools = toolSet(scaleToolSchemas, () => scaleToolImplementation);
  const common = { system: SYSTEM_PROMPT, prompt: PROMPT, maxRetries: 0 };
  return {
    loop: async () =>
      (
        await generateText({
          ...common,
          model: provider.chatModel('loop'),
          tools: loopTools,
          stopWhen: stepCountIs(10),
        })
      ).text,
    streamLoop: (onText) =>
      consume(
        streamText({
          ...common,
          model: provider.chatModel('loop'),
          tools: loopTools,
          stopWhen: stepCountIs(10),
        }),
        onText,
      ),
    streamLong: (onText) =>
      consume(
        streamText({
          ...common,
          model: provider.chatModel('long'),
          tools: loopTools,
          stopWhen: stepCountIs(10),
        }),
        onText,
      ),
    scale: async () =>
      (
        await generateText({
          ...common,
          model: provider.chatModel('scale'),
          tools: scaleTools,
          stopWhen: stepCountIs(SCALE_TURNS + 1),
        })
      ).text,
  };
}
