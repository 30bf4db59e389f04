/**
 * Issue 19 §2: the agent, bundled for the browser, runs in Bun (npm `bun`), streaming and the
 * tool loop both.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { agentFolder, expectAgentWorked, printingMain, startModel } from './agent-kit.js';
import { absenceFails, binOf, childEnv, findExecutable, run, suiteRuns } from './support.js';

const bun = findExecutable([binOf('bun')]);
const missing = bun === undefined && !absenceFails;
if (missing && suiteRuns)
  console.warn('bun test skipped: no Bun here; `pnpm install` installs it (npm bun).');

it.skipIf(!suiteRuns || missing)('runs the agent in Bun: streaming and the tool loop', async () => {
  expect(bun, 'Bun (npm bun, a devDependency of this app)').toBeDefined();
  const server = await startModel();
  const agent = await agentFolder();
  try {
    writeFileSync(path.join(agent.dir, 'main.mjs'), printingMain(server.baseURL));
    const ran = await run(bun ?? 'bun', ['main.mjs'], {
      cwd: agent.dir,
      env: childEnv({ NO_COLOR: '1', BUN_INSTALL_CACHE_DIR: path.join(agent.dir, '.bun-cache') }),
    });
    expect(ran.stderr).toBe('');
    expect(ran.status).toBe(0);
    expectAgentWorked(JSON.parse(ran.stdout), server, /^Bun\//, 'native');
  } finally {
    await server.close();
    agent.remove();
  }
});
