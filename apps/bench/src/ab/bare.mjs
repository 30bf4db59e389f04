// The floors of the A/B suites: hand-written tool loops over `fetch`, one per wire format, no
// validation, no retries; streamed ones split the body on blank lines and `JSON.parse` each
// data line. Each resolves to the number of stream events it read (0 when not streamed).
import {
  PROMPT,
  requestsPerConversation,
  SYSTEM,
  toolFunctions,
  toolSchemas,
} from './conversation.mjs';

/** The headers of the OpenAI wire formats. */
export const json = { 'content-type': 'application/json', authorization: 'Bearer sk-bench' };

/** Calls every data line of an SSE body with its text; resolves when the body ends. */
async function readFrames(response, onData) {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const bytes of response.body) {
    buffer += decoder.decode(bytes, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const at = frame.indexOf('data: ');
      if (at !== -1) onData(frame.slice(at + 6));
      end = buffer.indexOf('\n\n');
    }
  }
}

const run = (name, args) => toolFunctions[name]?.(args);

/** `events`, once the conversation took the script's number of requests (else it went wrong). */
function done(requests, events) {
  if (requests !== requestsPerConversation)
    throw new Error(`the bare loop made ${requests} requests, not ${requestsPerConversation}`);
  return events;
}

// Chat Completions.
/** The tools as Chat Completions sends them. */
export const chatTools = Object.entries(toolSchemas).map(([name, schema]) => ({
  type: 'function',
  function: { name, ...schema },
}));

async function readChatTurn(response) {
  const turn = { content: '', calls: [], events: 0 };
  await readFrames(response, (data) => {
    if (data === '[DONE]') return;
    const delta = JSON.parse(data).choices[0]?.delta;
    if (delta === undefined) return;
    turn.events++;
    if (typeof delta.content === 'string') turn.content += delta.content;
    for (const piece of delta.tool_calls ?? []) {
      turn.calls[piece.index] ??= {
        id: piece.id ?? '',
        type: 'function',
        function: { name: piece.function?.name ?? '', arguments: '' },
      };
      turn.calls[piece.index].function.arguments += piece.function?.arguments ?? '';
    }
  });
  const message = { role: 'assistant', content: turn.content === '' ? null : turn.content };
  if (turn.calls.length > 0) message.tool_calls = turn.calls;
  return { message, events: turn.events };
}

/** Chat Completions, streamed or not. */
export async function bareChat(baseURL, stream) {
  const messages = [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: PROMPT },
  ];
  let events = 0;
  for (let requests = 1; ; requests++) {
    const body = { model: 'gpt-4o-mini', messages, tools: chatTools };
    if (stream) Object.assign(body, { stream: true, stream_options: { include_usage: true } });
    const response = await fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify(body),
    });
    let message;
    if (stream) {
      const turn = await readChatTurn(response);
      events += turn.events;
      message = turn.message;
    } else message = (await response.json()).choices[0].message;
    messages.push(message);
    const calls = message.tool_calls ?? [];
    if (calls.length === 0) return done(requests, events);
    const results = await Promise.all(
      calls.map(async (call) =>
        run(call.function.name, JSON.parse(call.function.arguments || '{}')),
      ),
    );
    calls.forEach((call, index) => {
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: JSON.stringify(results[index]),
      });
    });
  }
}

// Anthropic Messages.
const messagesTools = Object.entries(toolSchemas).map(([name, schema]) => ({
  name,
  description: schema.description,
  input_schema: schema.parameters,
}));
const messagesHeaders = {
  'content-type': 'application/json',
  'x-api-key': 'sk-ant-bench',
  'anthropic-version': '2023-06-01',
};

async function readMessagesTurn(response) {
  const blocks = [];
  const partial = [];
  let events = 0;
  await readFrames(response, (data) => {
    const event = JSON.parse(data);
    events++;
    if (event.type === 'content_block_start') {
      blocks[event.index] = { ...event.content_block };
      partial[event.index] = '';
    } else if (event.type === 'content_block_delta') {
      const block = blocks[event.index];
      if (event.delta.type === 'text_delta') block.text = `${block.text ?? ''}${event.delta.text}`;
      else if (event.delta.type === 'input_json_delta')
        partial[event.index] += event.delta.partial_json;
    } else if (event.type === 'content_block_stop') {
      const block = blocks[event.index];
      if (block.type === 'tool_use') block.input = JSON.parse(partial[event.index] || '{}');
    }
  });
  return { content: blocks, events };
}

