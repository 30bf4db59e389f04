/**
 * The HTTP driver's behaviour, pinned once and run over every wire format (the dialects of
 * `test-support/dialects`: each one's local server and real provider), so a format added there
 * gets these checks for free: a stall past idleTimeoutMs, a body over maxResponseBytes, a body
 * of the wrong kind, a body whose content type says nothing, a cut connection, what streamed
 * before an error, a large read handed over in pieces, and the connection given back (or cut)
 * at the end. Outcomes only (which error, which chunks, how many connections), never time.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ChatChunk, ChatProvider } from '../../chat-provider.js';
import { type DialectServer, dialects } from '../../test-support/dialects/index.js';
import { collectChunks, finalResponse, rejection } from '../../test-support/results.js';

const request = { model: 'test-model', messages: [{ role: 'user' as const, content: 'Hi' }] };

/** The text of the streamed deltas of `chunks`. */
function textOf(chunks: readonly ChatChunk[]): string {
  return chunks.map((chunk) => (chunk.type === 'assistant_text_delta' ? chunk.text : '')).join('');
}

/** Every batch of a streamed answer. */
async function batchesOf(provider: ChatProvider): Promise<(readonly ChatChunk[])[]> {
  const batched = provider.chatStreamBatches;
  if (batched === undefined) throw new Error('an HTTP provider streams in batches');
  const batches: (readonly ChatChunk[])[] = [];
  for await (const batch of batched.call(provider, request)) batches.push(batch);
  return batches;
}

