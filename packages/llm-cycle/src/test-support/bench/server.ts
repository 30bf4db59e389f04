/**
 * The server of the cycle bench, run in a child process so its work is not billed to either
 * client: every reply prebuilt, chosen by the number of assistant messages in the request.
 */
import {
  type ReceivedRequest,
  type ServerReply,
  startChatCompletionsServer,
  textCompletion,
  textStream,
  toolCallCompletion,
  toolCallStream,
} from '../../testing/index.js';
import { finalPieces, longModel, longPieces, turns } from './conversation.js';

/** The replies of the conversation, streamed (`sse`) or not. */
function prebuilt(stream: boolean): ServerReply[] {
  return [
    ...turns.map((calls, turn): ServerReply => {
      const withIds = calls.map((call, index) => ({ ...call, id: `call_${turn}_${index}` }));
      if (!stream) return { kind: 'json', body: toolCallCompletion(withIds) };
      const pieces = withIds.map((call) => ({
        id: call.id,
        name: call.name,
        pieces: [call.arguments.slice(0, 5), call.arguments.slice(5, 11), call.arguments.slice(11)],
      }));
      return { kind: 'sse', writes: [toolCallStream(pieces, { interleave: true }).join('')] };
    }),
    stream
      ? { kind: 'sse', writes: [textStream(finalPieces).join('')] }
      : { kind: 'json', body: textCompletion(finalPieces.join('')) },
  ];
}

/** Starts the server, sends its `baseURL` to the parent, and closes when the parent goes. */
export async function serve(): Promise<void> {
  const server = await startChatCompletionsServer({ recordRequests: false });
  const replies = { json: prebuilt(false), sse: prebuilt(true) };
  const long = textStream(longPieces);
  const longReply: ServerReply = {
    kind: 'sse',
    writes: [long.slice(0, 2).join(''), long.slice(2).join('')],
  };
  server.fallback((request: ReceivedRequest) => {
    const body = request.body as { model: string; stream?: boolean; messages: { role: string }[] };
    if (body.model === longModel) return longReply;
    const turn = body.messages.filter((message) => message.role === 'assistant').length;
    const list = body.stream === true ? replies.sse : replies.json;
    return list[turn] ?? list[list.length - 1] ?? { kind: 'text', status: 500, body: 'no reply' };
  });
  process.send?.({ baseURL: server.baseURL });
  process.on('disconnect', () => {
    void server.close().then(() => process.exit(0));
  });
}
