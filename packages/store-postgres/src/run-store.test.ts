/**
 * Issue 30 §2: `PostgresRunStore.claim` is one atomic statement: of 200 concurrent claims of one
 * `(runId, epoch)` from 4 processes exactly one is granted, a stale epoch is refused; the same
 * `RunState` resumed by two processes at once runs its approved delete once, and the other
 * resume ends with `state_conflict`, running nothing.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStores, type PostgresStores } from './index.js';
import { runTogether } from './test-support/children.js';
import { dropSchema, freshSchema, postgresUrl } from './test-support/postgres.js';
import { pausedDeleteState } from './test-support/run-kit.js';

const url = postgresUrl();

describe.skipIf(url === undefined)('PostgresRunStore', () => {
  const serverUrl = url ?? '';
  const schema = freshSchema('runs');
  let stores: PostgresStores;
  const scratch = mkdtempSync(join(tmpdir(), 'agcore-runs-'));

  beforeAll(async () => {
    stores = createPostgresStores({ connectionString: serverUrl }, { schema });
    await stores.migrate();
  });
  afterAll(async () => {
    await stores?.close();
    await dropSchema(serverUrl, schema);
    rmSync(scratch, { recursive: true, force: true });
  });

  it('200 concurrent claims of one (runId, epoch) from 4 processes: exactly one granted', async () => {
    const answers = (await runTogether(
      [1, 2, 3, 4].map(() => ['claim', serverUrl, schema, 'run-200', '3', '50']),
    )) as { granted: number }[];
    expect(answers.map((answer) => answer.granted).reduce((a, b) => a + b, 0)).toBe(1);
    // The granted epoch and every older one are refused from now on; a later one is granted once.
    expect(await stores.runStore.claim('run-200', 3)).toBe(false);
    expect(await stores.runStore.claim('run-200', 2)).toBe(false);
    expect(await stores.runStore.claim('run-200', 0)).toBe(false);
    expect(await stores.runStore.claim('run-200', 4)).toBe(true);
    expect(await stores.runStore.claim('run-200', 4)).toBe(false);
  }, 120_000);

  it('matches MemoryRunStore: epochs above the highest granted, per run; typed errors for bad input', async () => {
    const { runStore } = stores;
    expect(await runStore.claim('run-m', 5)).toBe(true);
    expect(await runStore.claim('run-m', 7)).toBe(true);
    expect(await runStore.claim('run-m', 6)).toBe(false);
    expect(await runStore.claim('run-other', 0)).toBe(true);
    expect(await runStore.claim('run-other', 0)).toBe(false);
    await expect(runStore.claim('', 0)).rejects.toThrow(TypeError);
    await expect(runStore.claim(7 as unknown as string, 0)).rejects.toThrow(TypeError);
    for (const epoch of [-1, 1.5, Number.NaN, 2 ** 53]) {
      await expect(runStore.claim('run-m', epoch)).rejects.toThrow(TypeError);
    }
  });

  it('one RunState resumed by two processes at once: the delete runs once, the other gets state_conflict', async () => {
    const stateFile = join(scratch, 'state.json');
    const ledger = join(scratch, 'deletes.log');
    writeFileSync(stateFile, JSON.stringify(await pausedDeleteState()));
    writeFileSync(ledger, '');
    const answers = (await runTogether(
      [1, 2].map(() => ['resume', serverUrl, schema, stateFile, ledger]),
    )) as { outcome: string; text?: string }[];
    expect(answers.map((answer) => answer.outcome).sort()).toEqual(['ok', 'state_conflict']);
    expect(answers.find((answer) => answer.outcome === 'ok')?.text).toBe('Deleted.');
    expect(readFileSync(ledger, 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
  }, 120_000);
});
