// The frameworks of the token bench, each on its defaults and on its documented pruning
// option, all against the scripted model of server.mjs with the same tool and results.
import { createOpenAICompatibleProvider, LlmCycle, MemoryResultStore } from '@agcore/llm-cycle';
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, tool } from '@openai/agents';
import { tool as aiTool, generateText, jsonSchema, pruneMessages, stepCountIs } from 'ai';
import OpenAI from 'openai';
import { FETCH_TOOL, PROMPT, resultText, SYSTEM_PROMPT, TOOL_TURNS } from './conversation.mjs';

setTracingDisabled(true);
globalThis.AI_SDK_LOG_WARNINGS = false;

const fetchLog = ({ index }) => resultText(index);

function agcore(label, options) {
  return {
    label,
    async run(baseURL) {
      const store = options.spill === undefined ? undefined : new MemoryResultStore();
      const provider = createOpenAICompatibleProvider({ baseURL, apiKey: 'bench-key' });
      const registry = new ToolRegistry().register(
        defineTool({ ...FETCH_TOOL, execute: async (args) => fetchLog(args) }),
      );
      const cycle = new LlmCycle({
        provider,
        model: 'tokens',
        systemPrompt: SYSTEM_PROMPT,
        ...options,
        ...(store === undefined ? {} : { spill: { store } }),
      });
      await cycle.submitWithTools(PROMPT, registry);
      return { store };
    },
  };
}

function aiSdk(label, prepareStep) {
  return {
    label,
    async run(baseURL) {
      const provider = createOpenAICompatible({ name: 'bench', baseURL, apiKey: 'bench-key' });
      await generateText({
        model: provider.chatModel('tokens'),
        system: SYSTEM_PROMPT,
        prompt: PROMPT,
        maxRetries: 0,
        tools: {
          fetch_log: aiTool({
            description: FETCH_TOOL.description,
            inputSchema: jsonSchema(FETCH_TOOL.parameters),
            execute: async (input) => fetchLog(input),
          }),
        },
        stopWhen: stepCountIs(TOOL_TURNS + 1),
        ...(prepareStep === undefined ? {} : { prepareStep }),
      });
      return {};
    },
  };
}

function agentsSdk(label, callModelInputFilter) {
  return {
    label,
    async run(baseURL) {
      const client = new OpenAI({ baseURL, apiKey: 'bench-key', maxRetries: 0 });
      const agent = new Agent({
        name: 'tokens',
        instructions: SYSTEM_PROMPT,
        model: new OpenAIChatCompletionsModel(client, 'tokens'),
        tools: [
          tool({
            name: FETCH_TOOL.name,
            description: FETCH_TOOL.description,
            parameters: { ...FETCH_TOOL.parameters, additionalProperties: false },
            strict: true,
            execute: async (input) => fetchLog(input),
          }),
        ],
      });
      await run(agent, PROMPT, {
        maxTurns: TOOL_TURNS + 2,
        ...(callModelInputFilter === undefined ? {} : { callModelInputFilter }),
      });
      return {};
    },
  };
}

/**
 * The Agents SDK's documented hook on what each model call gets (`callModelInputFilter`), used
 * as its docs suggest to trim history: tool calls and outputs older than the last `keep`
 * dropped, both items of a pair together.
 */
function keepLastToolOutputs(keep) {
  return ({ modelData }) => {
    const outputs = modelData.input.filter((item) => item.type === 'function_call_result');
    const dropped = new Set(
      outputs.slice(0, Math.max(0, outputs.length - keep)).map((item) => item.callId),
    );
    const input = modelData.input.filter(
      (item) =>
        !(
          (item.type === 'function_call' || item.type === 'function_call_result') &&
          dropped.has(item.callId)
        ),
    );
    return { ...modelData, input };
  };
}

/** Every runner, in the order of the report. */
export const runners = [
  // The cut before issue 25: the head only, the marker at the end.
  agcore('agcore, former default (head only at 16 KiB)', {
    maxToolResultBytes: 16 * 1024,
    truncation: { head: 16 * 1024, tail: 0 },
  }),
  agcore('agcore, default (head + tail at 16 KiB)', {}),
  agcore('agcore, spill: true', { spill: true }),
  agcore('agcore, spill + clearOldResults { keepTurns: 1 }', {
    spill: true,
    clearOldResults: { keepTurns: 1 },
  }),
  aiSdk('AI SDK, default'),
  aiSdk("AI SDK, pruneMessages 'before-last-2-messages'", ({ messages }) => ({
    messages: pruneMessages({ messages, toolCalls: 'before-last-2-messages' }),
  })),
  agentsSdk('Agents SDK, default'),
  agentsSdk('Agents SDK, callModelInputFilter (last 2 tool outputs)', keepLastToolOutputs(2)),
];
