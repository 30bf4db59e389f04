import type {
  ChatMessage,
  ChatResponse,
  LlmCycleOptions,
  LlmErrorJson,
  ResultStore,
} from '@agcore/llm-cycle';
import type { ToolRegistry } from '@agcore/tools-registry';

/** What a run starts from: a prompt, or a history that ends with the user's message. */
export type DurableRunInput =
  | { readonly prompt: string; readonly messages?: undefined }
  | { readonly messages: readonly ChatMessage[]; readonly prompt?: undefined };

/** What the workflow returns (errors as JSON: `DurableRuns.result` makes the `LlmError`). */
export type RunOutcome =
  | { readonly ok: true; readonly response: ChatResponse }
  | { readonly ok: false; readonly error: LlmErrorJson };

/** The history before the last message and the last message's text. Throws a `TypeError`. */
export function splitInput(input: DurableRunInput): {
  history: ChatMessage[];
  prompt: string;
} {
  if (typeof input.prompt === 'string') return { history: [], prompt: input.prompt };
  const messages = input.messages ?? [];
  const last = messages.at(-1);
  if (last === undefined || last.role !== 'user' || typeof last.content !== 'string') {
    throw new TypeError(
      'A durable run starts from { prompt } or { messages } ending with a user message of text.',
    );
  }
  return { history: messages.slice(0, -1), prompt: last.content };
}

/** The queue of an agent's runs (DBOS `registerQueue` parameters). */
export interface DurableQueueOptions {
  /** The queue's name; default `agcore-<agent name>`. Workers record it in the catalog, where clients find it. */
  readonly name?: string;
  /**
   * At most this many runs at once in one worker process. A run that waits for a person does
   * not count (its next stretch waits for a slot when the decisions come).
   */
  readonly workerConcurrency?: number;
  /** At most `limitPerPeriod` runs started per `periodSec` seconds. */
  readonly rateLimit?: { readonly limitPerPeriod: number; readonly periodSec: number };
}

/**
 * Stores shared by every worker: `createPostgresStores({ pool })` of `@agcore/store-postgres`
 * fits, on the pool DBOS's system database uses (`DBOS.setConfig({ systemDatabasePool: pool })`):
 * one Postgres, one set of tables. Its `runStore` is not used: a durable run's claim is its DBOS
 * workflow (a stretch replayed after a crash must not be refused as a second claim).
 */
export interface DurableAgentStores {
  /** Where each result over `maxToolResultBytes` is kept whole (the cycle's `spill` store, unless `cycle()` sets its own): `read_result` reads it in any worker, after a restart too. */
  readonly resultStore: ResultStore;
  /** Creates or updates the stores' tables: run by `registerQueue` (it must be idempotent and safe from many workers at once). */
  readonly migrate?: () => Promise<unknown>;
}

/** Options of `defineDurableAgent`. */
export interface DurableAgentOptions {
  /** The agent's name: the DBOS workflow is `agcore.agent.<name>`. */
  readonly name: string;
  /** The cycle's options for each run (called in the worker; `runId`, `sessionId`, `runStore` are set by the agent). */
  readonly cycle: () => LlmCycleOptions;
  /** The registry for each run (called in the worker). */
  readonly registry: () => ToolRegistry;
  /**
   * The agent's version: must equal DBOS's `applicationVersion` (checked by `registerQueue`).
   * A run is continued only by workers of the version that started it; the catalog records it.
   */
  readonly version?: string;
  /** The queue the runs are started on. */
  readonly queue?: DurableQueueOptions;
  /** Stores shared by the workers (see `DurableAgentStores`): spilled results readable by any worker. */
  readonly stores?: DurableAgentStores;
  /** A wait for decisions longer than this abandons the waiting calls and ends the run `cancelled`. Default: no limit. */
  readonly approvalTimeoutSec?: number;
}
