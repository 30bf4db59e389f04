/**
 * Issue 19 §2: the agent, bundled for the browser, runs in Deno (npm `deno`) with network
 * access to 127.0.0.1 only, streaming and the tool loop both.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { agentFolder, expectAgentWorked, printingMain, startModel } from './agent-kit.js';
import { absenceFails, binOf, childEnv, findExecutable, run, suiteRuns } from './support.js';

const deno = findExecutable([binOf('deno')]);
const missing = deno === undefined && !absenceFails;
if (missing && suiteRuns)
  console.warn('deno test skipped: no Deno here; `pnpm install` installs it (npm deno).');

it.skipIf(!suiteRuns || missing)(
  'runs the agent in Deno (--allow-net=127.0.0.1): streaming and the tool loop',
  async () => {
    expect(deno, 'Deno (npm deno, a devDependency of this app)').toBeDefined();
    const server = await startModel();
    const agent = await agentFolder();
    const denoDir = mkdtempSync(path.join(tmpdir(), 'agcore-deno-dir-'));
    try {
      writeFileSync(path.join(agent.dir, 'main.mjs'), printingMain(server.baseURL));
      const ran = await run(
        deno ?? 'deno',
        ['run', '--no-config', '--no-prompt', '--allow-net=127.0.0.1', 'main.mjs'],
        { cwd: agent.dir, env: childEnv({ DENO_DIR: denoDir, NO_COLOR: '1' }) },
      );
      expect(ran.stderr).toBe('');
      expect(ran.status).toBe(0);
      expectAgentWorked(JSON.parse(ran.stdout), server, /^Deno\//, 'native');
    } finally {
      await server.close();
      agent.remove();
      rmSync(denoDir, { recursive: true, force: true });
    }
  },
);
