export type { PauseRecord } from './decisions.js';
export type { DurableAgent } from './define-durable-agent.js';
export { defineDurableAgent } from './define-durable-agent.js';
export type {
  DurableAgentRecord,
  DurableRunsOptions,
  DurableStartOptions,
} from './durable-runs.js';
export { DurableRuns } from './durable-runs.js';
export type { DurableRunsErrorCode } from './errors.js';
export { DurableRunsError } from './errors.js';
export type { DurableForkOptions } from './run-fork.js';
export type {
  DurableListOptions,
  DurableRunPage,
  DurableRunState,
  DurableRunSummary,
} from './run-list.js';
export type { DurableRetainOptions } from './run-retain.js';
export type { SqlConnection, SqlPool } from './system-sql.js';
export type {
  DurableAgentOptions,
  DurableAgentStores,
  DurableQueueOptions,
  DurableRunInput,
} from './types.js';
