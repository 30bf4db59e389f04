import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { baseEnv, startCli } from './cli.js';

/** Debian's headless Chromium (`apt-get install chromium-headless-shell`); `AGCORE_CHROMIUM` overrides. */
export const chromiumPath = process.env.AGCORE_CHROMIUM ?? '/usr/bin/chromium-headless-shell';

/**
 * Where the tests write their screenshots: docs/playground (the ones the README links) with
 * `AGCORE_UPDATE_SCREENSHOTS=1`, else a directory of the system's temp dir, so a test run
 * changes no tracked file.
 */
export const screenshotDir =
  process.env.AGCORE_UPDATE_SCREENSHOTS === '1'
    ? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../docs/playground')
    : path.join(os.tmpdir(), 'agcore-playground-screenshots');

/**
 * Whether the browser suites run: always with `AGCORE_SERVICE_TESTS=1` (a missing browser then
 * fails them), never under CI otherwise, and on a developer machine when Chromium is there.
 */
export function browserSuite(): { run: boolean; reason: string } {
  const required = process.env.AGCORE_SERVICE_TESTS === '1';
  if (required) return { run: true, reason: '' };
  if (process.env.CI === 'true' || process.env.CI === '1') {
    return { run: false, reason: 'browser tests run on the CI leg with AGCORE_SERVICE_TESTS=1' };
  }
  if (!existsSync(chromiumPath)) {
    return {
      run: false,
      reason: `browser tests skipped: no ${chromiumPath} (sudo apt-get install chromium-headless-shell, or set AGCORE_CHROMIUM)`,
    };
  }
  return { run: true, reason: '' };
}

/** The flags the brief of the browser tests fixes: no sandbox, no GPU, nothing in the background. */
const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** A headless Chromium with a fresh profile; `close()` removes the profile. */
export async function launchBrowser(): Promise<{
  context: BrowserContext;
  close(): Promise<void>;
}> {
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `AGCORE_SERVICE_TESTS=1 but ${chromiumPath} is missing: apt-get install chromium-headless-shell.`,
    );
  }
  const profile = await mkdtemp(path.join(os.tmpdir(), 'agcore-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: chromiumArgs,
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** A running `playground web --no-open`: its URL (with the token) and how to stop it. */
export interface WebProcess {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `node dist/cli.js web --no-open --port 0 ...args` and waits for the URL it prints. */
export async function startWeb(args: readonly string[] = []): Promise<WebProcess> {
  const child = startCli(['web', '--no-open', '--port', '0', ...args], { env: baseEnv() });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed: ${output}`)), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = output.match(/http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match[0]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`web exited ${code}: ${output}`));
    });
  });
  return {
    url,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The WCAG A/AA violations axe finds on the page, as `id: help (n nodes)` lines. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'])
    .analyze();
  return result.violations.map(
    (violation) =>
      `${violation.id}: ${violation.help} (${violation.nodes.length} nodes: ${violation.nodes
        .slice(0, 3)
        .map((node) => node.target.join(' '))
        .join(', ')})`,
  );
}

/** Starts `flow` from the page; resolves to the run's id (from the page's own POST). */
export async function startFlowOnPage(page: Page, web: WebProcess, flow: string): Promise<string> {
  await page.goto(web.url);
  await page.locator('#flow').selectOption(flow);
  const posted = page.waitForResponse((response) => response.url().includes('/api/run'));
  await page.getByRole('button', { name: 'Start' }).click();
  const { runId } = (await (await posted).json()) as { runId: string };
  await page.locator(`.run[data-run-id="${runId}"]`).waitFor({ timeout: 30_000 });
  return runId;
}

/** Waits until the summary is the one of run `runId`, ended with `outcome`. */
export async function runEnded(page: Page, runId: string, outcome?: string): Promise<void> {
  const ending = outcome === undefined ? '[data-outcome]' : `[data-outcome="${outcome}"]`;
  await page.locator(`#summary[data-run-id="${runId}"]${ending}`).waitFor({ timeout: 60_000 });
}
