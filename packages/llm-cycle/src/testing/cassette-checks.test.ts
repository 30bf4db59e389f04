/**
 * `replayCassette` refuses what it could not replay as asked, when the replay is made: bad
 * options (a `TypeError` naming the option and the value) and bad cassettes (naming the
 * exchange and the field), instead of replaying something else or failing later as a
 * `network` or `invalid_response` error.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../chat-provider.js';
import { LlmError } from '../llm-error.js';
import { type Cassette, replayCassette, textStream } from './index.js';

const request: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'Hi' }] };
const answer = textStream(['Hello ', 'wörld, ', 'and more text to cut into reads.']).join('');
const text = 'Hello wörld, and more text to cut into reads.';

function cassette(response: Record<string, unknown> = {}): Cassette {
  return {
    version: 1,
    baseURL: 'http://127.0.0.1:9/v1',
    exchanges: [
      {
        request: { method: 'POST', path: '/v1/chat/completions', body: request },
        response: {
          status: 200,
          headers: { 'content-type': 'text/event-stream' },
          body: answer,
          ...response,
        } as Cassette['exchanges'][number]['response'],
      },
    ],
  };
}

/** `value` as JSON, with NaN and Infinity named. */
function shown(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'number' && !Number.isFinite(item) ? String(item) : item,
  );
}

/** The TypeError `replayCassette` throws (synchronously), or `undefined`. */
function refusal(make: () => unknown): TypeError | undefined {
  try {
    make();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return error as TypeError;
  }
}

/** The sizes of the reads the replayed body gives. */
async function readSizes(replay: ReturnType<typeof replayCassette>): Promise<number[]> {
  const response = await replay.fetch('http://127.0.0.1:9/v1/chat/completions', {
    method: 'POST',
    body: JSON.stringify(request),
  });
  const sizes: number[] = [];
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  for (let read = await reader.read(); read.done !== true; read = await reader.read())
    sizes.push(read.value.length);
  return sizes;
}

describe('replayCassette: options', () => {
  const bad: [unknown, string, string][] = [
    [{ maxBytes: -1 }, 'options.reads.minBytes', 'undefined'],
    [{ minBytes: 1, maxBytes: -1, seed: 1 }, 'options.reads.maxBytes', '-1'],
    [{ minBytes: 5, maxBytes: 2, seed: 1 }, 'options.reads.maxBytes', '2'],
    ['bogus', 'options.reads', '"bogus"'],
    [{ minBytes: Number.NaN }, 'options.reads.minBytes', 'NaN'],
    [{ minBytes: 0, maxBytes: 4, seed: 1 }, 'options.reads.minBytes', '0'],
    [{ minBytes: 1.5, maxBytes: 4, seed: 1 }, 'options.reads.minBytes', '1.5'],
    [
      { minBytes: 1, maxBytes: Number.POSITIVE_INFINITY, seed: 1 },
      'options.reads.maxBytes',
      'Infinity',
    ],
    [{ minBytes: 1, maxBytes: 4 }, 'options.reads.seed', 'undefined'],
    [{ minBytes: 1, maxBytes: 4, seed: '7' }, 'options.reads.seed', '"7"'],
    [null, 'options.reads', 'null'],
    [['whole'], 'options.reads', '["whole"]'],
  ];
  for (const [reads, option, value] of bad) {
    it(`refuses reads ${shown(reads)}, naming ${option}`, () => {
      const error = refusal(() => replayCassette(cassette(), { reads } as never));
      expect(error?.message).toContain(option);
      expect(error?.message).toContain(`got ${value}`);
    });
  }

  it('refuses ignoredFields that are not field names, and options that are not an object', () => {
    expect(
      refusal(() => replayCassette(cassette(), { ignoredFields: 'stream' } as never))?.message,
    ).toContain('options.ignoredFields');
    expect(
      refusal(() => replayCassette(cassette(), { ignoredFields: [1] } as never))?.message,
    ).toContain('options.ignoredFields');
    expect(refusal(() => replayCassette(cassette(), 'fast' as never))?.message).toContain(
      'options must be an object',
    );
  });

  it('split reads are what they say: every read from minBytes to maxBytes (the last may be shorter)', async () => {
    for (const [minBytes, maxBytes] of [
      [1, 1],
      [2, 5],
      [7, 7],
    ] as const) {
      const sizes = await readSizes(
        replayCassette(cassette(), { reads: { minBytes, maxBytes, seed: -3 } }),
      );
      expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(Buffer.byteLength(answer));
      expect(sizes.length).toBeGreaterThan(1);
      for (const size of sizes.slice(0, -1)) {
        expect(size).toBeGreaterThanOrEqual(minBytes);
        expect(size).toBeLessThanOrEqual(maxBytes);
      }
    }
  });

  it('property: any reads value is refused at once with a TypeError, or replays the answer in reads it allows', async () => {
    const integerish = fc.oneof(
      fc.integer({ min: -3, max: 40 }),
      fc.double(),
      fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0, 2 ** 60),
      fc.anything(),
    );
    const reads = fc.oneof(
      fc.constantFrom('whole', 'recorded', 'bogus', '', 'WHOLE'),
      fc.record(
        { minBytes: integerish, maxBytes: integerish, seed: integerish },
        { requiredKeys: [] },
      ),
      fc.anything(),
    );
    await fc.assert(
      fc.asyncProperty(reads, async (value) => {
        const error = refusal(() => replayCassette(cassette(), { reads: value } as never));
        if (error !== undefined) {
          expect(error.message).toMatch(/^replayCassette: options\.reads/);
          return;
        }
        const replay = replayCassette(cassette(), { reads: value } as never);
        const response = await replay.provider().chat(request);
        expect(response.message.content).toBe(text);
        if (typeof value !== 'object' || value === null) return;
        const { minBytes, maxBytes } = value as { minBytes: number; maxBytes: number };
        const sizes = await readSizes(replayCassette(cassette(), { reads: value } as never));
        for (const size of sizes.slice(0, -1)) {
          expect(size).toBeGreaterThanOrEqual(minBytes);
          expect(size).toBeLessThanOrEqual(maxBytes);
        }
      }),
      { seed: 18, numRuns: 300 },
    );
  });
});

