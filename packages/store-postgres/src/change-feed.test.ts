/**
 * Issue 30 §5: `PostgresChangeFeed` (`LISTEN/NOTIFY` on `<schema>.changes`): a change published
 * in one process is heard in another; unsubscribe stops the calls (the last one ends the
 * listening connection); bad changes are typed errors, sent nowhere; the listening connection
 * is made again after a Postgres restart.
 */

import type { ServerChange } from '@agcore/tools-core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPostgresChangeFeed,
  createPostgresStores,
  maxChangeBytes,
  type PostgresStoreError,
  type PostgresStores,
} from './index.js';
import { startChild } from './test-support/children.js';
import { type Cluster, freePort, postgresBin, startCluster } from './test-support/cluster.js';
import { freshSchema, postgresUrl } from './test-support/postgres.js';

const url = postgresUrl();

/** The number of sessions whose last statement was a LISTEN on `channel`. */
async function listeners(serverUrl: string, channel: string): Promise<number> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const result = await client.query(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = $1 AND pid <> pg_backend_pid()',
      [`LISTEN "${channel}"`],
    );
    return (result.rows[0] as { n: number }).n;
  } finally {
    await client.end();
  }
}

describe.skipIf(url === undefined)('PostgresChangeFeed', () => {
  const serverUrl = url ?? '';
  const schema = freshSchema('feed');
  let stores: PostgresStores;
  beforeAll(() => {
    stores = createPostgresStores({ connectionString: serverUrl }, { schema });
  });
  afterAll(() => stores?.close());

  it('a change published in this process is heard by another process on the same schema', async () => {
    const child = startChild(['hear', serverUrl, schema]);
    let out = '';
    const listening = new Promise<void>((resolve) => {
      child.process.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('listening\n')) resolve();
      });
    });
    await child.ready;
    child.process.stdin?.end('go\n');
    await Promise.race([listening, child.answer]);
    const own: ServerChange[] = [];
    const stop = stores.changes.subscribe((change) => own.push(change));
    await stores.changes.listening();
    await stores.changes.publish({ kind: 'resource_updated', uri: 'file:///ü/a b' });
    expect(await child.answer).toEqual({
      heard: { kind: 'resource_updated', uri: 'file:///ü/a b' },
    });
    await expect.poll(() => own.length, { timeout: 30_000 }).toBe(1);
    stop();
  }, 120_000);

  it('unsubscribe stops the calls; a throwing listener stops no other; the last one ends the listening connection', async () => {
    const feed = createPostgresChangeFeed({ connectionString: serverUrl }, { schema });
    const first: ServerChange[] = [];
    const second: ServerChange[] = [];
    try {
      const stopThrower = feed.subscribe(() => {
        throw new Error('a listener that throws');
      });
      const stopFirst = feed.subscribe((change) => first.push(change));
      const stopSecond = feed.subscribe((change) => second.push(change));
      await feed.listening();
      expect(await listeners(serverUrl, feed.channel)).toBeGreaterThanOrEqual(1);
      await stores.changes.publish({ kind: 'tools_list_changed' });
      await expect.poll(() => second.length, { timeout: 30_000 }).toBe(1);
      expect(first).toEqual([{ kind: 'tools_list_changed' }]);
      stopFirst();
      stopFirst();
      await feed.publish({ kind: 'prompts_list_changed' });
      await expect.poll(() => second.length, { timeout: 30_000 }).toBe(2);
      expect(first).toHaveLength(1);
      expect(second[1]).toEqual({ kind: 'prompts_list_changed' });
      const before = await listeners(serverUrl, feed.channel);
      stopSecond();
      stopThrower();
      await expect
        .poll(() => listeners(serverUrl, feed.channel), { timeout: 30_000 })
        .toBe(before - 1);
    } finally {
      await feed.close();
    }
  }, 120_000);

  it('refuses a change that is not one (TypeError) or over 7999 bytes of JSON (RangeError); ignores a foreign NOTIFY', async () => {
    const heard: ServerChange[] = [];
    const stop = stores.changes.subscribe((change) => heard.push(change));
    await stores.changes.listening();
    const huge = {
      kind: 'resource_updated',
      uri: `file:///${'é'.repeat(maxChangeBytes)}`,
    } as const;
    await expect(stores.changes.publish(huge)).rejects.toThrow(RangeError);
    await expect(stores.changes.publish(huge)).rejects.toThrow(/over the 7999 a Postgres NOTIFY/);
    for (const bad of [{ kind: 'nope' }, { kind: 'resource_updated' }, null]) {
      await expect(stores.changes.publish(bad as unknown as ServerChange)).rejects.toThrow(
        TypeError,
      );
    }
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query('SELECT pg_notify($1, $2), pg_notify($1, $3)', [
      stores.changes.channel,
      'not json',
      '{"kind":"nope"}',
    ]);
    await client.end();
    await stores.changes.publish({ kind: 'resources_list_changed' });
    await expect.poll(() => heard.length, { timeout: 30_000 }).toBe(1);
    expect(heard).toEqual([{ kind: 'resources_list_changed' }]);
    stop();
  }, 60_000);
});

describe('PostgresChangeFeed without a server', () => {
  it('publish rejects with a PostgresStoreError naming the target; listening() rejects and retries', async () => {
    const port = await freePort();
    const errors: PostgresStoreError[] = [];
    const feed = createPostgresChangeFeed(
      { connectionString: `postgres://u:pw-secret@127.0.0.1:${port}/d` },
      { reconnectDelayMs: 20, onError: (error) => errors.push(error) },
    );
    try {
      expect(feed.channel).toBe('agcore.changes');
      await expect(feed.publish({ kind: 'tools_list_changed' })).rejects.toThrow(
        `Postgres at 127.0.0.1:${port}/d failed`,
      );
      const stop = feed.subscribe(() => undefined);
      await expect(feed.listening()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      await expect.poll(() => errors.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
      expect(errors.every((error) => !error.message.includes('pw-secret'))).toBe(true);
      stop();
    } finally {
      await feed.close();
    }
  }, 60_000);
});

const bin = postgresBin();

describe.skipIf(url === undefined || bin === undefined)(
  'PostgresChangeFeed across a restart',
  () => {
    let cluster: Cluster | undefined;
    afterAll(() => cluster?.remove());

    it('its listening connection is made again once Postgres is back, and hears the changes published then', async () => {
      cluster = await startCluster(bin ?? '');
      const errors: PostgresStoreError[] = [];
      const listener = createPostgresChangeFeed(
        { connectionString: cluster.url },
        { schema: 'restart', reconnectDelayMs: 50, onError: (error) => errors.push(error) },
      );
      const publisher = createPostgresChangeFeed(
        { connectionString: cluster.url },
        { schema: 'restart' },
      );
      const heard: ServerChange[] = [];
      try {
        listener.subscribe((change) => heard.push(change));
        await listener.listening();
        await publisher.publish({ kind: 'tools_list_changed' });
        await expect.poll(() => heard.length, { timeout: 30_000 }).toBe(1);
        cluster.stop();
        await expect.poll(() => errors.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
        cluster.start();
        // Published until heard: one published before the connection listens again is lost.
        await expect
          .poll(
            async () => {
              await publisher.publish({ kind: 'prompts_list_changed' }).catch(() => undefined);
              return heard.some((change) => change.kind === 'prompts_list_changed');
            },
            { timeout: 60_000, interval: 200 },
          )
          .toBe(true);
      } finally {
        await listener.close();
        await publisher.close();
      }
    }, 180_000);
  },
);
