// One process of the fleet on Postgres (postgres/fleet-postgres.service.test.ts), run with tsx.
// Args: port, directory, a postgres:// URL and a schema (migrated, with its `counter` table, by
// the test); prints "ready" on stdout when listening. serveTools on createPostgresStores'
// idempotency store (held after one commit, see held-store.ts: a node to kill then) and its
// PostgresChangeFeed. Tools:
// - `count` increments the row of `<schema>.counter`: not idempotent by itself;
// - `add_tool` registers a tool of the name given (once) and publishes `tools_list_changed` on
//   the feed when asked to.
import { createPostgresStores } from '@agcore/store-postgres';
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import pg from 'pg';
import { serveTools } from '../index.js';
import { heldStore } from './held-store.js';

const [portText = '0', directory = '.', url = '', schema = ''] = process.argv.slice(2);
if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new TypeError(`not a schema name: ${schema}`);
const pool = new pg.Pool({ connectionString: url, max: 4 });
const stores = createPostgresStores({ connectionString: url }, { schema });

// As fleet-node.ts: the time limit sizes the lease on a key.
const registry = new ToolRegistry({ timeoutMs: 5_000 });
registry.register(
  defineTool({
    name: 'count',
    description: 'Increments the counter row (not idempotent by itself)',
    parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    execute: async ({ n }: { n: number }) => {
      const result = await pool.query(`UPDATE "${schema}".counter SET n = n + 1 RETURNING n`);
      return { n, after: (result.rows[0] as { n: number }).n, pid: process.pid };
    },
  }),
);
registry.register(
  defineTool({
    name: 'add_tool',
    description: 'Registers a tool of the name given, then publishes tools_list_changed (if told)',
    parameters: {
      type: 'object',
      properties: { name: { type: 'string' }, publish: { type: 'boolean' } },
      required: ['name', 'publish'],
    },
    execute: async ({ name, publish }: { name: string; publish: boolean }) => {
      if (!registry.has(name)) {
        registry.register(
          defineTool({
            name,
            description: 'Added by add_tool',
            parameters: { type: 'object', properties: {} },
            execute: async () => name,
          }),
        );
      }
      if (publish) await stores.changes.publish({ kind: 'tools_list_changed' });
      return { name, pid: process.pid };
    },
  }),
);

const served = serveTools(registry, {
  idempotencyStore: heldStore(stores.idempotencyStore, directory),
  changes: stores.changes,
  allowedHosts: ['127.0.0.1', 'localhost'],
});
await served.listen({ port: Number(portText) });
process.stdout.write('ready\n');
