/**
 * The dialects of the Chat Completions wire format: every way a server departs from what
 * api.openai.com sends, named once here with the source of the rule. The parsers of streamed
 * and whole answers call these and know no vendor themselves.
 */
import type { ChatResponse, FinishReason, Usage } from '../../chat-provider.js';
import { LlmError } from '../../llm-error.js';
import type { AssistantMessage } from '../../messages.js';
import { isRecord, jsonText } from '../http/wire.js';

/**
 * The reasoning text of a delta or a message, or `undefined`.
 * - `reasoning_content`: DeepSeek (api-docs.deepseek.com/guides/thinking_mode), Qwen on
 *   DashScope (alibabacloud.com/help/en/model-studio/deep-thinking), Moonshot Kimi, xAI, and
 *   vLLM before 0.11 (docs.vllm.ai/en/v0.10.0/features/reasoning_outputs).
 * - `reasoning`: vLLM 0.11+ ("reasoning used to be called reasoning_content",
 *   docs.vllm.ai/en/v0.11.2/features/reasoning_outputs), OpenRouter
 *   (openrouter.ai/docs/use-cases/reasoning-tokens) and Ollama's OpenAI layer.
 * A server that sends both sends the same text twice: `reasoning_content` wins.
 */
export function reasoningOf(record: Record<string, unknown>): string | undefined {
  const content = record.reasoning_content;
  if (typeof content === 'string' && content !== '') return content;
  const reasoning = record.reasoning;
  return typeof reasoning === 'string' && reasoning !== '' ? reasoning : undefined;
}

/** The text and the reasoning carried by a `content` field. */
export interface ContentParts {
  readonly text: string;
  readonly reasoning: string;
}

/**
 * `content` as a string, or as an array of parts (Mistral's reasoning models,
 * docs.mistral.ai/capabilities/reasoning: `{ type: 'text', text }` and
 * `{ type: 'thinking', thinking: [{ type: 'text', text }] }`): text parts join into the text,
 * thinking parts into the reasoning, other parts (references, images) are skipped. `undefined`
 * for anything else (`null`, a number). Never throws.
 */
export function contentOf(value: unknown): ContentParts | undefined {
  if (typeof value === 'string') return { text: value, reasoning: '' };
  if (!Array.isArray(value)) return undefined;
  let text = '';
  let reasoning = '';
  for (const part of value) {
    if (!isRecord(part)) continue;
    if (part.type === 'text' && typeof part.text === 'string') text += part.text;
    else if (part.type === 'thinking') reasoning += thinkingText(part.thinking);
  }
  return { text, reasoning };
}

function thinkingText(thinking: unknown): string {
  if (typeof thinking === 'string') return thinking;
  if (!Array.isArray(thinking)) return '';
  let text = '';
  for (const item of thinking) {
    if (isRecord(item) && typeof item.text === 'string') text += item.text;
  }
  return text;
}

/**
 * The usage a chunk carries, or `undefined`.
 * - `usage`: OpenAI (the last chunk, with empty `choices`, when `stream_options.include_usage`
 *   is on; platform.openai.com/docs/api-reference/chat-streaming) and most servers.
 * - `x_groq.usage`: Groq (console.groq.com/docs/api-reference, the last chunk).
 * - `choices[0].usage`: Moonshot (platform.moonshot.ai/docs/api/chat: the finish chunk carries
 *   usage inside the choice).
 */
export function usageOf(chunk: Record<string, unknown>, choice: unknown): Usage | undefined {
  const usage = chunk.usage;
  if (usage !== undefined && usage !== null) return readUsage(usage);
  const groq = chunk.x_groq;
  if (groq !== undefined) return isRecord(groq) ? readUsage(groq.usage) : undefined;
  return isRecord(choice) && choice.usage !== undefined ? readUsage(choice.usage) : undefined;
}

/** Reads a wire usage object; missing counts are 0, a missing total is their sum. */
export function readUsage(value: unknown): Usage | undefined {
  if (!isRecord(value)) return undefined;
  const promptTokens = typeof value.prompt_tokens === 'number' ? value.prompt_tokens : 0;
  const completionTokens =
    typeof value.completion_tokens === 'number' ? value.completion_tokens : 0;
  const totalTokens =
    typeof value.total_tokens === 'number' ? value.total_tokens : promptTokens + completionTokens;
  return { promptTokens, completionTokens, totalTokens };
}

