/**
 * Issue 19 §2: the agent, bundled for the browser, runs in a real headless browser (Debian's
 * `chromium-headless-shell`, driven by playwright-core), streaming and the tool loop both. The
 * page and the model are served from one origin (this test's server passes `/v1/*` on to the
 * Chat Completions server), so the browser's CORS rules hold as they do for a real site that
 * proxies its model.
 */
import { readFileSync } from 'node:fs';
import {
  createServer,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from 'node:http';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { expect, it } from 'vitest';
import { agentFolder, expectAgentWorked, startModel } from './agent-kit.js';
import { absenceFails, findExecutable, suiteRuns } from './support.js';

const browser = findExecutable(
  [
    process.env.CHROMIUM_PATH ?? '',
    'chromium-headless-shell',
    '/usr/lib/chromium/chromium-headless-shell',
    'chromium',
  ].filter(Boolean),
);
const missing = browser === undefined && !absenceFails;
if (missing && suiteRuns)
  console.warn(
    'chromium test skipped: no Chromium here; `sudo apt-get install chromium-headless-shell` (or set CHROMIUM_PATH).',
  );

/** Serves the page and the agent's bundle, and passes every other request on to `model`. */
function site(agentFile: string, model: URL): Promise<{ server: Server; origin: string }> {
  const page =
    '<!doctype html><meta charset="utf-8"><title>agcore agent</title>' +
    '<script type="module">import { runAgent } from "/agent.js"; globalThis.runAgent = runAgent;</script>';
  const passOn = (incoming: IncomingMessage, outgoing: ServerResponse): void => {
    const forwarded = request(
      {
        host: model.hostname,
        port: model.port,
        path: incoming.url,
        method: incoming.method,
        headers: incoming.headers,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  };
  const server = createServer((incoming, outgoing) => {
    if (incoming.url === '/') outgoing.writeHead(200, { 'content-type': 'text/html' }).end(page);
    else if (incoming.url === '/agent.js')
      outgoing.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(agentFile));
    else passOn(incoming, outgoing);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      resolve({ server, origin: `http://127.0.0.1:${port}` });
    });
  });
}

it.skipIf(!suiteRuns || missing)(
  'runs the agent in headless Chromium: streaming and the tool loop',
  async () => {
    expect(browser, 'chromium-headless-shell (apt), or CHROMIUM_PATH').toBeDefined();
    const model = await startModel();
    const agent = await agentFolder();
    const { server, origin } = await site(path.join(agent.dir, 'agent.js'), new URL(model.baseURL));
    const launched = await chromium.launch({ executablePath: browser, args: ['--no-sandbox'] });
    try {
      const tab = await launched.newPage();
      const errors: string[] = [];
      tab.on('pageerror', (error) => errors.push(error.message));
      await tab.goto(`${origin}/`);
      type Page = { runAgent?: (baseURL: string) => Promise<unknown> };
      await tab.waitForFunction(() => typeof (globalThis as Page).runAgent === 'function');
      const report: unknown = await tab.evaluate(
        (baseURL) => (globalThis as Page).runAgent?.(baseURL),
        `${origin}/v1`,
      );
      expect(errors).toEqual([]);
      expectAgentWorked(report, model, /HeadlessChrome\//, 'noble');
    } finally {
      await launched.close();
      await new Promise((resolve) => server.close(resolve));
      await model.close();
      agent.remove();
    }
  },
);
