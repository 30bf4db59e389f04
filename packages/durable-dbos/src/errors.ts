/** What went wrong in a `DurableRuns` call or an agent's registration. */
export type DurableRunsErrorCode =
  /** No worker ever registered the agent in this system database. */
  | 'unknown_agent'
  /** No worker ever registered the agent at that version. */
  | 'unknown_version'
  /** The version a run is moved to lacks a tool the run needs. */
  | 'tool_missing'
  /** No run of that id. */
  | 'not_found'
  /** The run is not in a state the call works on (a fork of a run that does not wait). */
  | 'not_paused'
  /** A live worker of the run's own version runs it (a fork would race that worker). */
  | 'not_stranded'
  /** `defineDurableAgent({ version })` differs from DBOS's `applicationVersion`. */
  | 'version_mismatch'
  /** The system database cannot be reached through DBOS (see the message). */
  | 'no_database';

/** A typed failure of `DurableRuns` (`code` says which) or of `registerQueue`. */
export class DurableRunsError extends Error {
  /** Which failure. */
  readonly code: DurableRunsErrorCode;

  /** A failure of kind `code`. */
  constructor(code: DurableRunsErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DurableRunsError';
    this.code = code;
  }
}
