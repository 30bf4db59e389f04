// `--only` re-runs some suites; the others keep the figures of the run recorded in the output
// file (its raw figures, at the end of the file), so a partial run does not wipe the report.
import { readFileSync } from 'node:fs';

/** The parts of the results (and of the plan) each suite owns. */
const owned = {
  loop: { results: ['loop', 'loopMemory'], plan: ['loop', 'memory'] },
  stream: { results: ['stream'], plan: ['stream'] },
  mcp: { results: ['mcp'], plan: ['mcp'] },
  scale: { results: ['scale'], plan: [] },
  load: { results: ['load'], plan: ['load'] },
};

/** The suites the bench knows, in the order of the report. */
export const suiteNames = Object.keys(owned);

/** The results recorded in a report written by the bench, or undefined. */
function recordedResults(path) {
  let text;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const start = text.lastIndexOf('\n```json\n');
  const end = start === -1 ? -1 : text.indexOf('\n```', start + 9);
  if (end === -1) return undefined;
  try {
    return JSON.parse(text.slice(start + 9, end));
  } catch {
    return undefined;
  }
}

/**
 * Copies into `results` the suites not in `ran` from the report at `path`, when it has them,
 * and records which in `results.kept` (`{ suites, date }`) for the report to say so.
 */
export function keepOtherSuites(results, path, ran) {
  const previous = recordedResults(path);
  if (previous === undefined) return;
  const suites = [];
  for (const [suite, parts] of Object.entries(owned)) {
    if (ran.has(suite) || parts.results.every((key) => previous[key] === undefined)) continue;
    suites.push(suite);
    for (const key of parts.results) results[key] = previous[key];
    for (const key of parts.plan) if (previous.plan?.[key]) results.plan[key] = previous.plan[key];
  }
  if (suites.length > 0) results.kept = { suites, date: previous.date };
}
