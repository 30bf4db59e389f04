/**
 * How the bytes of an answer become text: reads that end on a character boundary are decoded on
 * their own, the others through a streaming decoder; a byte-order mark is dropped at the very
 * start of a body only, as a streaming `TextDecoder` does.
 */
import { describe, expect, it } from 'vitest';
import type { ChatChunk, ChatResponse } from '../../chat-provider.js';
import { useChatServer } from '../../test-support/chat-server.js';
import {
  completionChunk,
  completionId,
  sseDone,
  sseEvent,
  textCompletion,
} from '../../testing/index.js';
import { createOpenAICompatibleProvider } from '../openai-compatible/openai-compatible-provider.js';

const fixture = useChatServer({ resetBeforeEach: true });

const request = { model: 'm', messages: [{ role: 'user' as const, content: 'Hi' }] };
const bom = Buffer.from([0xef, 0xbb, 0xbf]);

async function streamedText(): Promise<string> {
  const provider = createOpenAICompatibleProvider({ baseURL: fixture.server.baseURL });
  let response: ChatResponse | undefined;
  let deltas = '';
  for await (const chunk of provider.chatStream(request) as AsyncIterable<ChatChunk>) {
    if (chunk.type === 'assistant_text_delta') deltas += chunk.text;
    if (chunk.type === 'response') response = chunk.response;
  }
  expect(response?.message.content).toBe(deltas);
  return deltas;
}

/** An SSE answer whose text is `text`, as bytes, ending with `[DONE]`. */
function answerBytes(text: string): Buffer {
  const id = completionId();
  return Buffer.from(
    sseEvent(completionChunk(id, { role: 'assistant', content: text })) +
      sseEvent(completionChunk(id, {}, 'stop')) +
      sseDone,
  );
}

describe('decoding the reads of an answer', () => {
  it('drops a byte-order mark at the start of a stream', async () => {
    fixture.server.reply({ kind: 'sse', writes: [Buffer.concat([bom, answerBytes('Hello')])] });
    expect(await streamedText()).toBe('Hello');
  });

  it('keeps a byte-order mark that starts a later read (it is text, not a mark)', async () => {
    const bytes = answerBytes('a\uFEFFb');
    const at = bytes.indexOf(bom);
    fixture.server.reply({
      kind: 'sse',
      writes: [bytes.subarray(0, at), bytes.subarray(at)],
      pause: 20,
    });
    expect(await streamedText()).toBe('a\uFEFFb');
  });

  it('assembles characters cut between reads, then goes on with reads that end on a boundary', async () => {
    const bytes = answerBytes('ß 🌸 é, then plain text');
    const flower = bytes.indexOf(Buffer.from('🌸'));
    const end = bytes.indexOf(Buffer.from('then'));
    fixture.server.reply({
      kind: 'sse',
      writes: [bytes.subarray(0, flower + 1), bytes.subarray(flower + 1, end), bytes.subarray(end)],
      pause: 20,
    });
    expect(await streamedText()).toBe('ß 🌸 é, then plain text');
  });

  it('reads a whole JSON answer that starts with a byte-order mark', async () => {
    const body = Buffer.concat([bom, Buffer.from(JSON.stringify(textCompletion('Fine.')))]);
    fixture.server.reply({
      kind: 'text',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body,
    });
    const provider = createOpenAICompatibleProvider({ baseURL: fixture.server.baseURL });
    expect((await provider.chat(request)).message.content).toBe('Fine.');
  });
});
