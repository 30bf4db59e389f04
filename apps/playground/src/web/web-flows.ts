import type { Flow, ScriptedTurn } from '../core/flows.js';
import { flows } from '../core/flows.js';

/** How many calls the `burst` flow makes in its one tool turn. */
export const burstCalls = 200;

/**
 * The page's own flow: one turn of 200 calculator calls, run in parallel, to see the timeline
 * keep up with a busy run (the terminal prints 200 lines of it just as well, so it is not there).
 */
const burst: Flow = {
  name: 'burst',
  summary: `${burstCalls} calculator calls in one turn: how the page keeps up with a busy run.`,
  servers: [],
  prompt: () => `Compute n + 1 for every n from 1 to ${burstCalls}, all at once.`,
  script: (): ScriptedTurn[] => [
    {
      text: `Running ${burstCalls} calculations in parallel.`,
      toolCalls: Array.from({ length: burstCalls }, (_, index) => ({
        name: 'calculator',
        arguments: { expression: `${index + 1} + 1` },
      })),
    },
    { text: `All ${burstCalls} calculations are done.` },
  ],
  expects: () => 'complete',
};

/**
 * The flows the page offers: every terminal flow that runs in this process, then `burst`. A
 * flow with its own `run` (`durable`: a worker process and a deciding process over Postgres)
 * is the terminal's only.
 */
export const webFlows: readonly Flow[] = [...flows.filter((flow) => flow.run === undefined), burst];
