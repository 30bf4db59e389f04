/// <reference lib="dom" />
// The callbacks given to page.evaluate run in the page, hence the DOM types.
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accessibilityViolations,
  browserSuite,
  launchBrowser,
  runEnded,
  screenshotDir,
  startWeb,
  type WebProcess,
} from './support/browser.js';

const suite = browserSuite();
if (!suite.run) console.warn(suite.reason);

/** Types `message` into the chat box and presses Enter; resolves to the message's run id. */
async function sendChat(page: Page, message: string): Promise<string> {
  const box = page.getByLabel('Or chat freely');
  await box.fill(message);
  const posted = page.waitForResponse((response) => response.url().includes('/api/chat?'));
  await box.press('Enter');
  const { runId } = (await (await posted).json()) as { runId: string };
  await page.locator(`.run[data-run-id="${runId}"]`).waitFor({ timeout: 30_000 });
  return runId;
}

/** The text of every model request the page shows for run `runId`. */
function requestsOf(page: Page, runId: string): Promise<string[]> {
  return page.locator(`.run[data-run-id="${runId}"] .model-request pre`).allTextContents();
}

describe.skipIf(!suite.run)('the web page in Chromium: free chat', () => {
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

  it('type and send: the reply streams in with tool cards; the next message continues the conversation', async () => {
    const page = await browser.context.newPage();
    await page.goto(web.url);
    await page.locator('body[data-connected="true"]').waitFor();
    const box = page.getByLabel('Or chat freely');

    // Shift+Enter is a new line in the box, not a send.
    let posts = 0;
    page.on('request', (request) => {
      if (request.url().includes('/api/chat?')) posts += 1;
    });
    await box.pressSequentially('one');
    await box.press('Shift+Enter');
    await box.pressSequentially('two');
    expect(await box.inputValue()).toBe('one\ntwo');
    expect(posts).toBe(0);

    await page.evaluate(() => {
      const texts = new Set<string>();
      (window as unknown as { texts: Set<string> }).texts = texts;
      new MutationObserver(() => {
        const first = document.querySelector('.assistant .streamed');
        if (first?.textContent) texts.add(first.textContent);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    const first = await sendChat(page, 'weather in Paris and London');
    await runEnded(page, first, 'complete');
    expect(await box.inputValue()).toBe(''); // the box is cleared once the message is taken
    const pieces = await page.evaluate(
      () => (window as unknown as { texts: Set<string> }).texts.size,
    );
    expect(pieces).toBeGreaterThan(1); // the answer arrived in pieces
    const run = page.locator(`.run[data-run-id="${first}"]`);
    expect(await run.locator('h3').textContent()).toBe('chat · conversation 1 · message 1');
    expect(await run.locator('.prompt').textContent()).toContain('weather in Paris and London');
    expect(
      await run.locator('.card[data-tool="get_weather"][data-state="completed"]').count(),
    ).toBe(2);
    await expect
      .poll(() => run.locator('.assistant').allTextContents())
      .toEqual([
        expect.stringContaining('Checking the weather.'),
        expect.stringContaining('Here is what the tools returned'),
      ]);

    const second = await sendChat(page, 'calculate 6 * 7');
    await runEnded(page, second, 'complete');
    const next = page.locator(`.run[data-run-id="${second}"]`);
    expect(await next.locator('h3').textContent()).toBe('chat · conversation 1 · message 2');
    await expect
      .poll(() => next.locator('.card[data-tool="calculator"] .result').textContent())
      .toContain('42');
    // The model is sent the whole conversation: the first message and its tool results too.
    const [request] = await requestsOf(page, second);
    expect(request).toContain('weather in Paris and London');
    expect(request).toContain('calculate 6 * 7');
    expect(await page.locator('#chat-conversation').textContent()).toBe(
      'conversation 1, 2 messages',
    );
    expect(await page.locator('[data-stat="toolCalls"]').textContent()).toBe('1');
    // The chat box and both messages of the conversation.
    await page.screenshot({
      path: path.join(screenshotDir, 'chat.png'),
      fullPage: true,
      clip: { x: 0, y: 0, width: 1280, height: 1300 },
    });
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });

    // A new conversation forgets the history.
    await page.getByRole('button', { name: 'New conversation' }).click();
    await expect
      .poll(() => page.locator('#chat-conversation').textContent())
      .toContain('a new one starts');
    const third = await sendChat(page, 'calculate 1 + 1');
    await runEnded(page, third, 'complete');
    expect(await page.locator(`.run[data-run-id="${third}"] h3`).textContent()).toBe(
      'chat · conversation 2 · message 1',
    );
    const [fresh] = await requestsOf(page, third);
    expect(fresh).toContain('calculate 1 + 1');
    expect(fresh).not.toContain('weather in Paris and London');
    await page.close();
  });

  it('an ask-back in the chat waits in the queue, Send is off meanwhile, the answer goes on', async () => {
    const page = await browser.context.newPage();
    await page.goto(web.url);
    await page.locator('body[data-connected="true"]').waitFor();
    const runId = await sendChat(page, 'transfer 9000 to Bob');
    const queue = page.locator('#approvals li');
    await expect.poll(() => queue.count(), { timeout: 30_000 }).toBe(1);
    expect(await queue.locator('.question').textContent()).toContain('9 000 € to Bob');
    expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'New conversation' }).isDisabled()).toBe(true);
    await queue.getByLabel('Answer').fill('no');
    await queue.getByRole('button', { name: 'Answer' }).click();
    await runEnded(page, runId, 'complete');
    const card = page.locator(`.run[data-run-id="${runId}"] .card[data-tool="transfer_money"]`);
    expect(await card.getAttribute('data-state')).toBe('completed');
    expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(false);
    await page.close();
  });
});
