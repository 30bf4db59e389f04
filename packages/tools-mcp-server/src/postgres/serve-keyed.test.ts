/**
 * Issue 30 §3 through serveTools: two servers ("nodes") on one schema, each its own
 * `PostgresIdempotencyStore` (its own pool), and a tool that is not idempotent by itself (it
 * increments a counter row). 300 keyed calls at concurrency 8, each sent twice at once, one copy
 * to each node: the counter ends at exactly 300 and both copies get the same answer.
 */

import { createPostgresStores } from '@agcore/store-postgres';
import { defineTool } from '@agcore/tools-core';
import { McpClient } from '@agcore/tools-mcp';
import { ToolRegistry } from '@agcore/tools-registry';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveTools } from '../index.js';
import { dropSchema, freshSchema, postgresUrl } from '../test-support/postgres.js';

const url = postgresUrl();

describe.skipIf(url === undefined)('serveTools on PostgresIdempotencyStore, two nodes', () => {
  const serverUrl = url ?? '';
  const schema = freshSchema('serve_keyed');
  const pool = new pg.Pool({ connectionString: serverUrl, max: 4 });
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    await createPostgresStores({ pool }, { schema }).migrate();
    await pool.query(`CREATE TABLE ${schema}.counter (n integer NOT NULL)`);
    await pool.query(`INSERT INTO ${schema}.counter VALUES (0)`);
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await pool.end();
    await dropSchema(serverUrl, schema);
  });

  async function node(): Promise<McpClient> {
    const registry = new ToolRegistry().register(
      defineTool({
        name: 'count',
        description: 'Increments the counter row (not idempotent by itself)',
        parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
        execute: async ({ n }: { n: number }) => {
          const result = await pool.query(
            `UPDATE ${schema}.counter SET n = n + 1 RETURNING n AS after`,
          );
          return { n, after: (result.rows[0] as { after: number }).after };
        },
      }),
    );
    const stores = createPostgresStores({ connectionString: serverUrl }, { schema });
    const served = serveTools(registry, { idempotencyStore: stores.idempotencyStore });
    const listening = await served.listen({ port: 0 });
    const client = new McpClient('node', { type: 'streamable-http', url: listening.url });
    await client.connect();
    closers.push(async () => {
      await client.close();
      await served.close();
      await stores.close();
    });
    return client;
  }

  it('300 keyed calls, each sent twice at once to two nodes: the counter ends at 300', async () => {
    const [a, b] = [await node(), await node()];
    const total = 300;
    let next = 0;
    const worker = async () => {
      for (let n = next++; n < total; n = next++) {
        const options = { idempotencyKey: `run-1:call-${n}` };
        const [first, second] = await Promise.all([
          a.callTool('count', { n }, options),
          b.callTool('count', { n }, options),
        ]);
        expect(second.value).toEqual(first.value);
        expect(first.value).toMatchObject({ n });
      }
    };
    await Promise.all(Array.from({ length: 8 }, () => worker()));
    const counter = await pool.query(`SELECT n FROM ${schema}.counter`);
    expect(counter.rows[0]).toEqual({ n: total });
  }, 240_000);
});
