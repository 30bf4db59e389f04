// A local Chat Completions server that answers instantly from a script, in the exact wire
// format of the OpenAI API: a JSON `chat.completion`, or SSE `chat.completion.chunk` events
// with tool-call deltas by index, a usage chunk when `stream_options.include_usage` is set, and
// `data: [DONE]`. It checks each request (tools sent, tool results present with the right ids)
// so that a framework that skips work gets a 400 instead of a flattering figure. The HTTP side
// is the one test server of @agcore/llm-cycle/testing; it runs in the bench's main process
// (main.mjs), every client in a worker process of its own.
import { startChatCompletionsServer, wireUsage } from '@agcore/llm-cycle/testing';
import {
  answerDeltas,
  LONG_DELTAS,
  LOOP_ANSWER_DELTAS,
  loopToolTurns,
  SCALE_TOOLS,
  SCALE_TURNS,
  scaleCall,
} from './scenario.mjs';

const CREATED = 1_767_225_600;
const FINGERPRINT = 'fp_bench0001';

/** Tool messages a `loop` request must carry after `assistantTurns` assistant messages. */
const loopToolMessagesBefore = [0];
for (const calls of loopToolTurns) {
  loopToolMessagesBefore.push((loopToolMessagesBefore.at(-1) ?? 0) + calls.length);
}

function callId(turn, index) {
  return `call_${turn}_${index}`;
}

/** What the script says at turn `turn`: { calls } or { deltas }; undefined past its end. */
function scriptStep(model, turn) {
  if (model === 'loop') {
    if (turn < loopToolTurns.length) return { calls: loopToolTurns[turn] };
    if (turn === loopToolTurns.length) return { deltas: answerDeltas(LOOP_ANSWER_DELTAS) };
    return undefined;
  }
  if (model === 'long') return turn === 0 ? { deltas: answerDeltas(LONG_DELTAS) } : undefined;
  if (model === 'scale') {
    if (turn < SCALE_TURNS) return { calls: [scaleCall(turn)] };
    if (turn === SCALE_TURNS) return { deltas: answerDeltas(10) };
    return undefined;
  }
  return undefined;
}

function usageOf(messageCount, completionTokens) {
  return wireUsage(20 + messageCount * 12, completionTokens);
}

function completionBody(model, turn, step, messageCount) {
  const message = { role: 'assistant', content: null, refusal: null, annotations: [] };
  let finishReason = 'stop';
  let completionTokens;
  if (step.calls) {
    message.tool_calls = step.calls.map((call, index) => ({
      id: callId(turn, index),
      type: 'function',
      function: { name: call.name, arguments: JSON.stringify(call.arguments) },
    }));
    finishReason = 'tool_calls';
    completionTokens = 15 * step.calls.length;
  } else {
    message.content = step.deltas.join('');
    completionTokens = step.deltas.length;
  }
  return JSON.stringify({
    id: `chatcmpl-bench${turn}`,
    object: 'chat.completion',
    created: CREATED,
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
    usage: usageOf(messageCount, completionTokens),
    service_tier: 'default',
    system_fingerprint: FINGERPRINT,
  });
}

/** Splits a string in pieces of about `size` characters, as a tokenizer would. */
function pieces(text, size) {
  const out = [];
  for (let index = 0; index < text.length; index += size) out.push(text.slice(index, index + size));
  return out;
}

/**
 * The SSE body as two buffers: the first event (sent at once, with the headers) and the rest
 * (sent on the next turn of the event loop), so that "first byte" and "first delta" differ.
 */
function streamBody(model, turn, step, messageCount, includeUsage) {
  const id = `chatcmpl-bench${turn}`;
  const base = `"id":"${id}","object":"chat.completion.chunk","created":${CREATED},"model":${JSON.stringify(model)},"service_tier":"default","system_fingerprint":"${FINGERPRINT}"`;
  const usageTail = includeUsage ? ',"usage":null' : '';
  const event = (delta, finishReason = null) =>
    `data: {${base},"choices":[{"index":0,"delta":${JSON.stringify(delta)},"logprobs":null,"finish_reason":${finishReason === null ? 'null' : `"${finishReason}"`}}]${usageTail}}\n\n`;
  const events = [];
  let finishReason;
  let completionTokens;
  if (step.calls) {
    step.calls.forEach((call, index) => {
      const first = {
        index,
        id: callId(turn, index),
        type: 'function',
        function: { name: call.name, arguments: '' },
      };
      events.push(
        event(
          index === 0
            ? { role: 'assistant', content: null, tool_calls: [first] }
            : { tool_calls: [first] },
        ),
      );
      for (const piece of pieces(JSON.stringify(call.arguments), 4)) {
        events.push(event({ tool_calls: [{ index, function: { arguments: piece } }] }));
      }
    });
    finishReason = 'tool_calls';
    completionTokens = 15 * step.calls.length;
  } else {
    events.push(event({ role: 'assistant', content: '', refusal: null }));
    for (const text of step.deltas) events.push(event({ content: text }));
    finishReason = 'stop';
    completionTokens = step.deltas.length;
  }
  events.push(event({}, finishReason));
  if (includeUsage) {
    events.push(
      `data: {${base},"choices":[],"usage":${JSON.stringify(usageOf(messageCount, completionTokens))}}\n\n`,
    );
  }
  events.push('data: [DONE]\n\n');
  // The role event alone carries no content: send it together with the first content event.
  const headCount = 2;
  return [
    Buffer.from(events.slice(0, headCount).join('')),
    Buffer.from(events.slice(headCount).join('')),
  ];
}

