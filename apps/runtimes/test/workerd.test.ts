/**
 * Issue 19 §2: the agent, bundled for the browser, runs in workerd (npm `workerd`, the runtime
 * of Cloudflare Workers), streaming and the tool loop both: a worker whose `fetch` handler runs
 * the agent against the model named in the request's query and answers with its report. The
 * worker may reach loopback addresses only (its `internet` service allows "local").
 */

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { agentFolder, expectAgentWorked, startModel } from './agent-kit.js';
import { absenceFails, binOf, childEnv, findExecutable, suiteRuns } from './support.js';

const workerd = findExecutable([binOf('workerd')]);
const missing = workerd === undefined && !absenceFails;
if (missing && suiteRuns)
  console.warn('workerd test skipped: no workerd here; `pnpm install` installs it (npm workerd).');

const worker = `import { runAgent } from './agent.js';
export default {
  async fetch(request) {
    const baseURL = new URL(request.url).searchParams.get('model');
    try {
      return Response.json(await runAgent(baseURL));
    } catch (error) {
      return new Response(String(error?.stack ?? error), { status: 500 });
    }
  },
};
`;

const config = (port: number): string => `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .agentWorker),
    (name = "internet", network = (allow = ["local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const agentWorker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "agent.js", esModule = embed "agent.js"),
  ],
  compatibilityDate = "2026-11-01",
);
`;

/** A port free a moment ago (workerd binds it itself). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

it.skipIf(!suiteRuns || missing)(
  'runs the agent in workerd: streaming and the tool loop',
  async () => {
    expect(workerd, 'workerd (npm workerd, a devDependency of this app)').toBeDefined();
    const model = await startModel();
    const agent = await agentFolder();
    const port = await freePort();
    writeFileSync(path.join(agent.dir, 'worker.js'), worker);
    writeFileSync(path.join(agent.dir, 'config.capnp'), config(port));
    const child = spawn(workerd ?? 'workerd', ['serve', 'config.capnp'], {
      cwd: agent.dir,
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let said = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      said += text;
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      said += text;
    });
    try {
      const url = `http://127.0.0.1:${port}/?model=${encodeURIComponent(model.baseURL)}`;
      let response: Response | undefined;
      for (let attempt = 0; attempt < 100 && response === undefined; attempt++) {
        if (child.exitCode !== null) break;
        response = await fetch(url).catch(() => undefined);
        if (response === undefined) await sleep(100);
      }
      expect(response, `workerd answered (it said: ${said})`).toBeDefined();
      const text = (await response?.text()) ?? '';
      expect(response?.status, text).toBe(200);
      // Any user agent: the requests are the worker's (the only client of this model server).
      // workerd gives `node:crypto` through `process.getBuiltinModule`: the native path hashes.
      expectAgentWorked(JSON.parse(text), model, /.*/, 'native');
    } finally {
      child.kill('SIGKILL');
      await model.close();
      agent.remove();
    }
  },
);
