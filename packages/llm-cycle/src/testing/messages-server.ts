/**
 * A real HTTP server on 127.0.0.1 that plays a script in the Anthropic Messages wire format
 * (the replies of `startChatCompletionsServer`, built with `messagesStream`, `messagesBody`, …)
 * and refuses, as the API does, a request that breaks its rules. Node only.
 */
import type {
  ChatCompletionsServer,
  ChatCompletionsServerOptions,
  ReceivedRequest,
  ServerReply,
} from './chat-completions-server.js';
import { startGuardedServer } from './guarded-server.js';
import { messagesError, thinkingSignature } from './messages-wire-format.js';

/**
 * A running Messages server; `baseURL` is the API root to give `createAnthropicProvider`.
 * `requireReasoningContent` (a Chat Completions dialect of DeepSeek) does nothing here.
 */
export interface MessagesServer extends ChatCompletionsServer {
  /** `http://127.0.0.1:<port>` (the provider appends `/v1/messages`). */
  readonly baseURL: string;
}

/** Options of `startMessagesServer`. */
export interface MessagesServerOptions extends ChatCompletionsServerOptions {
  /** Answer a request that breaks the API's rules with its 4xx (default `true`). */
  readonly checkRequests?: boolean;
}

/**
 * Starts the server. Each reply waits for a request that follows the rules of `messagesRuleBreak`;
 * a request that breaks one gets the API's error instead (and takes the reply).
 * @throws {Error} when the port is taken
 */
export async function startMessagesServer(
  options: MessagesServerOptions = {},
): Promise<MessagesServer> {
  return startGuardedServer(options, options.checkRequests !== false, messagesRuleBreak, '');
}

type Wire = Record<string, unknown>;
const isWire = (value: unknown): value is Wire =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function refuse(status: number, type: string, message: string): ServerReply {
  return { kind: 'json', status, body: messagesError(type, message) };
}

/**
 * The API's answer to a request that breaks a rule, or `undefined` when it follows them:
 * - `POST /v1/messages` (docs.anthropic.com/en/api/messages);
 * - `x-api-key` (or `Authorization: Bearer`, which `@anthropic-ai/sdk` 1.10 sends for an API key:
 *   its `apiKeyAuth`), else 401 `authentication_error`; `anthropic-version` (400) (same page,
 *   "Headers"; /en/api/versioning);
 * - `model`, `max_tokens` (required) and non-empty `messages` (same page, "Body");
 * - each `tool_use` answered by a `tool_result` in the very next (user) message, results before
 *   any other block of it, and no `tool_result` without its `tool_use` just before
 *   (/en/docs/build-with-claude/tool-use/implement-tool-use, "Handling results from client tools");
 * - every `thinking` block sent back unchanged (text and `signature`), and with `thinking`
 *   enabled, the last assistant turn, when it has a `tool_use`, starting with a thinking block
 *   (/en/docs/build-with-claude/extended-thinking, "Preserving thinking blocks").
 */
export function messagesRuleBreak(request: ReceivedRequest): ServerReply | undefined {
  if (request.method !== 'POST' || !request.url.startsWith('/v1/messages'))
    return refuse(404, 'not_found_error', `Not found: ${request.method} ${request.url}`);
  const headers = request.headers;
  if (typeof headers['x-api-key'] !== 'string' && typeof headers.authorization !== 'string')
    return refuse(401, 'authentication_error', 'x-api-key header is required');
  if (typeof headers['anthropic-version'] !== 'string')
    return refuse(400, 'invalid_request_error', 'anthropic-version: header is required');
  const body = request.body;
  if (!isWire(body)) return refuse(400, 'invalid_request_error', 'The body is not a JSON object');
  if (typeof body.model !== 'string')
    return refuse(400, 'invalid_request_error', 'model: Field required');
  if (typeof body.max_tokens !== 'number' || body.max_tokens < 1)
    return refuse(400, 'invalid_request_error', 'max_tokens: Field required');
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return refuse(400, 'invalid_request_error', 'messages: at least one message is required');
  const thinking = isWire(body.thinking) && body.thinking.type === 'enabled';
  const problem = historyProblem(body.messages, thinking);
  return problem === undefined ? undefined : refuse(400, 'invalid_request_error', problem);
}

function blocksOf(message: Wire): Wire[] {
  if (typeof message.content === 'string') return [{ type: 'text', text: message.content }];
  return Array.isArray(message.content) ? message.content.filter(isWire) : [];
}

/** The first rule the history breaks, in the API's words. */
function historyProblem(messages: readonly unknown[], thinking: boolean): string | undefined {
  let expected: string[] = [];
  const lastAssistant = messages.findLastIndex(
    (message) => isWire(message) && message.role === 'assistant',
  );
  for (const [index, message] of messages.entries()) {
    if (!isWire(message) || (message.role !== 'user' && message.role !== 'assistant'))
      return `messages.${index}.role: Input should be 'user' or 'assistant'`;
    const blocks = blocksOf(message);
    if (expected.length > 0) {
      const results = blocks.filter((block) => block.type === 'tool_result');
      const leading = blocks
        .slice(0, results.length)
        .every((block) => block.type === 'tool_result');
      const answered = new Set(results.map((block) => block.tool_use_id));
      if (message.role !== 'user' || !expected.every((id) => answered.has(id)) || !leading)
        return `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${expected.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
    } else if (blocks.some((block) => block.type === 'tool_result')) {
      return `messages.${index}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
    }
    expected = [];
    if (message.role !== 'assistant') continue;
    for (const [position, block] of blocks.entries()) {
      if (
        block.type === 'thinking' &&
        block.signature !== thinkingSignature(String(block.thinking))
      )
        return `messages.${index}.content.${position}: Invalid \`signature\` in \`thinking\` block`;
      if (block.type === 'tool_use') expected.push(String(block.id));
    }
    const first = blocks[0]?.type;
    if (
      thinking &&
      index === lastAssistant &&
      expected.length > 0 &&
      first !== 'thinking' &&
      first !== 'redacted_thinking'
    )
      return `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`;
  }
  return undefined;
}