describe.each(dialects)('the HTTP driver on $name', (dialect) => {
  let running: DialectServer;
  beforeAll(async () => {
    running = await dialect.start();
  });
  afterAll(async () => {
    await running.close();
  });
  const reply = (...replies: Parameters<DialectServer['server']['reply']>) =>
    running.server.reset().reply(...replies);

  it('reads a streamed answer and a whole one, and an SSE answer to a request that did not ask for one', async () => {
    reply(
      { kind: 'sse', writes: running.wire.streamed(['Hello ', 'there.']) },
      { kind: 'json', body: running.wire.whole('Hello there.') },
      { kind: 'sse', writes: running.wire.streamed(['Streamed ', 'anyway.']) },
    );
    const chunks = await collectChunks(running.provider().chatStream(request));
    expect(textOf(chunks)).toBe('Hello there.');
    expect(finalResponse(chunks).message.content).toBe('Hello there.');
    expect((await running.provider().chat(request)).message.content).toBe('Hello there.');
    expect((await running.provider().chat(request)).message.content).toBe('Streamed anyway.');
  });

  it('a stream that stalls mid-answer fails with timeout naming idleTimeoutMs, streamed or not', async () => {
    // Its own server: on a loaded machine the 150 ms can run out before the server has read a
    // request, and a request it reads after the test would take the next test's reply.
    const own = await dialect.start();
    try {
      const writes = own.wire.streamed(['Half an ', 'answer']).slice(0, 3);
      own.server.reply(
        { kind: 'sse', writes, finish: 'hold' },
        { kind: 'sse', writes, finish: 'hold' },
      );
      const provider = own.provider({ idleTimeoutMs: 150 });
      const streamed = await rejection(collectChunks(provider.chatStream(request)));
      const whole = await rejection(provider.chat(request));
      for (const error of [streamed, whole]) {
        expect(error.code).toBe('timeout');
        expect(error.isRetryable).toBe(true);
        expect(error.message).toContain('idleTimeoutMs (150 ms)');
      }
    } finally {
      await own.close();
    }
  });

  it('an answer over maxResponseBytes is refused with invalid_response, streamed or with its content-length', async () => {
    const long = Array.from({ length: 400 }, (_, index) => `piece ${index} `);
    reply(
      { kind: 'sse', writes: running.wire.streamed(long) },
      { kind: 'json', body: running.wire.whole(long.join('')) },
    );
    const provider = running.provider({ maxResponseBytes: 4096 });
    const streamed = await rejection(collectChunks(provider.chatStream(request)));
    const whole = await rejection(provider.chat(request));
    for (const error of [streamed, whole]) {
      expect(error.code).toBe('invalid_response');
      expect(error.message).toContain('maxResponseBytes (4096 bytes)');
    }
  });

  it('a page that is no answer is invalid_response naming its content type and first bytes, streamed or not', async () => {
    const page = {
      kind: 'text' as const,
      status: 200,
      headers: { 'content-type': 'text/html' },
      body: '<!DOCTYPE html><html><title>Sign in to the Wi-Fi</title></html>',
    };
    reply(page, page);
    const provider = running.provider();
    const streamed = await rejection(collectChunks(provider.chatStream(request)));
    const whole = await rejection(provider.chat(request));
    for (const error of [streamed, whole]) {
      expect(error.code).toBe('invalid_response');
      expect(error.isRetryable).toBe(false);
      expect(error.message).toContain("content type 'text/html'");
      expect(error.message).toContain('Sign in to the Wi-Fi');
      expect(error.message).toContain('Check baseURL');
    }
  });

  it('a body whose content type says nothing is recognised by its first bytes: SSE streamed, JSON read whole', async () => {
    const vague = { 'content-type': 'application/octet-stream' };
    const sse = running.wire.streamed(['Sniffed ', 'stream.']).join('');
    const json = JSON.stringify(running.wire.whole('Sniffed body.'));
    reply(
      { kind: 'text', status: 200, headers: vague, body: `\n${sse}` },
      { kind: 'text', status: 200, headers: vague, body: ` ${json}` },
      { kind: 'text', status: 200, headers: vague, body: json },
    );
    const provider = running.provider();
    const chunks = await collectChunks(provider.chatStream(request));
    expect(textOf(chunks)).toBe('Sniffed stream.');
    const whole = await collectChunks(provider.chatStream(request));
    expect(textOf(whole)).toBe('Sniffed body.');
    expect(finalResponse(whole).message.content).toBe('Sniffed body.');
    expect((await provider.chat(request)).message.content).toBe('Sniffed body.');
  });

  it('a connection cut mid-answer is a retryable network error, streamed or not', async () => {
    const writes = running.wire.streamed(['Cut ', 'short']).slice(0, 3);
    reply({ kind: 'sse', writes, finish: 'cut' }, { kind: 'sse', writes, finish: 'cut' });
    const provider = running.provider();
    const streamed = await rejection(collectChunks(provider.chatStream(request)));
    const whole = await rejection(provider.chat(request));
    for (const error of [streamed, whole]) {
      expect(error.code).toBe('network');
      expect(error.isRetryable).toBe(true);
    }
  });

  it('what streamed before an error event is handed over first, however the reads were cut', async () => {
    const events = running.wire.streamed(['Before ', 'the error']);
    const first = events.findIndex((event) => event.includes('Before '));
    const writes = [...events.slice(0, first + 1), running.wire.errorEvent('The model crashed.')];
    for (const cut of [writes, [writes.join('')]]) {
      reply({ kind: 'sse', writes: cut });
      const seen: ChatChunk[] = [];
      const error = await rejection(
        (async () => {
          for await (const chunk of running.provider().chatStream(request)) seen.push(chunk);
        })(),
      );
      expect(error.code).toBe('stream_error');
      expect(error.message).toContain('The model crashed.');
      expect(textOf(seen)).toBe('Before ');
    }
  });

  it('hands over the first chunks of a large read before parsing all of it, in order', async () => {
    const pieces = Array.from({ length: 3000 }, (_, index) => `w${index} `);
    reply({ kind: 'sse', writes: [running.wire.streamed(pieces).join('')] });
    const batches = await batchesOf(running.provider());
    const chunks = batches.flat();
    expect(textOf(chunks)).toBe(pieces.join(''));
    expect(finalResponse(chunks).message.content).toBe(pieces.join(''));
    expect(batches.length).toBeGreaterThan(3);
    expect(batches[0]?.length).toBeLessThan(20);
  });

  it('hands over a read of a few KiB as one batch (slicing it costs a batch per slice)', async () => {
    const pieces = Array.from({ length: 40 }, (_, index) => `w${index} `);
    const body = running.wire.streamed(pieces).join('');
    expect(body.length).toBeGreaterThan(2048);
    expect(body.length).toBeLessThan(32 * 1024);
    reply({ kind: 'sse', writes: [body] });
    const batches = await batchesOf(running.provider());
    // All of it in the first batch (a format without a terminal event ends with the body, whose
    // end is a read of its own: the response then comes in a second batch).
    expect(textOf(batches[0] ?? [])).toBe(pieces.join(''));
    expect(finalResponse(batches.flat()).message.content).toBe(pieces.join(''));
  });

  it('gives the connection back after each answer: a conversation of requests opens one', async () => {
    const own = await dialect.start();
    try {
      own.server.reply(
        { kind: 'sse', writes: own.wire.streamed(['One.']) },
        { kind: 'json', body: own.wire.whole('Two.') },
        { kind: 'sse', writes: own.wire.streamed(['Three.']), finish: 'end-with-last' },
        { kind: 'sse', writes: own.wire.streamed(['Four.']) },
      );
      const provider = own.provider();
      expect(textOf(await collectChunks(provider.chatStream(request)))).toBe('One.');
      expect((await provider.chat(request)).message.content).toBe('Two.');
      expect(textOf(await collectChunks(provider.chatStream(request)))).toBe('Three.');
      expect((await provider.chat(request)).message.content).toBe('Four.');
      expect(own.server.connections()).toBe(1);
    } finally {
      await own.close();
    }
  });

  // Counts of connections opened are not asserted after a cut: Node's fetch (undici, Node 20.20)
  // opens a spare idle connection once a body is cancelled, whichever provider cancelled it.
  it('a consumer that stops early cuts the connection; the next request goes through', async () => {
    const own = await dialect.start();
    try {
      const events = own.wire.streamed(['Never ', 'read ', 'to the end.']);
      own.server.reply(
        { kind: 'sse', writes: events.slice(0, -1), finish: 'hold' },
        { kind: 'sse', writes: own.wire.streamed(['Again.']) },
      );
      const provider = own.provider();
      for await (const chunk of provider.chatStream(request)) {
        if (chunk.type === 'assistant_text_delta') break;
      }
      await vi.waitFor(() => expect(own.server.disconnects()).toBe(1), { timeout: 10_000 });
      expect(textOf(await collectChunks(provider.chatStream(request)))).toBe('Again.');
    } finally {
      await own.close();
    }
  });

  it('after the last event, a body held open is cut and the next request goes through', async () => {
    const own = await dialect.start();
    try {
      own.server.reply(
        { kind: 'sse', writes: own.wire.streamed(['Done, ', 'but held.']), finish: 'hold' },
        { kind: 'sse', writes: own.wire.streamed(['Next.']) },
      );
      const provider = own.provider({ idleTimeoutMs: 500 });
      if (own.wire.terminalEvent) {
        const chunks = await collectChunks(provider.chatStream(request));
        expect(finalResponse(chunks).message.content).toBe('Done, but held.');
      } else {
        // Without a terminal event only the end of the body ends the answer.
        expect((await rejection(collectChunks(provider.chatStream(request)))).code).toBe('timeout');
      }
      await vi.waitFor(() => expect(own.server.disconnects()).toBe(1), { timeout: 10_000 });
      expect(textOf(await collectChunks(provider.chatStream(request)))).toBe('Next.');
    } finally {
      await own.close();
    }
  });
});
