import { LlmError } from '@agcore/llm-cycle';
import { ToolError } from '@agcore/tools-core';
import type { ModelSettings } from './model-settings.js';
import { ExitCode, PlaygroundError } from './playground-error.js';

/** An error as the CLI shows it: one clear message and an exit code. */
export interface ExplainedError {
  readonly message: string;
  readonly exitCode: number;
}

/**
 * Turns anything thrown into a message for the terminal, with what to do about it. A wrong API
 * key (401/403), an unknown model (404, or a 400 that says so) and an unreachable endpoint get
 * their own advice. Never throws.
 */
export function explainError(error: unknown, model?: ModelSettings): ExplainedError {
  if (error instanceof PlaygroundError) return { message: error.message, exitCode: error.exitCode };
  if (LlmError.isInstance(error))
    return { message: explainLlmError(error, model), exitCode: ExitCode.failed };
  if (ToolError.isInstance(error)) {
    return { message: `${error.code}: ${error.message}`, exitCode: ExitCode.failed };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { message: `Unexpected error: ${message}`, exitCode: ExitCode.failed };
}

function explainLlmError(error: LlmError, model: ModelSettings | undefined): string {
  const where = model?.kind === 'remote' ? model.baseURL : 'the model endpoint';
  const name = model?.kind === 'remote' ? model.model : 'the model';
  const status = error.statusCode;
  if (error.code === 'http_error' && (status === 401 || status === 403)) {
    return `${where} refused the API key (HTTP ${status}). Check --api-key or OPENAI_API_KEY.\n  server said: ${error.message}`;
  }
  const body = `${error.message} ${error.responseBody ?? ''}`.toLowerCase();
  const aboutModel =
    body.includes('model_not_found') ||
    /model\b.*\b(not found|does not exist|not exist|unknown|no such)/.test(body) ||
    /(unknown|invalid) model/.test(body);
  if (error.code === 'http_error' && (status === 404 || (status === 400 && aboutModel))) {
    const hint = aboutModel
      ? `The model '${name}' does not exist at ${where}. Check --model or AGCORE_MODEL (GET ${where}/models lists what the endpoint serves).`
      : `${where}/chat/completions was not found (HTTP 404). Check --base-url: it should end where /chat/completions lives, such as https://api.openai.com/v1 or http://127.0.0.1:11434/v1.`;
    return `${hint}\n  server said: ${error.message}`;
  }
  if (error.code === 'invalid_response') {
    const type = /content type '([^']*)'/.exec(error.message)?.[1];
    if (type !== undefined) return notTheApi(where, type, error.responseBody);
  }
  if (error.code === 'network') {
    return `Cannot reach ${where}: ${sentence(error.message)} Is the server running, and is --base-url right?`;
  }
  if (error.code === 'timeout' && error.message.includes('idleTimeoutMs')) {
    return `${error.message} In the playground, raise it with --idle-timeout MS (or AGCORE_IDLE_TIMEOUT_MS).`;
  }
  return `${error.code}: ${error.message}`;
}

/** `text` as a sentence that ends in one full stop (`…events.`, never `…events..`). */
function sentence(text: string): string {
  const trimmed = text.trimEnd();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** A 2xx answer that is not Chat Completions: a web page, a proxy's sign-in, another API. */
function notTheApi(where: string, contentType: string, firstBytes: string | undefined): string {
  const media = contentType.split(';')[0]?.trim() || 'no content type';
  const what = media.includes('html') ? `a web page (${media})` : `'${media}'`;
  return `${where} answered with ${what}, not the Chat Completions API. Check --base-url (or OPENAI_BASE_URL): it should be the API root that /chat/completions is appended to, such as https://api.openai.com/v1 or http://127.0.0.1:11434/v1.\n  first bytes: ${firstBytes || '(empty)'}`;
}
