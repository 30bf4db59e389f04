import type { ResultStore } from '@agcore/tools-core';
import type { Database, Statement } from './database.js';
import { decodeString, encodeKey } from './keys.js';
import { Sweeper } from './sweeper.js';

/**
 * A `ResultStore` in Postgres (`{schema}.results`): a spilled result put by one process is read
 * by any other (a run resumed on another worker, or after a restart) until it expires after
 * `ttlMs`. A result over `maxBytes` (UTF-8) is refused, so the model gets the cut result
 * without a handle. `put` and `get` are one statement each.
 */
export class PostgresResultStore implements ResultStore {
  readonly #database: Database;
  readonly #ttlMs: number;
  readonly #maxBytes: number;
  readonly #sweeper: Sweeper;
  readonly #put: Statement;
  readonly #get: Statement;

  /** A result store on `database` (made by `createPostgresStores`). */
  constructor(database: Database, ttlMs: number, maxBytes: number) {
    this.#database = database;
    this.#ttlMs = ttlMs;
    this.#maxBytes = maxBytes;
    this.#sweeper = new Sweeper(database, 'results', 'PostgresResultStore.cleanup');
    this.#put = database.statement(
      'result_put',
      `INSERT INTO {s}.results (handle_hash, handle, run_id, content, expires_at)
       VALUES ($1, $2, $3, $4, now() + $5::double precision * interval '1 millisecond')
       ON CONFLICT (handle_hash) DO UPDATE
         SET run_id = EXCLUDED.run_id, content = EXCLUDED.content, expires_at = EXCLUDED.expires_at`,
    );
    this.#get = database.statement(
      'result_get',
      'SELECT content FROM {s}.results WHERE handle_hash = $1 AND expires_at > now()',
    );
  }

  /**
   * Keeps `content` under `handle` for `ttlMs` (a second put of one handle replaces it).
   * @throws {RangeError} (as a rejection) for content over `maxBytes`, or a handle or run id over 16 KiB as stored
   * @throws {TypeError} (as a rejection) for a handle or run id that is not a non-empty string, or content that is not a string
   * @throws {PostgresStoreError} (as a rejection) when Postgres fails
   */
  async put(handle: string, content: string, runId: string): Promise<void> {
    const stored = encodeKey('PostgresResultStore.put', 'handle', handle);
    const run = encodeKey('PostgresResultStore.put', 'runId', runId);
    if (typeof content !== 'string') {
      throw new TypeError('PostgresResultStore.put: content must be a string.');
    }
    const bytes = Buffer.byteLength(content, 'utf8');
    if (bytes > this.#maxBytes) {
      throw new RangeError(
        `PostgresResultStore.put: the result is ${bytes} bytes, over maxBytes (${this.#maxBytes}); it was not kept.`,
      );
    }
    await this.#database.run('PostgresResultStore.put', this.#put, [
      stored.digest,
      stored.text,
      run.text,
      JSON.stringify(content),
      this.#ttlMs,
    ]);
    this.#sweeper.wrote();
  }

  /**
   * The content kept under `handle`, or `undefined` when it is unknown or expired.
   * @throws {PostgresStoreError} (as a rejection) when Postgres fails
   */
  async get(handle: string): Promise<string | undefined> {
    const stored = encodeKey('PostgresResultStore.get', 'handle', handle);
    const result = await this.#database.run('PostgresResultStore.get', this.#get, [stored.digest]);
    return decodeString(result.rows[0]?.content);
  }

  /** Removes at most `limit` expired results; resolves how many. Also run in the background every 100 puts. */
  cleanup(limit = 1000): Promise<number> {
    return this.#sweeper.sweep(limit);
  }

  /** Resolves once no background cleanup runs. @internal */
  idle(): Promise<void> {
    return this.#sweeper.idle();
  }
}
