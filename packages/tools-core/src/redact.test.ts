import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createRedactor,
  redactError,
  redactUrl,
  secretsOfHeaders,
  secretsOfUrl,
} from './redact.js';
import { ToolError } from './tool-error.js';

const key = 'sk-test/Secret"Key\\42';

describe('createRedactor', () => {
  const redact = createRedactor([key, 'ab']);

  it('removes a secret as is and however JSON or a URL escaped it', () => {
    const json = JSON.stringify({ echoed: key });
    const doubly = JSON.stringify(JSON.stringify({ echoed: key }));
    const unicode = [...key]
      .map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
      .join('');
    const upper = unicode.toUpperCase().replaceAll('\\U', '\\u');
    const slashed = key.replaceAll('/', '\\/');
    const percent = encodeURIComponent(key);
    for (const text of [key, json, doubly, unicode, upper, slashed, percent]) {
      const clean = redact(`before ${text} after`);
      expect(clean).toContain('[redacted]');
      expect(clean).not.toContain('Secret');
      expect(clean).toMatch(/^before .*after$/);
    }
  });

  it('ignores secrets under 4 characters and leaves other text alone', () => {
    expect(redact('ab abc cab')).toBe('ab abc cab');
    expect(createRedactor([])('sk-test')).toBe('sk-test');
  });

  it('finds any generated secret in any JSON encoding of any text around it', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 4, maxLength: 40 }),
        fc.string(),
        fc.string(),
        (secret, before, after) => {
          const clean = createRedactor([secret])(JSON.stringify(`${before}${secret}${after}`));
          return (
            !clean.includes(JSON.stringify(secret).slice(1, -1)) || clean.includes('[redacted]')
          );
        },
      ),
      { seed: 42, numRuns: 300 },
    );
  });
});

describe('secretsOfHeaders and secretsOfUrl', () => {
  it('takes credential header values, with and without their scheme', () => {
    expect(
      secretsOfHeaders({
        Authorization: 'Bearer abcdefgh',
        'X-Trace': 'visible',
        'api-key': 'k123',
      }),
    ).toEqual(['Bearer abcdefgh', 'abcdefgh', 'k123']);
    expect(secretsOfHeaders({ 'X-Trace': 'visible' }, true)).toEqual(['visible']);
  });

  it('takes user info and query values of a URL', () => {
    const secrets = secretsOfUrl('https://user:p%40ss@example.com/v1?token=xyz123');
    expect(secrets).toEqual(
      expect.arrayContaining(['user', 'p%40ss', 'p@ss', 'user:p%40ss', 'xyz123']),
    );
    expect(redactUrl('https://user:pass@example.com/v1?token=xyz#frag')).toBe(
      'https://example.com/v1',
    );
  });
});

describe('redactError', () => {
  it('returns a redacted copy that keeps the class, brand and code, causes included', () => {
    const redact = createRedactor(['hunter22']);
    const inner = new Error('inner hunter22');
    const error = new ToolError('io', 'failed with hunter22', { cause: inner, toolName: 't' });
    const clean = redactError(error, redact) as ToolError;
    expect(clean).not.toBe(error);
    expect(ToolError.isInstance(clean)).toBe(true);
    expect(clean.code).toBe('io');
    expect(clean.message).toBe('failed with [redacted]');
    expect((clean.cause as Error).message).toBe('inner [redacted]');
    expect(clean.stack).not.toContain('hunter22');
    expect(redactError(new Error('nothing here'), redact)).toBeInstanceOf(Error);
    const plain = new Error('nothing here');
    expect(redactError(plain, redact)).toBe(plain);
  });
});
