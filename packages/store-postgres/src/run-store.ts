import type { RunStore } from '@agcore/tools-core';
import type { Database, Statement } from './database.js';
import { encodeKey } from './keys.js';

/**
 * A `RunStore` in Postgres (`{schema}.runs`, one row per run): a claim is granted when its epoch
 * is above every epoch granted for the run so far, checked and recorded by one statement, so of
 * any number of claims of one `(runId, epoch)` from any number of processes exactly one is
 * granted, and a stale epoch is refused. Rows are kept for good (a run's claims must be
 * remembered as long as its states exist).
 */
export class PostgresRunStore implements RunStore {
  readonly #database: Database;
  readonly #claim: Statement;

  /** A run store on `database` (made by `createPostgresStores`). */
  constructor(database: Database) {
    this.#database = database;
    this.#claim = database.statement(
      'claim',
      `INSERT INTO {s}.runs AS r (run_key, run_id, epoch) VALUES ($1, $2, $3)
       ON CONFLICT (run_key) DO UPDATE SET epoch = EXCLUDED.epoch, claimed_at = now()
       WHERE r.epoch < EXCLUDED.epoch
       RETURNING 1`,
    );
  }

  /**
   * `true` when `epoch` is above every epoch granted for `runId` so far (it is granted now),
   * else `false`. One round trip.
   * @throws {TypeError} (as a rejection) for a run id that is not a non-empty string or an epoch that is not an integer >= 0
   * @throws {RangeError} (as a rejection) for a run id over 16 KiB as stored
   * @throws {PostgresStoreError} (as a rejection) when Postgres fails: the cycle ends that resume with `callback_failed`
   */
  async claim(runId: string, epoch: number): Promise<boolean> {
    const key = encodeKey('PostgresRunStore.claim', 'runId', runId);
    if (!Number.isSafeInteger(epoch) || epoch < 0) {
      throw new TypeError(
        `PostgresRunStore.claim: epoch must be an integer >= 0, got ${String(epoch)}.`,
      );
    }
    const result = await this.#database.run('PostgresRunStore.claim', this.#claim, [
      key.digest,
      key.text,
      epoch,
    ]);
    return result.rowCount === 1;
  }
}
