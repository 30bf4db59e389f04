import { describe, expect, it } from 'vitest';
import type { ChatChunk, ChatRequest } from '../../chat-provider.js';
import { LlmError } from '../../llm-error.js';
import { useMessagesServer } from '../../test-support/dialects/messages-fixture.js';
import {
  messagesBody,
  messagesError,
  messagesErrorEvent,
  messagesEvent,
  messagesRuleBreak,
  messagesStream,
} from '../../testing/index.js';
import { createAnthropicProvider } from './anthropic-provider.js';

const fixture = useMessagesServer();
const key = 'sk-ant-api03-SECRETSECRET';
const provider = (options: object = {}) =>
  createAnthropicProvider({ apiKey: key, baseURL: fixture.server.baseURL, ...options });
const request: ChatRequest = {
  model: 'claude-sonnet-4-5',
  messages: [{ role: 'user', content: 'Hi' }],
};

async function failure(run: () => Promise<unknown>): Promise<LlmError> {
  try {
    await run();
  } catch (error) {
    if (LlmError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

async function drain(stream: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const chunks: ChatChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe('HTTP errors', () => {
  it('529 overloaded_error: http_error, retryable, retry-after honoured, the vendor type kept', async () => {
    fixture.server.reply({
      kind: 'json',
      status: 529,
      headers: { 'retry-after': '2' },
      body: messagesError('overloaded_error', 'Overloaded'),
    });
    const error = await failure(() => provider().chat(request));
    expect(error.code).toBe('http_error');
    expect(error.statusCode).toBe(529);
    expect(error.isRetryable).toBe(true);
    expect(error.retryAfterMs).toBe(2000);
    expect(error.message).toContain('overloaded_error');
    expect(error.message).toContain('Overloaded');
  });

  it('429 rate_limit_error is retryable, 400 invalid_request_error is not', async () => {
    fixture.server.reply(
      { kind: 'json', status: 429, body: messagesError('rate_limit_error', 'Slow down') },
      { kind: 'json', status: 400, body: messagesError('invalid_request_error', 'Bad') },
    );
    const limited = await failure(() => provider().chat(request));
    expect([limited.code, limited.statusCode, limited.isRetryable]).toEqual([
      'rate_limited',
      429,
      true,
    ]);
    expect(limited.message).toContain('rate_limit_error');
    const refused = await failure(() => provider().chat(request));
    expect([refused.statusCode, refused.isRetryable]).toEqual([400, false]);
  });

  it('500 api_error is an http_error the cycle retries (isRetryable)', async () => {
    fixture.server.reply({
      kind: 'json',
      status: 500,
      body: messagesError('api_error', 'Internal'),
    });
    const error = await failure(() => provider().chat(request));
    expect([error.statusCode, error.isRetryable]).toEqual([500, true]);
    expect(error.message).toContain('api_error');
  });

  it('an error event mid-stream is a stream_error naming the vendor type, after the text streamed', async () => {
    const writes = messagesStream({ text: 'Hello there friend' });
    fixture.server.reply({
      kind: 'sse',
      writes: [...writes.slice(0, 4), messagesErrorEvent('overloaded_error', 'Overloaded')],
    });
    const chunks: ChatChunk[] = [];
    const error = await failure(async () => {
      for await (const chunk of provider().chatStream(request)) chunks.push(chunk);
    });
    expect(error.code).toBe('stream_error');
    expect(error.message).toContain('overloaded_error');
    expect(error.isRetryable).toBe(true);
    expect(chunks.some((chunk) => chunk.type === 'assistant_text_delta')).toBe(true);
  });
});

describe('broken answers', () => {
  it('a stream cut before message_delta is invalid_response; cut after it, the answer stands', async () => {
    const writes = messagesStream({ text: 'Hello there' });
    fixture.server.reply({ kind: 'sse', writes: writes.slice(0, 5), finish: 'cut' });
    const cut = await failure(() => drain(provider().chatStream(request)));
    expect(cut.code === 'invalid_response' || cut.code === 'network').toBe(true);
    fixture.server.reply({ kind: 'sse', writes: writes.slice(0, -1) });
    const chunks = await drain(provider().chatStream(request));
    expect(chunks.at(-1)?.type).toBe('response');
  });

  it('skips a block type the loop does not use (a server tool), deltas included', async () => {
    const writes = messagesStream({ text: 'Found it.' });
    const serverTool = [
      messagesEvent({
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
      }),
      messagesEvent({
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'input_json_delta', partial_json: '{"query":"x"}' },
      }),
      messagesEvent({ type: 'content_block_stop', index: 1 }),
    ];
    fixture.server.reply({
      kind: 'sse',
      writes: [...writes.slice(0, -2), ...serverTool, ...writes.slice(-2)],
    });
    const chunks = await drain(provider().chatStream(request));
    const last = chunks.at(-1);
    expect(last?.type === 'response' && last.response.message).toEqual({
      role: 'assistant',
      content: 'Found it.',
    });
    expect(chunks.some((chunk) => chunk.type === 'tool_call_delta')).toBe(false);
  });

  it('a stream that ends before the model finished is invalid_response', async () => {
    const writes = messagesStream({ text: 'Hello there' });
    fixture.server.reply({ kind: 'sse', writes: writes.slice(0, 5) });
    const error = await failure(() => drain(provider().chatStream(request)));
    expect(error.code).toBe('invalid_response');
    expect(error.message).toContain('ended before the model finished');
  });

  it('a page that is not a Messages answer is invalid_response, whole or streamed', async () => {
    fixture.server.reply(
      {
        kind: 'text',
        status: 200,
        headers: { 'content-type': 'text/html' },
        body: '<html>login</html>',
      },
      { kind: 'json', body: { choices: [] } },
    );
    expect((await failure(() => drain(provider().chatStream(request)))).code).toBe(
      'invalid_response',
    );
    expect((await failure(() => provider().chat(request))).code).toBe('invalid_response');
  });

  it('an answer over maxResponseBytes is refused with invalid_response', async () => {
    fixture.server.reply({ kind: 'sse', writes: messagesStream({ text: 'x '.repeat(5000) }) });
    const error = await failure(() =>
      drain(provider({ maxResponseBytes: 4096 }).chatStream(request)),
    );
    expect(error.code).toBe('invalid_response');
    expect(error.message).toContain('maxResponseBytes');
  });

  it('a stalled stream fails with timeout within idleTimeoutMs', async () => {
    fixture.server.reply({
      kind: 'sse',
      writes: messagesStream({ text: 'Hi' }).slice(0, 2),
      finish: 'hold',
    });
    const error = await failure(() => drain(provider({ idleTimeoutMs: 150 }).chatStream(request)));
    expect(error.code).toBe('timeout');
  });

  it('takes the key out of an answer that echoes it, in an error and in the text', async () => {
    fixture.server.reply(
      {
        kind: 'json',
        status: 401,
        body: messagesError('authentication_error', `invalid x-api-key ${key}`),
      },
      { kind: 'sse', writes: messagesStream({ text: `your key is ${key} ok` }) },
    );
    const error = await failure(() => provider().chat(request));
    expect(JSON.stringify({ message: error.message, body: error.responseBody })).not.toContain(key);
    const chunks = await drain(provider().chatStream(request));
    expect(JSON.stringify(chunks)).not.toContain(key);
    expect(JSON.stringify(chunks)).toContain('[redacted]');
  });
});

describe('the local server follows the API rules', () => {
  const post = (
    body: unknown,
    headers: Record<string, string> = { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
  ) => messagesRuleBreak({ method: 'POST', url: '/v1/messages', headers, body });
  const call = { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} };
  const base = { model: 'claude', max_tokens: 10 };

  it('refuses a missing header or max_tokens, a tool_use without its result, a result before its call', () => {
    expect(post(base, {})).toMatchObject({ status: 401 });
    expect(post({ model: 'claude', messages: [{ role: 'user', content: 'x' }] })).toMatchObject({
      status: 400,
    });
    const unanswered = [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: [call] },
      { role: 'user', content: 'go on' },
    ];
    expect(post({ ...base, messages: unanswered })).toMatchObject({ status: 400 });
    const orphan = [
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: '' }] },
    ];
    expect(post({ ...base, messages: orphan })).toMatchObject({ status: 400 });
    const answered = [
      unanswered[0],
      unanswered[1],
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '1' }] },
    ];
    expect(post({ ...base, messages: answered })).toBeUndefined();
  });

  it('refuses an altered thinking block, and a thinking tool turn without one', () => {
    const body = messagesBody({
      thinking: 'Let me think.',
      calls: [{ id: 'toolu_1', name: 'f', input: {} }],
    });
    const content = body.content as Record<string, unknown>[];
    const history = (blocks: unknown[]) => [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: blocks },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '1' }] },
    ];
    const thinking = { type: 'enabled', budget_tokens: 1024 };
    expect(post({ ...base, thinking, messages: history(content) })).toBeUndefined();
    const altered = [{ ...content[0], thinking: 'Let me think!' }, content[1]];
    expect(post({ ...base, thinking, messages: history(altered) })).toMatchObject({ status: 400 });
    expect(post({ ...base, thinking, messages: history([content[1]]) })).toMatchObject({
      status: 400,
    });
  });
});
