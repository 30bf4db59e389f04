// Postgres for the durable tests: the shared test support of @agcore/test-postgres (the
// server's URL or the one line saying how to get one; a fresh database per test file).
import { postgresUrl as urlFor } from '@agcore/test-postgres';

export { freshDatabase } from '@agcore/test-postgres';

/** The server's URL, or `undefined` (with one line saying how to get one) when tests skip. */
export function postgresUrl(): string | undefined {
  return urlFor('durable-dbos');
}
