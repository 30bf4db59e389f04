// The floor: the tool loop written by hand over fetch, as a careful user would without any
// framework (no validation, no retries, no events). Every framework is compared with it.
import { PROMPT, SYSTEM_PROMPT } from './scenario.mjs';

/** Chat Completions `tools` from a map of { name: { description, parameters } }. */
export function toChatTools(schemas) {
  return Object.entries(schemas).map(([name, schema]) => ({
    type: 'function',
    function: { name, description: schema.description, parameters: schema.parameters },
  }));
}

function post(fetchImpl, baseURL, body) {
  return fetchImpl(`${baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer bench-key' },
    body: JSON.stringify(body),
  });
}

async function failure(response) {
  return new Error(`HTTP ${response.status}: ${await response.text()}`);
}

/**
 * The non-streaming loop: ask, run the tool calls in parallel, append results, ask again.
 * @returns {Promise<{ text: string, messages: object[] }>}
 * @throws {Error} on an HTTP error or when `maxTurns` is reached.
 */
export async function bareLoop({
  baseURL,
  model,
  tools,
  implementation,
  fetch: fetchImpl = fetch,
  maxTurns = 10,
}) {
  const chatTools = toChatTools(tools);
  const messages = [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: PROMPT },
  ];
  for (let turn = 0; turn < maxTurns; turn++) {
    const response = await post(fetchImpl, baseURL, { model, messages, tools: chatTools });
    if (!response.ok) throw await failure(response);
    const data = await response.json();
    const message = data.choices[0].message;
    const calls = message.tool_calls ?? [];
    messages.push({
      role: 'assistant',
      content: message.content,
      ...(calls.length ? { tool_calls: calls } : {}),
    });
    if (calls.length === 0) return { text: message.content ?? '', messages };
    const results = await Promise.all(
      calls.map(async (call) =>
        implementation(call.function.name)(JSON.parse(call.function.arguments || '{}')),
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
  throw new Error(`bare loop: no answer after ${maxTurns} turns`);
}

/**
 * The streaming loop: SSE read by hand (getReader + TextDecoder, split on blank lines),
 * tool-call deltas assembled by index, `onText` called for every text delta.
 * @returns {Promise<{ text: string, messages: object[] }>}
 * @throws {Error} on an HTTP error or when `maxTurns` is reached.
 */
export async function bareStreamLoop({
  baseURL,
  model,
  tools,
  implementation,
  fetch: fetchImpl = fetch,
  maxTurns = 10,
  onText,
}) {
  const chatTools = toChatTools(tools);
  const messages = [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: PROMPT },
  ];
  const decoder = new TextDecoder();
  for (let turn = 0; turn < maxTurns; turn++) {
    const response = await post(fetchImpl, baseURL, {
      model,
      messages,
      tools: chatTools,
      stream: true,
      stream_options: { include_usage: true },
    });
    if (!response.ok) throw await failure(response);
    const reader = response.body.getReader();
    const calls = [];
    let text = '';
    let buffer = '';
    let done = false;
    while (!done) {
      const read = await reader.read();
      if (read.done) break;
      buffer += decoder.decode(read.value, { stream: true });
      let start = 0;
      let end = buffer.indexOf('\n\n', start);
      while (end !== -1) {
        const line = buffer.slice(start, end);
        start = end + 2;
        end = buffer.indexOf('\n\n', start);
        if (!line.startsWith('data: ')) continue;
        const data = line.slice(6);
        if (data === '[DONE]') {
          done = true;
          break;
        }
        const chunk = JSON.parse(data);
        const delta = chunk.choices[0]?.delta;
        if (delta === undefined) continue;
        if (delta.content) {
          text += delta.content;
          onText?.(delta.content);
        }
        if (delta.tool_calls) {
          for (const part of delta.tool_calls) {
            let call = calls[part.index];
            if (call === undefined) {
              call = { id: '', type: 'function', function: { name: '', arguments: '' } };
              calls[part.index] = call;
            }
            if (part.id) call.id = part.id;
            if (part.function?.name) call.function.name = part.function.name;
            if (part.function?.arguments) call.function.arguments += part.function.arguments;
          }
        }
      }
      buffer = buffer.slice(start);
    }
    if (!done) await reader.cancel();
    messages.push({
      role: 'assistant',
      content: text || null,
      ...(calls.length ? { tool_calls: calls } : {}),
    });
    if (calls.length === 0) return { text, messages };
    const results = await Promise.all(
      calls.map(async (call) =>
        implementation(call.function.name)(JSON.parse(call.function.arguments || '{}')),
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
  throw new Error(`bare stream loop: no answer after ${maxTurns} turns`);
}
