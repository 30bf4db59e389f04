/** Issue 25: the budget options refuse what cannot work, naming the option. */
import { describe, expect, it } from 'vitest';
import { LlmCycle } from '../loop/llm-cycle.js';
import {
  handleIn,
  report,
  reportTools,
  runLoop,
  scriptedCycle,
  toolMessagesOf,
} from '../test-support/budget-kit.js';
import { ScriptedProvider, textResponse, toolCallsResponse } from '../testing/index.js';

const make = (options: Record<string, unknown>) => () =>
  new LlmCycle({ provider: new ScriptedProvider(), model: 'm', ...options });

describe('budget options', () => {
  it('refuses spill without a limit or with too small a one, and malformed stores', () => {
    expect(make({ spill: true, maxToolResultBytes: null })).toThrow(/spill needs a result limit/);
    expect(make({ spill: true, maxToolResultBytes: 512 })).toThrow(RangeError);
    expect(make({ spill: { store: {} } })).toThrow(/put and get/);
  });

  it('refuses bad sizes, keepTurns and thresholds', () => {
    expect(make({ truncation: { head: -1 } })).toThrow(/truncation.head/);
    expect(make({ truncation: 5 })).toThrow(TypeError);
    expect(make({ clearOldResults: { keepTurns: 0 } })).toThrow(/keepTurns/);
    expect(make({ toolSearch: { threshold: Number.NaN } })).toThrow(/threshold/);
    expect(make({ toolSearch: { threshold: 5, alwaysOn: 'core' } })).toThrow(/alwaysOn/);
    expect(make({ toolSearch: { threshold: 5, maxResults: 0 } })).toThrow(/maxResults/);
  });

  it('a store whose get throws is an execution_failed the model reads, not a crash', async () => {
    const kept = new Map<string, string>();
    const store = {
      put: (handle: string, content: string) => void kept.set(handle, content),
      get: (): string => {
        throw new Error('store offline');
      },
    };
    const long = report(40_000, 'first', 'last');
    const first = scriptedCycle(
      [
        toolCallsResponse([{ id: 'call_f', name: 'fetch_report', arguments: { name: 'r' } }]),
        textResponse('ok'),
      ],
      { spill: { store } },
    );
    await runLoop('submitWithTools', first.cycle, 'go', reportTools({ r: long }));
    const handle = handleIn(toolMessagesOf(first.provider, 1)[0]?.content ?? '');
    expect(kept.get(handle)).toBe(long);
    const second = scriptedCycle(
      [
        toolCallsResponse([{ id: 'call_r', name: 'read_result', arguments: { handle } }]),
        textResponse('sorry'),
      ],
      { spill: { store } },
    );
    await runLoop('submitStreamWithTools', second.cycle, 'read it', reportTools({}));
    expect(toolMessagesOf(second.provider, 1)[0]?.content).toMatch(
      /^Error \[execution_failed\]: .*store offline/,
    );
  });
});
