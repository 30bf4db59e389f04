// Issue 21 §2: three serveTools processes behind haproxy (balance roundrobin, health checks on
// /healthz, option abortonclose). Starts services: under CI it runs only with
// AGCORE_SERVICE_TESTS=1; without haproxy it skips, unless AGCORE_REQUIRE_HAPROXY=1 (then fails).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client as ClientV2 } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKeyMetaKey } from './index.js';
import { fleetNodePath } from './test-support/build-stdio-server.js';
import { connectV1, connectV2 } from './test-support/fixtures.js';

const servicesAllowed = process.env.CI !== 'true' || process.env.AGCORE_SERVICE_TESTS === '1';
const haproxyFound = spawnSync('haproxy', ['-v'], { stdio: 'ignore' }).status === 0;
const haproxyRequired = process.env.AGCORE_REQUIRE_HAPROXY === '1';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function startNode(port: number, directory: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [fleetNodePath, String(port), directory], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) =>
      reject(new Error(`fleet node on ${port} exited with ${String(code)}`)),
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve(child);
    });
  });
}

async function untilHealthy(url: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const ok = await fetch(url).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} never became healthy`);
}

describe.skipIf(!servicesAllowed || (!haproxyFound && !haproxyRequired))(
  'a fleet of 3 behind haproxy',
  () => {
    const directory = mkdtempSync(join(tmpdir(), 'agcore-fleet-'));
    const nodes: ChildProcess[] = [];
    let haproxy: ChildProcess | undefined;
    let url = '';
    let statsUrl = '';

    beforeAll(async () => {
      if (!haproxyFound)
        throw new Error(
          'AGCORE_REQUIRE_HAPROXY=1 but haproxy is not installed (apt-get install haproxy)',
        );
      const ports = [await freePort(), await freePort(), await freePort()];
      for (const port of ports) nodes.push(await startNode(port, directory));
      const front = await freePort();
      const stats = await freePort();
      const config = [
        'global',
        '  maxconn 256',
        'defaults',
        '  mode http',
        '  option abortonclose',
        '  option http-server-close',
        '  retries 0',
        '  timeout connect 2s',
        '  timeout client 60s',
        '  timeout server 60s',
        'frontend mcp',
        `  bind 127.0.0.1:${front}`,
        '  http-request set-header Host 127.0.0.1',
        '  default_backend tools',
        'backend tools',
        '  balance roundrobin',
        '  option httpchk GET /healthz',
        ...ports.map(
          (port, index) => `  server n${index} 127.0.0.1:${port} check inter 200ms fall 2 rise 1`,
        ),
        'listen stats',
        `  bind 127.0.0.1:${stats}`,
        '  stats enable',
        '  stats uri /stats',
      ].join('\n');
      const file = join(directory, 'haproxy.cfg');
      writeFileSync(file, `${config}\n`);
      haproxy = spawn('haproxy', ['-f', file, '-db'], { stdio: 'inherit' });
      url = `http://127.0.0.1:${front}/mcp`;
      statsUrl = `http://127.0.0.1:${stats}/stats;csv`;
      await untilHealthy(`http://127.0.0.1:${front}/healthz`);
    }, 60_000);

    afterAll(() => {
      haproxy?.kill('SIGKILL');
      for (const node of nodes) node.kill('SIGKILL');
      rmSync(directory, { recursive: true, force: true });
    });

    it('answers 300 calls at concurrency 8 from both eras once each, a node killed mid-run, each side effect once', async () => {
      const total = 300;
      let next = 0;
      let done = 0;
      const results = new Map<number, unknown>();
      const worker = async () => {
        const clients: (Client | ClientV2)[] = [await connectV1(url), await connectV2(url)];
        try {
          for (let n = next++; n < total; n = next++) {
            const call = {
              name: 'write_once',
              arguments: { n },
              _meta: { [idempotencyKeyMetaKey]: `run-1:call-${n}` },
            };
            // The SDKs wait their whole request timeout when a stream ends without the answer (a
            // node killed mid-call): a short one here; failing such a call at once is McpClient's.
            const options = { timeout: 5_000 };
            const send = () =>
              n % 2 === 0
                ? (clients[0] as Client).callTool(call, undefined, options)
                : (clients[1] as ClientV2).callTool(call, options);
            for (let attempt = 1; ; attempt += 1) {
              try {
                const result = await send();
                expect(results.has(n)).toBe(false);
                results.set(n, result.structuredContent);
                break;
              } catch (error) {
                // The node serving the call died: the call is safe to make again (it carries a key).
                if (attempt >= 4) throw error;
                await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
              }
            }
            done += 1;
            if (done === 100) nodes[1]?.kill('SIGKILL');
          }
        } finally {
          for (const client of clients) await client.close().catch(() => undefined);
        }
      };
      await Promise.all(Array.from({ length: 8 }, () => worker()));
      expect(results.size).toBe(total);
      for (const [n, value] of results) expect(value).toMatchObject({ n });
      const effects = readdirSync(directory).filter((name) => name.startsWith('effect-'));
      expect(effects).toHaveLength(total);
      const csv = await (await fetch(statsUrl)).text();
      const dead = csv.split('\n').find((line) => line.startsWith('tools,n1,'));
      expect(dead).toContain('DOWN');
    }, 120_000);

    for (const era of ['2025', '2026-07-28'] as const) {
      it(`passes a ${era} client's cancel through haproxy: the tool's signal aborts on the server`, async () => {
        const client = era === '2025' ? await connectV1(url) : await connectV2(url);
        const id = `cancel-${era}`;
        const call = client.callTool({ name: 'slow', arguments: { id } });
        call.catch(() => undefined);
        await expect
          .poll(() => existsSync(join(directory, `started-${id}`)), { timeout: 10_000 })
          .toBe(true);
        await client.close();
        await expect
          .poll(() => existsSync(join(directory, `aborted-${id}`)), { timeout: 10_000 })
          .toBe(true);
      }, 30_000);
    }
  },
);
