/**
 * A Gemini `GenerateContentResponse`, whole or streamed (each SSE `data:` of
 * `streamGenerateContent?alt=sse` is one, its parts the new ones), as a neutral `ChatResponse`.
 * Rules, from the API reference (ai.google.dev/api/generate-content#v1beta.GenerateContentResponse):
 * - `candidates[0].content.parts`: `text` (with `thought: true`, a thought summary: reasoning),
 *   `functionCall { id?, name, args }` (several: parallel calls); any part may carry a
 *   `thoughtSignature`, kept (with the parts) in `provider_state` and sent back as it came;
 * - `finishReason`: `STOP`, `MAX_TOKENS`, `SAFETY`, `RECITATION`, `BLOCKLIST`,
 *   `PROHIBITED_CONTENT`, `SPII`, `IMAGE_SAFETY`, `MALFORMED_FUNCTION_CALL`, … (normalized by
 *   `finishReasonOf`); `promptFeedback.blockReason` when the prompt itself was blocked (no
 *   candidate);
 * - `usageMetadata`: `promptTokenCount` (cached tokens included), `candidatesTokenCount`,
 *   `thoughtsTokenCount` (not in the candidates' count), `cachedContentTokenCount`,
 *   `totalTokenCount`; streamed, each chunk's is cumulative.
 */
import type { JsonValue } from '@agcore/tools-core';
import type { ChatChunk, ChatResponse, Usage } from '../../chat-provider.js';
import type { AssistantMessage, ToolCall } from '../../messages.js';
import { geminiState, isPart, madeIdPrefix } from './request-body.js';

type Wire = Record<string, unknown>;

/** Finish reasons that mean the answer was withheld or cut for its content. */
const filtered = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'LANGUAGE',
]);

/**
 * `finishReason` as a neutral finish reason: `STOP` → `stop` (`tool_calls` when the answer has
 * a call), `MAX_TOKENS` → `length`, `SAFETY`, `RECITATION`, `BLOCKLIST`, `PROHIBITED_CONTENT`,
 * `SPII`, `IMAGE_SAFETY`, `LANGUAGE` → `content_filter`, `MALFORMED_FUNCTION_CALL` →
 * `malformed_function_call`, none → `unknown`, any other lower-cased.
 */
export function finishReasonOf(reason: unknown, hasCalls: boolean): string {
  if (typeof reason !== 'string' || reason === '' || reason === 'FINISH_REASON_UNSPECIFIED')
    return hasCalls ? 'tool_calls' : 'unknown';
  if (reason === 'STOP') return hasCalls ? 'tool_calls' : 'stop';
  if (reason === 'MAX_TOKENS') return 'length';
  if (filtered.has(reason)) return 'content_filter';
  return reason.toLowerCase();
}

/** Builds the response from `GenerateContentResponse`s, pushing the chunks of what streams in. */
export class AnswerAssembler {
  id = '';
  model = '';
  /** The candidate's `finishReason`, once one came. */
  finishReason: string | undefined;
  /** `promptFeedback.blockReason`, when the prompt was blocked. */
  blockReason: string | undefined;
  /** Whether any response object came. */
  started = false;
  #usage: Wire | undefined;
  readonly #parts: Wire[] = [];
  readonly #calls: ToolCall[] = [];
  #signed = false;

  /** Adds one response object (a whole answer, or one streamed chunk of it). */
  add(response: Wire, out: ChatChunk[] | undefined): void {
    this.started = true;
    if (typeof response.responseId === 'string') this.id = response.responseId;
    if (typeof response.modelVersion === 'string') this.model = response.modelVersion;
    if (isPart(response.usageMetadata)) this.#usage = response.usageMetadata;
    const feedback = response.promptFeedback;
    if (isPart(feedback) && typeof feedback.blockReason === 'string')
      this.blockReason = feedback.blockReason;
    const candidate = Array.isArray(response.candidates) ? response.candidates[0] : undefined;
    if (!isPart(candidate)) return;
    if (typeof candidate.finishReason === 'string') this.finishReason = candidate.finishReason;
    const content = candidate.content;
    if (!isPart(content) || !Array.isArray(content.parts)) return;
    for (const part of content.parts) if (isPart(part)) this.#part(part, out);
  }

