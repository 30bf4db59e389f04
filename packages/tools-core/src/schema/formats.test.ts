import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../json-schema.js';
import { decodePunycode } from './hostname.js';
import { createSchemaCompiler } from './index.js';

// Every case of the JSON Schema Test Suite's optional/format files (draft 2020-12) for the
// formats the compiler checks: see fixtures/format-suite/README.md for the source.
interface SuiteGroup {
  readonly description: string;
  readonly schema: JsonSchema;
  readonly tests: readonly { description: string; data: unknown; valid: boolean }[];
}

const folder = new URL('./fixtures/format-suite/', import.meta.url);
const files = readdirSync(folder).filter((name) => name.endsWith('.json'));

describe('formats: the JSON Schema Test Suite (draft 2020-12, optional/format)', () => {
  it('has the eleven files', () => {
    expect(files.sort()).toEqual(
      [
        'date-time',
        'date',
        'duration',
        'email',
        'hostname',
        'ipv4',
        'ipv6',
        'time',
        'uri',
        'uri-reference',
        'uuid',
      ]
        .map((name) => `${name}.json`)
        .sort(),
    );
  });

  for (const file of files) {
    const groups = JSON.parse(readFileSync(new URL(file, folder), 'utf8')) as SuiteGroup[];
    it(`passes every case of ${file}`, () => {
      const compiler = createSchemaCompiler();
      const wrong: string[] = [];
      for (const group of groups) {
        const check = compiler.compile(group.schema, file);
        for (const test of group.tests) {
          if ((check(test.data) === undefined) !== test.valid) {
            wrong.push(`${group.description} / ${test.description}: ${JSON.stringify(test.data)}`);
          }
        }
      }
      expect(wrong).toEqual([]);
    });
  }
});

describe('formats: hostname A-labels and URIs beyond the suite', () => {
  const compiler = createSchemaCompiler();
  const valid = (format: string, text: string) =>
    compiler.compile({ format }, format)(text) === undefined;

  it('decodes Punycode (RFC 3492) and checks the U-label', () => {
    expect(decodePunycode('bcher-kva')).toEqual([...'bücher'].map((char) => char.codePointAt(0)));
    // RFC 3492 §7.1 sample (A): Arabic (Egyptian).
    expect(String.fromCodePoint(...(decodePunycode('egbpdaj6bu4bxfgehfvwxn') ?? []))).toBe(
      '\u0644\u064A\u0647\u0645\u0627\u0628\u062A\u0643\u0644\u0645\u0648\u0634\u0639\u0631\u0628\u064A\u061F',
    );
    // A digit run cut short, a non-basic character.
    for (const broken of ['x', '9', 'a-é', 'bcher-kv']) {
      expect(decodePunycode(broken), broken).toBeUndefined();
    }
    expect(valid('hostname', 'xn--bcher-kva.example')).toBe(true);
    expect(valid('hostname', 'XN--BCHER-KVA.example')).toBe(true);
    expect(valid('hostname', 'xn--abc-')).toBe(false); // decodes to ASCII only
    expect(valid('hostname', 'xn--')).toBe(false);
    expect(valid('email', 'a@xn--bcher-kva.example')).toBe(true);
    expect(valid('email', 'a@xn--X.example')).toBe(false);
  });

  it('reads URIs by the RFC 3986 grammar', () => {
    expect(valid('uri', 'urn:isbn:0451450523')).toBe(true);
    expect(valid('uri', 'http://[v1.fe80::a+en1]/')).toBe(true);
    expect(valid('uri', 'http://user:pa%20ss@host:8080/a/b?c=d/e?f#g/h?i')).toBe(true);
    expect(valid('uri', 'http://host:port/')).toBe(false);
    expect(valid('uri', 'http://a b/')).toBe(false);
    expect(valid('uri', '1http://x')).toBe(false);
    expect(valid('uri', '//host/path')).toBe(false);
    expect(valid('uri-reference', '//host/path')).toBe(true);
    expect(valid('uri-reference', 'a:b/c')).toBe(true);
    expect(valid('uri-reference', './a:b')).toBe(true);
    expect(valid('uri-reference', '%zz')).toBe(false);
    expect(valid('uri-reference', '')).toBe(true);
  });
});

describe('formats: cost', () => {
  it('refuses long near-misses of every format (a backtracking catastrophe would time out)', () => {
    const digits = '1'.repeat(100_000);
    const nearMisses: Record<string, string> = {
      duration: `P${digits}Y${digits}M${digits}X`,
      'date-time': `2020-01-01T00:00:00.${digits}+00:0`,
      time: `00:00:00.${digits}Z+`,
      email: `${'a.'.repeat(30)}@${'a.'.repeat(50_000)}-`,
      uuid: `${'a'.repeat(100_000)}`,
      ipv4: `${'1.'.repeat(50_000)}`,
      ipv6: `${'1:'.repeat(50_000)}`,
      date: digits,
      uri: `http://${'a'.repeat(50_000)}/${'b/'.repeat(50_000)} `,
      'uri-reference': `${'%41'.repeat(30_000)}/${'?'.repeat(50_000)}#${'/'.repeat(50_000)}%4`,
      hostname: `${'xn--'.repeat(60)}a`,
    };
    const compiler = createSchemaCompiler();
    for (const [format, text] of Object.entries(nearMisses)) {
      expect(compiler.compile({ format }, format)(text), format).toMatch(/must match format/);
    }
    const quoted = `"${'\\"'.repeat(30)}`;
    expect(compiler.compile({ format: 'email' }, 'email')(`${quoted}@x.com`)).toMatch(/format/);
  });
});
