// `pnpm bench` (in this package; needs AGCORE_TEST_POSTGRES_URL): what one operation of each
// store costs against a local Postgres, beside the memory stores: one claim, one reserve + set,
// one put + get of 16 KiB. Round trips are counted on a wrapped pool (every query the stores
// send); wall time is the median per operation, CPU the process's user + system time per
// operation. The target is one round trip per store call.
import { performance } from 'node:perf_hooks';
import { MemoryResultStore, MemoryRunStore } from '@agcore/llm-cycle';
import { createPostgresStores } from '@agcore/store-postgres';
import type { IdempotencyStore, ResultStore, RunStore } from '@agcore/tools-core';
import pg from 'pg';
import { InMemoryIdempotencyStore } from '../index.js';
import { dropSchema, freshSchema, postgresUrl } from '../test-support/postgres.js';

const server = postgresUrl();
if (server === undefined) process.exit(0);

let queries = 0;
const pool = new pg.Pool({ connectionString: server, max: 4 });
const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
pool.query = ((...args: unknown[]) => {
  queries += 1;
  return query(...args);
}) as typeof pool.query;

const schema = freshSchema('bench');
const stores = createPostgresStores({ pool }, { schema });
await stores.migrate();

const content = 'ünïcode-data '.repeat(1260).slice(0, 16 * 1024);
let n = 0;

interface Stores {
  readonly runStore: RunStore;
  readonly idempotencyStore: IdempotencyStore;
  readonly resultStore: ResultStore;
}

const operations: Record<string, (s: Stores) => Promise<unknown>> = {
  claim: (s) => s.runStore.claim(`bench-run-${n++}`, 1),
  'reserve + set': async (s) => {
    const key = `bench-key-${n++}`;
    await s.idempotencyStore.reserve(key, 60_000);
    await s.idempotencyStore.set(key, { ok: true, n });
  },
  'put + get (16 KiB)': async (s) => {
    const handle = `bench-handle-${n++}`;
    await s.resultStore.put(handle, content, 'bench-run');
    await s.resultStore.get(handle);
  },
};

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

async function measure(s: Stores, operation: (s: Stores) => Promise<unknown>, rounds: number) {
  for (let warm = 0; warm < 50; warm++) await operation(s);
  const times: number[] = [];
  const before = queries;
  const cpu = process.cpuUsage();
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    await operation(s);
    times.push((performance.now() - start) * 1000);
  }
  const used = process.cpuUsage(cpu);
  return {
    wall: median(times),
    cpu: (used.user + used.system) / rounds,
    trips: (queries - before) / rounds,
  };
}

const memory: Stores = {
  runStore: new MemoryRunStore(),
  idempotencyStore: new InMemoryIdempotencyStore({ maxEntries: 100_000 }),
  resultStore: new MemoryResultStore(),
};
const rounds = 500;
const lines = [
  `Node ${process.version}, ${rounds} rounds each, Postgres at ${server.replace(/\/\/[^@]*@/, '//')}`,
];
lines.push(
  'operation             | Postgres: round trips, wall µs (median), CPU µs | memory: wall µs, CPU µs',
);
for (const [name, operation] of Object.entries(operations)) {
  const pgResult = await measure(stores, operation, rounds);
  const memResult = await measure(memory, operation, rounds);
  lines.push(
    `${name.padEnd(21)} | ${pgResult.trips.toFixed(2)} trips, ${pgResult.wall.toFixed(0)} µs, ${pgResult.cpu.toFixed(0)} µs CPU | ${memResult.wall.toFixed(1)} µs, ${memResult.cpu.toFixed(1)} µs CPU`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
await stores.close();
await pool.end();
await dropSchema(server, schema);
