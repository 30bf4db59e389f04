/**
 * The dialect corpus: one two-turn tool conversation per provider (the model calls
 * `get_weather`, then answers), with the answers written from that provider's public
 * documentation of its wire format. `write-cassettes.ts` records them into
 * `cassettes/<name>.json` through the real provider and the cassette recorder;
 * `cassette-corpus.test.ts` replays each through both loops. Each entry's `source` says where
 * its shape comes from (the README lists them too).
 */

import { azure } from './azure-openai.js';
import { deepSeek } from './deepseek.js';
import { groq } from './groq.js';
import { mistral } from './mistral.js';
import { moonshot } from './moonshot.js';
import { ollama } from './ollama.js';
import { openAI } from './openai.js';
import { openRouter } from './openrouter.js';
import { qwen } from './qwen-dashscope.js';
import type { CorpusEntry } from './shared.js';
import { vllm } from './vllm.js';
import { xai } from './xai.js';

export type { CorpusEntry } from './shared.js';
export { conversation, corpusRegistry } from './shared.js';

/** Every provider of the corpus. */
export const corpus: readonly CorpusEntry[] = [
  openAI,
  azure,
  deepSeek,
  qwen,
  ollama,
  vllm,
  mistral,
  groq,
  xai,
  moonshot,
  openRouter,
];
