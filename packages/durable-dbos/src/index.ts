export type { PauseRecord } from './decisions.js';
export type {
  DurableAgent,
  DurableAgentOptions,
  DurableQueueOptions,
} from './define-durable-agent.js';
export { defineDurableAgent } from './define-durable-agent.js';
export type { DurableRunSummary, DurableRunsOptions, DurableStartOptions } from './durable-runs.js';
export { DurableRuns } from './durable-runs.js';
export type { DurableRunInput } from './types.js';