/** Why a request does not follow the script, or undefined when it does. */
function checkRequest(model, body, assistantTurns, toolMessages) {
  const tools = Array.isArray(body.tools) ? body.tools.length : 0;
  const last = body.messages.at(-1);
  if (model === 'loop') {
    if (tools !== 3) return `expected 3 tools, got ${tools}`;
    if (toolMessages.length !== loopToolMessagesBefore[assistantTurns]) {
      return `expected ${loopToolMessagesBefore[assistantTurns]} tool messages at turn ${assistantTurns}, got ${toolMessages.length}`;
    }
  } else if (model === 'scale') {
    if (tools !== SCALE_TOOLS) return `expected ${SCALE_TOOLS} tools, got ${tools}`;
    if (toolMessages.length !== assistantTurns) {
      return `expected ${assistantTurns} tool messages, got ${toolMessages.length}`;
    }
  }
  if (assistantTurns === 0) {
    if (last?.role !== 'user') return 'the first request must end with the user message';
    return undefined;
  }
  if (last?.role !== 'tool') return `turn ${assistantTurns} must end with a tool message`;
  const previous = scriptStep(model, assistantTurns - 1);
  const expected = new Set(
    (previous?.calls ?? []).map((_, index) => callId(assistantTurns - 1, index)),
  );
  const got = toolMessages
    .slice(toolMessages.length - expected.size)
    .map((message) => message.tool_call_id);
  for (const id of got) {
    if (!expected.has(id)) return `unexpected tool_call_id ${id} at turn ${assistantTurns}`;
  }
  for (const message of toolMessages.slice(toolMessages.length - expected.size)) {
    const content =
      typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
    if (!content || content.length < 2) return `empty tool result for ${message.tool_call_id}`;
  }
  return undefined;
}

function errorReply(status, message) {
  return {
    kind: 'json',
    status,
    body: { error: { message, type: 'invalid_request_error', param: null, code: null } },
  };
}

/**
 * Starts the scripted server on 127.0.0.1.
 * @param {{ port?: number }} [options]
 * @returns {Promise<{ baseURL: string, stats: { requests: number, errors: number, lastError?: string }, close(): Promise<void> }>}
 */
export async function startChatServer(options = {}) {
  const stats = { requests: 0, errors: 0, lastError: undefined };
  const cache = new Map();
  const refuse = (status, problem) => {
    stats.errors++;
    stats.lastError = problem;
    return errorReply(status, problem);
  };
  const answer = (request) => {
    stats.requests++;
    if (request.method !== 'POST' || !request.url.endsWith('/chat/completions')) {
      return refuse(404, `unexpected ${request.method} ${request.url}`);
    }
    const body = request.body;
    if (typeof body !== 'object' || body === null) return refuse(400, 'request body is not JSON');
    const model = String(body.model);
    const messages = Array.isArray(body.messages) ? body.messages : [];
    let assistantTurns = 0;
    const toolMessages = [];
    for (const message of messages) {
      if (message.role === 'assistant') assistantTurns++;
      else if (message.role === 'tool') toolMessages.push(message);
    }
    const step = scriptStep(model, assistantTurns);
    const problem =
      step === undefined
        ? `no scripted answer for model '${model}' at turn ${assistantTurns}`
        : checkRequest(model, body, assistantTurns, toolMessages);
    if (problem !== undefined) return refuse(400, problem);
    const stream = body.stream === true;
    const includeUsage = stream && body.stream_options?.include_usage === true;
    const key = `${model}:${assistantTurns}:${stream}:${includeUsage}:${messages.length}`;
    let prepared = cache.get(key);
    if (prepared === undefined) {
      prepared = stream
        ? streamBody(model, assistantTurns, step, messages.length, includeUsage)
        : Buffer.from(completionBody(model, assistantTurns, step, messages.length));
      if (model !== 'scale') cache.set(key, prepared);
    }
    const headers = { 'x-request-id': `req_${stats.requests}` };
    // Streams: the first event with the headers, the rest on the next turn of the event loop.
    return stream
      ? { kind: 'sse', headers, writes: prepared, pause: 'next-turn', finish: 'end-with-last' }
      : {
          kind: 'text',
          status: 200,
          headers: { ...headers, 'content-type': 'application/json' },
          body: prepared,
        };
  };
  const server = await startChatCompletionsServer({
    ...(options.port === undefined ? {} : { port: options.port }),
    keepAliveTimeoutMs: 60_000,
    recordRequests: false,
  });
  server.fallback(answer);
  return { baseURL: server.baseURL, stats, close: () => server.close() };
}
