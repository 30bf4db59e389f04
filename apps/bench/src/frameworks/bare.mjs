// The floor: the hand-written fetch loop and SSE loop.
import { bareLoop, bareStreamLoop } from '../bare-loop.mjs';
import {
  loopToolImplementations,
  loopToolSchemas,
  SCALE_TURNS,
  scaleToolImplementation,
  scaleToolSchemas,
} from '../scenario.mjs';

const loopImplementation = (name) => loopToolImplementations[name];
const scaleImplementation = () => scaleToolImplementation;

/** The bare loop as a framework of the bench. */
export async function create({ baseURL, fetch }) {
  const common = { baseURL, fetch };
  return {
    loop: async () =>
      (
        await bareLoop({
          ...common,
          model: 'loop',
          tools: loopToolSchemas,
          implementation: loopImplementation,
        })
      ).text,
    streamLoop: async (onText) =>
      (
        await bareStreamLoop({
          ...common,
          model: 'loop',
          tools: loopToolSchemas,
          implementation: loopImplementation,
          onText,
        })
      ).text,
    streamLong: async (onText) =>
      (
        await bareStreamLoop({
          ...common,
          model: 'long',
          tools: loopToolSchemas,
          implementation: loopImplementation,
          onText,
        })
      ).text,
    scale: async () =>
      (
        await bareLoop({
          ...common,
          model: 'scale',
          tools: scaleToolSchemas,
          implementation: scaleImplementation,
          maxTurns: SCALE_TURNS + 1,
        })
      ).text,
  };
}
