/**
 * `@agcore/llm-cycle/openai-responses`: the OpenAI Responses API provider, in its own entry so
 * that the root entry's import time does not grow.
 */
export type { OpenAIResponsesProviderOptions } from './providers/openai-responses/openai-responses-provider.js';
export { createOpenAIResponsesProvider } from './providers/openai-responses/openai-responses-provider.js';
