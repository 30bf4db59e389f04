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
