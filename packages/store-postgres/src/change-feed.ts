/**
 * `PostgresChangeFeed`: tools-core's `ChangeFeed` on Postgres `LISTEN/NOTIFY`, so that a change
 * published by one process (a tool registered on one node of a fleet) reaches the subscribers of
 * every process on the same database and schema.
 */
import { backoffDelay, type ChangeFeed, type ServerChange, sha256Hex } from '@agcore/tools-core';
import pg from 'pg';
import { type Database, PostgresStoreError } from './database.js';

/** The most UTF-8 bytes of one change's JSON: Postgres refuses a `NOTIFY` payload of 8000 bytes or more. */
export const maxChangeBytes = 7999;

/** Options of a `PostgresChangeFeed`. */
export interface PostgresChangeFeedOptions {
  /** The first wait before the listening connection is made again after it was lost, in ms (doubled each failure, at most 5 s). Default 100. */
  readonly reconnectDelayMs?: number;
  /** Called with every failure of the listening connection (it is made again after a wait). Default: ignored. */
  readonly onError?: (error: PostgresStoreError) => void;
}

const kinds = new Set(['tools_list_changed', 'prompts_list_changed', 'resources_list_changed']);

/** `value` as a `ServerChange`, or `undefined` when it is none. */
function asChange(value: unknown): ServerChange | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { kind, uri } = value as { kind?: unknown; uri?: unknown };
  if (typeof kind === 'string' && kinds.has(kind) && uri === undefined) {
    return { kind } as ServerChange;
  }
  if (kind === 'resource_updated' && typeof uri === 'string') return { kind, uri };
  return undefined;
}

/**
 * The channel of `schema`: `<schema>.changes`, or, for a schema over 55 characters (the channel
 * would be over Postgres's 63), its first 46 characters, 8 hex digits of its SHA-256, `.changes`.
 */
export function channelOf(schema: string): string {
  const channel = `${schema}.changes`;
  return channel.length <= 63
    ? channel
    : `${schema.slice(0, 46)}.${sha256Hex(schema).slice(0, 8)}.changes`;
}

/**
 * A `ChangeFeed` on `LISTEN/NOTIFY` on channel `<schema>.changes` of the stores' database. One
 * listening connection per feed (not taken from the pool), opened by the first `subscribe` and
 * ended when the last listener leaves or at `close()`; lost (a Postgres restart), it is made
 * again with a backoff. Changes published while it is down are lost for this process: Postgres
 * keeps no notification for a listener that is not connected.
 */
export class PostgresChangeFeed implements ChangeFeed {
  readonly #database: Database;
  readonly #channel: string;
  readonly #options: PostgresChangeFeedOptions;
  readonly #listeners = new Set<(change: ServerChange) => void>();
  #client: pg.Client | undefined;
  #listening: Promise<void> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #failures = 0;
  #closed = false;
  #closing: Promise<void> | undefined;

  readonly #ended: () => Promise<void>;

  /**
   * The feed of `database`'s schema (made by `createPostgresStores` or `createPostgresChangeFeed`);
   * `ended` runs at the end of `close()` (ends a pool the feed made).
   */
  constructor(
    database: Database,
    options: PostgresChangeFeedOptions = {},
    ended: () => Promise<void> = async () => undefined,
  ) {
    this.#database = database;
    this.#options = options;
    this.#ended = ended;
    this.#channel = channelOf(database.schemaName);
  }

  /** The `LISTEN/NOTIFY` channel: `<schema>.changes`. */
  get channel(): string {
    return this.#channel;
  }

