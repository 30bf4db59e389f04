/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The callbacks given to page.evaluate run in the page, hence the DOM types.
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
import { jsonLines, runCli } from './support/cli.js';

const suite = browserSuite();
if (!suite.run) console.warn(suite.reason);

/** A span tree as nested names, children in start order (what both views must agree on). */
interface Node {
  readonly name: string;
  readonly children: Node[];
}

interface SpanLike {
  name: string;
  spanId: string;
  parentSpanId?: string;
  startMs: number;
}

function treeOf(spans: readonly SpanLike[]): Node[] {
  const ids = new Set(spans.map((span) => span.spanId));
  const build = (parent: string | undefined): Node[] =>
    spans
      .filter((span) =>
        parent === undefined
          ? span.parentSpanId === undefined || !ids.has(span.parentSpanId)
          : span.parentSpanId === parent,
      )
      .sort((a, b) => a.startMs - b.startMs)
      .map((span) => ({ name: span.name, children: build(span.spanId) }));
  return build(undefined);
}

/** The page's span tree (`#trace`), read back from the DOM. */
async function pageTree(page: Page): Promise<Node[]> {
  return page.evaluate(() => {
    type Read = { name: string; children: Read[] };
    const read = (list: Element | null): Read[] =>
      list === null
        ? []
        : [...list.children].map((item) => ({
            name: (item as HTMLElement).dataset.name ?? '',
            children: read(item.querySelector(':scope > ul')),
          }));
    return read(document.getElementById('trace'));
  });
}

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

