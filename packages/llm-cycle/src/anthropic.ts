/**
 * `@agcore/llm-cycle/anthropic`: the Anthropic Messages provider, in its own entry so that the
 * root entry's import time does not grow for those who do not use it.
 */
export type { AnthropicProviderOptions } from './providers/anthropic/anthropic-provider.js';
export { createAnthropicProvider } from './providers/anthropic/anthropic-provider.js';
