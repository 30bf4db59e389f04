// The processes of `--flow durable`, started by the playground as children of its own:
// `worker` runs the agent (a DBOS worker on the Postgres of DATABASE_URL; prints `ready`, then
// runs until SIGTERM), `approve RUN_ID yes|no` decides the run's waiting calls from a process
// that never started it, and exits.

import { DurableRuns, defineDurableAgent } from '@agcore/durable-dbos';
import type { ChatProvider, ChatRequest } from '@agcore/llm-cycle';
import { describeThrown } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { DBOS, DBOSClient } from '@dbos-inc/dbos-sdk';
import { createDeleteFileTool } from './approval-tools.js';
import { getWeatherTool } from './builtin-tools.js';
import { durableAgentName, durableScript } from './flows-durable.js';
import { createSandbox } from './sandbox.js';
import { createScriptedModel } from './scripted-model.js';

/**
 * The scripted model, answering each request by where the conversation is (its assistant
 * messages so far): a durable run makes a new cycle for each stretch, so a script that counted
 * its own answers would start again after each pause.
 */
function conversationModel(): ChatProvider {
  const model = (request: ChatRequest) => {
    const used = request.messages.filter((message) => message.role === 'assistant').length;
    return createScriptedModel(durableScript, { delayMs: 0, estimateUsage: true }, used).provider;
  };
  return {
    chat: (request, options) => model(request).chat(request, options),
    chatStream: (request, options) => model(request).chatStream(request, options),
  };
}

async function worker(databaseUrl: string): Promise<void> {
  const sandbox = await createSandbox();
  const agent = defineDurableAgent({
    name: durableAgentName,
    cycle: () => ({ provider: conversationModel(), model: 'scripted' }),
    registry: () =>
      new ToolRegistry().register(getWeatherTool).register(createDeleteFileTool(sandbox.dir)),
    queue: { workerConcurrency: 4 },
  });
  DBOS.setConfig({
    name: 'agcore-playground',
    systemDatabaseUrl: databaseUrl,
    executorID: `playground-worker-${String(process.pid)}`,
    applicationVersion: 'agcore-playground-1',
    runAdminServer: false,
    logLevel: 'error',
  });
  await DBOS.launch();
  await agent.registerQueue();
  process.once('SIGTERM', () => {
    void DBOS.shutdown().finally(() => {
      sandbox.removeSync();
      process.exit(0);
    });
  });
  process.stdout.write(`ready ${sandbox.dir}\n`);
}

async function approve(databaseUrl: string, runId: string, answer: string): Promise<void> {
  const client = await DBOSClient.create({ systemDatabaseUrl: databaseUrl });
  try {
    const runs = new DurableRuns(client);
    const waiting = await runs.interruptions(runId);
    const decision = answer === 'yes' ? ('approve' as const) : { deny: 'denied from the CLI' };
    await runs.decide(runId, Object.fromEntries(waiting.map((call) => [call.callId, decision])));
    process.stdout.write(`decided ${String(waiting.length)}\n`);
  } finally {
    await client.destroy();
  }
}

const [role, runId = '', answer = 'yes'] = process.argv.slice(2);
const databaseUrl = process.env.DATABASE_URL ?? '';
try {
  if (role === 'worker') await worker(databaseUrl);
  else if (role === 'approve') await approve(databaseUrl, runId, answer);
  else throw new Error(`unknown role ${String(role)}`);
} catch (error) {
  process.stdout.write(`error ${describeThrown(error).replaceAll('\n', ' ')}\n`);
  process.exit(1);
}
