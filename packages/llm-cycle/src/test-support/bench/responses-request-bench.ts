/**
 * `pnpm bench:responses` (second part): the client CPU of one request, the loop left out, for
 * a bare `fetch` of a Responses answer, the Responses provider and the Chat Completions provider
 * on an answer of the same size (a reasoning item and a call, or 100 streamed deltas). The
 * server runs in this process, so its CPU is in every figure alike: compare the differences.
 * CPU time, not wall time, so that a loaded machine moves the figures less. Medians of 6 rounds
 * of 300 requests, interleaved. `STREAM=1`: streamed.
 */

import { createOpenAICompatibleProvider } from '../../providers/openai-compatible/openai-compatible-provider.js';
import { createOpenAIResponsesProvider } from '../../providers/openai-responses/openai-responses-provider.js';
import {
  functionCallItem,
  messageItem,
  reasoningItem,
  responseEvents,
  responseObject,
  startChatCompletionsServer,
  textStream,
  toolCallCompletion,
} from '../../testing/index.js';

const server = await startChatCompletionsServer({ recordRequests: false });
const body = responseObject({
  output: [reasoningItem('Turn.'), functionCallItem('get_weather', '{"city":"Paris"}', 'call_1')],
});
const final = responseObject({
  output: [messageItem(Array.from({ length: 100 }, (_, index) => `word${index} `).join(''))],
});
const sse = responseEvents(final, 100).join('');
const cc = textStream(Array.from({ length: 100 }, (_, index) => `word${index} `)).join('');
const ccWhole = toolCallCompletion([
  { id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
]);
server.fallback((received) => {
  const sent = received.body as { stream?: boolean; messages?: unknown };
  if (sent.messages !== undefined)
    return sent.stream === true ? { kind: 'sse', writes: [cc] } : { kind: 'json', body: ccWhole };
  return sent.stream === true ? { kind: 'sse', writes: [sse] } : { kind: 'json', body };
});
const mode = process.env.STREAM === '1';
const responses = createOpenAIResponsesProvider({ baseURL: server.baseURL, apiKey: 'sk-bench' });
const compat = createOpenAICompatibleProvider({ baseURL: server.baseURL, apiKey: 'sk-bench' });
const request = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }] };
const bare = async () => {
  const response = await fetch(`${server.baseURL}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', input: 'hi', ...(mode ? { stream: true } : {}) }),
  });
  if (mode) await response.text();
  else await response.json();
};
const ours = async () => {
  if (mode) {
    for await (const _chunk of responses.chatStream(request));
  } else await responses.chat(request);
};
const theirs = async () => {
  if (mode) {
    for await (const _chunk of compat.chatStream(request));
  } else await compat.chat(request);
};
/** Client CPU per request over 300 requests, in µs. */
const cpu = async (send: () => Promise<void>): Promise<number> => {
  const start = process.cpuUsage();
  for (let index = 0; index < 300; index++) await send();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 300;
};
for (const send of [bare, ours, theirs]) await cpu(send);
const out = { bare: [] as number[], ours: [] as number[], cc: [] as number[] };
for (let round = 0; round < 6; round++) {
  out.bare.push(await cpu(bare));
  out.ours.push(await cpu(ours));
  out.cc.push(await cpu(theirs));
}
const med = (values: number[]) => [...values].sort((a, b) => a - b)[3];
process.stdout.write(
  `${mode ? 'streamed' : 'not streamed'}: client CPU µs per request: bare fetch ${med(out.bare)?.toFixed(0)}, Responses provider ${med(out.ours)?.toFixed(0)}, Chat Completions provider ${med(out.cc)?.toFixed(0)}\n`,
);
await server.close();
