import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Interruption, LlmCycle, ResumeDecision } from '@agcore/llm-cycle';
import { decide, decisionMap, describeDecision, terminalAsk } from '../core/decisions.js';
import type { Flow } from '../core/flows.js';
import { writeRunFile } from '../core/run-file.js';
import type { RunSettings } from '../core/run-settings.js';
import type { JsonTimeline, Timeline } from './timeline.js';

/**
 * Where `--flow resume` writes its paused run without `--state-file`, as `--help` says it: a
 * file of a new private folder of the OS temp dir, so nothing lands in the user's project
 * (under `pnpm playground` the current folder is the repository).
 */
export const defaultStateFile = 'run.json in a new folder under the OS temp dir';

/** The file a flow saves its paused run to: `--state-file`, else a new one under the OS temp dir. */
async function stateFileOf(settings: RunSettings): Promise<string> {
  if (settings.stateFile !== undefined) return path.resolve(settings.stateFile);
  // mkdtemp makes the folder 0700: another user of the machine cannot read or replace the file.
  const folder = await mkdtemp(path.join(os.tmpdir(), 'agcore-paused-run-'));
  return path.join(folder, 'run.json');
}

/** Where a flow that saves its paused run wrote it, and the command that resumes it. */
export interface SavedRun {
  readonly path: string;
  readonly command: string;
}

/** What a flow's pause handler needs. */
export interface FlowPauseOptions {
  readonly flow: Flow;
  readonly settings: RunSettings;
  readonly cycle: LlmCycle;
  readonly timeline: Timeline;
  /** The `--json` timeline, when the output is JSON. */
  readonly json: JsonTimeline | undefined;
  /** Called when the paused run was written to a file (and kept paused). */
  readonly onSaved: (saved: SavedRun) => void;
}

/**
 * The `onPause` of a flow's run: a flow that saves its state writes the paused run to a file
 * and keeps it paused (on its first run); otherwise the decisions come from the flags or, on a
 * terminal, from the person, and each is shown (a `decision` record with `--json`).
 */
export function flowPauseHandler(
  options: FlowPauseOptions,
): (waiting: Interruption[]) => Promise<Record<string, ResumeDecision> | 'keep'> {
  const { flow, settings, cycle, timeline, json } = options;
  const { terminal, resume } = settings;
  const c = terminal.colors;
  const canAsk = json === undefined && terminal.interactive && process.stdin.isTTY === true;
  return async (waiting) => {
    timeline.settle();
    if (flow.savesState === true && resume === undefined) {
      const file = await stateFileOf(settings);
      await writeRunFile(file, flow.name, cycle.state());
      options.onSaved({ path: file, command: resumeCommand(file, settings) });
      return 'keep';
    }
    const asker = canAsk ? terminalAsk() : undefined;
    try {
      const decided = await decide(waiting, settings.decisions, asker?.ask, c);
      for (const item of decided) {
        if (json === undefined) timeline.line(describeDecision(item, c));
        else {
          const { callId, toolName, kind } = item.interruption;
          json.write({ type: 'decision', callId, toolName, kind, decision: item.decision });
        }
      }
      return decisionMap(decided);
    } finally {
      asker?.close();
    }
  };
}

/** The command that resumes a run saved in `file`, with the model and store options it needs. */
function resumeCommand(file: string, settings: RunSettings): string {
  const model =
    settings.model.kind === 'remote'
      ? ` --base-url ${settings.model.baseURL} --model ${settings.model.model}`
      : '';
  return `pnpm playground resume ${file} --approve yes${model}${storeOption(settings.store)}`;
}

/** ` --store URL` for a run on a store (a password in the URL printed as PASSWORD), else ''. */
function storeOption(url: string | undefined): string {
  if (url === undefined) return '';
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = 'PASSWORD';
    return ` --store ${parsed.toString()}`;
  } catch {
    return ' --store URL';
  }
}
