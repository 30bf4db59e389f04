import path from 'node:path';
import type { Interruption, LlmCycle, ResumeDecision } from '@agcore/llm-cycle';
import { decide, decisionMap, describeDecision, terminalAsk } from './decisions.js';
import type { Flow } from './flows.js';
import { writeRunFile } from './run-file.js';
import type { RunSettings } from './run-settings.js';
import type { JsonTimeline, Timeline } from './timeline.js';

/** Where `--flow resume` writes its paused run without `--state-file`. */
export const defaultStateFile = 'agcore-playground-run.json';

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
      const file = path.resolve(settings.stateFile ?? defaultStateFile);
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

/** The command that resumes a run saved in `file`, with the model options it needs. */
function resumeCommand(file: string, settings: RunSettings): string {
  const model =
    settings.model.kind === 'remote'
      ? ` --base-url ${settings.model.baseURL} --model ${settings.model.model}`
      : '';
  return `pnpm playground resume ${file} --approve yes${model}`;
}
