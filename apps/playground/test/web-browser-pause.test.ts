import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accessibilityViolations,
  browserSuite,
  launchBrowser,
  screenshotDir,
  startWeb,
  type WebProcess,
} from './support/browser.js';
import { runCli } from './support/cli.js';

const suite = browserSuite();

/** Starts `flow` from the page; resolves to the run's id (from the page's own POST). */
async function startFlow(page: Page, web: WebProcess, flow: string): Promise<string> {
  await page.goto(web.url);
  await page.locator('#flow').selectOption(flow);
  const posted = page.waitForResponse((response) => response.url().includes('/api/run'));
  await page.getByRole('button', { name: 'Start' }).click();
  const { runId } = (await (await posted).json()) as { runId: string };
  await page.locator(`.run[data-run-id="${runId}"]`).waitFor({ timeout: 30_000 });
  return runId;
}

/** Waits until the summary is the one of run `runId`, ended with `outcome`. */
async function ended(page: Page, runId: string, outcome?: string): Promise<void> {
  const ending = outcome === undefined ? '[data-outcome]' : `[data-outcome="${outcome}"]`;
  await page.locator(`#summary[data-run-id="${runId}"]${ending}`).waitFor({ timeout: 60_000 });
}

/** The card of the last run for the call with these arguments (`path` of a delete_file). */
function deleteCard(page: Page, file: string) {
  return page
    .locator('.run:last-child .card[data-tool="delete_file"]')
    .filter({ hasText: `"path":"${file}"` });
}

