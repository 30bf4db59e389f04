/**
 * The store's tables, in its own schema, created by numbered migrations recorded in
 * `{schema}.migrations`. `migrate()` runs in one transaction under a transaction-level advisory
 * lock on the schema's name, so processes that migrate at once wait for each other and apply
 * each migration once; a migrated schema costs one lock and one read.
 */
import type pg from 'pg';
import type { Database } from './database.js';
import { PostgresStoreError } from './database.js';

/**
 * The migrations, in order; `{s}` is the quoted schema. Never edit one that shipped: add the
 * next. Keys are looked up by the SHA-256 of their stored text (`*_hash`); the text is kept
 * beside it for people reading the tables.
 */
const migrations: readonly { readonly version: number; readonly sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE {s}.runs (
        run_key bytea PRIMARY KEY,
        run_id text NOT NULL,
        epoch bigint NOT NULL,
        claimed_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE {s}.idempotency (
        key_hash bytea PRIMARY KEY,
        key text NOT NULL,
        value text,
        holder text,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX idempotency_expires_at ON {s}.idempotency (expires_at);
      CREATE TABLE {s}.results (
        handle_hash bytea PRIMARY KEY,
        handle text NOT NULL,
        run_id text NOT NULL,
        content text NOT NULL,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX results_expires_at ON {s}.results (expires_at);`,
  },
];

/** The newest migration's version: what a migrated schema is at. */
export const schemaVersion = migrations.length;

/**
 * Creates the schema and applies the migrations it lacks; returns the versions applied now.
 * @throws {PostgresStoreError} (as a rejection) when Postgres cannot be reached or refuses
 */
export async function migrate(database: Database): Promise<number[]> {
  let client: pg.PoolClient;
  try {
    client = await database.pool.connect();
  } catch (error) {
    throw new PostgresStoreError('PostgresStores.migrate', database.target, error);
  }
  const s = database.schema;
  let broken: unknown;
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
      `@agcore/store-postgres:${database.schemaName}`,
    ]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const done = await client.query<{ version: number }>(`SELECT version FROM ${s}.migrations`);
    const have = new Set(done.rows.map((row) => row.version));
    const applied: number[] = [];
    for (const migration of migrations) {
      if (have.has(migration.version)) continue;
      await client.query(migration.sql.replaceAll('{s}', s));
      await client.query(`INSERT INTO ${s}.migrations (version) VALUES ($1)`, [migration.version]);
      applied.push(migration.version);
    }
    await client.query('COMMIT');
    return applied;
  } catch (error) {
    broken = error;
    await client.query('ROLLBACK').catch(() => undefined);
    throw new PostgresStoreError('PostgresStores.migrate', database.target, error);
  } finally {
    // A connection that failed mid-transaction is not handed back to the pool for reuse.
    client.release(broken instanceof Error ? broken : undefined);
  }
}
