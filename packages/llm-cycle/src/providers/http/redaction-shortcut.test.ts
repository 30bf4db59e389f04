/**
 * The provider's redactor takes shortcuts before tools-core's pattern (short texts, texts with
 * no escape the pattern knows): whatever the text, it must return exactly what the pattern
 * returns. Texts are built from secrets in every escaping the pattern knows, mixed per
 * character, inside JSON-like noise.
 */
import { createRedactor } from '@agcore/tools-core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveEndpoint } from './endpoint.js';

/** `character` spelled one of the ways a server may escape it. */
function spelled(character: string, way: number): string {
  const code = character.charCodeAt(0);
  const hex = code.toString(16).padStart(4, '0');
  switch (way % 5) {
    case 1:
      return `${'\\'.repeat(1 + (way % 3))}u${way % 2 === 0 ? hex : hex.toUpperCase()}`;
    case 2:
      return '/"\\'.includes(character) ? `\\${character}` : character;
    case 3:
      return code < 0x80 ? `%${code.toString(16).padStart(2, '0')}` : character;
    default:
      return character;
  }
}

const secret = fc.string({
  unit: fc.constantFrom('s', 'k', '-', '/', '"', '\\', '%', 'u', 'a', '0', 'é'),
  minLength: 4,
  maxLength: 10,
});
const noise = fc.string({
  unit: fc.constantFrom('a', ' ', '\\', '"', '/', 'u', '%', '{', ':', 'n', 's', 'k', '-', '0'),
  maxLength: 12,
});

describe('the provider redactor', () => {
  it('returns exactly what tools-core redactor returns, for any text', () => {
    fc.assert(
      fc.property(
        secret,
        fc.array(fc.tuple(noise, fc.array(fc.nat(20))), { maxLength: 4 }),
        fc.boolean(),
        (apiKey, pieces, whole) => {
          const endpoint = resolveEndpoint({ baseURL: 'http://127.0.0.1:1/v1', apiKey });
          const reference = createRedactor([apiKey, `Bearer ${apiKey}`]);
          const text = pieces
            .map(([before, ways]) => {
              const characters = [...apiKey];
              const cut = whole ? characters.length : Math.min(ways.length, characters.length);
              const inner = characters
                .slice(0, cut)
                .map((character, index) => spelled(character, ways[index] ?? 0))
                .join('');
              return `${before}${inner}`;
            })
            .join('');
          expect(endpoint.redact(text)).toBe(reference(text));
        },
      ),
      { seed: 1414, numRuns: 1000 },
    );
  });
});
