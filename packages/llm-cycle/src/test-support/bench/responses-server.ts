/**
 * The server of the Responses bench, in a child process: every reply prebuilt (a reasoning item
 * then the turn's calls, or the final answer of 100 deltas), chosen by how many function calls
 * the request's input already holds.
 */
import {
  functionCallItem,
  messageItem,
  type ReceivedRequest,
  reasoningItem,
  responseEvents,
  responseObject,
  type ServerReply,
  startChatCompletionsServer,
} from '../../testing/index.js';
import { finalPieces, turns } from './conversation.js';

/** The replies, streamed (`sse`) or not. */
function prebuilt(stream: boolean): ServerReply[] {
  const bodies = [
    ...turns.map((calls, turn) =>
      responseObject({
        output: [
          reasoningItem(`Turn ${turn}.`),
          ...calls.map((call, index) =>
            functionCallItem(call.name, call.arguments, `call_${turn}_${index}`),
          ),
        ],
      }),
    ),
    responseObject({ output: [messageItem(finalPieces.join(''))] }),
  ];
  return bodies.map((body, index): ServerReply => {
    if (!stream) return { kind: 'json', body };
    const pieces = index < turns.length ? 3 : finalPieces.length;
    return { kind: 'sse', writes: [responseEvents(body, pieces).join('')] };
  });
}

/** How many calls the input holds after each turn: 0, 1, 3, 4, 5. */
const callsBefore = [0];
for (const calls of turns)
  callsBefore.push((callsBefore[callsBefore.length - 1] ?? 0) + calls.length);

/**
 * Starts the server (the plain script server: the bench sends no broken request, and the
 * checks of `startResponsesServer` would be billed to the server, not the contenders; it runs in
 * its own process anyway), sends its `baseURL` to the parent, closes when the parent goes.
 */
export async function serveResponses(): Promise<void> {
  const server = await startChatCompletionsServer({ recordRequests: false });
  const replies = { json: prebuilt(false), sse: prebuilt(true) };
  server.fallback((request: ReceivedRequest) => {
    const body = request.body as { stream?: boolean; input: { type?: string }[] };
    const calls = body.input.filter((item) => item.type === 'function_call').length;
    const turn = Math.max(0, callsBefore.indexOf(calls));
    const list = body.stream === true ? replies.sse : replies.json;
    return list[turn] ?? { kind: 'text', status: 500, body: 'no reply' };
  });
  process.send?.({ baseURL: server.baseURL });
  process.on('disconnect', () => {
    void server.close().then(() => process.exit(0));
  });
}
