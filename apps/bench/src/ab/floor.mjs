// The floor of a trustworthy loop (`pnpm bench --floor`): the bare Chat Completions loop plus,
// one level at a time, the guarantees no trustworthy loop can drop, to show what they cost by
// themselves against the bare loop (docs/benchmarks.md, "The floor of the guarantees"):
// - `signal`: each request gets an AbortSignal of its own, which the conversation's aborts (what
//   ends a request whose time limit ran out before the headers, and a caller's cancel);
// - `bounded`: the answer is read within a size cap instead of `response.json()`;
// - `checked`: each call's arguments are checked against its schema (and the permission policy)
//   by `ToolRegistry.checkCall`, and each result is checked to be JSON by `describeNonJson`.
// No time limit per tool, no typed errors, no events, no history bookkeeping: a floor, not a loop
// anyone should ship.
import { defineTool, describeNonJson } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { chatTools, json } from './bare.mjs';
import {
  PROMPT,
  requestsPerConversation,
  SYSTEM,
  toolFunctions,
  toolSchemas,
} from './conversation.mjs';

/** The floor's levels, each with the guarantees of the one before it. */
export const floorLevels = Object.freeze({
  signal: 'bare + an AbortSignal per request',
  bounded: 'bare + signal + answer read within a size cap',
  checked: 'bare + signal + size cap + arguments checked, results checked as JSON',
});

const maxResponseBytes = 32 * 1024 * 1024;

const registry = new ToolRegistry();
for (const [name, schema] of Object.entries(toolSchemas)) {
  registry.register(
    defineTool({ name, ...schema, execute: async (args) => toolFunctions[name](args) }),
  );
}

/** The JSON answer of `response`, read chunk by chunk and refused past the size cap. */
async function boundedJson(response) {
  const reader = response.body.getReader();
  const parts = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxResponseBytes) {
      await reader.cancel();
      throw new Error(`the answer is over ${maxResponseBytes} bytes`);
    }
    parts.push(value);
  }
  const bytes = parts.length === 1 ? parts[0] : Buffer.concat(parts);
  return JSON.parse(new TextDecoder().decode(bytes));
}

/** The result of one call at `level`: checked before and after when the level says so. */
async function runCall(call, level) {
  const name = call.function.name;
  const args = JSON.parse(call.function.arguments || '{}');
  if (level === 'checked') {
    const refusal = registry.checkCall(name, args);
    if (refusal !== undefined) throw refusal;
  }
  const result = await toolFunctions[name](args);
  if (level === 'checked') {
    const problem = describeNonJson(result);
    if (problem !== undefined)
      throw new Error(`${name} returned a value that is not JSON: ${problem}`);
  }
  return result;
}

/** One model request at `level`, under the conversation's signal; resolves to the assistant message. */
async function request(baseURL, messages, conversation, level) {
  const controller = new AbortController();
  const forward = () => controller.abort(conversation.reason);
  conversation.addEventListener('abort', forward, { once: true });
  try {
    const response = await fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ model: 'gpt-4o-mini', messages, tools: chatTools }),
      signal: controller.signal,
    });
    const answer = level === 'signal' ? await response.json() : await boundedJson(response);
    return answer.choices[0].message;
  } finally {
    conversation.removeEventListener('abort', forward);
  }
}

/** The floor loop at `level` (a key of `floorLevels`), non-streamed; resolves to 0 like the bare loops. */
export async function floorChat(baseURL, level) {
  if (!Object.hasOwn(floorLevels, level)) throw new Error(`unknown floor level ${level}`);
  const conversation = new AbortController().signal;
  const messages = [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: PROMPT },
  ];
  for (let requests = 1; ; requests++) {
    const message = await request(baseURL, messages, conversation, level);
    messages.push(message);
    const calls = message.tool_calls ?? [];
    if (calls.length === 0) {
      if (requests !== requestsPerConversation)
        throw new Error(`the floor loop made ${requests} requests, not ${requestsPerConversation}`);
      return 0;
    }
    const results = await Promise.all(calls.map((call) => runCall(call, level)));
    calls.forEach((call, index) => {
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: JSON.stringify(results[index]),
      });
    });
  }
}
