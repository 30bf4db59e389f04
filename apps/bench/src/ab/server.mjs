// The scripted servers of the A/B suites, one per wire format, in a child process (so their
// CPU is billed to neither contender), built on the working tree's `@agcore/llm-cycle/testing`.
// Each reply is prebuilt and chosen by how far the request's conversation has come.
import {
  functionCallItem,
  geminiBody,
  geminiStream,
  messageItem,
  messagesBody,
  messagesStream,
  reasoningItem,
  responseEvents,
  responseObject,
  startChatCompletionsServer,
  textCompletion,
  textStream,
  toolCallCompletion,
  toolCallStream,
} from '@agcore/llm-cycle/testing';
import { argumentPieces, finalPieces, turns } from './conversation.mjs';

const noReply = { kind: 'text', status: 500, body: 'no reply for this request' };

function chatReplies(stream) {
  const tools = turns.map((calls, turn) => {
    const withIds = calls.map((call, index) => ({ ...call, id: `call_${turn}_${index}` }));
    if (!stream) return { kind: 'json', body: toolCallCompletion(withIds) };
    const pieces = withIds.map((call) => ({ ...call, pieces: argumentPieces(call.arguments) }));
    return { kind: 'sse', writes: [toolCallStream(pieces, { interleave: true }).join('')] };
  });
  const last = stream
    ? { kind: 'sse', writes: [textStream(finalPieces).join('')] }
    : { kind: 'json', body: textCompletion(finalPieces.join('')) };
  return [...tools, last];
}

function messagesReplies(stream) {
  const replies = [
    ...turns.map((calls, turn) => ({
      calls: calls.map((call, index) => ({
        id: `toolu_${turn}_${index}`,
        name: call.name,
        input: JSON.parse(call.arguments),
        pieces: argumentPieces(call.arguments),
      })),
      usage: { input: 100, output: 20 },
    })),
    { text: finalPieces.join(''), usage: { input: 100, output: 20 } },
  ];
  return replies.map((reply) =>
    stream
      ? { kind: 'sse', writes: [messagesStream(reply).join('')] }
      : { kind: 'json', body: messagesBody(reply) },
  );
}

function responsesReplies(stream) {
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
  return bodies.map((body, index) =>
    stream
      ? {
          kind: 'sse',
          writes: [responseEvents(body, index < turns.length ? 3 : finalPieces.length).join('')],
        }
      : { kind: 'json', body },
  );
}

function geminiReplies(stream) {
  const replies = [
    ...turns.map((calls, turn) => ({
      thought: `Turn ${turn}.`,
      calls: calls.map((call, index) => ({
        id: `fc_${turn}_${index}`,
        name: call.name,
        args: JSON.parse(call.arguments),
      })),
    })),
    { text: finalPieces.join('') },
  ];
  return replies.map((reply, index) =>
    stream
      ? {
          kind: 'sse',
          writes: [geminiStream(reply, index < turns.length ? undefined : finalPieces).join('')],
        }
      : { kind: 'json', body: geminiBody(reply) },
  );
}

/** Calls in the Responses input after each turn: 0, 1, 3, 4, 5. */
const callsBefore = [0];
for (const calls of turns) callsBefore.push(callsBefore[callsBefore.length - 1] + calls.length);

/** How far a request has come (0-based turn), per wire format. */
const turnOf = {
  chat: (body) => body.messages.filter((message) => message.role === 'assistant').length,
  messages: (body) => body.messages.filter((message) => message.role === 'assistant').length,
  responses: (body) =>
    Math.max(
      0,
      callsBefore.indexOf(body.input.filter((item) => item.type === 'function_call').length),
    ),
  gemini: (body) => body.contents.filter((content) => content.role === 'model').length,
};

const built = {
  chat: { json: chatReplies(false), sse: chatReplies(true) },
  messages: { json: messagesReplies(false), sse: messagesReplies(true) },
  responses: { json: responsesReplies(false), sse: responsesReplies(true) },
  gemini: { json: geminiReplies(false), sse: geminiReplies(true) },
};

/** Whether a request asks for a stream (Gemini says it in the URL, the others in the body). */
const streamed = (request) =>
  request.body?.stream === true || request.url.includes(':streamGenerateContent');

/** Starts one server per wire format; sends their base URLs; closes when the parent goes. */
async function serve() {
  const servers = {};
  for (const format of Object.keys(built)) {
    const server = await startChatCompletionsServer({ recordRequests: false });
    server.fallback((request) => {
      const body = request.body;
      const list = streamed(request) ? built[format].sse : built[format].json;
      return list[turnOf[format](body)] ?? noReply;
    });
    servers[format] = server;
  }
  const urls = Object.fromEntries(Object.entries(servers).map(([name, s]) => [name, s.baseURL]));
  process.send?.({ urls });
  process.on('disconnect', () => {
    void Promise.all(Object.values(servers).map((server) => server.close())).then(() =>
      process.exit(0),
    );
  });
}

void serve();
