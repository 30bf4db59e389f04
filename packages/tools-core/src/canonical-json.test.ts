import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';

describe('canonicalJson', () => {
  it('sorts object keys by UTF-16 code units at every level, without whitespace', () => {
    expect(canonicalJson({ b: 1, a: [{ d: true, c: null }], é: 'x', Z: -0 })).toBe(
      '{"Z":0,"a":[{"c":null,"d":true}],"b":1,"é":"x"}',
    );
  });

  it('leaves undefined members out and writes strings and numbers as JSON.stringify does', () => {
    expect(canonicalJson({ a: undefined, b: 'line\n"q"', c: 1e21, d: 0.1 })).toBe(
      '{"b":"line\\n\\"q\\"","c":1e+21,"d":0.1}',
    );
  });

  it('writes a value past the recursion depth exactly as a shallow one', () => {
    let value: unknown = { z: [1, { b: 'x', a: undefined }], a: null };
    for (let level = 0; level < 40; level++) value = { level, child: [value], list: [level] };
    const shallow = canonicalJson({ b: 1, a: [2] });
    expect(shallow).toBe('{"a":[2],"b":1}');
    const text = canonicalJson(value);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
    expect(text.indexOf('"child"')).toBeLessThan(text.indexOf('"level"'));
  });

  it('gives a value the same text at any depth: shallow values and deep ones are written alike (property)', () => {
    // Wrapped in 40 levels, the value is written by the iterative writer; alone, by the fast one.
    const wrap = (value: unknown): unknown => {
      let wrapped: unknown = value;
      for (let level = 0; level < 40; level++)
        wrapped = level % 2 === 0 ? [wrapped] : { k: wrapped };
      return wrapped;
    };
    const prefix = '{"k":['.repeat(20);
    const suffix = ']}'.repeat(20);
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(wrap(value))).toBe(`${prefix}${canonicalJson(value)}${suffix}`);
      }),
      { seed: 13, numRuns: 200 },
    );
  });

  it('does not overflow the stack on a value nested 100 000 levels deep', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(canonicalJson(deep)).toHaveLength(200_000);
  });

  it('gives the same text for the same JSON value whatever the key order (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const reversed = JSON.parse(JSON.stringify(value), (_key, item: unknown) =>
          item !== null && typeof item === 'object' && !Array.isArray(item)
            ? Object.fromEntries(Object.entries(item).reverse())
            : item,
        );
        expect(canonicalJson(reversed)).toBe(canonicalJson(value));
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { seed: 12, numRuns: 200 },
    );
  });
});
