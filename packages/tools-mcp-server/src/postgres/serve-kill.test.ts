/**
 * Issue 30 §3, a node killed: a serveTools process on `PostgresIdempotencyStore` is SIGKILLed
 * after the store committed a keyed call's result, before it answered; the same key sent to
 * another process gets that committed result, and the tool (a counter row, not idempotent by
 * itself) ran once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPostgresStores } from '@agcore/store-postgres';
import { McpClient } from '@agcore/tools-mcp';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropSchema, freshSchema, postgresUrl } from '../test-support/postgres.js';

const url = postgresUrl();
const nodePath = fileURLToPath(new URL('../test-support/serve-node.ts', import.meta.url));

/** Starts serve-node.ts; resolves its process and MCP URL. */
function startNode(args: readonly string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', nodePath, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`serve-node exited ${String(code)}`)));
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const found = /listening (\S+)\n/.exec(out)?.[1];
      if (found !== undefined) resolve({ child, url: found });
    });
  });
}

describe.skipIf(url === undefined)(
  'a serveTools node killed after commit, before its answer',
  () => {
    const serverUrl = url ?? '';
    const schema = freshSchema('serve_kill');
    const directory = mkdtempSync(join(tmpdir(), 'agcore-serve-kill-'));
    const pool = new pg.Pool({ connectionString: serverUrl, max: 2 });
    const children: ChildProcess[] = [];
    const clients: McpClient[] = [];

    beforeAll(async () => {
      await createPostgresStores({ pool }, { schema }).migrate();
      await pool.query(`CREATE TABLE "${schema}".counter (n integer NOT NULL)`);
      await pool.query(`INSERT INTO "${schema}".counter VALUES (0)`);
    });
    afterAll(async () => {
      for (const client of clients) await client.close().catch(() => undefined);
      for (const child of children) child.kill('SIGKILL');
      await pool.end();
      await dropSchema(serverUrl, schema);
      rmSync(directory, { recursive: true, force: true });
    });

    it('the same key on another node gets the committed result; the counter is 1', async () => {
      const a = await startNode([serverUrl, schema, directory]);
      const b = await startNode([serverUrl, schema, directory]);
      children.push(a.child, b.child);
      const toA = new McpClient(
        'a',
        { type: 'streamable-http', url: a.url },
        { timeoutMs: 120_000 },
      );
      const toB = new McpClient(
        'b',
        { type: 'streamable-http', url: b.url },
        { timeoutMs: 120_000 },
      );
      clients.push(toA, toB);
      await toA.connect();
      await toB.connect();
      writeFileSync(join(directory, 'hold'), '');
      const options = { idempotencyKey: 'run-1:call-held' };
      const cut = toA.callTool('count', { n: 7 }, options).then(
        () => 'answered',
        () => 'cut',
      );
      await expect
        .poll(() => readdirSync(directory).includes(`committed.${a.child.pid}`), {
          timeout: 60_000,
        })
        .toBe(true);
      a.child.kill('SIGKILL');
      rmSync(join(directory, 'hold'));
      expect(await cut).toBe('cut');
      const retried = await toB.callTool('count', { n: 7 }, options);
      expect(retried.value).toEqual({ n: 7, after: 1, pid: a.child.pid });
      expect(existsSync(join(directory, `committed.${b.child.pid}`))).toBe(false);
      const counter = await pool.query(`SELECT n FROM "${schema}".counter`);
      expect(counter.rows[0]).toEqual({ n: 1 });
    }, 120_000);
  },
);
