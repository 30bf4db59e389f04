// The skip rule every Postgres suite relies on, and the checks made before any connection.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { dropSchema, freshSchema, postgresUrl } from './index.mjs';

const names = ['AGCORE_TEST_POSTGRES_URL', 'CI', 'AGCORE_SERVICE_TESTS'];
const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));

function setEnv(values) {
  for (const name of names) {
    if (values[name] === undefined) delete process.env[name];
    else process.env[name] = values[name];
  }
}

afterEach(() => {
  setEnv(saved);
  vi.restoreAllMocks();
});

describe('postgresUrl', () => {
  it('gives the URL when one is set (a developer run, or CI with services)', () => {
    setEnv({ AGCORE_TEST_POSTGRES_URL: 'postgres://u@127.0.0.1:5/p' });
    expect(postgresUrl('pkg')).toBe('postgres://u@127.0.0.1:5/p');
    setEnv({
      AGCORE_TEST_POSTGRES_URL: 'postgres://u@127.0.0.1:5/p',
      CI: 'true',
      AGCORE_SERVICE_TESTS: '1',
    });
    expect(postgresUrl('pkg')).toBe('postgres://u@127.0.0.1:5/p');
  });

  it('without a URL on a developer machine: undefined and one line naming the package and how to get one', () => {
    const lines = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((text) => {
      lines.push(String(text));
      return true;
    });
    setEnv({ AGCORE_TEST_POSTGRES_URL: '' });
    expect(postgresUrl('store-postgres')).toBeUndefined();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^store-postgres: Postgres tests skipped: set AGCORE_TEST_POSTGRES_URL=.*\n$/,
    );
    expect(lines[0]).toContain('bash .ci/run');
  });

  it('under CI: skipped on the legs without services, a failure on the leg with them', () => {
    setEnv({ AGCORE_TEST_POSTGRES_URL: 'postgres://u@127.0.0.1:5/p', CI: 'true' });
    expect(postgresUrl('pkg')).toBeUndefined();
    setEnv({ CI: 'true', AGCORE_SERVICE_TESTS: '1' });
    expect(() => postgresUrl('pkg')).toThrow(/not set under CI/);
  });
});

describe('schemas', () => {
  it('a fresh schema is a plain identifier, a new one each time', () => {
    const a = freshSchema('agcore_t');
    expect(a).toMatch(/^agcore_t_[0-9a-f]{12}$/);
    expect(freshSchema('agcore_t')).not.toBe(a);
  });

  it('dropSchema refuses a name that is no plain identifier before it connects', async () => {
    await expect(
      dropSchema('postgres://nobody@127.0.0.1:1/x', 'a"; DROP TABLE x; --'),
    ).rejects.toThrow(TypeError);
  });
});
