/**
 * The one way the stores talk to Postgres: a pool, the schema's quoted name, parameterised
 * statements only (each a named prepared statement, so a repeated operation is parsed once per
 * connection), and every failure turned into a `PostgresStoreError` that names the server.
 */
import { describeThrown } from '@agcore/tools-core';
import type pg from 'pg';

/** Thrown (as a rejection) by every store operation that Postgres (or the way to it) failed. */
export class PostgresStoreError extends Error {
  /** The SQLSTATE of a server error (`42P01`…) or the network code (`ECONNREFUSED`…), when there is one. */
  readonly code: string | undefined;
  /** Where the store connects: `host:port/database` (never a user name or password). */
  readonly target: string;

  /** An error of operation `operation` on `target`, caused by `cause`. */
  constructor(operation: string, target: string, cause: unknown) {
    const code = codeOf(cause);
    const hint = code === '42P01' || code === '3F000' ? ' (call migrate() once first)' : '';
    super(
      `${operation}: Postgres at ${target} failed: ${describeThrown(cause)}${code === undefined ? '' : ` [${code}]`}${hint}`,
      { cause },
    );
    this.name = 'PostgresStoreError';
    this.code = code;
    this.target = target;
  }
}

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** A Postgres identifier we accept for the schema: lower case, as Postgres folds it. */
const identifier = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * `schema` quoted for SQL, after checking it is a plain identifier.
 * @throws {TypeError} for anything else
 */
export function quoteSchema(schema: unknown): string {
  if (typeof schema !== 'string' || !identifier.test(schema)) {
    throw new TypeError(
      `createPostgresStores: schema must match ${String(identifier)} (a lower-case Postgres identifier), got ${describeThrown(schema)}.`,
    );
  }
  return `"${schema}"`;
}

/** `host:port/database` of a pool's settings (the same defaults and variables `pg` uses), without credentials. */
export function describeTarget(options: pg.PoolConfig): string {
  let host = options.host ?? process.env.PGHOST;
  let port: string | number | undefined = options.port ?? process.env.PGPORT;
  let database = options.database ?? process.env.PGDATABASE;
  if (options.connectionString !== undefined) {
    try {
      const url = new URL(options.connectionString);
      host = url.hostname === '' ? host : decodeURIComponent(url.hostname);
      port = url.port === '' ? port : url.port;
      const path = decodeURIComponent(url.pathname.slice(1));
      database = path === '' ? database : path;
    } catch {
      return '(a connection string that is not a URL)';
    }
  }
  const user = options.user ?? process.env.PGUSER ?? process.env.USER;
  return `${host ?? 'localhost'}:${port ?? 5432}/${database ?? user ?? 'postgres'}`;
}

/** One statement: its prepared-statement name (unique per schema) and text. */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

/** The pool, the schema and the target of one set of stores. */
export class Database {
  /** The pool every statement runs on. */
  readonly pool: pg.Pool;
  /** The schema, quoted. */
  readonly schema: string;
  /** The schema as given. */
  readonly schemaName: string;
  /** `host:port/database`, for error messages. */
  readonly target: string;

  /** The database of `pool`, in schema `schemaName` (checked), described as `target`. */
  constructor(pool: pg.Pool, schemaName: string, target: string) {
    this.pool = pool;
    this.schema = quoteSchema(schemaName);
    this.schemaName = schemaName;
    this.target = target;
  }

  /** A named statement of this schema; `{s}` in `text` is the quoted schema. */
  statement(name: string, text: string): Statement {
    return { name: `agcore_${this.schemaName}_${name}`, text: text.replaceAll('{s}', this.schema) };
  }

  /**
   * Runs `statement` with `values` (one round trip).
   * @throws {PostgresStoreError} (as a rejection) whatever went wrong, named `operation`
   */
  async run(
    operation: string,
    statement: Statement,
    values: readonly unknown[],
  ): Promise<pg.QueryResult> {
    try {
      return await this.pool.query({
        name: statement.name,
        text: statement.text,
        values: [...values],
      });
    } catch (error) {
      throw new PostgresStoreError(operation, this.target, error);
    }
  }
}
