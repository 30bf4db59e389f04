import { describe, expect, it } from 'vitest';
import { createToolContext } from './tool-context.js';

describe('createToolContext', () => {
  it('fills fresh ids and a signal that is not aborted', () => {
    const first = createToolContext();
    const second = createToolContext();
    expect(first.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.traceId).not.toBe(second.traceId);
    expect(first.signal.aborted).toBe(false);
    expect(first.toolCallId).toBeUndefined();
  });

  it('keeps what the caller gives', () => {
    const controller = new AbortController();
    const updates: number[] = [];
    const context = createToolContext({
      sessionId: 's1',
      toolCallId: 'call_1',
      signal: controller.signal,
      progress: (update) => updates.push(update.progress),
    });
    expect(context.sessionId).toBe('s1');
    expect(context.toolCallId).toBe('call_1');
    context.progress?.({ progress: 3, total: 10 });
    controller.abort();
    expect(context.signal.aborted).toBe(true);
    expect(updates).toEqual([3]);
  });
});
