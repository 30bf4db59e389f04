// A serveTools process on Postgres stores, for serve-kill.test.ts. Args: url, schema, directory.
// Its tool `count` increments the counter row of the schema (not idempotent by itself). While
// `<directory>/hold` exists, a keyed call is held after the store committed its result, before
// the answer (it writes `<directory>/committed.<pid>` then): a node to SIGKILL there.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createPostgresStores } from '@agcore/store-postgres';
import { defineTool, type IdempotencyStore } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import pg from 'pg';
import { serveTools } from '../index.js';

const [url = '', schema = '', directory = '.'] = process.argv.slice(2);
if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new TypeError(`not a schema name: ${schema}`);
const pool = new pg.Pool({ connectionString: url, max: 2 });
const stores = createPostgresStores({ connectionString: url }, { schema });
const inner = stores.idempotencyStore;
const held: IdempotencyStore = {
  get: (key) => inner.get(key),
  reserve: (key, leaseMs) => inner.reserve(key, leaseMs),
  release: (key) => inner.release(key),
  set: async (key, value) => {
    await inner.set(key, value);
    if (!existsSync(join(directory, 'hold'))) return;
    await writeFile(join(directory, `committed.${process.pid}`), '');
    await new Promise(() => undefined);
  },
};
const registry = new ToolRegistry().register(
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
const served = serveTools(registry, { idempotencyStore: held });
const listening = await served.listen({ port: 0 });
process.stdout.write(`listening ${listening.url}\n`);