describe('replayCassette: the cassette', () => {
  const bad: [string, Record<string, unknown>, string][] = [
    ['a status "abc"', { status: 'abc' }, 'response.status must be an integer HTTP status'],
    ['a negative status', { status: -1 }, 'got -1'],
    ['a status 200.5', { status: 200.5 }, 'got 200.5'],
    ['a status 99', { status: 99 }, 'got 99'],
    ['a status 600', { status: 600 }, 'got 600'],
    [
      'no status',
      { status: undefined },
      'response.status must be an integer HTTP status from 200 to 599, got undefined',
    ],
    ['no body', { body: undefined }, 'response.body must be a string'],
    ['a body that is JSON, not text', { body: { id: 'x' } }, 'response.body must be a string'],
    ['headers with a number', { headers: { 'retry-after': 5 } }, 'response.headers'],
    ['a header name with a space', { headers: { 'content type': 'x' } }, 'response.headers'],
    ['a header value with a newline', { headers: { a: 'b\r\nc: d' } }, 'response.headers'],
    ['chunks that are not the body', { chunks: ['data: ', 'other'] }, 'response.chunks'],
    ['chunks with a number', { chunks: [answer, 1] }, 'response.chunks'],
    ['a 204 with a body', { status: 204 }, 'an HTTP 204 answer has no body'],
  ];
  for (const [label, response, message] of bad) {
    it(`refuses ${label}, naming the exchange and the field`, () => {
      const error = refusal(() => replayCassette(cassette(response)));
      expect(error?.message).toContain('cassette.exchanges[0].response.');
      expect(error?.message).toContain(message);
    });
  }

  it('refuses a missing request or response, a request without method or path, a bad baseURL', () => {
    const valid = cassette();
    const exchange = valid.exchanges[0] as Cassette['exchanges'][number];
    const cases: [unknown, string][] = [
      [{ ...valid, exchanges: [null] }, 'cassette.exchanges[0] must be'],
      [
        { ...valid, exchanges: [{ response: exchange.response }] },
        'cassette.exchanges[0].request ',
      ],
      [{ ...valid, exchanges: [{ request: exchange.request }] }, 'cassette.exchanges[0].response '],
      [
        { ...valid, exchanges: [exchange, { ...exchange, request: { path: '/v1/x' } }] },
        'cassette.exchanges[1].request.method',
      ],
      [
        { ...valid, exchanges: [{ ...exchange, request: { method: 'POST', path: 'v1' } }] },
        'cassette.exchanges[0].request.path',
      ],
      [{ ...valid, baseURL: 'not a url' }, 'cassette.baseURL'],
      [{ ...valid, baseURL: undefined }, 'cassette.baseURL'],
      [{ ...valid, version: 2 }, 'not a cassette'],
    ];
    for (const [broken, message] of cases)
      expect(refusal(() => replayCassette(broken as Cassette))?.message).toContain(message);
  });

  it('a 204 without a body and a 429 replay as the server sent them', async () => {
    const empty = replayCassette(cassette({ status: 204, body: '', headers: {} }));
    const response = await empty.fetch('http://127.0.0.1:9/v1/chat/completions', {
      method: 'POST',
      body: JSON.stringify(request),
    });
    expect(response.status).toBe(204);
    const limited = replayCassette(
      cassette({
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': '2' },
        body: '{"error":{"message":"slow down"}}',
      }),
    );
    const error = await limited
      .provider()
      .chat(request)
      .catch((reason: unknown) => reason);
    expect(LlmError.isInstance(error) && [error.code, error.statusCode]).toEqual([
      'rate_limited',
      429,
    ]);
  });

  it('property: a garbage status is refused at load, naming it, or replays as that status', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.integer({ min: -10, max: 700 }), fc.double(), fc.anything()),
        async (status) => {
          const error = refusal(() => replayCassette(cassette({ status, body: '' })));
          if (error !== undefined) {
            expect(error.message).toContain('cassette.exchanges[0].response.status');
            return;
          }
          const replay = replayCassette(cassette({ status, body: '' }));
          const response = await replay.fetch('http://127.0.0.1:9/v1/chat/completions', {
            method: 'POST',
            body: JSON.stringify(request),
          });
          expect(response.status).toBe(status);
        },
      ),
      { seed: 18, numRuns: 300 },
    );
  });
});
