// The script server of another wire format: the Chat Completions server's script and recorded
// requests, under that format's base path, each reply held back for a request that breaks the
// format's rules (the rule check answers it instead). Node only.
import {
  type ChatCompletionsServer,
  type ChatCompletionsServerOptions,
  type ReceivedRequest,
  type ServerReply,
  startChatCompletionsServer,
} from './chat-completions-server.js';

/**
 * Starts a script server whose base URL is `basePath` (replacing `/v1`) and whose every reply
 * first goes through `ruleBreak` when `check` is on: a request it refuses gets its answer.
 */
export async function startGuardedServer(
  options: ChatCompletionsServerOptions,
  check: boolean,
  ruleBreak: (request: ReceivedRequest) => ServerReply | undefined,
  basePath: string,
): Promise<ChatCompletionsServer> {
  const inner = await startChatCompletionsServer(options);
  const guard = (reply: ServerReply): ServerReply =>
    check ? (request) => ruleBreak(request) ?? reply : reply;
  const handle: ChatCompletionsServer = {
    ...inner,
    baseURL: inner.baseURL.replace(/\/v1$/, basePath),
    requests: inner.requests,
    reply: (...replies) => {
      inner.reply(...replies.map(guard));
      return handle;
    },
    fallback: (reply) => {
      inner.fallback(reply === undefined ? undefined : guard(reply));
      return handle;
    },
    requireReasoningContent: () => handle,
    reset: () => {
      inner.reset();
      return handle;
    },
  };
  return handle;
}
