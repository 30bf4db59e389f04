// The OpenAI Agents SDK: run() with its Chat Completions model on an OpenAI client that points
// at the local server. Tracing is disabled (it would export spans to the OpenAI platform).
import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import {
  loopToolImplementations,
  loopToolSchemas,
  PROMPT,
  SCALE_TURNS,
  SYSTEM_PROMPT,
  scaleToolImplementation,
  scaleToolSchemas,
} from '../scenario.mjs';

setTracingDisabled(true);

function tools(schemas, implementationOf) {
  return Object.entries(schemas).map(([name, schema]) => {
    const implementation = implementationOf(name);
    return tool({
      name,
      description: schema.description,
      parameters: schema.parameters,
      strict: true,
      execute: async (input) => JSON.stringify(implementation(input)),
    });
  });
}

async function consume(result, onText) {
  for await (const event of result) {
    if (event.type === 'raw_model_stream_event' && event.data.type === 'output_text_delta')
      onText?.(event.data.delta);
  }
  await result.completed;
  if (result.error) throw result.error;
  return result.finalOutput;
}

/** The OpenAI Agents SDK as a framework of the bench. */
export async function create({ baseURL, fetch }) {
  const client = new OpenAI({ baseURL, apiKey: 'bench-key', fetch, maxRetries: 0 });
  const loopTools = tools(loopToolSchemas, (name) => loopToolImplementations[name]);
  const scaleTools = tools(scaleToolSchemas, () => scaleToolImplementation);
  const agent = (model, agentTools) =>
    new Agent({
      name: 'bench',
      instructions: SYSTEM_PROMPT,
      model: new OpenAIChatCompletionsModel(client, model),
      tools: agentTools,
    });
  const loopAgent = agent('loop', loopTools);
  const longAgent = agent('long', loopTools);
  const scaleAgent = agent('scale', scaleTools);
  return {
    loop: async () => (await run(loopAgent, PROMPT, { maxTurns: 10 })).finalOutput,
    streamLoop: async (onText) =>
      consume(await run(loopAgent, PROMPT, { maxTurns: 10, stream: true }), onText),
    streamLong: async (onText) =>
      consume(await run(longAgent, PROMPT, { maxTurns: 10, stream: true }), onText),
    scale: async () => (await run(scaleAgent, PROMPT, { maxTurns: SCALE_TURNS + 1 })).finalOutput,
  };
}
