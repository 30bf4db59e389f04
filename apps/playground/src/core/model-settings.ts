import { type ChatProvider, createOpenAICompatibleProvider } from '@agcore/llm-cycle';
import { createAnthropicProvider } from '@agcore/llm-cycle/anthropic';
import { createGeminiProvider } from '@agcore/llm-cycle/gemini';
import { createOpenAIResponsesProvider } from '@agcore/llm-cycle/openai-responses';
import { PlaygroundError } from './playground-error.js';

/** The wire formats `--provider` names. */
export const providerKinds = [
  'openai-compatible',
  'anthropic',
  'openai-responses',
  'gemini',
] as const;

/** A wire format the playground can speak. */
export type ProviderKind = (typeof providerKinds)[number];

/** Which model the playground talks to. */
export type ModelSettings =
  | { readonly kind: 'scripted' }
  | {
      readonly kind: 'remote';
      /** The wire format (`--provider`; default from the base URL: api.anthropic.com → anthropic). */
      readonly provider: ProviderKind;
      /** The API root (the provider appends its path). */
      readonly baseURL: string;
      /** The model name. */
      readonly model: string;
      /** The API key, when one is needed (never printed). */
      readonly apiKey?: string;
      /** Give up when the endpoint sends nothing for this long (the provider's default when absent). */
      readonly idleTimeoutMs?: number;
    };

/** The model options of the command line. */
export interface ModelOptions {
  readonly baseUrl?: string;
  readonly apiKey?: string;
  readonly model?: string;
  /** `--idle-timeout`: milliseconds, as typed. */
  readonly idleTimeout?: string;
  /** `--scripted`: use the scripted model even when the environment names a real one. */
  readonly scripted?: boolean;
  /** `--provider`: the wire format, as typed. */
  readonly provider?: string;
}

/** The default API root when only a model is named. */
export const defaultBaseURL = 'https://api.openai.com/v1';
/** The default API root of `--provider anthropic`. */
export const anthropicBaseURL = 'https://api.anthropic.com';
/** The default API root of `--provider gemini`. */
export const geminiBaseURL = 'https://generativelanguage.googleapis.com/v1beta';

/** The variable each vendor's own SDK reads its key from. */
function keyOf(provider: ProviderKind, env: NodeJS.ProcessEnv): string | undefined {
  if (provider === 'anthropic') return nonEmpty(env.ANTHROPIC_API_KEY);
  if (provider === 'gemini') return nonEmpty(env.GEMINI_API_KEY);
  return nonEmpty(env.OPENAI_API_KEY);
}

/** The provider a base URL's host speaks, when it is a vendor's own. */
function providerOfHost(hostname: string): ProviderKind {
  if (hostname === 'api.anthropic.com') return 'anthropic';
  if (hostname === 'generativelanguage.googleapis.com') return 'gemini';
  return 'openai-compatible';
}

/**
 * Decides the model: a real endpoint when `--base-url`/`--model` (or `OPENAI_BASE_URL`/
 * `AGCORE_MODEL`) are given, else the scripted one. The wire format is `--provider`, by default
 * `anthropic` for a base URL on api.anthropic.com, `gemini` on generativelanguage.googleapis.com,
 * else `openai-compatible`; the key is `--api-key`, else the variable each vendor's own SDK
 * reads (`ANTHROPIC_API_KEY`, `GEMINI_API_KEY`, `OPENAI_API_KEY`). An API key alone does not switch to a real model, so `pnpm playground`
 * stays offline for people who keep a key in their shell.
 *
 * @throws {PlaygroundError} when a base URL is given without a model, is not an http(s) URL,
 * or `--provider` names no known wire format.
 */