/**
 * The `index` of a streamed tool-call delta: `undefined` when absent (`null` too: Mistral and
 * Groq send whole calls), else a non-negative safe integer. Anything else (`-1`, `1.5`, `"0"`)
 * is refused: such a call cannot be placed, and dropping it would make the turn lie.
 * @throws {LlmError} `invalid_response` naming the index
 */
export function toolCallIndex(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  throw new LlmError(
    'invalid_response',
    `The server sent a tool call with index ${jsonText(value)}; an index must be an integer from 0. The answer cannot be assembled.`,
  );
}

/**
 * Tool-call arguments as the JSON text the history keeps: a string as is; an object (some
 * Ollama and llama.cpp versions send the arguments unencoded) serialized; nothing as `''`.
 */
export function argumentsOf(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined || value === null ? '' : jsonText(value);
}

/**
 * The finish reason of an answer: the server's, `unknown` when it sent none, and `stop` for
 * `tool_calls` when the message has no tool call (seen from Ollama and small models that end
 * on a tool-call token without a call): the loop ends there, so the reason must not say it
 * goes on.
 */
export function finishReasonOf(reason: string | undefined, hasToolCalls: boolean): FinishReason {
  if (reason === undefined || reason === '') return 'unknown';
  return reason === 'tool_calls' && !hasToolCalls ? 'stop' : reason;
}

/**
 * DeepSeek's reasoning rule: in thinking mode, the `reasoning_content` of an assistant message
 * with tool calls must be sent back in later requests, or the next turn is refused with HTTP
 * 400 (api-docs.deepseek.com/guides/thinking_mode, "Tool Calls"). A gateway in front of
 * DeepSeek (LiteLLM, OpenRouter, a company proxy, vLLM serving DeepSeek's weights) passes the
 * request on and gets the same 400 (issue 18). The provider follows the rule
 * (`sendReasoning` default `tool-calls` instead of `never`) for a request when:
 * - the base URL's host is deepseek.com or under it (`isDeepSeekHost`), or `deepseek: true`;
 * - else when the request's model is DeepSeek's (`isDeepSeekModel`), or this provider saw an
 *   answer to that model that named a DeepSeek model or carried `reasoning_content` on a
 *   tool-call message (`followsDeepSeekRule`): a proxy's alias is learned from its first tool
 *   turn. `reasoning` (vLLM 0.11+, OpenRouter, Groq, Ollama) is not that signal: servers that
 *   name it so do not ask for it back, and a strict one may refuse a field it does not know.
 * `deepseek: false` turns the rule off and `sendReasoning` overrides it either way. What is
 * learned lives in the provider object: a provider made afresh (a new process resuming a run
 * state) knows the names and the host only.
 */
export function isDeepSeekHost(hostname: string): boolean {
  return hostname === 'deepseek.com' || hostname.endsWith('.deepseek.com');
}

/**
 * Whether `model` names a DeepSeek model: its last `/` segment starts with `deepseek-`, in any
 * case (`deepseek-reasoner`; LiteLLM's `deepseek/deepseek-r1`, docs.litellm.ai/docs/providers/deepseek;
 * OpenRouter's `deepseek/deepseek-chat-v3.1`, also as `openrouter/deepseek/...`; vLLM's
 * `deepseek-ai/DeepSeek-V3.1`; Ollama's `deepseek-r1:14b`). Never throws.
 */
export function isDeepSeekModel(model: string): boolean {
  return /^deepseek-/i.test(model.slice(model.lastIndexOf('/') + 1));
}

/** The answers whose tool-call message came with `reasoning_content` on the wire. */
const reasoningContentAnswers = new WeakSet<AssistantMessage>();

/** Notes that the server sent `message` (with tool calls) and its `reasoning_content` field. */
export function noteReasoningContent(message: AssistantMessage): void {
  if (message.tool_calls !== undefined && message.tool_calls.length > 0)
    reasoningContentAnswers.add(message);
}

/** Whether an answer shows its server follows DeepSeek's rule (see `isDeepSeekHost`). Never throws. */
export function followsDeepSeekRule(response: ChatResponse): boolean {
  return isDeepSeekModel(response.model) || reasoningContentAnswers.has(response.message);
}

/** Whether a wire message or delta carries reasoning in DeepSeek's `reasoning_content` field. */
export function hasReasoningContent(record: Record<string, unknown>): boolean {
  return typeof record.reasoning_content === 'string' && record.reasoning_content !== '';
}
