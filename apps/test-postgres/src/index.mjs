// Postgres for the tests of the packages that need one (store-postgres, durable-dbos,
// tools-mcp-server): AGCORE_TEST_POSTGRES_URL names a server (`.ci/run` starts one); each test
// file takes a schema or a database of its own, so files run in parallel, and drops it at the end.
import { randomUUID } from 'node:crypto';
import pg from 'pg';

/** The server's URL, or `undefined` (with one line saying how to get one) when `who`'s tests skip. */
export function postgresUrl(who) {
  const url = process.env.AGCORE_TEST_POSTGRES_URL;
  const ci = process.env.CI === 'true';
  if (ci && process.env.AGCORE_SERVICE_TESTS !== '1') return undefined;
  if (url === undefined || url === '') {
    if (ci)
      throw new Error(
        'AGCORE_TEST_POSTGRES_URL is not set under CI: .ci/run starts Postgres for these tests.',
      );
    process.stderr.write(
      `${who}: Postgres tests skipped: set AGCORE_TEST_POSTGRES_URL=postgres://user@127.0.0.1:PORT/postgres ` +
        '(`bash .ci/run` starts one; or `apt-get install postgresql`, initdb and pg_ctl start).\n',
    );
    return undefined;
  }
  return url;
}

/** A schema name no other test file uses: `prefix` and a random tail. */
export function freshSchema(prefix) {
  return `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
}

/** Drops `schema` (and its tables) on the server at `url`. */
export async function dropSchema(url, schema) {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new TypeError(`not a schema name: ${schema}`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** A fresh database on the server at `serverUrl`; `drop()` removes it. */
export async function freshDatabase(serverUrl) {
  const name = `agcore_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => dropDatabase(serverUrl, name) };
}

async function dropDatabase(serverUrl, name) {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    // Pools closed just before may still be saying goodbye: terminating them (FORCE) would
    // reach a client mid-end as an error nobody listens to. Wait for them to go (10 s at most).
    for (let waited = 0; waited < 10_000; waited += 100) {
      const open = await client.query(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [name],
      );
      if (open.rows[0]?.n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
