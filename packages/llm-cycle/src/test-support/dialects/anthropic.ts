/**
 * The Anthropic Messages dialect: `startMessagesServer` and `createAnthropicProvider`. Every
 * tool-call step comes with a `thinking` block, and the model runs with thinking on, so the
 * server refuses any turn whose thinking did not come back exactly (through history, run
 * state, cassettes).
 */
import { createAnthropicProvider } from '../../providers/anthropic/anthropic-provider.js';
import {
  type MessagesReply,
  messagesBody,
  messagesError,
  messagesErrorEvent,
  messagesEvent,
  messagesStream,
  type ReceivedRequest,
  type ServerReply,
  startMessagesServer,
} from '../../testing/index.js';
import type { Step } from '../pause-kit.js';
import type { DialectServer, WireDialect } from './wire-dialect.js';

function replyOf(step: Step): MessagesReply {
  if ('text' in step) return { text: step.text };
  return {
    thinking: `I will call ${step.calls.map((call) => call.name).join(' and ')}.`,
    calls: step.calls.map((call) => ({
      id: call.id,
      name: call.name,
      input: call.args as Record<string, unknown>,
    })),
  };
}

/** One step as the Messages server answers `request`. */
function messagesReply(step: Step, request: ReceivedRequest): ServerReply {
  const reply = replyOf(step);
  return (request.body as { stream?: boolean }).stream === true
    ? { kind: 'sse', writes: messagesStream(reply) }
    : { kind: 'json', body: messagesBody(reply) };
}

/** A text answer streamed in exactly `pieces` (one `text_delta` each). */
function pieceStream(pieces: readonly string[]): string[] {
  const events = messagesStream({ text: pieces.join('') });
  const start = events.findIndex((event) => event.includes('"content_block_start"'));
  const stop = events.findIndex((event) => event.includes('"content_block_stop"'));
  const deltas = pieces.map((text) =>
    messagesEvent({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text },
    }),
  );
  return [...events.slice(0, start + 1), ...deltas, ...events.slice(stop)];
}

interface SentBlock {
  readonly type: string;
  readonly content?: string;
}

/** Anthropic Messages, as api.anthropic.com speaks it. */
export const anthropicDialect: WireDialect = {
  name: 'anthropic',
  async start(): Promise<DialectServer> {
    const server = await startMessagesServer();
    return {
      server,
      reply: messagesReply,
      provider: (options = {}) =>
        createAnthropicProvider({ apiKey: 'sk-ant-test', baseURL: server.baseURL, ...options }),
      overloaded: () => ({
        kind: 'json',
        status: 529,
        headers: { 'retry-after': '0' },
        body: messagesError('overloaded_error', 'Overloaded'),
      }),
      toolResults: (index) => {
        const body = server.requests[index]?.body as
          | { messages?: { content: string | SentBlock[] }[] }
          | undefined;
        return (body?.messages ?? []).flatMap((message) =>
          typeof message.content === 'string'
            ? []
            : message.content.flatMap((block) =>
                block.type === 'tool_result' ? [String(block.content)] : [],
              ),
        );
      },
      wire: {
        streamed: (pieces) => pieceStream(pieces),
        whole: (text) => messagesBody({ text }),
        errorEvent: (message) => messagesErrorEvent('api_error', message),
        terminalEvent: true,
      },
      parameters: { thinking: { type: 'enabled', budget_tokens: 1024 } },
      close: () => server.close(),
    };
  },
};
