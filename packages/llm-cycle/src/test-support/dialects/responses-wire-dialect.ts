/**
 * The OpenAI Responses dialect of the parameterized loop suite: `startResponsesServer` and
 * `createOpenAIResponsesProvider`. Every answer starts with a reasoning item, and the server
 * answers HTTP 400 (as the API does) to a function call sent back without the reasoning item
 * that came with it, byte for byte: a history, run state or cassette that lost it fails.
 */
import type { JsonValue } from '@agcore/tools-core';
import { createOpenAIResponsesProvider } from '../../providers/openai-responses/openai-responses-provider.js';
import {
  functionCallItem,
  messageItem,
  type ReceivedRequest,
  type ResponsesObject,
  reasoningItem,
  responseEvents,
  responseObject,
  responsesErrorEvent,
  responsesEvent,
  responsesUsage,
  type ServerReply,
  startResponsesServer,
} from '../../testing/index.js';
import type { Step } from '../pause-kit.js';
import { lostReasoning } from './openai-responses.js';
import type { DialectServer, WireDialect } from './wire-dialect.js';

/** A text answer streamed in exactly `pieces` (one `output_text.delta` each). */
function pieceEvents(pieces: readonly string[]): string[] {
  const events = responseEvents(responseObject({ output: [messageItem(pieces.join(''))] }), 1);
  const delta = events.findIndex((event) => event.includes('"response.output_text.delta"'));
  const item = JSON.parse(events[delta]?.split('data: ')[1] ?? '{}') as Record<string, JsonValue>;
  const deltas = pieces.map((text) => responsesEvent({ ...item, delta: text }));
  return [...events.slice(0, delta), ...deltas, ...events.slice(delta + 1)];
}

/** OpenAI Responses, as api.openai.com speaks it. */
export const openAIResponsesDialect: WireDialect = {
  name: 'openai-responses',
  async start(): Promise<DialectServer> {
    const server = await startResponsesServer();
    const reasoningOf = new Map<string, string>();
    let answered = 0;
    const reply = (step: Step, request: ReceivedRequest): ServerReply => {
      const lost = lostReasoning(request, reasoningOf);
      if (lost !== undefined) return lost;
      answered++;
      const reasoning = reasoningItem(`Step ${answered}.`);
      const output: ResponsesObject[] = [
        reasoning,
        ...('text' in step
          ? [messageItem(step.text)]
          : step.calls.map((call) => functionCallItem(call.name, call.args, call.id))),
      ];
      if ('calls' in step)
        for (const call of step.calls) reasoningOf.set(call.id, JSON.stringify(reasoning));
      const body = responseObject({ output, usage: responsesUsage(10, 5) });
      return (request.body as { stream?: boolean }).stream === true
        ? { kind: 'sse', writes: responseEvents(body) }
        : { kind: 'json', body };
    };
    return {
      server,
      reply,
      provider: (options = {}) =>
        createOpenAIResponsesProvider({ apiKey: 'sk-test', baseURL: server.baseURL, ...options }),
      overloaded: () => ({
        kind: 'json',
        status: 429,
        headers: { 'retry-after': '0' },
        body: {
          error: {
            message: 'Rate limit reached',
            type: 'requests',
            param: null,
            code: 'rate_limit_exceeded',
          },
        },
      }),
      toolResults: (index) => {
        const input = (server.requests[index]?.body as { input?: JsonValue[] } | undefined)?.input;
        return (input ?? []).flatMap((item) =>
          typeof item === 'object' &&
          item !== null &&
          !Array.isArray(item) &&
          item.type === 'function_call_output'
            ? [String(item.output)]
            : [],
        );
      },
      wire: {
        streamed: (pieces) => pieceEvents(pieces),
        whole: (text) => responseObject({ output: [messageItem(text)] }),
        errorEvent: (message) => responsesErrorEvent('server_error', message),
        terminalEvent: true,
      },
      close: () => server.close(),
    };
  },
};
