/**
 * Issue 30 §6, the server side: `serveTools` on a `PostgresIdempotencyStore` whose Postgres is
 * down answers a keyed call `other` (as for any store that fails) and runs nothing; an
 * unkeyed call does not touch the store and runs. The answer says the idempotency store is
 * unavailable and names no host, port or database (the store's error goes to the server's trace).
 */
import { createServer, Socket } from 'node:net';

import { createPostgresStores } from '@agcore/store-postgres';
import { createToolContext, defineTool } from '@agcore/tools-core';
import { McpClient, type McpToolError } from '@agcore/tools-mcp';
import { ToolRegistry } from '@agcore/tools-registry';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { serveTools } from '../index.js';
import { freePort } from '../test-support/haproxy-fleet.js';
import { postgresUrl } from '../test-support/postgres.js';

const url = postgresUrl();
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();
afterAll(async () => {
  trace.disable();
  await provider.shutdown();
});

/** A TCP relay to `target` on a free port; `stop()` cuts its connections and refuses new ones. */
async function relay(target: URL): Promise<{ port: number; stop(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((inbound) => {
    const outbound = new Socket();
    outbound.connect(Number(target.port), target.hostname);
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('error', () => undefined).on('close', () => sockets.delete(socket));
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

const bump = (runs: { n: number }) =>
  defineTool({
    name: 'bump',
    description: 'Bumps a counter',
    parameters: { type: 'object', properties: {} },
    execute: async () => {
      runs.n += 1;
      return { runs: runs.n };
    },
  });

describe('serveTools on a PostgresIdempotencyStore whose server is down', () => {
  it('answers a keyed call other and runs nothing', async () => {
    const runs = { n: 0 };
    const registry = new ToolRegistry().register(bump(runs));
    const port = await freePort();
    const stores = createPostgresStores({
      connectionString: `postgres://agent:s3cret-pw@127.0.0.1:${port}/fleet`,
    });
    const served = serveTools(registry, { idempotencyStore: stores.idempotencyStore });
    const listening = await served.listen({ port: 0 });
    const client = new McpClient('served', { type: 'streamable-http', url: listening.url });
    try {
      await client.connect();
      const failure = (await client
        .callTool('bump', {}, { idempotencyKey: 'run-1:call-1' })
        .catch((error: unknown) => error)) as McpToolError;
      expect(failure.code).toBe('other');
      expect(failure.message).not.toContain('s3cret');
      for (const named of [String(port), '127.0.0.1', 'fleet', 'agent'])
        expect(failure.message).not.toContain(named);
      expect(failure.message).toContain('idempotency store is unavailable');
      expect(runs.n).toBe(0);
      const tool = (await client.tools()).find((item) => item.mcpName === 'bump');
      expect(await tool?.execute({}, createToolContext())).toEqual({ runs: 1 });
    } finally {
      await client.close();
      await served.close();
      await stores.close();
    }
  }, 60_000);
});

describe.skipIf(url === undefined)(
  'serveTools on a PostgresIdempotencyStore, Postgres gone mid-run',
  () => {
    it('answers other naming no host, port or database; the cause is in the server trace', async () => {
      const runs = { n: 0 };
      const registry = new ToolRegistry({ timeoutMs: 5_000 }).register(bump(runs));
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      const database = `fleet_secret_${process.pid}`;
      await admin.query(`CREATE DATABASE "${database}"`);
      const target = new URL(url ?? '');
      const cut = await relay(target);
      const through = new URL(target);
      through.port = String(cut.port);
      through.pathname = `/${database}`;
      const stores = createPostgresStores(
        { connectionString: through.href },
        { connectTimeoutMs: 2_000 },
      );
      await stores.migrate();
      const served = serveTools(registry, { idempotencyStore: stores.idempotencyStore });
      const listening = await served.listen({ port: 0 });
      const client = new McpClient('served', { type: 'streamable-http', url: listening.url });
      try {
        await client.connect();
        const first = await client.callTool('bump', {}, { idempotencyKey: 'run-1:call-1' });
        expect(first.value).toEqual({ runs: 1 });
        await cut.stop();
        exporter.reset();
        const failure = (await client
          .callTool('bump', {}, { idempotencyKey: 'run-1:call-2' })
          .catch((error: unknown) => error)) as McpToolError;
        expect(failure.code).toBe('other');
        expect(failure.message).toContain('idempotency store is unavailable');
        for (const named of [String(cut.port), '127.0.0.1', database, 'fleet_secret'])
          expect(failure.message).not.toContain(named);
        expect(runs.n).toBe(1);
        const span = exporter
          .getFinishedSpans()
          .find((item) => item.name === 'idempotency_store bump');
        expect(span?.status.message).toContain(`127.0.0.1:${cut.port}/${database}`);
      } finally {
        await client.close();
        await served.close();
        await stores.close().catch(() => undefined);
        await admin.query(`DROP DATABASE "${database}" WITH (FORCE)`);
        await admin.end();
      }
    }, 60_000);
  },
);
