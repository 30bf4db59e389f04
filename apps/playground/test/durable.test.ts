import { postgresUrl } from '@agcore/test-postgres';
import { describe, expect, it } from 'vitest';
import { noStack, runCli } from './support/cli.js';

// Issue 23: `--flow durable` runs the approval flow in a worker process on Postgres and
// approves from a second process. Needs a server (AGCORE_TEST_POSTGRES_URL, as `.ci/run` sets
// it); under CI it runs only with AGCORE_SERVICE_TESTS=1.
const server = postgresUrl('playground');
const runs = server !== undefined;

describe('--flow durable', () => {
  it('without Postgres: one line saying how to start one, exit code 1, no stack', async () => {
    const result = await runCli(['--flow', 'durable'], {
      env: { DATABASE_URL: undefined, AGCORE_TEST_POSTGRES_URL: undefined },
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/needs Postgres.*DATABASE_URL/);
    expect(result.stderr).not.toMatch(noStack);
  });

  it('with a Postgres that does not answer: says so in one line, exit code 1, no stack', async () => {
    const result = await runCli(['--flow', 'durable'], {
      env: { DATABASE_URL: 'postgres://agcore:secret-pw@127.0.0.1:1/postgres' },
      timeoutMs: 60_000,
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/not reachable/);
    expect(result.stderr).not.toContain('secret-pw');
    expect(result.stderr).not.toMatch(noStack);
  }, 90_000);

  it('web --durable with a Postgres that does not answer: one line, exit code 1, no password', async () => {
    const result = await runCli(
      ['web', '--no-open', '--durable', 'postgres://agcore:secret-pw@127.0.0.1:1/postgres'],
      { timeoutMs: 60_000 },
    );
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/--durable: Postgres is not reachable/);
    expect(result.stderr).not.toContain('secret-pw');
    expect(result.stderr).not.toMatch(noStack);
  }, 90_000);

  it.skipIf(!runs)(
    'a worker runs it, a second process approves, the run completes',
    async () => {
      const result = await runCli(['--flow', 'durable', '--approve', 'yes'], {
        env: { DATABASE_URL: server },
        timeoutMs: 90_000,
      });
      expect(result.code).toBe(0);
      const out = result.stdout;
      const worker = /worker: process (\d+)/.exec(out)?.[1];
      const decider = /decided 'yes' from another process \((\d+)\)/.exec(out)?.[1];
      expect(worker).toBeDefined();
      expect(decider).toBeDefined();
      expect(decider).not.toBe(worker);
      const waits = out.indexOf('⏸ waits for approval: delete_file');
      const deleted = out.indexOf('← delete_file {"deleted":"access.log"}');
      expect(out.indexOf('← get_weather')).toBeLessThan(waits);
      expect(waits).toBeLessThan(deleted);
      expect(out).toMatch(/● complete: run playground-/);
    },
    120_000,
  );

  it.skipIf(!runs)(
    '--approve no: the deletion is denied, the run still completes',
    async () => {
      const result = await runCli(['--flow', 'durable', '--approve', 'no'], {
        env: { DATABASE_URL: server },
        timeoutMs: 90_000,
      });
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/← delete_file .*denied/);
      expect(result.stdout).not.toContain('{"deleted":"access.log"}');
    },
    120_000,
  );
});