export function resolveModelSettings(
  options: ModelOptions,
  env: NodeJS.ProcessEnv = process.env,
): ModelSettings {
  // Checked whichever model runs: a typo is refused even where the limit is not used.
  const idleTimeoutMs = parseIdleTimeout(options.idleTimeout);
  if (options.scripted === true) return { kind: 'scripted' };
  for (const [flag, value] of [
    ['--model', options.model],
    ['--base-url', options.baseUrl],
  ] as const) {
    if (value !== undefined && value.trim() === '') {
      throw new PlaygroundError(
        `${flag} is empty: give a value (for example --model gpt-4o-mini, or --base-url http://127.0.0.1:11434/v1), or leave the option out for the scripted model.`,
      );
    }
  }
  const chosen = parseProvider(options.provider);
  const baseURL =
    options.baseUrl ??
    nonEmpty(env.OPENAI_BASE_URL) ??
    (chosen === 'anthropic' ? anthropicBaseURL : chosen === 'gemini' ? geminiBaseURL : undefined);
  const model = options.model ?? nonEmpty(env.AGCORE_MODEL);
  if (baseURL === undefined && model === undefined) return { kind: 'scripted' };
  if (model === undefined) {
    throw new PlaygroundError(
      `A base URL is set (${baseURL}) but no model: pass --model NAME or set AGCORE_MODEL (for example gpt-4o-mini, or qwen2.5:7b on Ollama).`,
    );
  }
  const root = baseURL ?? defaultBaseURL;
  let parsed: URL;
  try {
    parsed = new URL(root);
  } catch {
    throw new PlaygroundError(
      `The base URL '${root}' is not a URL; pass something like --base-url http://127.0.0.1:11434/v1.`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new PlaygroundError(`The base URL '${root}' must start with http:// or https://.`);
  }
  const provider = chosen ?? providerOfHost(parsed.hostname);
  const apiKey = options.apiKey ?? keyOf(provider, env);
  return {
    kind: 'remote',
    provider,
    baseURL: root.replace(/\/+$/, ''),
    model,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
  };
}

/**
 * `--provider` as a wire format (`undefined`: decided from the base URL).
 * @throws {PlaygroundError} for a name that is none of `providerKinds`
 */
function parseProvider(text: string | undefined): ProviderKind | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const name = text.trim();
  const kind = providerKinds.find((known) => known === name);
  if (kind === undefined)
    throw new PlaygroundError(`--provider ${name}: give one of ${providerKinds.join(', ')}.`);
  return kind;
}

/**
 * The provider of remote settings.
 * @throws {PlaygroundError} for `anthropic` or `gemini` without an API key
 */
export function createRemoteProvider(
  settings: Extract<ModelSettings, { kind: 'remote' }>,
): ChatProvider {
  const limits =
    settings.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: settings.idleTimeoutMs };
  switch (settings.provider) {
    case 'anthropic':
      if (settings.apiKey === undefined)
        throw new PlaygroundError(
          '--provider anthropic needs a key: set ANTHROPIC_API_KEY or pass --api-key.',
        );
      return createAnthropicProvider({
        baseURL: settings.baseURL,
        apiKey: settings.apiKey,
        ...limits,
      });
    case 'gemini':
      if (settings.apiKey === undefined)
        throw new PlaygroundError(
          '--provider gemini needs a key: set GEMINI_API_KEY or pass --api-key.',
        );
      return createGeminiProvider({
        baseURL: settings.baseURL,
        apiKey: settings.apiKey,
        ...limits,
      });
    case 'openai-responses':
      return createOpenAIResponsesProvider({
        baseURL: settings.baseURL,
        ...(settings.apiKey === undefined ? {} : { apiKey: settings.apiKey }),
        ...limits,
      });
    case 'openai-compatible':
      return createOpenAICompatibleProvider({
        baseURL: settings.baseURL,
        ...(settings.apiKey === undefined ? {} : { apiKey: settings.apiKey }),
        ...limits,
      });
  }
}

/**
 * `--idle-timeout` (or `AGCORE_IDLE_TIMEOUT_MS`) as milliseconds.
 * @throws {PlaygroundError} when it is not a positive number
 */
function parseIdleTimeout(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const milliseconds = text.trim() === '' ? Number.NaN : Number(text);
  if (!(milliseconds > 0) || !Number.isFinite(milliseconds)) {
    throw new PlaygroundError(`--idle-timeout ${text}: give a positive number of milliseconds.`);
  }
  return milliseconds;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** The one line that says which model runs, and how to use a real one. Never throws. */
export function describeModel(settings: ModelSettings): string {
  if (settings.kind === 'scripted') {
    return 'model: scripted (ScriptedProvider, offline, no API key) · for a real model: --base-url URL --model NAME [--api-key KEY], or OPENAI_BASE_URL, AGCORE_MODEL, OPENAI_API_KEY';
  }
  return `model: ${settings.model} at ${settings.baseURL} (${settings.provider})${settings.apiKey === undefined ? ' (no API key)' : ''}`;
}
