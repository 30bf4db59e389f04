import { describe, expect, it } from 'vitest';
import { alternate, minorCollect, pairOrder } from './alternate.mjs';

/** A fake clock and CPU: each conversation of a side advances both by that side's cost. */
function fakeMachine(costs) {
  const state = { wall: 0, cpu: 0, log: [] };
  const contender = (side) => async () => {
    const cost = typeof costs[side] === 'function' ? costs[side](state.log.length) : costs[side];
    state.log.push(side);
    state.cpu += cost.cpu;
    state.wall += cost.wall;
  };
  return {
    state,
    a: contender('a'),
    b: contender('b'),
    sources: { wallMs: () => state.wall, cpuMs: () => state.cpu },
  };
}

describe('pairOrder', () => {
  it('alternates A B, B A, so the passes run A B B A A B …', () => {
    const sequence = [0, 1, 2, 3].flatMap((index) => pairOrder(index));
    expect(sequence.join('')).toBe('abbaabba');
  });
});

describe('alternate', () => {
  it('runs the warm-up pairs, then the recorded ones, in alternating order', async () => {
    const machine = fakeMachine({ a: { cpu: 1, wall: 2 }, b: { cpu: 1.1, wall: 2 } });
    const result = await alternate(machine.a, machine.b, {
      pairs: 20,
      warmupPairs: 2,
      conversations: 3,
      sources: machine.sources,
      collect: null,
    });
    expect(result.pairs).toBe(20);
    expect(result.order.slice(0, 4).join('')).toBe('abba');
    // 22 pairs of 2 passes of 3 conversations, the warm-up first.
    expect(machine.state.log).toHaveLength(22 * 2 * 3);
    expect(machine.state.log.slice(0, 12).join('')).toBe('aaabbbbbbaaa');
    expect(result.a.cpuMs).toBeCloseTo(1, 12);
    expect(result.b.cpuMs).toBeCloseTo(1.1, 12);
    expect(result.cpuRatio.median).toBeCloseTo(1.1, 12);
    expect(result.cpuRatio.low).toBeCloseTo(1.1, 12);
    expect(result.wallRatio.median).toBeCloseTo(1, 12);
  });

  it('the interval of noisy pairs is their 6th and 15th order statistics', async () => {
    // A costs 1 ms of CPU; B costs 1 + i/100 in recorded pair i (one conversation per pass).
    const state = { wall: 0, cpu: 0, calls: 0 };
    const a = async () => {
      state.cpu += 1;
      state.wall += 1;
    };
    const b = async () => {
      state.cpu += 1 + state.calls++ / 100;
      state.wall += 1;
    };
    const result = await alternate(a, b, {
      pairs: 20,
      warmupPairs: 0,
      conversations: 1,
      sources: { wallMs: () => state.wall, cpuMs: () => state.cpu },
      collect: null,
    });
    expect(result.cpuRatio.median).toBeCloseTo(1.095, 12);
    expect(result.cpuRatio.low).toBeCloseTo(1.05, 12);
    expect(result.cpuRatio.high).toBeCloseTo(1.14, 12);
    expect(result.cpuRatio.coverage).toBeGreaterThanOrEqual(0.95);
  });

  it('calls collect before every pass and refuses fewer than 20 pairs', async () => {
    const machine = fakeMachine({ a: { cpu: 1, wall: 1 }, b: { cpu: 1, wall: 1 } });
    let collected = 0;
    await alternate(machine.a, machine.b, {
      pairs: 20,
      warmupPairs: 1,
      conversations: 1,
      sources: machine.sources,
      collect: () => {
        collected++;
      },
    });
    expect(collected).toBe(42);
    await expect(alternate(machine.a, machine.b, { pairs: 19 })).rejects.toThrow(RangeError);
  });

  it('minorCollect asks for a young-generation GC only (a full one deoptimizes hot code), undefined without --expose-gc', () => {
    const saved = globalThis.gc;
    try {
      const calls = [];
      globalThis.gc = (options) => calls.push(options);
      const collect = minorCollect();
      expect(typeof collect).toBe('function');
      collect();
      expect(calls).toEqual([{ type: 'minor' }]);
      globalThis.gc = undefined;
      expect(minorCollect()).toBeUndefined();
    } finally {
      globalThis.gc = saved;
    }
  });
});
