import { once } from 'node:events';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseMcpServersConfig } from '@agcore/tools-mcp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitForRedirect, withPlaygroundAuth } from './mcp-auth.js';

describe('the playground auth of mcpServers entries', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'playground-auth-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prints the URL, listens on the loopback redirect, and keeps tokens in a 0600 file', async () => {
    const [entry] = withPlaygroundAuth(
      parseMcpServersConfig(
        {
          mcpServers: {
            docs: {
              url: 'http://127.0.0.1:1/mcp',
              auth: { type: 'authorization_code', redirectUrl: 'http://127.0.0.1:0/callback' },
            },
          },
        },
        {},
      ),
      {
        tokenFile: join(dir, 'tokens.json'),
        print: (line) => printed.push(line),
        openBrowser: () => {},
      },
    );
    const printed: string[] = [];
    const auth = entry?.transport.type === 'streamable-http' ? entry.transport.auth : undefined;
    if (auth?.type !== 'authorization_code' || auth.tokenStore === undefined)
      throw new Error('no auth');
    // Port 0 is not a redirect the playground can listen on: refused, saying what to use.
    await expect(auth.onAuthorize(new URL('http://127.0.0.1:1/auth'))).rejects.toThrow(
      /loopback redirectUrl such as http:\/\/127\.0\.0\.1:8765\/callback/,
    );
    const key = { serverUrl: 'http://127.0.0.1:1/mcp', clientId: 'dynamic' };
    await auth.tokenStore.set(key, { accessToken: 'access-1', tokenType: 'Bearer' });
    expect((await stat(join(dir, 'tokens.json'))).mode & 0o777).toBe(0o600);
  });

  it('waitForRedirect resolves with the URL the browser came back to, then stops listening', async () => {
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const port = (probe.address() as AddressInfo).port;
    probe.close();
    await once(probe, 'close');
    const redirect = new URL(`http://127.0.0.1:${port}/callback`);
    const back = waitForRedirect(redirect);
    let response: Response | undefined;
    for (let attempt = 0; attempt < 50 && response === undefined; attempt += 1) {
      response = await fetch(`${redirect}?code=abc&state=xyz`).catch(async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return undefined;
      });
    }
    expect(response?.status).toBe(200);
    expect((await back).searchParams.get('code')).toBe('abc');
    await expect(fetch(String(redirect))).rejects.toThrow();
  });
});
