import { describe, expect, it } from 'vitest';
import { describeNonJson } from './json.js';

describe('describeNonJson', () => {
  it('accepts JSON, including objects with toJSON and omitted undefined properties', () => {
    expect(describeNonJson({ a: [1, 'x', true, null, { b: 2 }] })).toBeUndefined();
    expect(describeNonJson({ when: new Date(0), gone: undefined })).toBeUndefined();
    expect(describeNonJson('plain')).toBeUndefined();
  });

  it('names what is not JSON and where', () => {
    expect(describeNonJson(undefined)).toBe('$ is undefined');
    expect(describeNonJson({ f: () => 1 })).toBe('$.f is a function');
    expect(describeNonJson([1, 2n])).toBe('$[1] is a BigInt');
    expect(describeNonJson({ n: Number.NaN })).toContain('NaN');
    expect(describeNonJson([undefined])).toBe('$[0] is undefined');
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(describeNonJson(cycle)).toContain('cycle');
  });

  it('does not mistake a shared (non-cyclic) object for a cycle', () => {
    const shared = { x: 1 };
    expect(describeNonJson({ a: shared, b: shared })).toBeUndefined();
  });
});

describe('describeNonJson: what JSON.stringify would do, for hostile values', () => {
  it('calls toJSON and checks what it returns', () => {
    expect(describeNonJson({ a: { toJSON: () => undefined } })).toBe('$.a is undefined');
    expect(describeNonJson({ toJSON: () => 1n })).toBe('$ is a BigInt');
    expect(describeNonJson({ a: { toJSON: (key: string) => ({ key }) } })).toBeUndefined();
    const throwing = Object.assign(Object.create(null), {
      toJSON() {
        throw new Error('no JSON for you');
      },
    });
    expect(describeNonJson({ x: throwing })).toBe('$.x cannot be read: no JSON for you');
  });

  it('refuses throwing getters and proxies without throwing', () => {
    const getter = Object.defineProperty({}, 'a', {
      enumerable: true,
      get() {
        throw new Error('getter');
      },
    });
    expect(describeNonJson(getter)).toBe('$ cannot be read: getter');
    const trap = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('trap');
        },
      },
    );
    expect(describeNonJson([trap])).toBe('$[0] cannot be read: trap');
  });

  it('is iterative and bounded in depth: 100 000 levels is an answer, not a stack overflow', () => {
    let deep: unknown = 'leaf';
    for (let level = 0; level < 100_000; level++) deep = { next: deep };
    expect(describeNonJson(deep)).toMatch(/is nested deeper than 1000 levels \(the limit\)$/);
    let ok: unknown = 1;
    for (let level = 0; level < 999; level++) ok = [ok];
    expect(describeNonJson(ok)).toBeUndefined();
    expect(describeNonJson(ok, { maxDepth: 10 })).toMatch(/deeper than 10 levels/);
  });
});
