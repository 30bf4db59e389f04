/** The Chat Completions dialect: `startChatCompletionsServer` and `createOpenAICompatibleProvider`. */
import { createOpenAICompatibleProvider } from '../../providers/openai-compatible/openai-compatible-provider.js';
import {
  errorBody,
  sseEvent,
  startChatCompletionsServer,
  textCompletion,
  textStream,
} from '../../testing/index.js';
import { wireReply } from '../pause-kit.js';
import type { DialectServer, WireDialect } from './wire-dialect.js';

/** Chat Completions, as api.openai.com speaks it. */
export const openAICompatibleDialect: WireDialect = {
  name: 'openai-compatible',
  async start(): Promise<DialectServer> {
    const server = await startChatCompletionsServer();
    return {
      server,
      reply: wireReply,
      provider: (options = {}) =>
        createOpenAICompatibleProvider({ baseURL: server.baseURL, apiKey: 'sk-test', ...options }),
      overloaded: () => ({
        kind: 'json',
        status: 503,
        headers: { 'retry-after': '0' },
        body: errorBody('The server is overloaded', 'server_error', null),
      }),
      toolResults: (index) => {
        const body = server.requests[index]?.body as
          | { messages?: { role: string; content: string }[] }
          | undefined;
        return (body?.messages ?? []).flatMap((message) =>
          message.role === 'tool' ? [message.content] : [],
        );
      },
      wire: {
        streamed: (pieces) => textStream(pieces),
        whole: (text) => textCompletion(text),
        errorEvent: (message) => sseEvent({ error: { message, type: 'server_error' } }),
        terminalEvent: true,
      },
      close: () => server.close(),
    };
  },
};
