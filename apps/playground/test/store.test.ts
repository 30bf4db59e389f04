import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { postgresUrl } from '@agcore/test-postgres';
import { createToolContext } from '@agcore/tools-core';
import { McpClient } from '@agcore/tools-mcp';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { collect, noStack, runCli, startCli, waitFor } from './support/cli.js';

// Issue 30 §9: `--store postgres://…` for `--flow resume` / `resume FILE` and `serve`: the same
// run file resumed in two terminals at once runs once, the other is refused with state_conflict;
// `serve` keeps keyed results in the Postgres idempotency store. Needs a server
// (AGCORE_TEST_POSTGRES_URL, as `.ci/run` sets it); under CI only with AGCORE_SERVICE_TESTS=1.
const server = postgresUrl('playground');
const runs = server !== undefined;
const dir = mkdtempSync(path.join(tmpdir(), 'agcore-playground-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--store', () => {
  it('refuses a URL that is not postgres:// and names an unreachable server in one line, no password', async () => {
    const file = path.join(dir, 'unused.json');
    const wrong = await runCli(['--flow', 'resume', '--state-file', file, '--store', 'http://x']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/--store http:\/\/x\/: give a Postgres URL/);
    const down = await runCli(
      [
        '--flow',
        'resume',
        '--state-file',
        file,
        '--store',
        'postgres://agcore:secret-pw@127.0.0.1:1/runs',
      ],
      { timeoutMs: 60_000 },
    );
    expect(down.code).toBe(1);
    expect(down.stderr.trim().split('\n')).toHaveLength(1);
    expect(down.stderr).toContain('Postgres at 127.0.0.1:1/runs failed');
    expect(down.stderr).not.toContain('secret-pw');
    expect(down.stderr).not.toMatch(noStack);
  }, 90_000);

  it.skipIf(!runs)(
    'one run file resumed in two processes at once: one runs the deletes, the other gets state_conflict',
    async () => {
      const url = server ?? '';
      const file = path.join(dir, 'run.json');
      const first = await runCli(['--flow', 'resume', '--state-file', file, '--store', url]);
      expect(first.code).toBe(0);
      // The command it prints to paste carries the store.
      expect(first.stdout.replace(/\n\s+/g, ' ')).toContain(`--approve yes --store ${url}`);
      const both = await Promise.all(
        [1, 2].map(() =>
          runCli(['resume', file, '--approve', 'yes', '--store', url], { timeoutMs: 90_000 }),
        ),
      );
      const ran = both.filter((result) => result.code === 0);
      const refused = both.filter((result) => result.code !== 0);
      expect(ran).toHaveLength(1);
      expect(refused).toHaveLength(1);
      // The failure line goes to stderr, the timeline to stdout.
      expect(refused[0]?.stderr).toContain('failed: state_conflict');
      expect(refused[0]?.stdout).not.toMatch(/✓ delete_file .*"deleted"/);
      expect(ran[0]?.stdout).toMatch(/✓ delete_file .*"deleted":"access.log"/);
      // A third try, later, is refused too.
      const again = await runCli(['resume', file, '--approve', 'yes', '--store', url]);
      expect(again.stderr).toContain('failed: state_conflict');
    },
    180_000,
  );

  it.skipIf(!runs)(
    'serve --store commits a keyed call to Postgres; a second server on it answers the key from there',
    async () => {
      const url = server ?? '';
      const key = `playground-store-${process.pid}-${Date.now()}`;
      const servers = [1, 2].map(() =>
        startCli(['serve', '--port', '0', '--no-color', '--store', url]),
      );
      const outputs = servers.map((child) => collect(child, 120_000));
      try {
        const answers: unknown[] = [];
        for (const output of outputs) {
          await waitFor(output.output, (text) => /http:\/\/127\.0\.0\.1:\d+\/mcp/.test(text));
          const endpoint = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(output.output())?.[0] ?? '';
          const client = new McpClient('served', { type: 'streamable-http', url: endpoint });
          await client.connect();
          const tool = (await client.tools()).find((item) => item.mcpName === 'calculator');
          answers.push(
            await tool?.execute(
              { expression: '6 * 7' },
              createToolContext({ idempotencyKey: key }),
            ),
          );
          await client.close();
        }
        expect(answers[1]).toEqual(answers[0]);
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        const rows = await client.query(
          'SELECT value FROM agcore.idempotency WHERE key LIKE $1 AND value IS NOT NULL',
          [`%${key}%`],
        );
        await client.end();
        expect(rows.rows).toHaveLength(1);
      } finally {
        for (const child of servers) child.kill('SIGTERM');
        await Promise.all(outputs);
      }
    },
    180_000,
  );
});
