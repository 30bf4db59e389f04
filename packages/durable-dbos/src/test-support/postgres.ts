// Postgres for the durable tests: AGCORE_TEST_POSTGRES_URL names a server (`.ci/run` starts
// one); each test file gets a fresh database, dropped at the end.
import { randomUUID } from 'node:crypto';
import pg from 'pg';

const howTo =
  'durable-dbos: tests skipped: set AGCORE_TEST_POSTGRES_URL=postgres://user@127.0.0.1:PORT/postgres ' +
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

/** A fresh database on the server; `drop()` removes it. */
export async function freshDatabase(
  serverUrl: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `agcore_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      // Pools closed just before may still be saying goodbye: terminating them (FORCE) would
      // reach a client mid-end as an error nobody listens to. Wait for them to go (10 s at most).
      for (let waited = 0; waited < 10_000; waited += 100) {
        const open = await client.query(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [name],
        );
        if ((open.rows[0] as { n: number } | undefined)?.n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
