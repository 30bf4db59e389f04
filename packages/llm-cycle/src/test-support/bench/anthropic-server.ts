/**
 * The Messages server of the Anthropic bench: the conversation of `conversation.ts` (4 tool
 * turns, then 100 deltas), chosen by the number of assistant turns in the request, with usage
 * as the prompt cache would bill it (`billedUsage`).
 */
import {
  type MessagesReply,
  type ReceivedRequest,
  type ServerReply,
  startMessagesServer,
} from '../../testing/index.js';
import { messagesBody, messagesStream } from '../../testing/messages-wire-format.js';
import { finalPieces, turns } from './conversation.js';

/** Token counts of one request, as Anthropic bills them. */
export interface Billed {
  readonly input: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
}

/** Tokens of a JSON text, at the usual ~4 bytes per token. */
const tokensOf = (text: string): number => Math.ceil(Buffer.byteLength(text) / 4);

/**
 * What the prompt cache bills for a request (docs.anthropic.com/en/docs/build-with-claude/
 * prompt-caching, "How prompt caching works"): the prefix up to the last `cache_control`
 * breakpoint of the tools and system is written once (`cache_creation_input_tokens`), read on
 * every later request with the same prefix (`cache_read_input_tokens`); the rest, and
 * everything without a breakpoint, is `input_tokens`. `seen` holds the prefixes cached so far.
 */
export function billedUsage(body: Record<string, unknown>, seen: Set<string>): Billed {
  const prefix = JSON.stringify([body.tools ?? null, body.system ?? null]);
  const all = tokensOf(JSON.stringify([body.tools ?? null, body.system ?? null, body.messages]));
  if (!prefix.includes('"cache_control"')) return { input: all, cacheRead: 0, cacheWrite: 0 };
  const cached = tokensOf(prefix);
  // Shorter prefixes are not cached ("Cache limitations": 1 024 tokens for Sonnet and Opus).
  if (cached < 1024) return { input: all, cacheRead: 0, cacheWrite: 0 };
  const hit = seen.has(prefix);
  seen.add(prefix);
  return {
    input: all - cached,
    cacheRead: hit ? cached : 0,
    cacheWrite: hit ? 0 : cached,
  };
}

function replyFor(turn: number): MessagesReply {
  const calls = turns[turn];
  if (calls === undefined) return { text: finalPieces.join('') };
  return {
    calls: calls.map((call, index) => ({
      id: `toolu_${turn}_${index}`,
      name: call.name,
      input: JSON.parse(call.arguments),
      pieces: [call.arguments.slice(0, 5), call.arguments.slice(5, 11), call.arguments.slice(11)],
    })),
  };
}

/** The reply to `request`, its usage as billed; prebuilt when `prebuilt` has it. */
export function benchReply(request: ReceivedRequest, seen: Set<string>): ServerReply {
  const body = request.body as { stream?: boolean; messages: { role: string }[] };
  const turn = body.messages.filter((message) => message.role === 'assistant').length;
  const billed = billedUsage(body as Record<string, unknown>, seen);
  const reply: MessagesReply = { ...replyFor(turn), usage: { ...billed, output: 20 } };
  return body.stream === true
    ? { kind: 'sse', writes: [messagesStream(reply).join('')] }
    : { kind: 'json', body: messagesBody(reply) };
}

/** Starts the server (rules unchecked: the bench measures clients), sends its `baseURL` to the parent. */
export async function serveMessages(): Promise<void> {
  const server = await startMessagesServer({ recordRequests: false, checkRequests: false });
  const seen = new Set<string>();
  server.fallback((request) => benchReply(request, seen));
  process.send?.({ baseURL: server.baseURL });
  process.on('disconnect', () => {
    void server.close().then(() => process.exit(0));
  });
}