describe.skipIf(!suite.run)('the web page in Chromium: runs', () => {
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

  it('the tour: text streams, cards update live, the progress bar moves, the summary is right', async () => {
    const page = await browser.context.newPage();
    await page.goto(web.url);
    await expect.poll(() => page.locator('#flow option').count()).toBeGreaterThan(10);
    // Record what the person sees change: each text the first answer shows, each bar value.
    await page.evaluate(() => {
      const seen = { texts: new Set<string>(), bars: new Set<string>() };
      (window as unknown as { seen: typeof seen }).seen = seen;
      new MutationObserver(() => {
        const first = document.querySelector('.assistant .streamed');
        if (first?.textContent) seen.texts.add(first.textContent);
        for (const bar of document.querySelectorAll('progress.call-progress')) {
          const value = bar.getAttribute('value');
          if (value !== null) seen.bars.add(value);
        }
      }).observe(document.body, {
        subtree: true,
        childList: true,
        characterData: true,
        attributes: true,
      });
    });
    const posted = page.waitForResponse((response) => response.url().includes('/api/run'));
    await page.getByRole('button', { name: 'Start' }).click();
    const { runId } = (await (await posted).json()) as { runId: string };
    await ended(page, runId, 'complete');

    const seen = await page.evaluate(() => {
      const { texts, bars } = (
        window as unknown as { seen: { texts: Set<string>; bars: Set<string> } }
      ).seen;
      return { texts: texts.size, bars: [...bars].map(Number).sort((a, b) => a - b) };
    });
    expect(seen.texts).toBeGreaterThan(3); // the first answer arrived in pieces
    expect(seen.bars.length).toBeGreaterThanOrEqual(2); // the bar moved, then ended full
    expect(seen.bars.at(-1)).toBe(4);
    await expect
      .poll(() => page.locator('.assistant').first().textContent())
      .toContain('I will look up both cities at once.');

    const cards = page.locator('.card');
    expect(await cards.count()).toBe(4);
    expect(await page.locator('.card[data-state="completed"]').count()).toBe(4);
    // The two get_weather calls of turn 1 run in parallel: side by side, on one row.
    const [beijing, london] = await page.locator('[data-turn="1"] .card').all();
    const a = await beijing?.boundingBox();
    const b = await london?.boundingBox();
    expect(a?.y).toBe(b?.y);
    expect((b?.x ?? 0) > (a?.x ?? 0)).toBe(true);
    await expect
      .poll(() => page.locator('.card[data-tool="calculator"] .result').textContent())
      .toContain('"result":18');
    expect(
      await page.locator('.card[data-tool$="long-running-operation"] .state').textContent(),
    ).toMatch(/completed · \d\.\d s/);
    const stat = (name: string) => page.locator(`[data-stat="${name}"]`).textContent();
    expect(await stat('turns')).toBe('4');
    expect(await stat('toolCalls')).toBe('4');
    expect(await stat('failures')).toBe('0');
    expect(await stat('tokens')).toMatch(/^\d+ \(\d+ prompt \+ \d+ completion\)$/);
    expect(await stat('wall')).toMatch(/\d(\.\d)? (ms|s)$/);

    await page.screenshot({ path: path.join(screenshotDir, 'timeline.png'), fullPage: true });
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: path.join(screenshotDir, 'timeline-dark.png'), fullPage: true });
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.close();
  });

  it('the span tree is the one --trace prints for the same flow', async () => {
    const cli = await runCli(['--flow', 'weather', '--trace', '--json']);
    expect(cli.code).toBe(0);
    const trace = jsonLines(cli.stdout).find((line) => line.type === 'trace') as
      | { spans: SpanLike[] }
      | undefined;
    const expected = treeOf(trace?.spans ?? []);
    expect(expected.length).toBeGreaterThan(0);

    const page = await browser.context.newPage();
    const runId = await startFlow(page, web, 'weather');
    await ended(page, runId, 'complete');
    await page.locator(`#trace[data-run-id="${runId}"] li`).first().waitFor();
    expect(await pageTree(page)).toEqual(expected);
    await page.locator('#trace-view').screenshot({ path: path.join(screenshotDir, 'trace.png') });
    await page.close();
  });

  it('a tool failing with each code a flow produces shows it on its card', async () => {
    const page = await browser.context.newPage();
    const cases: Array<[flow: string, code: string]> = [
      ['denied', 'permission_denied'],
      ['recover', 'invalid_arguments'],
      ['timeout', 'timeout'],
      ['loop', 'loop_detected'],
    ];
    for (const [flow, code] of cases) {
      const runId = await startFlow(page, web, flow);
      await ended(page, runId);
      const card = page.locator(`.run:last-child .card[data-code="${code}"]`).first();
      await card.waitFor();
      expect(await card.locator('.state').textContent()).toMatch(
        new RegExp(`^failed · ${code} · \\d`),
      );
      expect(await card.locator('.error').textContent()).toContain(`${code}:`);
    }
    await page.close();
  });

  it('a result cut for the model is marked, its full value one click away', async () => {
    const page = await browser.context.newPage();
    const runId = await startFlow(page, web, 'truncation');
    await ended(page, runId);
    const card = page.locator(`.run[data-run-id="${runId}"] .card[data-tool="read_file"]`).first();
    expect(await card.locator('.marker').textContent()).toContain('cut to maxToolResultBytes');
    const full = card.locator('.result pre.full-value');
    expect(await full.isVisible()).toBe(false);
    await card.locator('.result summary').click();
    expect(await full.isVisible()).toBe(true);
    expect(((await full.textContent()) ?? '').length).toBeGreaterThan(40_000);
    await page.close();
  });

  it('200 tool calls in one run: every card renders and the page stays responsive', async () => {
    const page = await browser.context.newPage();
    await page.goto(web.url);
    await page.locator('#flow').selectOption('burst');
    await page.evaluate(() => {
      const longest = { ms: 0 };
      (window as unknown as { longest: typeof longest }).longest = longest;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) longest.ms = Math.max(longest.ms, entry.duration);
      }).observe({ type: 'longtask', buffered: true });
    });
    const started = await page.evaluate(() => performance.now());
    const posted = page.waitForResponse((response) => response.url().includes('/api/run'));
    await page.getByRole('button', { name: 'Start' }).click();
    const { runId } = (await (await posted).json()) as { runId: string };
    await ended(page, runId, 'complete');
    const rendered = await page.evaluate(() => performance.now());
    expect(await page.locator('.run:last-child .card[data-state="completed"]').count()).toBe(200);
    expect(await page.locator('[data-stat="toolCalls"]').textContent()).toBe('200');
    const serverWall = await page.locator('[data-stat="wall"]').textContent();
    const longest = await page.evaluate(
      () => (window as unknown as { longest: { ms: number } }).longest.ms,
    );
    console.info(
      `web page, 200 tool calls: summary shown ${Math.round(rendered - started)} ms after Start (the run itself: ${serverWall} on the server); longest main-thread task ${Math.round(longest)} ms`,
    );
    await page.close();
  });
});