describe.skipIf(!suite.run)(
  'the web page in Chromium: pauses, decisions, cancel, the token',
  () => {
    let browser: { context: BrowserContext; close(): Promise<void> };
    let web: WebProcess;

    beforeAll(async () => {
      browser = await launchBrowser();
      web = await startWeb();
    });
    afterAll(async () => {
      await web?.stop();
      await browser?.close();
    });

    it('approve one call and deny the other with a reason, from the queue', async () => {
      const page = await browser.context.newPage();
      const runId = await startFlow(page, web, 'approve');
      const queue = page.locator('#approvals li');
      await expect.poll(() => queue.count(), { timeout: 30_000 }).toBe(2);
      expect(await page.locator('#waiting-count').textContent()).toBe('2');
      // The exact arguments are shown, and the safe call of the same turn already ran.
      expect(await queue.first().locator('pre').textContent()).toBe('{\n  "path": "access.log"\n}');
      expect(await page.locator('.card[data-tool="get_weather"]').getAttribute('data-state')).toBe(
        'completed',
      );
      await page.locator('#approvals-view').screenshot({
        path: path.join(screenshotDir, 'approvals.png'),
      });
      expect(await accessibilityViolations(page)).toEqual([]);

      // Keyboard only: Tab to the button, Enter.
      await page.getByRole('button', { name: 'Approve delete_file' }).first().focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => queue.count()).toBe(1);
      await page.getByLabel('Reason to deny (optional)').fill('keep the city list');
      await page.getByRole('button', { name: 'Deny delete_file' }).click();
      await ended(page, runId, 'complete');

      expect(await deleteCard(page, 'access.log').getAttribute('data-state')).toBe('completed');
      const denied = deleteCard(page, 'cities.csv');
      expect(await denied.getAttribute('data-code')).toBe('denied');
      expect(await denied.locator('.error').textContent()).toContain('keep the city list');
      await page.close();
    });

    it('a tool that asks back gets the answer typed in the queue', async () => {
      const page = await browser.context.newPage();
      const runId = await startFlow(page, web, 'ask-back');
      const item = page.locator('#approvals li');
      await expect.poll(() => item.count(), { timeout: 30_000 }).toBe(1);
      expect(await item.locator('.question').textContent()).toMatch(/freeze/i);
      await page.getByLabel('Answer').fill('yes');
      await page.getByLabel('Answer').press('Enter');
      await ended(page, runId, 'complete');
      const card = page.locator(`.run[data-run-id="${runId}"] .card[data-tool="transfer_money"]`);
      expect(await card.getAttribute('data-state')).toBe('completed');
      expect(await card.locator('.result').textContent()).toMatch(/froze|frozen|freeze/i);
      await page.close();
    });

    it('a paused run saved, the page reloaded, resumed from the file (the terminal reads it too)', async () => {
      const page = await browser.context.newPage();
      const runId = await startFlow(page, web, 'approve');
      await expect.poll(() => page.locator('#approvals li').count(), { timeout: 30_000 }).toBe(2);
      await page.getByRole('button', { name: 'Save the paused run' }).click();
      await expect
        .poll(() => page.locator('#saved').textContent())
        .toMatch(/^saved: \/.+run\.json$/);
      const file = ((await page.locator('#saved').textContent()) ?? '').replace('saved: ', '');
      await ended(page, runId, 'paused');

      const saved = JSON.parse(await readFile(file, 'utf8')) as {
        agcorePlayground: string;
        flow: string;
        state: { pending?: { calls: unknown[] } };
      };
      expect(saved.agcorePlayground).toBe('paused-run');
      expect(saved.flow).toBe('approve');
      expect(saved.state.pending?.calls).toHaveLength(2);

      await page.reload();
      // The reloaded page replays the run and knows the file.
      await ended(page, runId, 'paused');
      expect(await page.locator('#resume-path').inputValue()).toBe(file);
      const posted = page.waitForResponse((response) => response.url().includes('/api/resume'));
      await page.getByRole('button', { name: 'Resume' }).click();
      const { runId: resumed } = (await (await posted).json()) as { runId: string };
      await expect.poll(() => page.locator('#approvals li').count(), { timeout: 30_000 }).toBe(2);
      expect(await page.locator('.run:last-child .meta').first().textContent()).toBe(
        `resumed from ${file}`,
      );
      for (let left = 2; left > 0; left -= 1) {
        await page.getByRole('button', { name: 'Approve delete_file' }).first().click();
        await expect.poll(() => page.locator('#approvals li').count()).toBe(left - 1);
      }
      await ended(page, resumed, 'complete');
      expect(await page.locator('.run:last-child .card[data-state="completed"]').count()).toBe(2);

      // The same file goes on in the terminal: it is the RunState the terminal writes.
      const terminal = await runCli(['resume', file, '--approve', 'no']);
      expect(terminal.code).toBe(0);
      expect(terminal.stdout).toContain('✔ done');
      await page.close();
    });

    it('the cancel button stops a running tool: the card ends cancelled, the run cancelled', async () => {
      const page = await browser.context.newPage();
      const runId = await startFlow(page, web, 'cancel');
      const card = page.locator('.run:last-child .card[data-tool$="long-running-operation"]');
      await expect
        .poll(() => card.locator('progress').getAttribute('value'), { timeout: 30_000 })
        .not.toBeNull();
      await page.getByRole('button', { name: 'Cancel run' }).click();
      await ended(page, runId, 'cancelled');
      expect(await card.getAttribute('data-code')).toBe('cancelled');
      expect(await page.getByRole('button', { name: 'Cancel run' }).isDisabled()).toBe(true);
      await page.close();
    });

    it('without the token every request is refused with 401', async () => {
      const base = new URL(web.url);
      const origin = base.origin;
      for (const target of ['/', '/app.js', '/style.css', '/events', '/api/state']) {
        expect((await fetch(`${origin}${target}`)).status, target).toBe(401);
        expect((await fetch(`${origin}${target}?token=wrong`)).status, target).toBe(401);
      }
      const post = await fetch(`${origin}/api/run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ flow: 'weather' }),
      });
      expect(post.status).toBe(401);
      const page = await browser.context.newPage();
      const response = await page.goto(`${origin}/`);
      expect(response?.status()).toBe(401);
      // With the token, the page and its modules load (the import map carries it).
      await page.goto(web.url);
      await expect.poll(() => page.locator('#flow option').count()).toBeGreaterThan(10);
      await page.close();
    });
  },
);
