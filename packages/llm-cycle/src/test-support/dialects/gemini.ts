/**
 * The Gemini dialect: `startGeminiServer` and `createGeminiProvider`. Every tool-call step
 * comes with a thought and a `thoughtSignature` on its first call, and the server refuses
 * (400 INVALID_ARGUMENT, as Gemini 3 does) any turn whose signatures did not come back exactly
 * (through history, run state, cassettes).
 */
import { createGeminiProvider } from '../../providers/gemini/gemini-provider.js';
import {
  type GeminiReply,
  geminiBody,
  geminiError,
  geminiErrorEvent,
  geminiStream,
  type ReceivedRequest,
  type ServerReply,
  startGeminiServer,
} from '../../testing/index.js';
import type { Step } from '../pause-kit.js';
import type { DialectServer, WireDialect } from './wire-dialect.js';

function replyOf(step: Step): GeminiReply {
  if ('text' in step) return { text: step.text };
  return {
    thought: `I will call ${step.calls.map((call) => call.name).join(' and ')}.`,
    calls: step.calls.map((call) => ({
      id: call.id,
      name: call.name,
      args: call.args as Record<string, unknown>,
    })),
  };
}

/** One step as the Gemini server answers `request`. */
function geminiReply(step: Step, request: ReceivedRequest): ServerReply {
  const reply = replyOf(step);
  return request.url.includes(':streamGenerateContent')
    ? { kind: 'sse', writes: geminiStream(reply) }
    : { kind: 'json', body: geminiBody(reply) };
}

interface SentPart {
  readonly functionResponse?: { readonly response?: { readonly result?: unknown } };
}

/** Gemini, as generativelanguage.googleapis.com speaks it. */
export const geminiDialect: WireDialect = {
  name: 'gemini',
  async start(): Promise<DialectServer> {
    const server = await startGeminiServer();
    return {
      server,
      reply: geminiReply,
      provider: (options = {}) =>
        createGeminiProvider({ apiKey: 'AIza-test-key', baseURL: server.baseURL, ...options }),
      overloaded: () => ({
        kind: 'json',
        status: 503,
        headers: { 'retry-after': '0' },
        body: geminiError(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.'),
      }),
      toolResults: (index) => {
        const body = server.requests[index]?.body as
          | { contents?: { parts?: SentPart[] }[] }
          | undefined;
        return (body?.contents ?? []).flatMap((content) =>
          (content.parts ?? []).flatMap((part) =>
            part.functionResponse === undefined
              ? []
              : [String(part.functionResponse.response?.result)],
          ),
        );
      },
      wire: {
        streamed: (pieces) => geminiStream({ text: pieces.join('') }, pieces),
        whole: (text) => geminiBody({ text }),
        errorEvent: (message) => geminiErrorEvent(message),
        terminalEvent: false,
      },
      parameters: { generationConfig: { thinkingConfig: { thinkingLevel: 'low' } } },
      close: () => server.close(),
    };
  },
};
