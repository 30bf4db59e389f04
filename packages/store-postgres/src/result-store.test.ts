/**
 * Issue 30 §4: `PostgresResultStore`: a result spilled in one process is read in another (a run
 * on a second worker reads the handle); a result over `maxBytes` is refused, so the model gets
 * the cut result without a handle; results expire after `ttlMs`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPostgresStores, type PostgresStores } from './index.js';
import { runTogether } from './test-support/children.js';
import { dropSchema, freshSchema, postgresUrl } from './test-support/postgres.js';
import { handleIn, longReport, readBack, spillOnce } from './test-support/spill-kit.js';

const url = postgresUrl();

describe.skipIf(url === undefined)('PostgresResultStore', () => {
  const serverUrl = url ?? '';
  const schema = freshSchema('results');
  let stores: PostgresStores;
  const scratch = mkdtempSync(join(tmpdir(), 'agcore-results-'));

  beforeAll(async () => {
    stores = createPostgresStores({ connectionString: serverUrl }, { schema, maxBytes: 200_000 });
    await stores.migrate();
  });
  afterAll(async () => {
    await stores?.close();
    await dropSchema(serverUrl, schema);
    rmSync(scratch, { recursive: true, force: true });
  });

  it('a result spilled by a run in one process is read by a run in another', async () => {
    const [answer] = (await runTogether([['spill', serverUrl, schema, '60000']])) as {
      handle?: string;
    }[];
    const handle = answer?.handle;
    expect(typeof handle).toBe('string');
    const read = await readBack(stores.resultStore, handle ?? '');
    expect(read).toContain('FACT the end');
    expect(await stores.resultStore.get(handle ?? '')).toBe(longReport(60_000));
  }, 120_000);

  it('put here, get in another process (16 KiB of mixed Unicode)', async () => {
    const content = `${'ünïcødé 🙂 '.repeat(1200)}\u0000end`;
    const file = join(scratch, 'content.txt');
    writeFileSync(file, content);
    const [put] = (await runTogether([['put', serverUrl, schema, 'h-from-child', file]])) as {
      put: boolean;
    }[];
    expect(put?.put).toBe(true);
    expect(await stores.resultStore.get('h-from-child')).toBe(content);
    await stores.resultStore.put('h-from-parent', content, 'run-1');
    const [got] = (await runTogether([['get', serverUrl, schema, 'h-from-parent']])) as {
      content: string | null;
    }[];
    expect(got?.content).toBe(content);
  }, 120_000);

  it('a result over maxBytes is refused: the model gets the cut result without a handle', async () => {
    await expect(stores.resultStore.put('too-big', 'x'.repeat(200_001), 'run-1')).rejects.toThrow(
      RangeError,
    );
    expect(await stores.resultStore.get('too-big')).toBeUndefined();
    const seen = await spillOnce(stores.resultStore, longReport(250_000));
    expect(seen).toContain('FACT the end');
    expect(handleIn(seen)).toBeUndefined();
    // Within the bound it spills with a handle.
    expect(handleIn(await spillOnce(stores.resultStore, longReport(150_000)))).toBeDefined();
  });

  it('an unknown handle is undefined; a result expires after ttlMs and the cleanup removes it', async () => {
    expect(await stores.resultStore.get('never-put')).toBeUndefined();
    const short = createPostgresStores({ connectionString: serverUrl }, { schema, ttlMs: 50 });
    try {
      await short.resultStore.put('short-lived', 'soon gone', 'run-1');
      await vi.waitFor(
        async () => expect(await short.resultStore.get('short-lived')).toBeUndefined(),
        { timeout: 30_000, interval: 50 },
      );
      expect(await short.resultStore.cleanup(10)).toBeGreaterThanOrEqual(1);
      expect(await stores.resultStore.get('short-lived')).toBeUndefined();
    } finally {
      await short.close();
    }
  });
});
