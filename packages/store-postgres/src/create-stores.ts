import pg from 'pg';
import { PostgresChangeFeed, type PostgresChangeFeedOptions } from './change-feed.js';
import { Database, describeTarget, quoteSchema } from './database.js';
import { PostgresIdempotencyStore } from './idempotency-store.js';
import { migrate } from './migrate.js';
import { PostgresResultStore } from './result-store.js';
import { PostgresRunStore } from './run-store.js';

/** Where the stores connect: a pool of yours (you end it), or a connection string (the stores make and end the pool). */
export type PostgresConnection =
  | { readonly pool: pg.Pool; readonly connectionString?: undefined }
  | { readonly connectionString: string; readonly pool?: undefined };

/** Options of `createPostgresStores`. */
export interface PostgresStoresOptions {
  /** The schema the tables live in: a lower-case identifier (`/^[a-z_][a-z0-9_]{0,62}$/`). Default `agcore`. */
  readonly schema?: string;
  /** How long committed idempotency results and spilled results are kept, in ms. Default 24 h. */
  readonly ttlMs?: number;
  /** The most UTF-8 bytes of one spilled result; a bigger one is refused (no handle). Default 8 MiB. */
  readonly maxBytes?: number;
  /** How long to wait for a connection of a pool the stores make, in ms. Default 10 000. */
  readonly connectTimeoutMs?: number;
  /** Options of the change feed (`changes`): its reconnect delay and error hook. */
  readonly changes?: PostgresChangeFeedOptions;
}

/** What `createPostgresStores` returns. */
export interface PostgresStores {
  /** Run claims: `new LlmCycle({ runStore })`. */
  readonly runStore: PostgresRunStore;
  /** Idempotency keys with leases: `serveTools({ idempotency: { store } })`. */
  readonly idempotencyStore: PostgresIdempotencyStore;
  /** Spilled tool results: `spill: { store }`. */
  readonly resultStore: PostgresResultStore;
  /** Changes across the processes on this schema (`LISTEN/NOTIFY`): `serveTools({ changes })`. */
  readonly changes: PostgresChangeFeed;
  /** Creates or updates the schema (idempotent, safe from many processes at once); resolves the migrations applied now. */
  migrate(): Promise<number[]>;
  /** Ends the feed's listening connection, waits for background cleanups, then ends the pool when the stores made it (yours is left open). */
  close(): Promise<void>;
}

const defaults = { schema: 'agcore', ttlMs: 24 * 60 * 60 * 1000, maxBytes: 8 * 1024 * 1024 };

function positiveInteger(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(
      `createPostgresStores: ${name} must be a positive integer, got ${String(value)}.`,
    );
  }
  return value;
}

function poolOf(connection: PostgresConnection, connectTimeoutMs: number): pg.Pool {
  if (typeof connection !== 'object' || connection === null) {
    throw new TypeError('createPostgresStores: pass { pool } or { connectionString }.');
  }
  if (connection.pool !== undefined) {
    if (connection.connectionString !== undefined) {
      throw new TypeError('createPostgresStores: pass { pool } or { connectionString }, not both.');
    }
    if (
      typeof connection.pool.query !== 'function' ||
      typeof connection.pool.connect !== 'function'
    ) {
      throw new TypeError('createPostgresStores: pool must be a pg Pool.');
    }
    return connection.pool;
  }
  if (typeof connection.connectionString !== 'string' || connection.connectionString === '') {
    throw new TypeError('createPostgresStores: connectionString must be a non-empty string.');
  }
  const pool = new pg.Pool({
    connectionString: connection.connectionString,
    connectionTimeoutMillis: connectTimeoutMs,
  });
  // An idle connection the server dropped (a restart) is an 'error' on the pool, which would
  // crash the process unheard; the pool discards it and the next operation connects again.
  pool.on('error', () => undefined);
  return pool;
}

/** Options of `createPostgresChangeFeed`: the schema (its channel is `<schema>.changes`) and the feed's own. */
export interface PostgresChangeFeedSettings extends PostgresChangeFeedOptions {
  /** As `createPostgresStores`' `schema`. Default `agcore`. */
  readonly schema?: string;
  /** How long to wait for a connection of a pool the feed makes, in ms. Default 10 000. */
  readonly connectTimeoutMs?: number;
}

/**
 * The change feed alone (no tables, no `migrate()` needed): `LISTEN/NOTIFY` on channel
 * `<schema>.changes`. Its `close()` ends the pool when it made it.
 * @throws {TypeError} for a connection that is neither `{ pool }` nor `{ connectionString }`, or a schema that is not a plain identifier
 * @throws {RangeError} for a `connectTimeoutMs` that is not a positive integer
 */
export function createPostgresChangeFeed(
  connection: PostgresConnection,
  options: PostgresChangeFeedSettings = {},
): PostgresChangeFeed {
  const schema = options.schema ?? defaults.schema;
  quoteSchema(schema);
  const connectTimeoutMs = positiveInteger('connectTimeoutMs', options.connectTimeoutMs, 10_000);
  const pool = poolOf(connection, connectTimeoutMs);
  const database = new Database(pool, schema, describeTarget(pool.options));
  return new PostgresChangeFeed(database, options, async () => {
    if (connection.pool === undefined) await pool.end();
  });
}

/**
 * The three stores and the change feed on one Postgres pool, in schema `options.schema`. Call `migrate()` once
 * (from any number of processes) before the first operation.
 * @throws {TypeError} for a connection that is neither `{ pool }` nor `{ connectionString }`, or a schema that is not a plain identifier
 * @throws {RangeError} for a `ttlMs`, `maxBytes` or `connectTimeoutMs` that is not a positive integer
 */
export function createPostgresStores(
  connection: PostgresConnection,
  options: PostgresStoresOptions = {},
): PostgresStores {
  const schema = options.schema ?? defaults.schema;
  quoteSchema(schema);
  const ttlMs = positiveInteger('ttlMs', options.ttlMs, defaults.ttlMs);
  const maxBytes = positiveInteger('maxBytes', options.maxBytes, defaults.maxBytes);
  const connectTimeoutMs = positiveInteger('connectTimeoutMs', options.connectTimeoutMs, 10_000);
  const pool = poolOf(connection, connectTimeoutMs);
  const database = new Database(pool, schema, describeTarget(pool.options));
  const idempotencyStore = new PostgresIdempotencyStore(database, ttlMs);
  const resultStore = new PostgresResultStore(database, ttlMs, maxBytes);
  const changes = new PostgresChangeFeed(database, options.changes);
  let closed: Promise<void> | undefined;
  return {
    runStore: new PostgresRunStore(database),
    idempotencyStore,
    resultStore,
    changes,
    migrate: () => migrate(database),
    close: () => {
      closed ??= (async () => {
        await Promise.all([changes.close(), idempotencyStore.idle(), resultStore.idle()]);
        if (connection.pool === undefined) await pool.end();
      })();
      return closed;
    },
  };
}
