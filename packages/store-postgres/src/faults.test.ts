/**
 * Issue 30 §6: Postgres down at start fails with a message naming `host:port/database` (no
 * password); a restart mid-run fails the next claim or reservation (the cycle ends that resume
 * with `callback_failed`, running nothing) and the store works again once the server is back;
 * keys and handles of any Unicode round-trip; a 64 KiB key is a `RangeError`, sent nowhere.
 */
import { LlmCycle, LlmError } from '@agcore/llm-cycle';
import { ScriptedProvider, textResponse } from '@agcore/llm-cycle/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStores, PostgresStoreError, type PostgresStores } from './index.js';
import { type Cluster, freePort, postgresBin, startCluster } from './test-support/cluster.js';
import { dropSchema, freshSchema, postgresUrl } from './test-support/postgres.js';
import { deleteRegistry, pausedDeleteState } from './test-support/run-kit.js';

const url = postgresUrl();

/** Resumes `state`'s delete on `stores`' run store: the outcome and how often the delete ran. */
function resumer(stores: PostgresStores, state: Awaited<ReturnType<typeof pausedDeleteState>>) {
  let runs = 0;
  const cycle = new LlmCycle({
    provider: new ScriptedProvider([textResponse('Deleted.')]),
    model: 'test',
    state,
    runStore: stores.runStore,
  });
  const registry = deleteRegistry(() => {
    runs++;
  });
  return {
    cycle,
    runs: () => runs,
    resume: () =>
      cycle.resume({ call_del: 'approve' }, registry).then(
        (response) => response.message.content,
        (error: unknown) => (LlmError.isInstance(error) ? error.code : error),
      ),
  };
}

describe('Postgres down at start', () => {
  it('migrate() and the first operation name host:port/database, never the password; a resume ends callback_failed and runs nothing', async () => {
    const port = await freePort();
    const stores = createPostgresStores(
      { connectionString: `postgres://agent:s3cret-pw@127.0.0.1:${port}/agents` },
      { schema: 'down_at_start', connectTimeoutMs: 5000 },
    );
    try {
      for (const attempt of [stores.migrate(), stores.runStore.claim('run-1', 1)]) {
        const error = await attempt.then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error).toBeInstanceOf(PostgresStoreError);
        const failure = error as PostgresStoreError;
        expect(failure.message).toContain(`Postgres at 127.0.0.1:${port}/agents failed`);
        expect(failure.message).not.toContain('s3cret');
        expect(failure.target).toBe(`127.0.0.1:${port}/agents`);
        expect(failure.code).toBe('ECONNREFUSED');
      }
      await expect(stores.idempotencyStore.reserve('k', 1000)).rejects.toThrow(PostgresStoreError);
      const run = resumer(stores, await pausedDeleteState());
      expect(await run.resume()).toBe('callback_failed');
      expect(run.runs()).toBe(0);
      expect(run.cycle.interruptions().map((item) => item.callId)).toEqual(['call_del']);
    } finally {
      await stores.close();
    }
  });

  it('a 64 KiB key, handle or run id is a RangeError, and nothing is sent', async () => {
    const port = await freePort();
    const stores = createPostgresStores({ connectionString: `postgres://u@127.0.0.1:${port}/d` });
    const huge = 'k'.repeat(64 * 1024);
    const { runStore, idempotencyStore, resultStore } = stores;
    try {
      for (const attempt of [
        runStore.claim(huge, 1),
        idempotencyStore.get(huge),
        idempotencyStore.set(huge, 1),
        idempotencyStore.reserve(huge, 1000),
        idempotencyStore.release(huge),
        resultStore.put(huge, 'content', 'run'),
        resultStore.put('handle', 'content', huge),
        resultStore.get(huge),
        // Under the code-unit bound but over the byte bound once stored.
        idempotencyStore.get('\u0000'.repeat(3000)),
      ]) {
        await expect(attempt).rejects.toThrow(RangeError);
      }
      await expect(idempotencyStore.get('')).rejects.toThrow(TypeError);
    } finally {
      await stores.close();
    }
  });
});

describe.skipIf(url === undefined)('keys and handles of any Unicode', () => {
  const serverUrl = url ?? '';
  const schema = freshSchema('unicode');
  let stores: PostgresStores;
  beforeAll(async () => {
    stores = createPostgresStores({ connectionString: serverUrl }, { schema });
    await stores.migrate();
  });
  afterAll(async () => {
    await stores?.close();
    await dropSchema(serverUrl, schema);
  });

  const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));
  const keys = fc.oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 120 }),
    fc.string({ unit: anyCodeUnit, minLength: 1, maxLength: 120 }),
  );

  it('round-trip through every store (fixed seed)', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(keys, keys, async (key, text) => {
        n++;
        // Two keys that differ only in their tail stay apart: a prefix per run keeps them fresh.
        const fresh = `${n}:${key}`;
        expect(await stores.runStore.claim(fresh, 1)).toBe(true);
        expect(await stores.runStore.claim(fresh, 1)).toBe(false);
        await stores.idempotencyStore.set(fresh, { text });
        expect(await stores.idempotencyStore.get(fresh)).toEqual({ text });
        expect(await stores.idempotencyStore.get(`${fresh}x`)).toBeUndefined();
        await stores.resultStore.put(fresh, text, key);
        expect(await stores.resultStore.get(fresh)).toBe(text);
      }),
      { seed: 3030, numRuns: 150 },
    );
  }, 120_000);
});

const bin = postgresBin();

describe.skipIf(url === undefined || bin === undefined)('Postgres restarted mid-run', () => {
  let cluster: Cluster | undefined;
  afterAll(() => cluster?.remove());

  it('the next claim and reservation fail, nothing runs, and the store works again once it is back', async () => {
    cluster = await startCluster(bin ?? '');
    const stores = createPostgresStores(
      { connectionString: cluster.url },
      { schema: 'restart', connectTimeoutMs: 5000 },
    );
    try {
      await stores.migrate();
      const state = await pausedDeleteState();
      expect(await stores.idempotencyStore.reserve('held', 600_000)).toEqual({ state: 'reserved' });
      await stores.idempotencyStore.set('done', 'kept');
      cluster.stop();
      const first = resumer(stores, state);
      expect(await first.resume()).toBe('callback_failed');
      expect(first.runs()).toBe(0);
      await expect(stores.idempotencyStore.reserve('new', 60_000)).rejects.toThrow(
        PostgresStoreError,
      );
      cluster.start();
      // The same cycle is still paused: resumed again, it runs the delete once.
      expect(await first.resume()).toBe('Deleted.');
      expect(first.runs()).toBe(1);
      const second = resumer(stores, state);
      expect(await second.resume()).toBe('state_conflict');
      expect(second.runs()).toBe(0);
      // What was committed before the restart is still there.
      expect(await stores.idempotencyStore.reserve('held', 60_000)).toEqual({
        state: 'in_progress',
      });
      expect(await stores.idempotencyStore.reserve('done', 60_000)).toEqual({
        state: 'done',
        value: 'kept',
      });
      expect(await stores.idempotencyStore.reserve('new', 60_000)).toEqual({ state: 'reserved' });
    } finally {
      await stores.close();
    }
  }, 180_000);
});
