/**
 * `@agcore/llm-cycle/gemini`: the Gemini API provider, in its own entry so that the root
 * entry's import time does not grow for those who do not use it.
 */
export type {
  GeminiProviderOptions,
  GeminiThinking,
} from './providers/gemini/gemini-provider.js';
export { createGeminiProvider } from './providers/gemini/gemini-provider.js';
