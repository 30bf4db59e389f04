/**
 * Issue 30 §5 through serveTools: two servers ("nodes"), each with its own stores on one schema
 * (its own pool and its own `LISTEN` connection, so a change goes through Postgres `NOTIFY`).
 * A tool registered on node A and published on A's feed is announced to a client of node B:
 * `list_changed` on 2025-11-25, `subscriptions/listen` on 2026-07-28. The latency is reported
 * (annotated), not asserted.
 */

import { createPostgresStores } from '@agcore/store-postgres';
import { defineTool } from '@agcore/tools-core';
import { McpClient, type McpProtocol } from '@agcore/tools-mcp';
import { ToolRegistry } from '@agcore/tools-registry';
import { describe, expect, it } from 'vitest';
import { serveTools } from '../index.js';
import { freshSchema, postgresUrl } from '../test-support/postgres.js';

const url = postgresUrl();
/** How long a publish is given before it is published again (a stream not yet open misses it). */
const republishMs = 3000;

const tool = (name: string) =>
  defineTool({
    name,
    description: `The tool ${name}`,
    parameters: { type: 'object', properties: {} },
    execute: async () => name,
  });

/** A node: a registry, its stores on `schema`, serveTools on a free port. */
async function startNode(serverUrl: string, schema: string) {
  const registry = new ToolRegistry().register(tool('first'));
  const stores = createPostgresStores({ connectionString: serverUrl }, { schema });
  const served = serveTools(registry, {
    idempotencyStore: stores.idempotencyStore,
    changes: stores.changes,
  });
  const listening = await served.listen({ port: 0 });
  await stores.changes.listening();
  return {
    registry,
    stores,
    url: listening.url,
    close: async () => {
      await served.close();
      await stores.close();
    },
  };
}

describe
  .skipIf(url === undefined)
  .each(['legacy', '2026-07-28'] as const satisfies readonly McpProtocol[])(
  'serveTools with PostgresChangeFeed, a client of node B on %s',
  (protocol) => {
    it('hears a tool registered and published on node A', async ({ annotate }) => {
      const serverUrl = url ?? '';
      const schema = freshSchema('serve_changes');
      const a = await startNode(serverUrl, schema);
      const b = await startNode(serverUrl, schema);
      const heard: { readonly names: readonly string[]; readonly at: number }[] = [];
      const watcher = new McpClient(
        'watcher',
        { type: 'streamable-http', url: b.url },
        {
          protocol,
          onToolsChanged: (tools) =>
            heard.push({ names: tools.map((item) => item.name), at: performance.now() }),
        },
      );
      try {
        await watcher.connect();
        await watcher.listTools();
        // Registered on both (B lists what its own registry has), published on A only.
        a.registry.register(tool('added'));
        b.registry.register(tool('added'));
        let publishedAt = Number.NEGATIVE_INFINITY;
        const arrival = () => heard.find((entry) => entry.names.includes('added'));
        await expect
          .poll(
            async () => {
              if (arrival() === undefined && performance.now() - publishedAt > republishMs) {
                publishedAt = performance.now();
                await a.stores.changes.publish({ kind: 'tools_list_changed' });
              }
              return arrival() !== undefined;
            },
            { timeout: 60_000, interval: 20 },
          )
          .toBe(true);
        const latency = (arrival()?.at ?? publishedAt) - publishedAt;
        await annotate(`node A → client of node B (${protocol}): ${latency.toFixed(0)} ms`);
      } finally {
        await watcher.close();
        await a.close();
        await b.close();
      }
    }, 120_000);
  },
);
