import { readFile, writeFile } from 'node:fs/promises';
import type { RunState } from '@agcore/llm-cycle';
import { PlaygroundError } from './playground-error.js';

/** What `--flow resume` writes and `resume FILE` reads: the flow's name and the run's state. */
export interface RunFile {
  readonly agcorePlayground: 'paused-run';
  readonly flow: string;
  /** `cycle.state()`, as is (the LlmCycle that restores it checks it). */
  readonly state: RunState;
}

/** Writes `state` of a paused run of `flow` to `path` (readable by its owner only). */
export async function writeRunFile(path: string, flow: string, state: RunState): Promise<void> {
  const file: RunFile = { agcorePlayground: 'paused-run', flow, state };
  await writeFile(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
}

/**
 * Reads a file written by `writeRunFile`.
 * @throws {PlaygroundError} (exit 2) when it cannot be read, is not JSON or not such a file
 */
export async function readRunFile(path: string): Promise<RunFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : String(error);
    throw new PlaygroundError(`Cannot read the paused run ${path}: ${reason}.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new PlaygroundError(
      `The paused run ${path} is not JSON (${error instanceof Error ? error.message : String(error)}).`,
    );
  }
  const file = value as Partial<RunFile> | null;
  if (
    typeof file !== 'object' ||
    file === null ||
    file.agcorePlayground !== 'paused-run' ||
    typeof file.flow !== 'string' ||
    typeof file.state !== 'object'
  ) {
    throw new PlaygroundError(
      `${path} is not a paused run of the playground (write one with --flow resume --state-file ${path}).`,
    );
  }
  return file as RunFile;
}
