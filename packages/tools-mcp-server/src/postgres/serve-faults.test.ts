/**
 * Issue 30 §6, the server side: `serveTools` on a `PostgresIdempotencyStore` whose Postgres is
 * down answers a keyed call `other` (as for any store that fails) and runs nothing; an
 * unkeyed call does not touch the store and runs.
 */

import { createPostgresStores } from '@agcore/store-postgres';
import { createToolContext, defineTool } from '@agcore/tools-core';
import { McpClient, type McpToolError } from '@agcore/tools-mcp';
import { ToolRegistry } from '@agcore/tools-registry';
import { describe, expect, it } from 'vitest';
import { serveTools } from '../index.js';
import { freePort } from '../test-support/haproxy-fleet.js';

describe('serveTools on a PostgresIdempotencyStore whose server is down', () => {
  it('answers a keyed call other and runs nothing', async () => {
    let runs = 0;
    const registry = new ToolRegistry().register(
      defineTool({
        name: 'bump',
        description: 'Bumps a counter',
        parameters: { type: 'object', properties: {} },
        execute: async () => {
          runs++;
          return { runs };
        },
      }),
    );
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
      expect(runs).toBe(0);
      const tool = (await client.tools()).find((item) => item.mcpName === 'bump');
      expect(await tool?.execute({}, createToolContext())).toEqual({ runs: 1 });
    } finally {
      await client.close();
      await served.close();
      await stores.close();
    }
  }, 60_000);
});