  #part(part: Wire, out: ChatChunk[] | undefined): void {
    if (part.thoughtSignature !== undefined || part.thought === true) this.#signed = true;
    if (typeof part.text === 'string') {
      const thought = part.thought === true;
      if (part.text !== '')
        out?.push({
          type: thought ? 'assistant_reasoning_delta' : 'assistant_text_delta',
          text: part.text,
        });
      const last = this.#parts[this.#parts.length - 1];
      if (
        last !== undefined &&
        typeof last.text === 'string' &&
        (last.thought === true) === thought &&
        last.thoughtSignature === undefined &&
        Object.keys(part).every(
          (key) => key === 'text' || key === 'thought' || key === 'thoughtSignature',
        )
      ) {
        last.text += part.text;
        if (part.thoughtSignature !== undefined) last.thoughtSignature = part.thoughtSignature;
        return;
      }
      this.#parts.push({ ...part });
      return;
    }
    this.#parts.push(part);
    const call = part.functionCall;
    if (!isPart(call)) return;
    const id =
      typeof call.id === 'string' && call.id !== ''
        ? call.id
        : `${madeIdPrefix}${globalThis.crypto.randomUUID()}`;
    const name = typeof call.name === 'string' ? call.name : '';
    const args = JSON.stringify(call.args ?? {});
    out?.push({
      type: 'tool_call_delta',
      index: this.#calls.length,
      callId: id,
      toolName: name,
      argumentsDelta: args,
    });
    this.#calls.push({ id, type: 'function', function: { name, arguments: args } });
  }

  /** The assembled response. */
  finish(): ChatResponse {
    let text = '';
    let reasoning = '';
    for (const part of this.#parts) {
      if (typeof part.text !== 'string') continue;
      if (part.thought === true) reasoning += part.text;
      else text += part.text;
    }
    const calls = this.#calls;
    const message: AssistantMessage = {
      role: 'assistant',
      content: text === '' && calls.length > 0 ? null : text,
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
      ...(reasoning === '' ? {} : { reasoning_content: reasoning }),
      ...(this.#signed
        ? { provider_state: { provider: geminiState, items: this.#parts as JsonValue[] } }
        : {}),
    };
    const usage = this.#usage === undefined ? undefined : usageOf(this.#usage);
    return {
      id: this.id,
      model: this.model,
      message,
      finishReason:
        this.blockReason !== undefined && this.finishReason === undefined
          ? 'content_filter'
          : finishReasonOf(this.finishReason, calls.length > 0),
      ...(usage === undefined ? {} : { usage }),
      ...(reasoning === '' ? {} : { reasoning }),
    };
  }
}

/** The neutral usage of `usageMetadata`, when it has any token count. */
export function usageOf(usage: Wire): Usage | undefined {
  const count = (name: string): number | undefined => {
    const value = usage[name];
    return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  };
  const prompt = count('promptTokenCount');
  const candidates = count('candidatesTokenCount');
  const thoughts = count('thoughtsTokenCount');
  if (prompt === undefined && candidates === undefined && thoughts === undefined) return undefined;
  const cached = count('cachedContentTokenCount');
  const completion = (candidates ?? 0) + (thoughts ?? 0);
  return {
    promptTokens: prompt ?? 0,
    completionTokens: completion,
    totalTokens: count('totalTokenCount') ?? (prompt ?? 0) + completion,
    ...(cached === undefined ? {} : { cacheReadTokens: cached }),
    ...(thoughts === undefined ? {} : { reasoningTokens: thoughts }),
  };
}
