import { createPostgresStores, type PostgresStores } from '@agcore/store-postgres';
import { redactUrl } from '@agcore/tools-core';
import { ExitCode, PlaygroundError } from './playground-error.js';

/**
 * The Postgres stores `--store URL` names, migrated: the run store a resume claims from (so the
 * same run file resumed in two terminals runs once) and the idempotency store `serve` keeps
 * keyed results in.
 * @throws {PlaygroundError} for a URL that is not `postgres://…`, or a server that cannot be reached (one line, no password)
 */
export async function openSharedStores(url: string): Promise<PostgresStores> {
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new PlaygroundError(
      `--store ${redactUrl(url)}: give a Postgres URL, postgres://user@host:port/database.`,
    );
  }
  const stores = createPostgresStores({ connectionString: url }, { connectTimeoutMs: 10_000 });
  try {
    await stores.migrate();
    return stores;
  } catch (error) {
    await stores.close().catch(() => undefined);
    const said = error instanceof Error ? error.message : String(error);
    throw new PlaygroundError(`--store: ${said.replace(/^PostgresStores\.migrate: /, '')}`, {
      exitCode: ExitCode.failed,
    });
  }
}