/** Anthropic Messages, streamed or not. */
export async function bareMessages(baseURL, stream) {
  const messages = [{ role: 'user', content: PROMPT }];
  let events = 0;
  for (let requests = 1; ; requests++) {
    const body = {
      model: 'claude-bench',
      max_tokens: 4096,
      system: SYSTEM,
      messages,
      tools: messagesTools,
    };
    if (stream) body.stream = true;
    const response = await fetch(`${baseURL}/messages`, {
      method: 'POST',
      headers: messagesHeaders,
      body: JSON.stringify(body),
    });
    let content;
    if (stream) {
      const turn = await readMessagesTurn(response);
      events += turn.events;
      content = turn.content;
    } else content = (await response.json()).content;
    messages.push({ role: 'assistant', content });
    const calls = content.filter((block) => block.type === 'tool_use');
    if (calls.length === 0) return done(requests, events);
    const results = await Promise.all(calls.map(async (call) => run(call.name, call.input)));
    messages.push({
      role: 'user',
      content: calls.map((call, index) => ({
        type: 'tool_result',
        tool_use_id: call.id,
        content: JSON.stringify(results[index]),
      })),
    });
  }
}

// OpenAI Responses.
const responsesTools = Object.entries(toolSchemas).map(([name, schema]) => ({
  type: 'function',
  name,
  ...schema,
}));

async function readResponsesTurn(response) {
  let events = 0;
  let output = [];
  await readFrames(response, (data) => {
    const event = JSON.parse(data);
    events++;
    if (event.type === 'response.completed') output = event.response.output;
  });
  return { output, events };
}

/** OpenAI Responses, streamed or not (`store: false`, reasoning kept encrypted). */
export async function bareResponses(baseURL, stream) {
  const input = [{ type: 'message', role: 'user', content: PROMPT }];
  let events = 0;
  for (let requests = 1; ; requests++) {
    const body = {
      model: 'gpt-5-mini',
      instructions: SYSTEM,
      input,
      tools: responsesTools,
      store: false,
      include: ['reasoning.encrypted_content'],
    };
    if (stream) body.stream = true;
    const response = await fetch(`${baseURL}/responses`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify(body),
    });
    let output;
    if (stream) {
      const turn = await readResponsesTurn(response);
      events += turn.events;
      output = turn.output;
    } else output = (await response.json()).output;
    input.push(...output);
    const calls = output.filter((item) => item.type === 'function_call');
    if (calls.length === 0) return done(requests, events);
    const results = await Promise.all(
      calls.map(async (call) => run(call.name, JSON.parse(call.arguments || '{}'))),
    );
    calls.forEach((call, index) => {
      input.push({
        type: 'function_call_output',
        call_id: call.call_id,
        output: JSON.stringify(results[index]),
      });
    });
  }
}

// Gemini.
const geminiTools = [
  {
    functionDeclarations: Object.entries(toolSchemas).map(([name, schema]) => ({
      name,
      description: schema.description,
      parametersJsonSchema: schema.parameters,
    })),
  },
];
const geminiHeaders = { 'content-type': 'application/json', 'x-goog-api-key': 'AIza-bench' };

async function readGeminiTurn(response) {
  const parts = [];
  let events = 0;
  await readFrames(response, (data) => {
    events++;
    parts.push(...(JSON.parse(data).candidates?.[0]?.content?.parts ?? []));
  });
  return { parts, events };
}

/** Gemini, streamed or not: the model's parts go back as they came (signatures included). */
export async function bareGemini(baseURL, stream) {
  const contents = [{ role: 'user', parts: [{ text: PROMPT }] }];
  let events = 0;
  for (let requests = 1; ; requests++) {
    const body = { contents, systemInstruction: { parts: [{ text: SYSTEM }] }, tools: geminiTools };
    const method = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
    const response = await fetch(`${baseURL}/models/gemini-bench:${method}`, {
      method: 'POST',
      headers: geminiHeaders,
      body: JSON.stringify(body),
    });
    let parts;
    if (stream) {
      const turn = await readGeminiTurn(response);
      events += turn.events;
      parts = turn.parts;
    } else parts = (await response.json()).candidates[0].content.parts;
    contents.push({ role: 'model', parts });
    const calls = parts.filter((part) => part.functionCall !== undefined);
    if (calls.length === 0) return done(requests, events);
    const results = await Promise.all(
      calls.map(async (part) => run(part.functionCall.name, part.functionCall.args)),
    );
    contents.push({
      role: 'user',
      parts: calls.map((part, index) => ({
        functionResponse: {
          id: part.functionCall.id,
          name: part.functionCall.name,
          response: { result: JSON.stringify(results[index]) },
        },
      })),
    });
  }
}

/** The floor of each wire format. */
export const bareLoops = {
  chat: bareChat,
  messages: bareMessages,
  responses: bareResponses,
  gemini: bareGemini,
};
