/**
 * Issue 25 §1: spill keeps a long result whole behind a handle; the built-in `read_result`
 * reads slices and matching lines; an unknown or expired handle is an error the model reads.
 * On both loops.
 */
import { describe, expect, it } from 'vitest';
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
import { MemoryResultStore } from './result-store.js';

const long = report(66_000, 'error rate 0.2 %', 'last line: shutdown clean');
const fetch = toolCallsResponse([
  { id: 'call_fetch', name: 'fetch_report', arguments: { name: 'log' } },
]);
const tools = () => reportTools({ log: long });

function readCall(args: Record<string, string | number>, id = 'call_read') {
  return toolCallsResponse([{ id, name: 'read_result', arguments: args }]);
}

describe.each(loops)('spill and read_result (%s)', (loop) => {
  it('keeps the whole result, sends head + tail + handle, and read_result reads a slice', async () => {
    // The handle is known once the first result is in; the same run id and call id give it again.
    const first = scriptedCycle([fetch, textResponse('ok')], { spill: true });
    await runLoop(loop, first.cycle, 'read the log', tools());
    const handle = handleIn(toolMessagesOf(first.provider, 1)[0]?.content ?? '');
    const definitions = first.provider.calls[0]?.request.tools?.map((tool) => tool.function.name);
    expect(definitions).toEqual(['fetch_report', 'read_result']);

    const second = scriptedCycle(
      [
        fetch,
        readCall({ handle, offset: 30_000, length: 400 }),
        readCall({ handle, grep: 'LAST LINE' }, 'call_grep'),
        textResponse('the log ends with a clean shutdown'),
      ],
      { spill: true, runId: first.cycle.state().runId },
    );
    await runLoop(loop, second.cycle, 'read the log', tools());
    const [slice] = toolMessagesOf(second.provider, 2).slice(-1);
    const bytes = Buffer.from(long);
    const range = /^\[bytes (\d+)-(\d+) of (\d+)\]\n/.exec(slice?.content ?? '');
    const [start, end] = [Number(range?.[1]), Number(range?.[2])];
    // Offsets move to the nearest character boundary inside the asked range.
    expect(start).toBeGreaterThanOrEqual(30_000);
    expect(start).toBeLessThan(30_002);
    expect(end).toBeLessThanOrEqual(start + 400);
    expect(end).toBeGreaterThan(start + 396);
    expect(Number(range?.[3])).toBe(bytes.length);
    expect(slice?.content).toContain(bytes.subarray(start, end).toString());
    expect(slice?.content).not.toContain('\uFFFD');
    const lines = long.split('\n');
    const [grep] = toolMessagesOf(second.provider, 3).slice(-1);
    expect(grep?.content).toBe(`${lines.length}: FACT last line: shutdown clean`);
  });

  it('answers an unknown or expired handle with an error the model reads, and goes on', async () => {
    const store = new MemoryResultStore({ maxChars: 70_000 });
    const { cycle, provider } = scriptedCycle(
      [
        fetch,
        toolCallsResponse([{ id: 'call_again', name: 'fetch_report', arguments: { name: 'log' } }]),
        readCall({ handle: 'no-such-handle' }),
        textResponse('I could not read it'),
      ],
      { spill: { store } },
    );
    await runLoop(loop, cycle, 'read the log twice', tools());
    const firstHandle = handleIn(toolMessagesOf(provider, 1)[0]?.content ?? '');
    // The second result made the first expire from the bounded store.
    expect(store.get(firstHandle)).toBeUndefined();
    const unknown = toolMessagesOf(provider, 3).at(-1)?.content;
    expect(unknown).toMatch(
      /^Error \[invalid_arguments\]: No result is kept under handle "no-such-handle"/,
    );
    expect(cycle.messages().at(-1)).toEqual({ role: 'assistant', content: 'I could not read it' });
  });

  it('caps what one read returns and never cuts a character', async () => {
    const first = scriptedCycle([fetch, textResponse('ok')], {
      spill: true,
      maxToolResultBytes: 2048,
    });
    await runLoop(loop, first.cycle, 'read', tools());
    const handle = handleIn(toolMessagesOf(first.provider, 1)[0]?.content ?? '');
    const second = scriptedCycle(
      [fetch, readCall({ handle, offset: 31, length: 100_000 }), textResponse('ok')],
      { spill: true, maxToolResultBytes: 2048, runId: first.cycle.state().runId },
    );
    await runLoop(loop, second.cycle, 'read', tools());
    const content = toolMessagesOf(second.provider, 2).at(-1)?.content ?? '';
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(2048);
    expect(content).not.toContain('\uFFFD');
    expect(content).toMatch(/\[more from offset \d+: read_result/);
  });

  it('a store that fails costs only the handle: the model gets head + tail without one', async () => {
    const store = {
      put: () => Promise.reject(new Error('disk full')),
      get: () => undefined,
    };
    const { cycle, provider } = scriptedCycle([fetch, textResponse('ok')], { spill: { store } });
    await runLoop(loop, cycle, 'read', tools());
    const content = toolMessagesOf(provider, 1)[0]?.content ?? '';
    expect(content).toContain('FACT last line: shutdown clean');
    expect(content).not.toContain('read_result');
  });
});

describe('spill across a RunState', () => {
  it('the handle travels in the state: a shared store reads it, a fresh memory store says expired', async () => {
    const store = new MemoryResultStore();
    const first = scriptedCycle([fetch, textResponse('ok')], { spill: { store } });
    await first.cycle.submitWithTools('read', tools());
    const state = first.cycle.state();
    const handle = handleIn(JSON.stringify(state.messages).replaceAll('\\"', '"'));
    for (const [name, spillStore] of [
      ['shared', store],
      ['elsewhere', new MemoryResultStore()],
    ] as const) {
      const next = scriptedCycle([readCall({ handle, grep: 'error rate' }), textResponse('ok')], {
        spill: { store: spillStore },
        state,
        systemPrompt: undefined,
      });
      await next.cycle.submitWithTools('what was the error rate?', tools());
      const answer = toolMessagesOf(next.provider, 1).at(-1)?.content;
      if (name === 'shared') expect(answer).toBe('1: FACT error rate 0.2 %');
      else expect(answer).toMatch(/^Error \[invalid_arguments\]: No result is kept under handle/);
    }
  });
});
