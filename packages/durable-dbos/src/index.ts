export type { PauseRecord } from './decisions.js';
export type { DurableAgent } from './define-durable-agent.js';
export { defineDurableAgent } from './define-durable-agent.js';
export type { DurableRunSummary, DurableRunsOptions, DurableStartOptions } from './durable-runs.js';
export { DurableRuns } from './durable-runs.js';
export type { DurableAgentOptions, DurableQueueOptions, DurableRunInput } from './types.js';
