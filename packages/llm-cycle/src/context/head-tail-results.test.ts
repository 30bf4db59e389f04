/**
 * Issue 25 §1: a long tool result keeps its head and its tail (the total at the bottom of a
 * report, the last lines of a log), UTF-8 safe, on both loops.
 */
import { describe, expect, it } from 'vitest';
import {
  loops,
  report,
  reportTools,
  runLoop,
  scriptedCycle,
  toolMessagesOf,
} from '../test-support/budget-kit.js';
import { textResponse, toolCallsResponse } from '../testing/index.js';
import { cutHeadTail } from './head-tail.js';

const long = report(51_000, 'revenue grew 7 %', 'total due 4 210 EUR');

describe.each(loops)('head + tail truncation (%s)', (loop) => {
  it('sends the start and the end of a long result by default, with what was cut between', async () => {
    const { cycle, provider } = scriptedCycle([
      toolCallsResponse([{ name: 'fetch_report', arguments: { name: 'q3' } }]),
      textResponse('done'),
    ]);
    await runLoop(loop, cycle, 'Summarize q3', reportTools({ q3: long }));
    const [sent] = toolMessagesOf(provider, 1);
    const content = sent?.content ?? '';
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(16 * 1024);
    expect(Buffer.byteLength(content)).toBeGreaterThan(16 * 1024 - 80);
    expect(content).toContain('FACT revenue grew 7 %');
    expect(content).toContain('FACT total due 4 210 EUR');
    const marker = /\[truncated: (\d+) of (\d+) bytes cut from the middle\]/.exec(content);
    expect(Number(marker?.[2])).toBe(Buffer.byteLength(long));
    expect(Buffer.byteLength(content.replace(/\n…\[.*\]…\n/, ''))).toBe(
      Buffer.byteLength(long) - Number(marker?.[1]),
    );
  });

  it('keeps exactly `head` and `tail` bytes when given, the limit following them', async () => {
    const { cycle, provider } = scriptedCycle(
      [
        toolCallsResponse([{ name: 'fetch_report', arguments: { name: 'q3' } }]),
        textResponse('ok'),
      ],
      { truncation: { head: 120, tail: 60 } },
    );
    await runLoop(loop, cycle, 'Summarize q3', reportTools({ q3: long }));
    const content = toolMessagesOf(provider, 1)[0]?.content ?? '';
    const [head, tail] = content.split(/\n…\[truncated: \d+ of \d+ bytes cut from the middle\]…\n/);
    expect(long.startsWith(head ?? '?')).toBe(true);
    expect(long.endsWith(tail ?? '?')).toBe(true);
    expect(Buffer.byteLength(head ?? '')).toBeLessThanOrEqual(120);
    expect(Buffer.byteLength(head ?? '')).toBeGreaterThan(116);
    expect(Buffer.byteLength(tail ?? '')).toBeLessThanOrEqual(60);
    expect(tail).toContain('FACT total due');
  });
});

describe('cutHeadTail', () => {
  it('never cuts inside a character, and shrinks head and tail in proportion to fit the total', () => {
    for (const unit of ['é', '東', '🌸', 'a']) {
      for (const limit of [64, 65, 66, 67, 100, 333]) {
        const text = unit.repeat(400);
        const cut = cutHeadTail(text, { limit, head: 1000, tail: 1000 });
        expect(cut.truncated).toBe(true);
        expect(Buffer.byteLength(cut.text)).toBeLessThanOrEqual(limit);
        expect(cut.text).not.toContain('\uFFFD');
        const [head, tail] = cut.text.split(/\n…\[.*\]…\n/);
        expect(text.startsWith(head ?? '?') && text.endsWith(tail ?? '?')).toBe(true);
      }
    }
  });

  it('leaves a text that fits as it is', () => {
    expect(cutHeadTail('é'.repeat(40), { limit: 80, head: 10, tail: 10 })).toEqual({
      text: 'é'.repeat(40),
      truncated: false,
    });
  });
});
