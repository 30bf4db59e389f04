// Postgres for the tests in src/postgres/ (the stores of @agcore/store-postgres under serveTools):
// each test file uses a schema of its own (so files run in parallel), dropped at the end.
import { randomUUID } from 'node:crypto';
import pg from 'pg';

const howTo =
  'tools-mcp-server: Postgres tests skipped: set AGCORE_TEST_POSTGRES_URL=postgres://user@127.0.0.1:PORT/postgres ' +
  '(`bash .ci/run` starts one; or `apt-get install postgresql`, initdb and pg_ctl start).';

/** The server's URL, or `undefined` (with one line saying how to get one) when tests skip. */
export function postgresUrl(): string | undefined {
  const url = process.env.AGCORE_TEST_POSTGRES_URL;
  const ci = process.env.CI === 'true';
  if (ci && process.env.AGCORE_SERVICE_TESTS !== '1') return undefined;
  if (url === undefined || url === '') {
    if (ci)
      throw new Error(
        'AGCORE_TEST_POSTGRES_URL is not set under CI: .ci/run starts Postgres for these tests.',
      );
    process.stderr.write(`${howTo}\n`);
    return undefined;
  }
  return url;
}

/** A schema name no other test file uses: `prefix` and a random tail. */
export function freshSchema(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
}

/** Drops `schema` (and its tables) on the server at `url`. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new TypeError(`not a schema name: ${schema}`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
