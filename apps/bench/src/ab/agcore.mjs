// agcore as a contender of the A/B suites, loaded from the built packages of a library root (a
// checkout: the working tree, or the temporary worktree of `bench:compare`), so that two
// versions can run in one process. A new LlmCycle per conversation, tools in a ToolRegistry.
import { importLibrary } from '@agcore/bench-method';
import { PROMPT, SYSTEM, toolFunctions, toolSchemas } from './conversation.mjs';

/** Each wire format: the module and factory of its provider, and the model name sent. */
const providers = {
  chat: {
    module: '@agcore/llm-cycle',
    factory: 'createOpenAICompatibleProvider',
    model: 'gpt-4o-mini',
  },
  messages: {
    module: '@agcore/llm-cycle/anthropic',
    factory: 'createAnthropicProvider',
    model: 'claude-bench',
    extra: { cacheTools: false },
  },
  responses: {
    module: '@agcore/llm-cycle/openai-responses',
    factory: 'createOpenAIResponsesProvider',
    model: 'gpt-5-mini',
  },
  gemini: {
    module: '@agcore/llm-cycle/gemini',
    factory: 'createGeminiProvider',
    model: 'gemini-bench',
  },
};

/** The libraries of `root`: the loop, the tool registry, the tool definition helper. */
async function libraries(root) {
  const [cycle, core, registry] = await Promise.all([
    importLibrary(root, '@agcore/llm-cycle'),
    importLibrary(root, '@agcore/tools-core'),
    importLibrary(root, '@agcore/tools-registry'),
  ]);
  return {
    LlmCycle: cycle.LlmCycle,
    defineTool: core.defineTool,
    ToolRegistry: registry.ToolRegistry,
  };
}

/**
 * The contenders of `root` for `format` against `baseURL`: `{ json, stream }` conversations,
 * or undefined when that checkout has no provider for the format (an older ref).
 */
export async function agcoreContenders(root, format, baseURL) {
  const spec = providers[format];
  const providerModule = await importLibrary(root, spec.module);
  const factory = providerModule?.[spec.factory];
  if (typeof factory !== 'function') return undefined;
  const { LlmCycle, defineTool, ToolRegistry } = await libraries(root);
  const tools = new ToolRegistry();
  for (const [name, schema] of Object.entries(toolSchemas)) {
    tools.register(
      defineTool({ name, ...schema, execute: async (args) => toolFunctions[name](args) }),
    );
  }
  const provider = factory({ baseURL, apiKey: 'sk-bench', ...spec.extra });
  const cycle = () => new LlmCycle({ provider, model: spec.model, systemPrompt: SYSTEM });
  return {
    json: async () => {
      await cycle().submitWithTools(PROMPT, tools);
      return 0;
    },
    stream: async () => {
      let events = 0;
      for await (const _event of cycle().submitStreamWithTools(PROMPT, tools)) events++;
      return events;
    },
  };
}
