// What a worker does at launch for an agent (`DurableAgent.registerQueue`): checks its version
// against DBOS's, registers both queues, records the agent in the catalog, and beats.
import { DBOS } from '@dbos-inc/dbos-sdk';
import { beat, heartbeatSec, recordAgent } from './catalog.js';
import { DurableRunsError } from './errors.js';
import { workerPool } from './system-sql.js';
import type { DurableAgentOptions } from './types.js';

/** What `registerQueue` registers. */
export interface Registration {
  readonly options: DurableAgentOptions;
  readonly queueName: string;
  readonly workQueueName: string;
}

const beating = new Map<string, ReturnType<typeof setInterval>>();

/** Registers the queues and the catalog record; throws `version_mismatch` before registering anything. */
export async function registerAgent(registration: Registration): Promise<void> {
  const { options, queueName, workQueueName } = registration;
  const version = DBOS.applicationVersion;
  if (options.version !== undefined && options.version !== version) {
    throw new DurableRunsError(
      'version_mismatch',
      `defineDurableAgent(${JSON.stringify(options.name)}): version ${JSON.stringify(options.version)} ` +
        `differs from DBOS's applicationVersion ${JSON.stringify(version)}: set ` +
        `DBOS.setConfig({ applicationVersion: ${JSON.stringify(options.version)} }) (DBOS runs and ` +
        'recovers a run only on workers of the version that started it).',
    );
  }
  const { workerConcurrency, rateLimit } = options.queue ?? {};
  await DBOS.registerQueue(queueName, {
    ...(rateLimit === undefined ? {} : { rateLimit }),
    onConflict: 'always_update',
  });
  await DBOS.registerQueue(workQueueName, {
    ...(workerConcurrency === undefined ? {} : { workerConcurrency }),
    onConflict: 'always_update',
  });
  await options.stores?.migrate?.();
  const pool = workerPool();
  const executorId = DBOS.executorID;
  const tools = options.registry().listTools();
  await recordAgent(pool, { name: options.name, executorId, version, queue: queueName, tools });
  const key = `${executorId}\u0000${options.name}`;
  if (beating.has(key)) return;
  const timer = setInterval(() => {
    // A beat that fails (the database away, DBOS shut down) is skipped: the record goes stale.
    beat(pool, executorId, [options.name]).catch(() => undefined);
  }, heartbeatSec * 1000);
  timer.unref();
  beating.set(key, timer);
}
