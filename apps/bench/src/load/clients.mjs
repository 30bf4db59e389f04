// The clients of the load suite: which framework adapter of the bench runs one conversation,
// and how. Each is `{ module, method }`: `module` exports `create({ baseURL, fetch })` (the
// adapters in ../frameworks: one provider, one tool set or registry, one agent, shared by all
// conversations of the process) and `method` runs one 5-turn conversation and resolves to its
// answer. agcore's adapter builds a new `LlmCycle` per conversation.

const framework = (name) => new URL(`../frameworks/${name}.mjs`, import.meta.url).href;

/** Load clients by name, in the order of the report. */
export const loadClients = {
  bare: { module: framework('bare'), method: 'loop' },
  sse: { module: framework('bare'), method: 'streamLoop' },
  agcore: { module: framework('agcore'), method: 'loop' },
  'agcore-stream': { module: framework('agcore'), method: 'streamLoop' },
  'ai-sdk': { module: framework('ai-sdk'), method: 'loop' },
  'openai-agents': { module: framework('openai-agents'), method: 'loop' },
};
