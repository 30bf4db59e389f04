// Issue 21 §2: three serveTools processes behind haproxy (balance roundrobin, health checks on
// /healthz, option abortonclose), driven by agcore's McpClient on both eras, with idempotency
// keys (`_meta["dev.agcore/idempotencyKey"]`) and `retry`. Issue 30 §3 and §5: the nodes share
// an idempotency store and a change feed (test-support/shared-hub.ts, stand-ins for Postgres). Starts services: under CI it runs
// only with AGCORE_SERVICE_TESTS=1; without haproxy it skips, unless AGCORE_REQUIRE_HAPROXY=1
// (then fails).
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpClient, type McpProtocol } from '@agcore/tools-mcp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changesAcrossNodes } from './test-support/fleet-changes.js';
import { type FleetNode, HaproxyFleet, haproxyFound } from './test-support/haproxy-fleet.js';

const servicesAllowed = process.env.CI !== 'true' || process.env.AGCORE_SERVICE_TESTS === '1';
const haproxyRequired = process.env.AGCORE_REQUIRE_HAPROXY === '1';
const key = (n: number) => `run-1:call-${n}`;

describe
  .skipIf(!servicesAllowed || (!haproxyFound && !haproxyRequired))
  .each(['legacy', '2026-07-28'] as const satisfies readonly McpProtocol[])(
  'a fleet of 3 behind haproxy, McpClient on %s',
  (protocol) => {
    let fleet: HaproxyFleet;
    let client: McpClient;
    const files = (prefix: string) =>
      readdirSync(fleet.directory).filter((name) => name.startsWith(prefix));
    const ownerOf = (file: string) => Number(readFileSync(join(fleet.directory, file), 'utf8'));

    beforeEach(async () => {
      if (!haproxyFound)
        throw new Error(
          'AGCORE_REQUIRE_HAPROXY=1 but haproxy is not installed (apt-get install haproxy)',
        );
      fleet = await HaproxyFleet.start(3);
      // Far beyond each test's own limit: a call that waited for its time limit fails the test.
      // The backoff (50, 100, 200, 400 ms) outlasts haproxy's ejection of a dead node (~400 ms).
      // autoReconnect is not needed since issue 31 (fleet-failover.service.test.ts runs without
      // it); kept here so the reconnecting path is exercised behind haproxy too.
      client = new McpClient(
        'fleet',
        { type: 'streamable-http', url: fleet.url },
        {
          protocol,
          timeoutMs: 600_000,
          retry: { attempts: 5, backoffMs: 50 },
          autoReconnect: { initialDelayMs: 50 },
        },
      );
      await client.connect();
    }, 60_000);

    afterEach(async () => {
      await client.close();
      await fleet.close();
    });

    /** The node a tool's trace file names (its pid is the file's content), once written. */
    async function nodeNamedIn(file: string): Promise<FleetNode> {
      const path = join(fleet.directory, file);
      await expect
        .poll(
          () => existsSync(path) && fleet.nodeOf(Number(readFileSync(path, 'utf8'))) !== undefined,
          {
            timeout: 10_000,
          },
        )
        .toBe(true);
      return fleet.nodeOf(Number(readFileSync(path, 'utf8'))) as FleetNode;
    }

    /** The node a `write_once` call runs on, once it started there (its `ran-<key>.<pid>` file). */
    async function nodeRunning(callKey: string): Promise<FleetNode> {
      const prefix = `ran-${encodeURIComponent(callKey)}.`;
      await expect.poll(() => files(prefix).length, { timeout: 30_000 }).toBe(1);
      const pid = Number(files(prefix)[0]?.slice(prefix.length));
      return fleet.nodeOf(pid) as FleetNode;
    }

    it('answers 300 calls at concurrency 8 once each, a node SIGKILLed mid-run; each side effect once, the dead node DOWN', async () => {
      const total = 300;
      const held = 150;
      const answers = new Map<number, { n: number; pid: number }>();
      // Call 150 waits on whichever node it lands on, which is killed while the others go on.
      writeFileSync(join(fleet.directory, `hold-${encodeURIComponent(key(held))}`), '');
      const killed = nodeRunning(key(held)).then((node) => {
        node.child.kill('SIGKILL');
        rmSync(join(fleet.directory, `hold-${encodeURIComponent(key(held))}`));
        return node;
      });
      killed.catch(() => undefined);
      let next = 0;
      const worker = async () => {
        for (let n = next++; n < total; n = next++) {
          const result = await client.callTool('write_once', { n }, { idempotencyKey: key(n) });
          expect(answers.has(n)).toBe(false);
          answers.set(n, result.value as { n: number; pid: number });
        }
      };
      await Promise.all(Array.from({ length: 8 }, () => worker()));
      const victim = await killed;

      expect(answers.size).toBe(total);
      for (const [n, value] of answers) expect(value).toMatchObject({ n });
      expect(files('effect-').sort()).toEqual(
        Array.from({ length: total }, (_, n) => `effect-${encodeURIComponent(key(n))}`).sort(),
      );
      // The calls the kill cut ran on the dead node, then again (McpClient's retry) on another.
      const rerun = [...answers.keys()].filter(
        (n) =>
          existsSync(
            join(fleet.directory, `ran-${encodeURIComponent(key(n))}.${victim.child.pid}`),
          ) && answers.get(n)?.pid !== victim.child.pid,
      );
      expect(rerun).toContain(held);
      await expect.poll(() => fleet.status(victim), { timeout: 10_000 }).toMatch(/^DOWN/);
    }, 120_000);

    it('retries a call whose node is SIGKILLed after the tool committed, before it answered: answered once, by another node, its effect once', async () => {
      const id = 'held';
      const idempotencyKey = 'run-1:call-held';
      writeFileSync(join(fleet.directory, `hold-${id}`), '');
      const call = client.callTool('hold', { id }, { idempotencyKey });
      call.catch(() => undefined);
      const effect = `effect-${encodeURIComponent(idempotencyKey)}`;
      const committer = await nodeNamedIn(effect);
      // Killed while it holds (so it cannot answer first), then released for the next node.
      committer.child.kill('SIGKILL');
      rmSync(join(fleet.directory, `hold-${id}`));

      const { value } = await call;
      expect(value).toMatchObject({ id });
      const answerer = (value as { pid: number }).pid;
      expect(answerer).not.toBe(committer.child.pid);
      expect(fleet.nodeOf(answerer)).toBeDefined();
      expect(files('effect-')).toEqual([effect]);
      expect(ownerOf(effect)).toBe(committer.child.pid);
      await expect.poll(() => fleet.status(committer), { timeout: 10_000 }).toMatch(/^DOWN/);
    }, 60_000);

    it('runs 300 keyed calls, each sent twice at once, of a tool that is not idempotent by itself, once each: a node SIGKILLed after a commit, before its answer; the counter ends at 300', async () => {
      const total = 300;
      const held = 150;
      const heldName = encodeURIComponent(key(held));
      // The node that commits call 150 takes no other call, and is killed once none of its own is
      // mid-tool (a crash mid-tool runs that call again: the test above), then both copies of
      // call 150 are answered from the store.
      writeFileSync(join(fleet.directory, `hold-commit-${heldName}`), '');
      const killed = (async () => {
        const prefix = `committed-${heldName}.`;
        await expect.poll(() => files(prefix).length, { timeout: 60_000 }).toBe(1);
        const node = fleet.nodeOf(Number(files(prefix)[0]?.slice(prefix.length))) as FleetNode;
        await expect
          .poll(() => existsSync(join(fleet.directory, `quiet-${node.child.pid}`)), {
            timeout: 60_000,
          })
          .toBe(true);
        node.child.kill('SIGKILL');
        rmSync(join(fleet.directory, `hold-commit-${heldName}`));
        return node;
      })();
      killed.catch(() => undefined);
      const answers = new Map<number, unknown>();
      let next = 0;
      const worker = async () => {
        for (let n = next++; n < total; n = next++) {
          const options = { idempotencyKey: key(n) };
          const [a, b] = await Promise.all([
            client.callTool('count', { n }, options),
            client.callTool('count', { n }, options),
          ]);
          expect(b.value).toEqual(a.value);
          answers.set(n, a.value);
        }
      };
      await Promise.all(Array.from({ length: 8 }, () => worker()));
      const victim = await killed;

      const lines = readFileSync(join(fleet.directory, 'counter'), 'utf8').trim().split('\n');
      expect(lines.length).toBe(total);
      expect(new Set(lines.map((line) => line.split(' ')[0])).size).toBe(total);
      for (const [n, value] of answers) expect(value).toMatchObject({ n });
      // Call 150's answer is the result the killed node committed.
      expect(answers.get(held)).toEqual({ n: held, pid: victim.child.pid });
      await expect.poll(() => fleet.status(victim), { timeout: 10_000 }).toMatch(/^DOWN/);
    }, 240_000);

    it('announces a tool registered on one node to a client through haproxy, whichever node holds its stream', async ({
      annotate,
    }) => {
      const latencies = await changesAcrossNodes(fleet, protocol);
      // Reported, not asserted (no wall-clock asserts): see the README's Measured.
      await annotate(
        `fleet ${protocol}: change → client ${latencies.map((ms) => ms.toFixed(0)).join(', ')} ms, ${fleet.hub.relayed.length} publishes`,
      );
      expect(latencies).toHaveLength(fleet.nodes.length);
    }, 120_000);

    it("passes an aborted call's cancel through haproxy: the tool's signal aborts on the server", async () => {
      const id = `cancel-${protocol}`;
      const controller = new AbortController();
      const call = client.callTool('slow', { id }, { signal: controller.signal }).then(
        () => undefined,
        (error: unknown) => error,
      );
      await expect
        .poll(() => existsSync(join(fleet.directory, `started-${id}`)), { timeout: 10_000 })
        .toBe(true);
      controller.abort();
      expect(await call).toMatchObject({ code: 'cancelled' });
      await expect
        .poll(() => existsSync(join(fleet.directory, `aborted-${id}`)), { timeout: 10_000 })
        .toBe(true);
      // The client goes on: its next call is answered.
      const after = await client.callTool('write_once', { n: 1 }, { idempotencyKey: key(1) });
      expect(after.value).toMatchObject({ n: 1 });
    }, 60_000);
  },
);
