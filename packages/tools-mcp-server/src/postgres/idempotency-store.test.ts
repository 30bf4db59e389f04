/**
 * Issue 30 §3 (the store's part): `PostgresIdempotencyStore` reserves with a lease in one
 * statement (of concurrent reservations of a free key, across pools, one is `reserved`), commits
 * first-wins, releases only its own lease, lets an expired lease be taken over, and keeps
 * results `ttlMs`, removed by the bounded cleanup. The same contract as `InMemoryIdempotencyStore`.
 */

import { createPostgresStores, type PostgresStores } from '@agcore/store-postgres';
import type { IdempotencyStore } from '@agcore/tools-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { InMemoryIdempotencyStore } from '../index.js';
import { dropSchema, freshSchema, postgresUrl } from '../test-support/postgres.js';

const url = postgresUrl();

/** The contract both stores meet, on a fresh key prefix. */
async function contract(store: IdempotencyStore, prefix: string): Promise<void> {
  const key = `${prefix}:k1`;
  expect(await store.get(key)).toBeUndefined();
  expect(await store.reserve(key, 60_000)).toEqual({ state: 'reserved' });
  expect(await store.reserve(key, 60_000)).toEqual({ state: 'in_progress' });
  await store.set(key, { result: 'first', list: [1, 'two', null] });
  expect(await store.reserve(key, 60_000)).toEqual({
    state: 'done',
    value: { result: 'first', list: [1, 'two', null] },
  });
  await store.set(key, 'second');
  expect(await store.get(key)).toEqual({ result: 'first', list: [1, 'two', null] });
  const released = `${prefix}:k2`;
  expect(await store.reserve(released, 60_000)).toEqual({ state: 'reserved' });
  await store.release(released);
  expect(await store.reserve(released, 60_000)).toEqual({ state: 'reserved' });
  await expect(store.reserve(`${prefix}:k3`, 0)).rejects.toThrow(RangeError);
  await expect(store.reserve(`${prefix}:k3`, Number.NaN)).rejects.toThrow(RangeError);
}

describe('the contract on InMemoryIdempotencyStore (the reference)', () => {
  it('holds', () => contract(new InMemoryIdempotencyStore(), 'mem'));
});

describe.skipIf(url === undefined)('PostgresIdempotencyStore', () => {
  const serverUrl = url ?? '';
  const schema = freshSchema('idem');
  let one: PostgresStores;
  let two: PostgresStores;

  beforeAll(async () => {
    one = createPostgresStores({ connectionString: serverUrl }, { schema });
    two = createPostgresStores({ connectionString: serverUrl }, { schema });
    await Promise.all([one.migrate(), two.migrate()]);
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await dropSchema(serverUrl, schema);
  });

  it('meets the same contract as the memory store', () => contract(one.idempotencyStore, 'pg'));

  it('of 100 concurrent reservations of a free key on two pools, one is reserved; a value JSON of any text round-trips', async () => {
    const key = 'race:key';
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        (index % 2 === 0 ? one : two).idempotencyStore.reserve(key, 60_000),
      ),
    );
    expect(answers.filter((answer) => answer.state === 'reserved')).toHaveLength(1);
    expect(answers.filter((answer) => answer.state === 'in_progress')).toHaveLength(99);
    const value = { text: 'nul \u0000, lone \ud800, emoji 🙂, quote " and \\', n: 1.5 };
    await one.idempotencyStore.set(key, value);
    expect(await two.idempotencyStore.get(key)).toEqual(value);
  });

  it('a release from another node leaves the lease; an expired lease is taken over', async () => {
    const key = 'lease:key';
    expect(await one.idempotencyStore.reserve(key, 200)).toEqual({ state: 'reserved' });
    await two.idempotencyStore.release(key);
    expect(await two.idempotencyStore.reserve(key, 60_000)).toEqual({ state: 'in_progress' });
    // The holder died: once its lease ran out, the next reservation gets it.
    await vi.waitFor(
      async () =>
        expect(await two.idempotencyStore.reserve(key, 60_000)).toEqual({ state: 'reserved' }),
      { timeout: 30_000, interval: 50 },
    );
    // The first holder's late commit still wins over nothing; the taker's commit then keeps it.
    await one.idempotencyStore.set(key, 'late');
    await two.idempotencyStore.set(key, 'taker');
    expect(await one.idempotencyStore.get(key)).toBe('late');
  });

  it('results are kept ttlMs, then the key is free again and the cleanup removes the row (bounded)', async () => {
    // A schema of its own, so that no other row of this file can expire into the counts.
    const ttlSchema = freshSchema('idem_ttl');
    const short = createPostgresStores(
      { connectionString: serverUrl },
      { schema: ttlSchema, ttlMs: 50 },
    );
    try {
      await short.migrate();
      for (const n of [1, 2, 3]) await short.idempotencyStore.set(`ttl:${n}`, n);
      await vi.waitFor(
        async () => expect(await short.idempotencyStore.get('ttl:3')).toBeUndefined(),
        { timeout: 30_000, interval: 50 },
      );
      expect(await short.idempotencyStore.reserve('ttl:1', 60_000)).toEqual({
        state: 'reserved',
      });
      expect(await short.idempotencyStore.cleanup(1)).toBe(1);
      expect(await short.idempotencyStore.cleanup(100)).toBe(1);
      expect(await short.idempotencyStore.cleanup(100)).toBe(0);
      await expect(short.idempotencyStore.cleanup(0)).rejects.toThrow(RangeError);
    } finally {
      await short.close();
      await dropSchema(serverUrl, ttlSchema);
    }
  });
});
