import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeNonJson, firstProblem, maxJsonDepth } from './json.js';

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

describe('describeNonJson: the quick pass for plain data', () => {
  const hostile = fc.oneof(
    fc.anything({
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withSparseArray: true,
      withTypedArray: true,
      withUnicodeString: true,
    }),
    fc.jsonValue(),
  );

  it('gives the verdict of the full walk, for any value', () => {
    fc.assert(
      fc.property(hostile, fc.integer({ min: 0, max: 40 }), (value, maxDepth) => {
        expect(describeNonJson(value)).toBe(firstProblem(value, maxJsonDepth));
        expect(describeNonJson(value, { maxDepth })).toBe(firstProblem(value, maxDepth));
      }),
      { seed: 29, numRuns: 500 },
    );
  });

  it('leaves data deeper than its own bound, cycles below it and toJSON to the walk', () => {
    let deep: unknown = 'leaf';
    for (let level = 0; level < 40; level++) deep = { next: [deep] };
    expect(describeNonJson(deep)).toBeUndefined();
    expect(describeNonJson(deep, { maxDepth: 79 })).toMatch(/deeper than 79 levels/);
    const cycle: Record<string, unknown> = { a: { b: {} } };
    (cycle.a as { b: Record<string, unknown> }).b.back = cycle;
    expect(describeNonJson({ wrap: [cycle] })).toBe(
      '$.wrap[0].a.b.back refers back to one of its parents (a cycle)',
    );
    expect(describeNonJson([{ toJSON: () => undefined }])).toBe('$[0] is undefined');
    expect(describeNonJson(Object.assign([1], { toJSON: () => Symbol('x') }))).toBe(
      '$ is a symbol',
    );
  });

  it('honours a toJSON put on Object.prototype, as JSON.stringify does', () => {
    const proto = Object.prototype as { toJSON?: unknown };
    proto.toJSON = () => 1n;
    try {
      expect(describeNonJson({ a: 1 })).toBe('$ is a BigInt');
    } finally {
      delete proto.toJSON;
    }
    expect(describeNonJson({ a: 1 })).toBeUndefined();
  });

  it('names where a getter threw, however deep in plain data it sits', () => {
    const getter = Object.defineProperty({}, 'x', {
      enumerable: true,
      get() {
        throw new Error('no');
      },
    });
    expect(describeNonJson({ a: [{ b: getter }] })).toBe('$.a[0].b cannot be read: no');
  });
});
