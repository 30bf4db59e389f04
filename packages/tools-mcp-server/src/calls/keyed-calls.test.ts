// Issue 30 §3: a keyed call runs under a lease on its key. A second call with the key while the
// first holds it waits for its result; a lease whose holder died is taken over; a waiter whose
// holder outlasts its own lease time answers a recoverable `timeout`; a failed run frees the key.
import { defineTool, type IdempotencyReservation, type JsonValue } from '@agcore/tools-core';
import { McpClient, type McpProtocol } from '@agcore/tools-mcp';
import { ToolRegistry } from '@agcore/tools-registry';
import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryIdempotencyStore, serveTools } from '../index.js';

/** An in-memory store that records what each reservation found. */
class WatchedStore extends InMemoryIdempotencyStore {
  readonly found: IdempotencyReservation['state'][] = [];
  override async reserve(key: string, leaseMs: number): Promise<IdempotencyReservation> {
    const found = await super.reserve(key, leaseMs);
    this.found.push(found.state);
    return found;
  }
}

/** A store whose first reservation of each key goes to a holder that never finishes. */
class DeadHolderStore extends WatchedStore {
  readonly #held = new Set<string>();
  constructor(private readonly deadLeaseMs: number) {
    super();
  }
  override async reserve(key: string, leaseMs: number): Promise<IdempotencyReservation> {
    if (!this.#held.has(key)) {
      this.#held.add(key);
      await InMemoryIdempotencyStore.prototype.reserve.call(this, key, this.deadLeaseMs);
    }
    return super.reserve(key, leaseMs);
  }
}

interface Gate {
  runs: number;
  started: Promise<void>;
  open: () => void;
  fail: boolean;
}

function gatedRegistry(timeoutMs: number): { registry: ToolRegistry; gate: Gate } {
  let started: () => void = () => undefined;
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const gate: Gate = {
    runs: 0,
    started: new Promise<void>((resolve) => {
      started = resolve;
    }),
    open: () => open(),
    fail: false,
  };
  const registry = new ToolRegistry({ timeoutMs });
  registry.register(
    defineTool({
      name: 'pay',
      description: 'Counts its runs; waits for the gate',
      parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      execute: async ({ n }) => {
        gate.runs += 1;
        const run = gate.runs;
        started();
        await opened;
        if (gate.fail && run === 1) throw new Error('the first run fails');
        return { n, run } satisfies JsonValue;
      },
    }),
  );
  return { registry, gate };
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function serve(
  registry: ToolRegistry,
  store: InMemoryIdempotencyStore,
  protocol: McpProtocol,
): Promise<McpClient> {
  const served = serveTools(registry, { idempotencyStore: store });
  const listening = await served.listen({ port: 0 });
  cleanups.push(() => served.close());
  const client = new McpClient(
    'keyed',
    { type: 'streamable-http', url: listening.url },
    { protocol, timeoutMs: 60_000 },
  );
  await client.connect();
  cleanups.push(() => client.close());
  return client;
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as { code?: string; isRecoverable?: () => boolean },
  );

describe.each(['legacy', '2026-07-28'] as const satisfies readonly McpProtocol[])(
  'keyed calls under a lease, McpClient on %s',
  (protocol) => {
    it('runs two concurrent calls with one key once: the second waits and gets the same result', async () => {
      const { registry, gate } = gatedRegistry(20_000);
      const store = new WatchedStore();
      const client = await serve(registry, store, protocol);
      const first = client.callTool('pay', { n: 1 }, { idempotencyKey: 'k1' });
      await gate.started;
      const second = client.callTool('pay', { n: 1 }, { idempotencyKey: 'k1' });
      await expect.poll(() => store.found.includes('in_progress'), { timeout: 20_000 }).toBe(true);
      gate.open();
      const [a, b] = await Promise.all([first, second]);
      expect(a.value).toEqual({ n: 1, run: 1 });
      expect(b.value).toEqual(a.value);
      expect(gate.runs).toBe(1);
    }, 60_000);

    it('takes over a lease whose holder died (it never finishes) and runs the tool', async () => {
      const { registry, gate } = gatedRegistry(20_000);
      const store = new DeadHolderStore(300);
      const client = await serve(registry, store, protocol);
      gate.open();
      const { value } = await client.callTool('pay', { n: 2 }, { idempotencyKey: 'k2' });
      expect(value).toEqual({ n: 2, run: 1 });
      expect(store.found[0]).toBe('in_progress');
      expect(store.found.at(-1)).toBe('reserved');
      expect(gate.runs).toBe(1);
    }, 60_000);

    it('answers a recoverable timeout when the holder keeps the key past the waiter’s lease time', async () => {
      // The holder (another node, with a far longer time limit) leases the key for 10 minutes;
      // this server's calls have 200 ms, so it waits 200 ms + 1 s, then gives up.
      const { registry, gate } = gatedRegistry(200);
      const store = new DeadHolderStore(600_000);
      const client = await serve(registry, store, protocol);
      gate.open();
      const error = await failure(client.callTool('pay', { n: 3 }, { idempotencyKey: 'k3' }));
      expect(error).toMatchObject({ code: 'timeout' });
      expect(error?.isRecoverable?.()).toBe(true);
      expect(gate.runs).toBe(0);
    }, 60_000);

    it('frees the key of a failed run: the waiting call runs the tool itself', async () => {
      const { registry, gate } = gatedRegistry(20_000);
      gate.fail = true;
      const store = new WatchedStore();
      const client = await serve(registry, store, protocol);
      const first = failure(client.callTool('pay', { n: 4 }, { idempotencyKey: 'k4' }));
      await gate.started;
      const second = client.callTool('pay', { n: 4 }, { idempotencyKey: 'k4' });
      await expect.poll(() => store.found.includes('in_progress'), { timeout: 20_000 }).toBe(true);
      gate.open();
      expect(await first).toMatchObject({ code: 'execution_failed' });
      expect((await second).value).toEqual({ n: 4, run: 2 });
      expect(gate.runs).toBe(2);
    }, 60_000);
  },
);

describe('keyed calls: options', () => {
  it('refuses an idempotencyStore on a registry without a time limit (a lease could never end)', () => {
    expect(() =>
      serveTools(new ToolRegistry({ timeoutMs: 0 }), {
        idempotencyStore: new InMemoryIdempotencyStore(),
      }),
    ).toThrow(TypeError);
  });
});
