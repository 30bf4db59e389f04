// Postgres for this package's tests: the shared test support of @agcore/test-postgres (the
// server's URL or the one line saying how to get one; a schema of its own per test file).
import { postgresUrl as urlFor } from '@agcore/test-postgres';

export { dropSchema, freshSchema } from '@agcore/test-postgres';

/** The server's URL, or `undefined` (with one line saying how to get one) when tests skip. */
export function postgresUrl(): string | undefined {
  return urlFor('store-postgres');
}
