/**
 * `@agcore/store-postgres`: the run, idempotency and result stores of agcore in Postgres, so
 * that several processes (web app instances, a worker pool, a fleet of tool servers) share run
 * claims, idempotency keys and spilled results.
 */
export type { PostgresChangeFeedOptions } from './change-feed.js';
export { maxChangeBytes, PostgresChangeFeed } from './change-feed.js';
export type {
  PostgresChangeFeedSettings,
  PostgresConnection,
  PostgresStores,
  PostgresStoresOptions,
} from './create-stores.js';
export { createPostgresChangeFeed, createPostgresStores } from './create-stores.js';
export { PostgresStoreError } from './database.js';
export { PostgresIdempotencyStore } from './idempotency-store.js';
export { maxKeyBytes } from './keys.js';
export { schemaVersion } from './migrate.js';
export { PostgresResultStore } from './result-store.js';
export { PostgresRunStore } from './run-store.js';