  /**
   * Sends `change` to every subscriber of every process on this schema (this one's included).
   * @throws {TypeError} (as a rejection) for a value that is not a `ServerChange`
   * @throws {RangeError} (as a rejection) for a change whose JSON is over `maxChangeBytes`
   * @throws {PostgresStoreError} (as a rejection) when Postgres could not be reached or refused it
   */
  async publish(change: ServerChange): Promise<void> {
    const valid = asChange(change);
    if (valid === undefined) {
      throw new TypeError('PostgresChangeFeed.publish: not a ServerChange.');
    }
    const payload = JSON.stringify(valid);
    const bytes = Buffer.byteLength(payload, 'utf8');
    if (bytes > maxChangeBytes) {
      throw new RangeError(
        `PostgresChangeFeed.publish: the change is ${bytes} bytes of JSON, over the ${maxChangeBytes} a Postgres NOTIFY carries.`,
      );
    }
    await this.#database.run(
      'publish',
      this.#database.statement('notify', 'SELECT pg_notify($1, $2)'),
      [this.#channel, payload],
    );
  }

  /** Calls `listener` with every change heard from now on (once the connection listens: see `listening()`). */
  subscribe(listener: (change: ServerChange) => void): () => void {
    const own = (change: ServerChange) => listener(change);
    this.#listeners.add(own);
    if (!this.#closed && this.#client === undefined && this.#timer === undefined) this.#connect();
    return () => {
      if (!this.#listeners.delete(own) || this.#listeners.size > 0) return;
      this.#stop();
    };
  }

  /**
   * Resolves once this feed's connection listens (changes published from then on are heard);
   * rejects with the `PostgresStoreError` of the attempt when it failed (a retry follows). With
   * no subscriber, resolves at once.
   */
  listening(): Promise<void> {
    return this.#listening ?? Promise.resolve();
  }

  /** Ends the listening connection; no listener is called any more and `subscribe` listens no more. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closed = true;
      this.#listeners.clear();
      await this.#stop();
      await this.#ended();
    })();
    return this.#closing;
  }

  #stop(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#listening = undefined;
    const client = this.#client;
    this.#client = undefined;
    return client === undefined ? Promise.resolve() : client.end().catch(() => undefined);
  }

  #connect(): void {
    const client = new pg.Client(this.#database.pool.options);
    this.#client = client;
    const lost = (cause: unknown) => {
      if (this.#client !== client) return;
      this.#client = undefined;
      client.end().catch(() => undefined);
      this.#fail(cause);
    };
    client.on('error', lost);
    client.on('end', () => lost(new Error('the listening connection ended')));
    client.on('notification', (message) => {
      if (this.#client === client && message.channel === this.#channel) this.#deliver(message);
    });
    const quoted = `"${this.#channel}"`;
    const listening = client
      .connect()
      .then(() => client.query(`LISTEN ${quoted}`))
      .then(
        () => {
          this.#failures = 0;
        },
        (error: unknown) => {
          const failure = new PostgresStoreError('listen', this.#database.target, error);
          lost(failure);
          throw failure;
        },
      );
    listening.catch(() => undefined);
    this.#listening = listening;
  }

  #fail(cause: unknown): void {
    const error =
      cause instanceof PostgresStoreError
        ? cause
        : new PostgresStoreError('listen', this.#database.target, cause);
    try {
      this.#options.onError?.(error);
    } catch {
      // The caller's hook: its throw changes nothing here.
    }
    if (this.#closed || this.#listeners.size === 0) return;
    this.#failures += 1;
    const wait = backoffDelay(this.#failures, {
      initialDelayMs: this.#options.reconnectDelayMs ?? 100,
      maxDelayMs: 5000,
    });
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (!this.#closed && this.#listeners.size > 0 && this.#client === undefined) this.#connect();
    }, wait);
  }

  #deliver(message: pg.Notification): void {
    let change: ServerChange | undefined;
    try {
      change = asChange(JSON.parse(message.payload ?? ''));
    } catch {
      change = undefined;
    }
    // Another writer's NOTIFY on the channel that is no change of ours is ignored.
    if (change === undefined) return;
    for (const listener of [...this.#listeners]) {
      try {
        listener(change);
      } catch {
        // One listener's failure stops no other.
      }
    }
  }
}
