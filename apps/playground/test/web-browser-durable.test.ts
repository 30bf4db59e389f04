import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DurableRuns } from '@agcore/durable-dbos';
import { postgresUrl } from '@agcore/test-postgres';
import { DBOSClient } from '@dbos-inc/dbos-sdk';
import { dropPGDatabase } from '@dbos-inc/dbos-sdk/internal/database_utils';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accessibilityViolations,
  browserSuite,
  launchBrowser,
  screenshotDir,
  startWeb,
  type WebProcess,
} from './support/browser.js';

// Issue 32 §4: `web --durable URL` shows the runs on a system database by state, a run's
// timeline from its events, and approves from the page. Needs Postgres and Chromium.
const suite = browserSuite();
const postgres = postgresUrl('playground');
const workerPath = fileURLToPath(new URL('../dist/core/flows-durable-worker.js', import.meta.url));

/** The playground's durable worker (agent `playground-approve`), once it printed `ready`. */
function startWorker(databaseUrl: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [workerPath, 'worker'], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ready')) resolve(child);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`worker exited ${String(code)}: ${output}`)));
  });
}

describe.skipIf(!suite.run || postgres === undefined)('the durable view in Chromium', () => {
  let browser: { context: BrowserContext; close(): Promise<void> };
  let web: WebProcess;
  let worker: ChildProcess;
  let client: DBOSClient;
  let runs: DurableRuns;
  // Built only when the suite runs (the body is collected even when skipped).
  const url = new URL(postgres ?? 'postgres://skipped');
  url.pathname = `/agcore_view_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const databaseUrl = url.toString();

  beforeAll(async () => {
    worker = await startWorker(databaseUrl);
    client = await DBOSClient.create({ systemDatabaseUrl: databaseUrl });
    runs = new DurableRuns(client);
    const waiting = async (runId: string) => {
      for (;;) {
        const calls = await runs.interruptions(runId);
        if (calls.length > 0) return calls;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    await runs.start('playground-approve', { runId: 'view-done', prompt: 'Weather, then delete' });
    const calls = await waiting('view-done');
    // Denied, so the file is still there for the run approved from the page.
    const deny = { deny: 'not this one' };
    await runs.decide('view-done', Object.fromEntries(calls.map((call) => [call.callId, deny])));
    await runs.result('view-done');
    await runs.start('playground-approve', { runId: 'view-wait', prompt: 'Weather, then delete' });
    await waiting('view-wait');
    browser = await launchBrowser();
    web = await startWeb(['--durable', databaseUrl]);
  }, 180_000);

  afterAll(async () => {
    await web?.stop();
    await browser?.close();
    worker?.kill('SIGTERM');
    await client?.destroy();
    await dropPGDatabase(databaseUrl, { warn: () => undefined }).catch(() => undefined);
  }, 60_000);

  it('runs by state, a waiting run’s timeline, approve from the page: the run succeeds', async () => {
    const page = await browser.context.newPage();
    await page.goto(web.url);
    const waitingGroup = page.locator('section.state-group[data-state="waiting_approval"]');
    await waitingGroup.locator('button[data-run-id="view-wait"]').waitFor({ timeout: 30_000 });
    const done = page.locator('section.state-group[data-state="succeeded"]');
    expect(await done.locator('button[data-run-id="view-done"]').count()).toBe(1);
    expect(await waitingGroup.locator('h3').textContent()).toBe('Waiting for approval (1)');

    await waitingGroup.getByRole('button', { name: /view-wait/ }).click();
    const run = page.locator('#run[data-run-id="view-wait"]');
    await run.waitFor({ timeout: 30_000 });
    const timeline = page.locator('#timeline li');
    await expect
      .poll(
        async () =>
          (await timeline.allTextContents()).some((text) =>
            text.startsWith('⏸ delete_file waits for approval'),
          ),
        { timeout: 30_000 },
      )
      .toBe(true);
    const texts = await timeline.allTextContents();
    expect(texts.some((text) => text.startsWith('→ get_weather {"city":"Paris"}'))).toBe(true);
    expect(await page.locator('#waiting li pre').textContent()).toBe(
      '{\n  "path": "access.log"\n}',
    );
    await page.locator('main').screenshot({ path: path.join(screenshotDir, 'durable.png') });
    expect(await accessibilityViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Approve delete_file' }).click();
    await page.locator('#run[data-state="succeeded"]').waitFor({ timeout: 60_000 });
    await expect
      .poll(
        async () =>
          (await timeline.allTextContents()).filter((text) => text.startsWith('← delete_file')),
        { timeout: 30_000 },
      )
      .toEqual(['← delete_file {"deleted":"access.log"}']);
    expect((await runs.result('view-wait')).message.content).toMatch(/^Done\./);
    await expect
      .poll(() => page.locator('section.state-group[data-state="waiting_approval"]').count())
      .toBe(0);
  }, 180_000);

  it('a decision that does not fit is refused with its reason; the page says so', async () => {
    const page = await browser.context.newPage();
    await page.goto(web.url);
    await page.locator('button[data-run-id="view-done"]').waitFor({ timeout: 30_000 });
    const answer = await page.evaluate(async (token) => {
      const response = await fetch(`/api/durable/decide?token=${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ runId: 'view-done', decisions: { nope: 'approve' } }),
      });
      return { status: response.status, body: await response.json() };
    }, new URL(web.url).searchParams.get('token') ?? '');
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(/not a call that waits/);
  }, 60_000);
});
