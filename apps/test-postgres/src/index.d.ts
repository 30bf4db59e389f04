/**
 * The Postgres server's URL (`AGCORE_TEST_POSTGRES_URL`), or `undefined` when `who`'s Postgres
 * tests skip: without the variable (one line on stderr saying how to get a server), or under
 * `CI=true` without `AGCORE_SERVICE_TESTS=1` (the leg that runs no service).
 * @throws {Error} under `CI=true` with `AGCORE_SERVICE_TESTS=1` and no URL: a missing service is a failure there
 */
export declare function postgresUrl(who: string): string | undefined;

/** A schema name no other test file uses: `prefix` and a random tail. */
export declare function freshSchema(prefix: string): string;

/**
 * Drops `schema` (and its tables) on the server at `url`.
 * @throws {TypeError} for a name that is not a plain lower-case identifier
 */
export declare function dropSchema(url: string, schema: string): Promise<void>;

/** A fresh database on the server at `serverUrl`, and `drop()` that removes it (after waiting up to 10 s for its connections to close). */
export declare function freshDatabase(
  serverUrl: string,
): Promise<{ readonly url: string; readonly drop: () => Promise<void> }>;
