/**
 * Issue 30 §1: `createPostgresStores` on a pool or a connection string; `migrate()` makes its
 * own schema, versioned and idempotent, safe when three processes run it at once; the schema
 * is a checked identifier, and no SQL holds a user value.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresStores, schemaVersion } from './index.js';
import { runTogether } from './test-support/children.js';
import { dropSchema, freshSchema, postgresUrl } from './test-support/postgres.js';

const url = postgresUrl();

describe('createPostgresStores: options', () => {
  it('refuses a schema that is not a plain lower-case identifier, before connecting', () => {
    for (const schema of ['', 'Agcore', '1abc', 'a-b', 'x"; DROP TABLE y; --', 'a'.repeat(64), 7]) {
      expect(() =>
        createPostgresStores(
          { connectionString: 'postgres://u@127.0.0.1:1/db' },
          { schema: schema as string },
        ),
      ).toThrow(TypeError);
    }
  });

  it('refuses bad numbers and connections', () => {
    const connectionString = 'postgres://u@127.0.0.1:1/db';
    for (const options of [{ ttlMs: 0 }, { maxBytes: 1.5 }, { connectTimeoutMs: -1 }]) {
      expect(() => createPostgresStores({ connectionString }, options)).toThrow(RangeError);
    }
    expect(() => createPostgresStores({ connectionString: '' })).toThrow(TypeError);
    expect(() => createPostgresStores({} as { connectionString: string })).toThrow(TypeError);
    expect(() => createPostgresStores({ pool: {} as pg.Pool } as { pool: pg.Pool })).toThrow(
      TypeError,
    );
  });
});

describe.skipIf(url === undefined)('migrate() against Postgres', () => {
  const serverUrl = url ?? '';
  const schemas: string[] = [];
  const schema = (prefix: string) => {
    const name = freshSchema(prefix);
    schemas.push(name);
    return name;
  };
  afterAll(async () => {
    for (const name of schemas) await dropSchema(serverUrl, name);
  });

  it('three processes migrating one new schema at once apply each migration once', async () => {
    const name = schema('mig3');
    const answers = (await runTogether([1, 2, 3].map(() => ['migrate', serverUrl, name]))) as {
      applied: number[];
    }[];
    expect(answers.flatMap((answer) => answer.applied).sort()).toEqual(
      Array.from({ length: schemaVersion }, (_, index) => index + 1),
    );
    const stores = createPostgresStores({ connectionString: serverUrl }, { schema: name });
    try {
      expect(await stores.migrate()).toEqual([]);
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      const rows = await client.query(`SELECT version FROM "${name}".migrations ORDER BY version`);
      await client.end();
      expect(rows.rows.map((row) => row.version)).toEqual(
        Array.from({ length: schemaVersion }, (_, index) => index + 1),
      );
    } finally {
      await stores.close();
    }
  }, 120_000);

  it('on a pool of yours: the stores use it and close() leaves it open', async () => {
    const pool = new pg.Pool({ connectionString: serverUrl, max: 2 });
    const name = schema('pool');
    const stores = createPostgresStores({ pool }, { schema: name });
    try {
      await stores.migrate();
      expect(await stores.runStore.claim('run-a', 0)).toBe(true);
      await stores.close();
      const tables = await pool.query(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1',
        [name],
      );
      expect(tables.rows.map((row) => row.table_name)).toEqual([
        'idempotency',
        'migrations',
        'results',
        'runs',
      ]);
    } finally {
      await pool.end();
    }
  });

  it('keys that look like SQL are data: they round-trip and touch nothing else', async () => {
    const name = schema('inject');
    const stores = createPostgresStores({ connectionString: serverUrl }, { schema: name });
    try {
      await stores.migrate();
      const hostile = `x'); DROP TABLE "${name}".runs; --`;
      expect(await stores.runStore.claim(hostile, 1)).toBe(true);
      await stores.idempotencyStore.set(hostile, { said: hostile });
      expect(await stores.idempotencyStore.get(hostile)).toEqual({ said: hostile });
      await stores.resultStore.put(hostile, hostile, hostile);
      expect(await stores.resultStore.get(hostile)).toBe(hostile);
      expect(await stores.runStore.claim(hostile, 1)).toBe(false);
    } finally {
      await stores.close();
    }
  });

  it('an operation before migrate() names the fix', async () => {
    const stores = createPostgresStores(
      { connectionString: serverUrl },
      { schema: schema('unmigrated') },
    );
    try {
      await expect(stores.runStore.claim('r', 0)).rejects.toThrow(/call migrate\(\) once first/);
    } finally {
      await stores.close();
    }
  });
});
