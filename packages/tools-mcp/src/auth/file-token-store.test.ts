import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileTokenStore } from '../node.js';

describe('createFileTokenStore', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agcore-tokens-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps tokens by server URL and client id across stores, in a 0600 file', async () => {
    const path = join(dir, 'nested', 'tokens.json');
    const key = { serverUrl: 'https://a.example/mcp', clientId: 'app' };
    const first = createFileTokenStore(path);
    expect(await first.get(key)).toBeUndefined();
    await Promise.all([
      first.set(key, { accessToken: 'access-1', tokenType: 'Bearer', refreshToken: 'refresh-1' }),
      first.set({ ...key, clientId: 'other' }, { accessToken: 'access-2', tokenType: 'Bearer' }),
    ]);
    const second = createFileTokenStore(path);
    expect(await second.get(key)).toEqual({
      accessToken: 'access-1',
      tokenType: 'Bearer',
      refreshToken: 'refresh-1',
    });
    expect((await second.get({ ...key, clientId: 'other' }))?.accessToken).toBe('access-2');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    await second.delete(key);
    expect(await first.get(key)).toBeUndefined();
    expect(JSON.parse(await readFile(path, 'utf8'))).not.toHaveProperty(
      JSON.stringify([key.serverUrl, 'app']),
    );
  });

  it('replaces a file that is not JSON on the next write', async () => {
    const path = join(dir, 'tokens.json');
    await writeFile(path, 'garbage', { mode: 0o644 });
    const store = createFileTokenStore(path);
    const key = { serverUrl: 'https://a.example/mcp', clientId: 'app' };
    expect(await store.get(key)).toBeUndefined();
    await store.set(key, { accessToken: 'access-1', tokenType: 'Bearer' });
    expect((await store.get(key))?.accessToken).toBe('access-1');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });
});
