/// <reference lib="dom" />
// The callbacks given to page.evaluate run in the page, hence the DOM types.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { toolErrorCodes } from '@agcore/tools-core';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledServerEntry } from '../src/core/bundled-servers.js';
import {
  accessibilityViolations,
  browserSuite,
  launchBrowser,
  runEnded,
  screenshotDir,
  startFlowOnPage,
  startWeb,
  type WebProcess,
} from './support/browser.js';

const suite = browserSuite();
if (!suite.run) console.warn(suite.reason);

/** A credential in the MCP server's `env`: the page must never show it. */
const demoToken = 'demo-token-0123456789';
const dir = mkdtempSync(path.join(os.tmpdir(), 'agcore-web-inspect-'));
const mcpConfig = path.join(dir, 'mcp.json');
writeFileSync(
  mcpConfig,
  JSON.stringify({
    mcpServers: {
      demo: {
        command: process.execPath,
        args: [bundledServerEntry('everything'), 'stdio'],
        env: { DEMO_TOKEN: demoToken },
      },
      changing: {
        command: process.execPath,
        args: [fileURLToPath(new URL('./support/changing-server.mjs', import.meta.url))],
      },
    },
  }),
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The policy form: sets `permission` to `choice` and applies it; resolves to the new text. */
async function editPolicy(page: Page, permission: string, choice: string): Promise<string> {
  await page.getByLabel(permission, { exact: true }).selectOption(choice);
  const posted = page.waitForResponse((response) => response.url().includes('/api/policy'));
  await page.getByRole('button', { name: 'Apply the policy' }).click();
  expect((await posted).status()).toBe(200);
  await expect.poll(() => page.locator('#policy-saved').textContent()).toMatch(/^applied: /);
  return (await page.locator('#policy-text').textContent()) ?? '';
}

/** The MCP tool's block, opened. */
async function openTool(page: Page, name: string) {
  const block = page.locator(`.mcp-tool[data-tool="${name}"]`);
  await block.locator('summary').click();
  return block;
}

describe.skipIf(!suite.run)('the web page in Chromium: audit, model bodies, policy, MCP', () => {
  let browser: { context: BrowserContext; close(): Promise<void> };
  let web: WebProcess;

  beforeAll(async () => {
    browser = await launchBrowser();
    web = await startWeb(['--mcp-config', mcpConfig]);
  });
  afterAll(async () => {
    await web?.stop();
    await browser?.close();
  });

  it('the audit lines of a run and each model turn’s request and response bodies', async () => {
    const page = await browser.context.newPage();
    const runId = await startFlowOnPage(page, web, 'tour');
    await runEnded(page, runId, 'complete');
    // One audit line per tool call, the JSON --audit FILE writes, in the run's order.
    const lines = page.locator('#audit li');
    await expect.poll(() => lines.count()).toBe(4);
    expect(await page.locator('#audit-count').textContent()).toBe('4');
    const parsed = (await lines.allTextContents()).map(
      (text) => JSON.parse(text) as { tool: string; outcome: string; callId: string },
    );
    const cards = await page.locator(`.run[data-run-id="${runId}"] .card`).all();
    const cardIds = await Promise.all(cards.map((card) => card.getAttribute('data-call-id')));
    expect(parsed.map((line) => line.callId).sort()).toEqual([...cardIds].sort());
    expect(parsed.every((line) => line.outcome === 'ok')).toBe(true);
    expect(parsed.map((line) => line.tool)).toContain('calculator');

    // Each of the 4 model turns has its request and its response, in its own turn.
    const run = page.locator(`.run[data-run-id="${runId}"]`);
    expect(await run.locator('details.model-request').count()).toBe(4);
    expect(await run.locator('details.model-response').count()).toBe(4);
    const first = run.locator('[data-turn="1"] details.model-request');
    await first.locator('summary').click();
    const request = JSON.parse((await first.locator('pre').textContent()) ?? '') as {
      messages: Array<{ role: string; content: string }>;
      tools: Array<{ function: { name: string } }>;
    };
    expect(request.messages.at(-1)?.role).toBe('user');
    expect(request.tools.map((tool) => tool.function.name)).toContain('get_weather');
    const second = run.locator('[data-turn="2"] details.model-request');
    await second.locator('summary').click();
    // The second request carries the first turn's tool results back to the model.
    expect(await second.locator('pre').textContent()).toContain('"role": "tool"');
    const response = run.locator('[data-turn="1"] details.model-response');
    await response.locator('summary').click();
    expect(
      (JSON.parse((await response.locator('pre').textContent()) ?? '') as { finishReason: string })
        .finishReason,
    ).toBe('tool_calls');

    await page.locator('#audit-view').screenshot({ path: path.join(screenshotDir, 'audit.png') });
    await run
      .locator('[data-turn="1"]')
      .screenshot({ path: path.join(screenshotDir, 'model-bodies.png') });
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.close();
  });

  it('the MCP view: tools, annotations, derived permissions; a call from the generated form', async () => {
    const page = await browser.context.newPage();
    await page.goto(web.url);
    await page.locator('#mcp-view[data-loaded="true"]').waitFor({ timeout: 30_000 });
    const server = page.locator('.mcp-server[data-server="demo"]');
    expect(await server.locator('h3').textContent()).toMatch(/^demo \d/);
    const sum = await openTool(page, 'demo__get-sum');
    expect(await sum.locator('[data-fact="annotations"]').textContent()).toContain(
      'readOnlyHint: true',
    );
    expect(await sum.locator('[data-fact="permissions"]').textContent()).toBe(
      'read (derived from the annotations)',
    );
    expect(await sum.locator('[data-fact="pin"]').textContent()).toBe(
      'as first listed (no change)',
    );
    // A tool that writes is derived `write`, which the default policy does not allow.
    expect(
      await page
        .locator('.mcp-tool[data-tool="demo__toggle-simulated-logging"] summary')
        .textContent(),
    ).toContain('write · refused by the policy');

    // Numbers: a missing one is marked and nothing is sent; filled, the server adds them.
    await sum.getByLabel('a (required)').fill('2.5');
    let sent = 0;
    page.on('request', (request) => {
      if (request.url().includes('/api/mcp/call')) sent += 1;
    });
    await sum.getByRole('button', { name: 'Call get-sum' }).click();
    expect(await sum.locator('.field-error').allTextContents()).toEqual(['', 'required']);
    expect(await sum.getByLabel('b (required)').getAttribute('aria-invalid')).toBe('true');
    expect(sent).toBe(0);
    await sum.getByLabel('b (required)').fill('4');
    await sum.getByRole('button', { name: 'Call get-sum' }).click();
    const result = sum.locator('.call-result');
    await expect.poll(() => result.getAttribute('data-outcome')).toBe('ok');
    expect(await result.locator('pre').textContent()).toContain('6.5');

    // An enum is a select, a boolean a checkbox.
    const annotated = await openTool(page, 'demo__get-annotated-message');
    const kind = annotated.getByLabel('messageType (required)');
    expect(await kind.evaluate((node) => node.tagName)).toBe('SELECT');
    await kind.selectOption('success');
    const image = annotated.getByLabel('includeImage');
    expect(await image.getAttribute('type')).toBe('checkbox');
    await image.check();
    await annotated.getByRole('button', { name: 'Call get-annotated-message' }).click();
    await expect
      .poll(() => annotated.locator('.call-result').getAttribute('data-outcome'))
      .toBe('ok');
    expect(await annotated.locator('.call-result pre').textContent()).toContain('image');
    await annotated.locator('summary').click();

    // What the server's schema refuses comes back as the tool's error code.
    const refused = await page.evaluate(async () => {
      const token = new URLSearchParams(location.search).get('token') ?? '';
      const response = await fetch(`/api/mcp/call?token=${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tool: 'demo__get-sum', arguments: { a: 'two', b: 1 } }),
      });
      return response.json();
    });
    expect(refused).toMatchObject({ ok: false, code: 'invalid_arguments' });

    // The server's environment, with --mcp-config's credential in it, comes back redacted.
    const env = await openTool(page, 'demo__get-env');
    await env.getByRole('button', { name: 'Call get-env' }).click();
    await expect.poll(() => env.locator('.call-result').getAttribute('data-outcome')).toBe('ok');
    expect(await env.locator('.call-result pre').textContent()).toContain('DEMO_TOKEN');
    expect(await env.locator('.call-result pre').textContent()).toContain('[redacted]');
    expect(await page.content()).not.toContain(demoToken);
    await env.locator('summary').click();

    await page.locator('#mcp-view').screenshot({ path: path.join(screenshotDir, 'mcp.png') });
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.close();
  });

  it('the form for nested objects and arrays takes JSON and says what is wrong with it', async () => {
    const page = await browser.context.newPage();
    await page.goto(web.url);
    await page.locator('#mcp-view[data-loaded="true"]').waitFor({ timeout: 30_000 });
    // The page's own module (through its import map; a string, so vitest leaves the import
    // alone), given a schema with every kind of field no bundled server has.
    await page.evaluate("import('/mcp.js').then((module) => { window.mcpModule = module; })");
    await page.evaluate(async () => {
      const { renderServers } = (
        window as unknown as {
          mcpModule: {
            renderServers: (container: Element, servers: unknown[], call: unknown) => void;
          };
        }
      ).mcpModule;
      const calls: unknown[] = [];
      (window as unknown as { calls: unknown[] }).calls = calls;
      const container = document.createElement('div');
      container.id = 'scratch';
      document.querySelector('main')?.append(container);
      renderServers(
        container,
        [
          {
            name: 'scratch',
            tools: [
              {
                name: 'scratch__plan',
                mcpName: 'plan',
                description: 'Takes every kind of argument.',
                parameters: {
                  type: 'object',
                  properties: {
                    filter: { type: 'object', properties: { tag: { type: 'string' } } },
                    ids: { type: 'array', items: { type: 'integer' } },
                    count: { type: 'integer' },
                  },
                  required: ['filter'],
                },
                annotations: {},
                permissions: ['read'],
                permissionsFrom: 'annotations',
                allowed: true,
                changes: [],
              },
            ],
          },
        ],
        async (tool: string, args: unknown) => {
          calls.push({ tool, args });
          return { ok: true, value: { planned: true }, durationMs: 1 };
        },
      );
    });
    const plan = await openTool(page, 'scratch__plan');
    expect(await plan.getByLabel('filter (required)').evaluate((node) => node.tagName)).toBe(
      'TEXTAREA',
    );
    await plan.getByLabel('filter (required)').fill('{"tag": ');
    await plan.getByLabel('ids').fill('[1, 2]');
    await plan.getByLabel('count').fill('1.5');
    await plan.getByRole('button', { name: 'Call plan' }).click();
    const errors = await plan.locator('.field-error').allTextContents();
    expect(errors[0]).toMatch(/^not JSON: /);
    expect(errors[2]).toBe('not a whole number');
    expect(await plan.locator('.call-result').textContent()).toBe('Fix the fields marked above.');
    await plan.getByLabel('filter (required)').fill('{"tag": "x", "deep": {"on": [true]}}');
    await plan.getByLabel('count').fill('3');
    await plan.getByRole('button', { name: 'Call plan' }).click();
    await expect.poll(() => plan.locator('.call-result').getAttribute('data-outcome')).toBe('ok');
    expect(await page.evaluate(() => (window as unknown as { calls: unknown[] }).calls)).toEqual([
      {
        tool: 'scratch__plan',
        args: { filter: { tag: 'x', deep: { on: [true] } }, ids: [1, 2], count: 3 },
      },
    ]);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.close();
  });

  it('the policy edited for the session: the next run and the next form call are refused', async () => {
    const page = await browser.context.newPage();
    const before = await startFlowOnPage(page, web, 'weather');
    await runEnded(page, before, 'complete');
    expect(await page.locator('#policy-text').textContent()).toMatch(/^allow read, network/);
    await page.locator('#policy-view').screenshot({ path: path.join(screenshotDir, 'policy.png') });
    expect(await accessibilityViolations(page)).toEqual([]);

    const text = await editPolicy(page, 'read', 'denied');
    expect(text).toMatch(/^allow network · deny read, delete, shell/);
    // A reloaded page shows the edited policy: it holds for the session, not the page.
    await page.reload();
    await expect.poll(() => page.getByLabel('read', { exact: true }).inputValue()).toBe('denied');

    const after = await startFlowOnPage(page, web, 'weather');
    await runEnded(page, after);
    const card = page.locator(`.run[data-run-id="${after}"] .card[data-tool="get_weather"]`);
    expect(await card.getAttribute('data-code')).toBe('permission_denied');
    expect(await page.locator('#audit li').first().getAttribute('data-outcome')).toBe('error');

    const sum = await openTool(page, 'demo__get-sum');
    expect(await sum.locator('summary').textContent()).toContain('refused by the policy');
    await sum.getByLabel('a (required)').fill('1');
    await sum.getByLabel('b (required)').fill('2');
    await sum.getByRole('button', { name: 'Call get-sum' }).click();
    await expect
      .poll(() => sum.locator('.call-result').getAttribute('data-code'))
      .toBe('permission_denied');

    // Hostile edits are refused with the reason, and change nothing.
    const refused = await page.evaluate(async () => {
      const token = new URLSearchParams(location.search).get('token') ?? '';
      const post = (body: unknown) =>
        fetch(`/api/policy?token=${token}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }).then(async (response) => [response.status, (await response.json()).error]);
      return Promise.all([
        post({ allowed: ['Shell'], denied: [], allowUnspecified: true }),
        post({ allowed: ['read'], denied: ['read'], allowUnspecified: true }),
        post({ allowed: 'read', denied: [], allowUnspecified: 'yes' }),
      ]);
    });
    expect(refused.map(([status]) => status)).toEqual([400, 400, 400]);
    expect(refused[0]?.[1]).toContain('"Shell" is not a permission');
    expect(refused[1]?.[1]).toContain('read: both allowed and denied');
    await page.reload();
    await expect.poll(() => page.getByLabel('read', { exact: true }).inputValue()).toBe('denied');
    await editPolicy(page, 'read', 'allowed');
    await page.close();
  });

  it('a tool failing with each ToolError code: its card says failed, the code and the duration', async () => {
    const page = await browser.context.newPage();
    await page.goto(web.url);
    await page.locator('body[data-connected="true"]').waitFor({ timeout: 30_000 });
    // The flows produce six of the codes for real (web-browser-run, web-browser-pause); the
    // page's own timeline module is fed the stream events of a failure with every code.
    await page.evaluate(
      "import('/timeline.js').then((module) => { window.timelineModule = module; })",
    );
    await page.evaluate((codes: readonly string[]) => {
      type View = { event(event: object): void };
      const { RunView } = (
        window as unknown as {
          timelineModule: { RunView: new (container: Element, record: object) => View };
        }
      ).timelineModule;
      const view = new RunView(document.getElementById('timeline') as Element, {
        runId: 'codes',
        flow: 'codes',
      });
      codes.forEach((code, index) => {
        const call = { callId: `call-${code}`, toolName: 'failing_tool', input: { index } };
        view.event({ type: 'tool_execution_started', ...call });
        view.event({
          type: 'tool_execution_completed',
          ...call,
          durationMs: 12 + index,
          error: { code, message: `it failed with ${code}` },
        });
      });
    }, toolErrorCodes);
    for (const code of toolErrorCodes) {
      const card = page.locator(`.run[data-run-id="codes"] .card[data-call-id="call-${code}"]`);
      expect(await card.getAttribute('data-state')).toBe('failed');
      expect(await card.getAttribute('data-code')).toBe(code);
      expect(await card.locator('.state').textContent()).toMatch(
        new RegExp(`^failed · ${code} · \\d+ ms$`),
      );
      expect(await card.locator('.error').textContent()).toContain(
        `${code}: it failed with ${code}`,
      );
    }
    expect(await page.locator('.run[data-run-id="codes"] .card').count()).toBe(
      toolErrorCodes.length,
    );
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.close();
  });

  it('a pinned tool whose definition changes: listed again, the MCP view shows the change', async () => {
    const page = await browser.context.newPage();
    await page.goto(web.url);
    await page.locator('#mcp-view[data-loaded="true"]').waitFor({ timeout: 30_000 });
    const note = await openTool(page, 'changing__note');
    expect(await note.locator('[data-fact="pin"]').textContent()).toBe(
      'as first listed (no change)',
    );
    const upgrade = await openTool(page, 'changing__upgrade');
    await upgrade.getByRole('button', { name: 'Call upgrade' }).click();
    await expect
      .poll(() => upgrade.locator('.call-result pre').textContent())
      .toContain('upgraded');
    const listed = page.waitForResponse((response) => response.url().includes('/api/mcp?'));
    await page.getByRole('button', { name: /List the tools again/ }).click();
    await listed;
    const changed = page.locator('.mcp-tool[data-tool="changing__note"]');
    await expect.poll(() => changed.getAttribute('data-changes')).toBe('1');
    expect(await changed.locator('[data-fact="pin"]').textContent()).toMatch(/^changed 1×: .*note/);
    expect(await changed.locator('.description').textContent()).toBe(
      'Takes a note and sends it somewhere else.',
    );
    await page.close();
  });
});
