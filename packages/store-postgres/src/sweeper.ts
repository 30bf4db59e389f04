import type { Database, Statement } from './database.js';

/** How many writes pass between two background cleanups, and how many rows one removes at most. */
const writesPerSweep = 100;
const rowsPerSweep = 500;

/**
 * The bounded cleanup of one table's expired rows: `DELETE` of at most `limit` rows a time (so
 * it never holds many locks or runs long), run in the background every `writesPerSweep` writes
 * and on demand. A background cleanup that fails is dropped: the next one retries.
 */
export class Sweeper {
  readonly #database: Database;
  readonly #statement: Statement;
  readonly #operation: string;
  #writes = 0;
  #running: Promise<unknown> | undefined;

  /** The cleanup of `table` (a name of ours, never a user value), reporting as `operation`. */
  constructor(database: Database, table: string, operation: string) {
    this.#database = database;
    this.#operation = operation;
    this.#statement = database.statement(
      `sweep_${table}`,
      `DELETE FROM {s}.${table} WHERE ctid IN (
         SELECT ctid FROM {s}.${table} WHERE expires_at <= now() LIMIT $1)`,
    );
  }

  /** Removes at most `limit` expired rows; resolves how many it removed. */
  async sweep(limit: number): Promise<number> {
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new RangeError(
        `${this.#operation}: limit must be a positive integer, got ${String(limit)}.`,
      );
    }
    const result = await this.#database.run(this.#operation, this.#statement, [limit]);
    return result.rowCount ?? 0;
  }

  /** Notes one write; every `writesPerSweep`-th starts a background cleanup (one at a time). */
  wrote(): void {
    this.#writes++;
    if (this.#writes % writesPerSweep !== 0 || this.#running !== undefined) return;
    this.#running = this.sweep(rowsPerSweep)
      .catch(() => undefined)
      .finally(() => {
        this.#running = undefined;
      });
  }

  /** Resolves once no background cleanup runs (before the pool is ended). */
  async idle(): Promise<void> {
    await this.#running;
  }
}
