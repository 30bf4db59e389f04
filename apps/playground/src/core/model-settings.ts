import { PlaygroundError } from './playground-error.js';

/** Which model the playground talks to. */
export type ModelSettings =
  | { readonly kind: 'scripted' }
  | {
      readonly kind: 'remote';
      /** The API root, `/chat/completions` is appended. */
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
}

/** The default API root when only a model is named. */
export const defaultBaseURL = 'https://api.openai.com/v1';

/**
 * Decides the model: a real OpenAI-compatible endpoint when `--base-url`/`--model` (or
 * `OPENAI_BASE_URL`/`AGCORE_MODEL`) are given, else the scripted one. An API key alone does
 * not switch to a real model, so `pnpm playground` stays offline for people who keep
 * `OPENAI_API_KEY` in their shell.
 *
 * @throws {PlaygroundError} when a base URL is given without a model, or is not an http(s) URL.
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
  const baseURL = options.baseUrl ?? nonEmpty(env.OPENAI_BASE_URL);
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
  const apiKey = options.apiKey ?? nonEmpty(env.OPENAI_API_KEY);
  return {
    kind: 'remote',
    baseURL: root.replace(/\/+$/, ''),
    model,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
  };
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
  return `model: ${settings.model} at ${settings.baseURL}${settings.apiKey === undefined ? ' (no API key)' : ''}`;
}
