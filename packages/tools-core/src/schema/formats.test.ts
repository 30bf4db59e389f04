import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../json-schema.js';
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
  it('has the eight files', () => {
    expect(files.sort()).toEqual(
      ['date-time', 'date', 'duration', 'email', 'ipv4', 'ipv6', 'time', 'uuid']
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
    };
    const compiler = createSchemaCompiler();
    for (const [format, text] of Object.entries(nearMisses)) {
      expect(compiler.compile({ format }, format)(text), format).toMatch(/must match format/);
    }
    const quoted = `"${'\\"'.repeat(30)}`;
    expect(compiler.compile({ format: 'email' }, 'email')(`${quoted}@x.com`)).toMatch(/format/);
  });
});
