/**
 * Issue 25 §1 and §3: old results cleared from what is sent (tool-aware: every call keeps its
 * answer, ids intact), and `lastRequestBreakdown()`. On both loops.
 */
import { describe, expect, it } from 'vitest';
import { describeBrokenToolPairs } from '../loop/compaction.js';
import type { ChatMessage } from '../messages.js';
import {
  handleIn,
  loops,
  report,
  reportTools,
  runLoop,
  scriptedCycle,
  toolMessagesOf,
} from '../test-support/budget-kit.js';
import { textResponse, toolCallsResponse } from '../testing/index.js';

const reports = {
  a: report(31_000, 'A starts', 'A ends'),
  b: report(31_000, 'B starts', 'B ends'),
  c: report(2_000, 'C starts', 'C ends'),
  d: 'FACT D: a short answer',
};
const fetchOf = (name: string) =>
  toolCallsResponse([{ id: `call_${name}`, name: 'fetch_report', arguments: { name } }]);

describe.each(loops)('clearOldResults (%s)', (loop) => {
  it('sends a result whole keepTurns times, then its head and a marker keeping the handle', async () => {
    const { cycle, provider } = scriptedCycle(
      [fetchOf('a'), fetchOf('b'), fetchOf('c'), textResponse('done')],
      { spill: true, clearOldResults: { keepTurns: 1 } },
    );
    await runLoop(loop, cycle, 'read a, b and c', reportTools(reports));
    const [aInSecond] = toolMessagesOf(provider, 1);
    const [aInThird, bInThird] = toolMessagesOf(provider, 2);
    expect(aInSecond?.content).toContain('FACT A ends');
    expect(bInThird?.content).toContain('FACT B ends');
    expect(aInThird?.tool_call_id).toBe('call_a');
    expect(aInThird?.content).toMatch(/^FACT A starts/);
    expect(aInThird?.content).toMatch(
      /…\[an older result, cleared; read_result\(\{"handle":".+"\}\) reads it whole\]$/,
    );
    expect(handleIn(aInThird?.content ?? '')).toBe(handleIn(aInSecond?.content ?? ''));
    expect(Buffer.byteLength(aInThird?.content ?? '')).toBeLessThan(500);
    for (const call of provider.calls) {
      const messages = call.request.messages.slice(1) as ChatMessage[];
      expect(describeBrokenToolPairs(messages)).toBeUndefined();
    }
    // The cycle keeps the whole history; only what is sent is cleared.
    const kept = cycle.messages().find((message) => message.role === 'tool');
    expect(kept?.content).toBe(aInSecond?.content);
  });

  it('leaves short results and results of the last keepTurns turns as they are', async () => {
    const { cycle, provider } = scriptedCycle(
      [fetchOf('d'), fetchOf('a'), fetchOf('b'), fetchOf('c'), textResponse('done')],
      { clearOldResults: { keepTurns: 2 } },
    );
    await runLoop(loop, cycle, 'read d, a, b and c', reportTools(reports));
    expect(toolMessagesOf(provider, 2)[1]?.content).toContain('FACT A ends');
    expect(toolMessagesOf(provider, 3)[1]?.content).toContain('FACT A ends');
    const [d, a, b] = toolMessagesOf(provider, 4);
    expect(d?.content).toBe(reports.d);
    expect(a?.content).toMatch(/…\[an older result, cleared\]$/);
    expect(b?.content).toContain('FACT B ends');
  });
});

describe.each(loops)('lastRequestBreakdown (%s)', (loop) => {
  it('splits the last request into system, tool definitions, history and new results', async () => {
    const usage = { promptTokens: 4321, completionTokens: 5, totalTokens: 4326 };
    const { cycle, provider } = scriptedCycle([fetchOf('c'), textResponse('done', { usage })]);
    expect(cycle.lastRequestBreakdown()).toBeUndefined();
    await runLoop(loop, cycle, 'read c', reportTools(reports));
    const breakdown = cycle.lastRequestBreakdown();
    const request = provider.calls[1]?.request;
    const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
    const messages = request?.messages ?? [];
    expect(breakdown?.system).toEqual({
      bytes: bytes(messages[0]),
      estimatedTokens: Math.ceil(bytes(messages[0]) / 4),
    });
    expect(breakdown?.toolDefinitions.bytes).toBe(bytes(request?.tools?.[0]));
    expect(breakdown?.history.bytes).toBe(bytes(messages[1]) + bytes(messages[2]));
    expect(breakdown?.newResults.bytes).toBe(bytes(messages[3]));
    expect(breakdown?.newResults.bytes).toBeGreaterThan(2_000);
    expect(breakdown?.total.bytes).toBe(
      bytes(messages[0]) +
        bytes(request?.tools?.[0]) +
        messages.slice(1).reduce((sum, m) => sum + bytes(m), 0),
    );
    expect(breakdown?.reportedUsage).toEqual(usage);
  });
});
