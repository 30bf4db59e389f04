/** Exit codes of the CLI. */
export const ExitCode = Object.freeze({
  /** The run did what was asked (a demo flow that shows a refusal counts as success). */
  ok: 0,
  /** The run failed: a model or tool error that the flow did not expect. */
  failed: 1,
  /** Bad input: an unknown flow or tool, malformed JSON or config, a bad option. */
  usage: 2,
  /** Interrupted by Ctrl-C (128 + SIGINT). */
  interrupted: 130,
  /** The terminal closed (128 + SIGHUP). */
  hangup: 129,
  /** Terminated by SIGTERM while nothing could be cancelled (128 + SIGTERM). */
  terminated: 143,
});

/**
 * An error meant for the person at the terminal: the CLI prints its message (no stack) and
 * exits with `exitCode`.
 */
export class PlaygroundError extends Error {
  /** The process exit code to use. */
  readonly exitCode: number;

  /** Makes an error with a message that says what failed and what to do. */
  constructor(message: string, options: { exitCode?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PlaygroundError';
    this.exitCode = options.exitCode ?? ExitCode.usage;
  }
}
