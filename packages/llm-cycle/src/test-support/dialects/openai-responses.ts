/**
 * The OpenAI Responses dialect of the parameterized loop suite (`responsesDialect`), and the
 * helpers of the Responses provider's tests: a file's own server, and the cuts a body is
 * replayed in (whole, one event per write, random 1–48-byte writes from a fixed seed).
 */
import type { JsonValue } from '@agcore/tools-core';
import { afterAll, beforeAll } from 'vitest';
import { createOpenAIResponsesProvider } from '../../providers/openai-responses/openai-responses-provider.js';
import {
  functionCallItem,
  messageItem,
  type ReceivedRequest,
  type ResponsesObject,
  type ResponsesServer,
  reasoningItem,
  responseEvents,
  responseObject,
  responsesUsage,
  type ServerReply,
  startResponsesServer,
} from '../../testing/index.js';
import type { Model, Step } from '../pause-kit.js';

/**
 * The steps played by the Responses server behind `createOpenAIResponsesProvider`: SSE to a
 * streamed request, JSON otherwise. Every answer starts with a reasoning item (its
 * `encrypted_content` opaque), and the server plays the API's rule for it: a request that sends
 * a function call back without the reasoning item that came before it, byte for byte, is
 * answered HTTP 400, so a history (or a `RunState`) that lost it fails the suite.
 */
export const responsesDialect = {
  name: 'openai-responses',
  async model(steps: readonly Step[]): Promise<Model & { close(): Promise<void> }> {
    const server = await startResponsesServer();
    const reasoningOf = new Map<string, string>();
    let served = 0;
    server.reply(
      ...steps.map(
        (step, index): ServerReply =>
          (request) => {
            const lost = lostReasoning(request, reasoningOf);
            if (lost !== undefined) return lost;
            served++;
            const reasoning = reasoningItem(`Step ${index + 1}.`);
            const output: ResponsesObject[] = [
              reasoning,
              ...('text' in step
                ? [messageItem(step.text)]
                : step.calls.map((call) => functionCallItem(call.name, call.args, call.id))),
            ];
            if ('calls' in step)
              for (const call of step.calls) reasoningOf.set(call.id, JSON.stringify(reasoning));
            const body = responseObject({ output, usage: responsesUsage(10, 5) });
            const streamed = (request.body as { stream?: boolean }).stream === true;
            return streamed
              ? { kind: 'sse', writes: responseEvents(body) }
              : { kind: 'json', body };
          },
      ),
    );
    const provider = createOpenAIResponsesProvider({ baseURL: server.baseURL, apiKey: 'sk-test' });
    return { provider, used: () => served === steps.length, close: () => server.close() };
  },
};

/** The 400 for a function call sent back without its reasoning item, or `undefined` (the API's rule). */
export function lostReasoning(
  request: ReceivedRequest,
  reasoningOf: ReadonlyMap<string, string>,
): ServerReply | undefined {
  const input = (request.body as { input?: JsonValue[] }).input ?? [];
  const sent = new Set(input.map((item) => JSON.stringify(item)));
  for (const item of input) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) continue;
    if (item.type !== 'function_call' || typeof item.call_id !== 'string') continue;
    const reasoning = reasoningOf.get(item.call_id);
    if (reasoning === undefined || sent.has(reasoning)) continue;
    return {
      kind: 'json',
      status: 400,
      body: {
        error: {
          message: `Item '${item.call_id}' of type 'function_call' was provided without its required 'reasoning' item.`,
          type: 'invalid_request_error',
          param: 'input',
          code: null,
        },
      },
    };
  }
  return undefined;
}

/** The server of a test file (started in `beforeAll`, closed in `afterAll`). */
export function useResponsesServer(): { readonly server: ResponsesServer } {
  let current: ResponsesServer | undefined;
  beforeAll(async () => {
    current = await startResponsesServer();
  });
  afterAll(async () => {
    await current?.close();
  });
  return {
    get server() {
      if (current === undefined) throw new Error('the server starts in beforeAll');
      return current;
    },
  };
}

/** Every cut the tests replay a stream in: whole, one event per write, random 1–48-byte writes. */
export function cutsOf(events: readonly string[], seed = 22): (string | Uint8Array)[][] {
  const bytes = new TextEncoder().encode(events.join(''));
  let state = seed;
  const random = (): number => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  const small: Uint8Array[] = [];
  for (let start = 0; start < bytes.length; ) {
    const size = 1 + Math.floor(random() * 48);
    small.push(bytes.subarray(start, start + size));
    start += size;
  }
  return [[events.join('')], [...events], small];
}
