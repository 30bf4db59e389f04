// The scripted model of the token bench: it calls fetch_log({ index: 0 }), then after the
// result of call_i fetch_log({ index: i + 1 }), and after the fifth result it answers. It records every request, so the bench can count the bytes each framework sends.
import {
  startChatCompletionsServer,
  textCompletion,
  toolCallCompletion,
} from '@agcore/llm-cycle/testing';
import { TOOL_TURNS } from './conversation.mjs';

/** Starts the scripted model; `requests` holds the bodies received since the last `reset()`. */
export async function startTokenServer() {
  const server = await startChatCompletionsServer({ recordRequests: true });
  server.fallback((request) => {
    const messages = Array.isArray(request.body?.messages) ? request.body.messages : [];
    // The turn follows the newest tool result (pruning may drop older ones, never that one).
    const last = messages.at(-1);
    const answered = last?.role === 'tool' ? /^call_(\d+)$/.exec(String(last.tool_call_id)) : null;
    const turn = answered === null ? 0 : Number(answered[1]) + 1;
    if (turn >= TOOL_TURNS) return { kind: 'json', body: textCompletion('All five batches read.') };
    const call = {
      id: `call_${turn}`,
      name: 'fetch_log',
      arguments: JSON.stringify({ index: turn }),
    };
    return { kind: 'json', body: toolCallCompletion([call]) };
  });
  return {
    baseURL: server.baseURL,
    /** The request bodies received since the last reset, as sent (re-serialized JSON). */
    bodies: () => server.requests.map((request) => JSON.stringify(request.body)),
    reset: () => {
      server.requests.length = 0;
    },
    close: () => server.close(),
  };
}
