import { randomUUID } from 'node:crypto';
import type { IdempotencyReservation, IdempotencyStore, JsonValue } from '@agcore/tools-core';
import type { Database, Statement } from './database.js';
import { encodeKey } from './keys.js';
import { Sweeper } from './sweeper.js';

/** The most leases one store remembers holding (for `release`); the oldest is forgotten first. */
const maxHeld = 10_000;

/**
 * An `IdempotencyStore` in Postgres (`{schema}.idempotency`), shared by every server of a fleet.
 * A row is a lease (no value, `expires_at` = the lease's end, `holder` = the reservation that
 * took it) or a committed result (its JSON, kept `ttlMs`). Every method is one statement, so
 * one round trip; `reserve` checks and takes in that statement, so of any number of concurrent
 * reservations of a free key one is `reserved`. Expired rows are removed by a bounded cleanup.
 */
export class PostgresIdempotencyStore implements IdempotencyStore {
  readonly #database: Database;
  readonly #ttlMs: number;
  readonly #sweeper: Sweeper;
  /** The holder token of each lease this store took and has not ended, by key digest (hex). */
  readonly #held = new Map<string, string>();
  readonly #get: Statement;
  readonly #set: Statement;
  readonly #reserve: Statement;
  readonly #release: Statement;

  /** An idempotency store on `database`, keeping results `ttlMs` (made by `createPostgresStores`). */
  constructor(database: Database, ttlMs: number) {
    this.#database = database;
    this.#ttlMs = ttlMs;
    this.#sweeper = new Sweeper(database, 'idempotency', 'PostgresIdempotencyStore.cleanup');
    this.#get = database.statement(
      'idem_get',
      'SELECT value FROM {s}.idempotency WHERE key_hash = $1 AND value IS NOT NULL AND expires_at > now()',
    );
    this.#set = database.statement(
      'idem_set',
      `INSERT INTO {s}.idempotency AS i (key_hash, key, value, holder, expires_at)
       VALUES ($1, $2, $3, NULL, now() + $4::double precision * interval '1 millisecond')
       ON CONFLICT (key_hash) DO UPDATE
         SET value = EXCLUDED.value, holder = NULL, expires_at = EXCLUDED.expires_at
         WHERE i.value IS NULL OR i.expires_at <= now()`,
    );
    // A row is free when it expired (a lease that ran out, or a result past ttlMs). The update
    // always writes (so it always returns the row, also to the caller that did not take it).
    this.#reserve = database.statement(
      'idem_reserve',
      `INSERT INTO {s}.idempotency AS i (key_hash, key, value, holder, expires_at)
       VALUES ($1, $2, NULL, $3::text, now() + $4::double precision * interval '1 millisecond')
       ON CONFLICT (key_hash) DO UPDATE SET
         value = CASE WHEN i.expires_at <= now() THEN NULL ELSE i.value END,
         holder = CASE WHEN i.expires_at <= now() THEN EXCLUDED.holder ELSE i.holder END,
         expires_at = CASE WHEN i.expires_at <= now() THEN EXCLUDED.expires_at ELSE i.expires_at END
       RETURNING holder = $3::text AS reserved, value`,
    );
    this.#release = database.statement(
      'idem_release',
      'DELETE FROM {s}.idempotency WHERE key_hash = $1 AND value IS NULL AND holder = $2',
    );
  }

  /**
   * The result committed under `key` (and not expired), or `undefined`.
   * @throws {TypeError} / {RangeError} (as a rejection) for a key that is not a non-empty string / is over 16 KiB as stored
   * @throws {PostgresStoreError} (as a rejection) when Postgres fails
   */
  async get(key: string): Promise<JsonValue | undefined> {
    const stored = encodeKey('PostgresIdempotencyStore.get', 'key', key);
    const result = await this.#database.run('PostgresIdempotencyStore.get', this.#get, [
      stored.digest,
    ]);
    const value: unknown = result.rows[0]?.value;
    return typeof value === 'string' ? (JSON.parse(value) as JsonValue) : undefined;
  }

  /**
   * Commits `value` under `key` for `ttlMs` and ends the lease on it; a key that holds an
   * unexpired committed result keeps it (the first result wins).
   * @throws {TypeError} (as a rejection) for a bad key or a value JSON cannot hold
   * @throws {PostgresStoreError} (as a rejection) when Postgres fails
   */
  async set(key: string, value: JsonValue): Promise<void> {
    const stored = encodeKey('PostgresIdempotencyStore.set', 'key', key);
    const json: unknown = JSON.stringify(value);
    if (typeof json !== 'string') {
      throw new TypeError('PostgresIdempotencyStore.set: value must be a JSON value.');
    }
    await this.#database.run('PostgresIdempotencyStore.set', this.#set, [
      stored.digest,
      stored.text,
      json,
      this.#ttlMs,
    ]);
    this.#held.delete(stored.digest.toString('hex'));
    this.#sweeper.wrote();
  }

  /**
   * Takes a lease of `leaseMs` on `key` in one statement: `reserved` when the key is free or its
   * lease ran out, `done` with a committed result, `in_progress` while another lease runs.
   * @throws {RangeError} (as a rejection) for a `leaseMs` that is not a positive finite number
   * @throws {PostgresStoreError} (as a rejection) when Postgres fails
   */
  async reserve(key: string, leaseMs: number): Promise<IdempotencyReservation> {
    const stored = encodeKey('PostgresIdempotencyStore.reserve', 'key', key);
    if (typeof leaseMs !== 'number' || !Number.isFinite(leaseMs) || leaseMs <= 0) {
      throw new RangeError(
        `PostgresIdempotencyStore.reserve: leaseMs must be a positive number, got ${String(leaseMs)}`,
      );
    }
    const holder = randomUUID();
    const result = await this.#database.run('PostgresIdempotencyStore.reserve', this.#reserve, [
      stored.digest,
      stored.text,
      holder,
      leaseMs,
    ]);
    const row = result.rows[0] as { reserved: boolean; value: string | null } | undefined;
    if (row?.reserved === true) {
      this.#hold(stored.digest.toString('hex'), holder);
      return { state: 'reserved' };
    }
    if (typeof row?.value === 'string') {
      return { state: 'done', value: JSON.parse(row.value) as JsonValue };
    }
    return { state: 'in_progress' };
  }

  /**
   * Gives up the lease this store took on `key` (a committed result, or another's lease, stays).
   * @throws {PostgresStoreError} (as a rejection) when Postgres fails (the lease then runs out by itself)
   */
  async release(key: string): Promise<void> {
    const stored = encodeKey('PostgresIdempotencyStore.release', 'key', key);
    const holder = this.#held.get(stored.digest.toString('hex'));
    if (holder === undefined) return;
    this.#held.delete(stored.digest.toString('hex'));
    await this.#database.run('PostgresIdempotencyStore.release', this.#release, [
      stored.digest,
      holder,
    ]);
  }

  /**
   * Removes at most `limit` expired rows (results past `ttlMs`, leases that ran out); resolves
   * how many. The store also runs it in the background every 100 commits.
   */
  cleanup(limit = 1000): Promise<number> {
    return this.#sweeper.sweep(limit);
  }

  /** Resolves once no background cleanup runs. @internal */
  idle(): Promise<void> {
    return this.#sweeper.idle();
  }

  #hold(digest: string, holder: string): void {
    this.#held.delete(digest);
    this.#held.set(digest, holder);
    if (this.#held.size > maxHeld) {
      const oldest = this.#held.keys().next();
      if (oldest.done !== true) this.#held.delete(oldest.value);
    }
  }
}
