import { describe, expect, it, vi } from 'vitest';
import { isRetryableStatus, LlmError, llmErrorCodes } from './llm-error.js';
import {
  describeBrokenToolPairs,
  dropOldestExchanges,
  estimateTokens,
  groupExchanges,
} from './loop/compaction.js';
import { truncateUtf8 } from './loop/truncate.js';
import type { ChatMessage } from './messages.js';
import { resolveRetryOptions, retryDelay } from './retry.js';

describe('truncateUtf8', () => {
  it('leaves short text alone', () => {
    expect(truncateUtf8('hello', 100)).toEqual({ text: 'hello', truncated: false });
    expect(truncateUtf8('é'.repeat(50), 100)).toEqual({ text: 'é'.repeat(50), truncated: false });
  });

  it('never cuts inside a character and stays within the limit, marker included', () => {
    for (const unit of ['a', 'é', '東', '🌸']) {
      for (const limit of [60, 61, 62, 63, 100]) {
        const { text, truncated } = truncateUtf8(unit.repeat(200), limit);
        expect(truncated).toBe(true);
        expect(Buffer.byteLength(text)).toBeLessThanOrEqual(limit);
        expect(text).not.toContain('\uFFFD');
        const [kept, marker] = text.split('\n…');
        expect(kept).toBe(unit.repeat([...(kept ?? '')].length));
        const total = Buffer.byteLength(unit.repeat(200));
        expect(marker).toBe(
          `[truncated: ${total - Buffer.byteLength(kept ?? '')} of ${total} bytes cut]`,
        );
      }
    }
  });
});

describe('LlmError', () => {
  it('survives two copies of the module (instanceof and isInstance)', async () => {
    vi.resetModules();
    const specifier = './llm-error.js?copy';
    const copy = (await import(/* @vite-ignore */ specifier)) as typeof import('./llm-error.js');
    const foreign = new copy.LlmError('network', 'x');
    expect(copy.LlmError).not.toBe(LlmError);
    expect(foreign instanceof LlmError).toBe(true);
    expect(LlmError.isInstance(foreign)).toBe(true);
    expect(new Error('x') instanceof LlmError).toBe(false);
  });

  it('derives isRetryable from code and status, and serializes without cause', () => {
    expect(new LlmError('http_error', 'x', { statusCode: 429 }).isRetryable).toBe(true);
    expect(new LlmError('http_error', 'x', { statusCode: 404 }).isRetryable).toBe(false);
    expect(new LlmError('network', 'x').isRetryable).toBe(true);
    expect(new LlmError('cancelled', 'x').isRetryable).toBe(false);
    expect([408, 409, 429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 422].some(isRetryableStatus)).toBe(false);
    expect(
      JSON.parse(
        JSON.stringify(
          new LlmError('http_error', 'boom', { statusCode: 500, cause: new Error('inner') }),
        ),
      ),
    ).toEqual({
      name: 'LlmError',
      code: 'http_error',
      message: 'boom',
      statusCode: 500,
      isRetryable: true,
    });
    expect(llmErrorCodes).toContain('max_turns_exceeded');
    expect(llmErrorCodes).toContain('rate_limited');
    expect(new LlmError('rate_limited', 'x', { statusCode: 429 }).isRetryable).toBe(true);
  });
});

describe('retryDelay', () => {
  const options = resolveRetryOptions({
    initialDelayMs: 100,
    maxDelayMs: 1000,
    jitter: false,
    maxRetries: 5,
  });
  it('backs off exponentially, bounded, and honours Retry-After up to maxDelayMs', () => {
    const error = new LlmError('network', 'x');
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelay(error, attempt, options))).toEqual([
      100, 200, 400, 800, 1000,
    ]);
    expect(retryDelay(error, 6, options)).toBeUndefined();
    expect(
      retryDelay(
        new LlmError('http_error', 'x', { statusCode: 429, retryAfterMs: 700 }),
        1,
        options,
      ),
    ).toBe(700);
    expect(
      retryDelay(
        new LlmError('http_error', 'x', { statusCode: 429, retryAfterMs: 5000 }),
        1,
        options,
      ),
    ).toBeUndefined();
    expect(
      retryDelay(new LlmError('http_error', 'x', { statusCode: 400 }), 1, options),
    ).toBeUndefined();
    expect(retryDelay(new Error('x'), 1, options)).toBeUndefined();
  });
  it('jitters between half and all of the delay', () => {
    const jittered = resolveRetryOptions({ initialDelayMs: 100 });
    for (let index = 0; index < 50; index++) {
      const delay = retryDelay(new LlmError('network', 'x'), 1, jittered) ?? -1;
      expect(delay >= 50 && delay <= 100).toBe(true);
    }
  });
  it('rejects nonsense options', () => {
    expect(() => resolveRetryOptions({ maxRetries: -1 })).toThrow(RangeError);
  });
});

describe('compaction', () => {
  const history: ChatMessage[] = [
    { role: 'user', content: 'first question '.repeat(10) },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'result one '.repeat(10) },
    { role: 'assistant', content: 'answer one '.repeat(10) },
    { role: 'user', content: 'second question' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'c2', type: 'function', function: { name: 'f', arguments: '{}' } },
        { id: 'c3', type: 'function', function: { name: 'f', arguments: '{}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'c2', content: 'two' },
    { role: 'tool', tool_call_id: 'c3', content: 'three' },
  ];

  it('groups tool calls with their tool messages', () => {
    expect(
      groupExchanges(history).map((unit) => unit.map((message) => message.role).join('+')),
    ).toEqual(['user', 'assistant+tool', 'assistant', 'user', 'assistant+tool+tool']);
  });

  it('drops oldest units until it fits, keeping pairs, the last user message and the newest unit', async () => {
    const signal = new AbortController().signal;
    for (let budget = 0; budget < 200; budget += 5) {
      const kept = await dropOldestExchanges()({
        messages: history,
        maxTokens: budget,
        estimateTokens,
        signal,
      });
      expect(describeBrokenToolPairs(kept)).toBeUndefined();
      expect(kept).toContain(history[4]);
      expect(kept.slice(-3)).toEqual(history.slice(-3));
      if (estimateTokens(kept) > budget) expect(kept).toEqual(history.slice(4));
    }
  });

  it('describes broken pairs', () => {
    expect(describeBrokenToolPairs(history)).toBeUndefined();
    expect(describeBrokenToolPairs(history.slice(0, 2))).toMatch(/c1/);
    expect(describeBrokenToolPairs(history.slice(2))).toMatch(/no assistant tool call/);
    expect(describeBrokenToolPairs([...history.slice(0, 2), history[4] as ChatMessage])).toMatch(
      /have no tool message/,
    );
  });
});
