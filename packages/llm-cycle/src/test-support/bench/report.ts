/** The report of the cycle bench: the duel table, the long reply, what a pause costs. */
import { loadavg } from 'node:os';
import { longPieces, turns } from './conversation.js';
import { type Duel, type LongRun, median, type Result } from './measure.js';

/** Everything one run of the bench measured. */
export interface Figures {
  readonly tracing: boolean;
  readonly rounds: number;
  readonly conversations: number;
  readonly json: Duel;
  readonly stream: Duel;
  readonly long: { bare: LongRun[]; cycle: LongRun[] };
  readonly pauseRounds: number;
  readonly inProcess: Duel;
  readonly viaState: Duel;
}

const turnsPerConversation = turns.length + 1;

function row(
  name: string,
  result: Result,
  ratios: Duel | undefined,
  target: number | undefined,
  withEvents: boolean,
): string[] {
  return [
    name,
    result.msPerConversation.toFixed(3),
    (result.msPerConversation / turnsPerConversation).toFixed(3),
    ratios === undefined ? '1.00 (floor)' : `${ratios.wallRatio.toFixed(2)}x`,
    target === undefined || ratios === undefined
      ? ''
      : `<= ${target}x ${ratios.wallRatio <= target ? 'ok' : 'MISSED'}`,
    result.cpuMsPerConversation.toFixed(3),
    ratios === undefined ? '1.00 (floor)' : `${ratios.cpuRatio.toFixed(2)}x`,
    withEvents ? Math.round(result.eventsPerSecond).toLocaleString('en-US') : '',
  ];
}

/** The duels, bare against the cycle, as a Markdown table with the targets. */
function table(json: Duel, stream: Duel): string[] {
  const rows = [
    [
      'contender',
      'ms/conversation',
      'ms/turn',
      'wall ratio',
      'target',
      'client CPU ms/conv',
      'CPU ratio',
      'events/s',
    ],
    row('bare fetch loop', json.bare, undefined, undefined, false),
    row('LlmCycle.submitWithTools', json.cycle, json, 1.15, false),
    row('bare SSE loop', stream.bare, undefined, undefined, true),
    row('LlmCycle.submitStreamWithTools', stream.cycle, stream, 1.3, true),
  ];
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((cells) => (cells[column] ?? '').length))) ??
    [];
  const lines = rows.map(
    (cells) => `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`,
  );
  lines.splice(1, 0, `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  return lines;
}

function longLines(long: { bare: LongRun[]; cycle: LongRun[] }): string[] {
  return [
    `Long streamed reply (${longPieces.length} deltas), medians of ${long.bare.length} replies each, interleaved:`,
    `  bare SSE loop:                  ${Math.round(median(long.bare.map((run) => run.deltasPerSecond))).toLocaleString('en-US')} deltas/s, first delta ${Math.round(median(long.bare.map((run) => run.firstDeltaUs)))} µs after the response headers`,
    `  LlmCycle.submitStreamWithTools: ${Math.round(median(long.cycle.map((run) => run.deltasPerSecond))).toLocaleString('en-US')} deltas/s (${median(long.cycle.map((run, index) => run.deltasPerSecond / (long.bare[index] as LongRun).deltasPerSecond)).toFixed(2)}x the floor), first delta ${Math.round(median(long.cycle.map((run) => run.firstDeltaUs)))} µs after the response headers`,
  ];
}

function pauseLines(figures: Figures): string[] {
  const perPause = (result: Duel): string =>
    `${(((result.cycle.msPerConversation - result.bare.msPerConversation) / 2) * 1000).toFixed(0)} µs per pause and resume (${result.wallRatio.toFixed(2)}x the conversation without approval; CPU ${result.cpuRatio.toFixed(2)}x)`;
  return [
    `Pause + resume (the conversation above, get_time needing approval: 2 pauses, each resumed with 'approve'; ${figures.pauseRounds} rounds):`,
    `  in the same LlmCycle:                            ${perPause(figures.inProcess)}`,
    `  through state() as JSON into a new LlmCycle:     ${perPause(figures.viaState)}`,
  ];
}

/** Which published figures this run compares with: they depend on the Node version. */
function whereFigures(): string {
  return [
    `Targets above are this bench's own (both loops in one process). Compare this run with the table for Node ${process.versions.node.split('.')[0]} in`,
    'packages/llm-cycle/README.md#bench. The root README and docs/benchmarks.md publish `pnpm bench:peers` (each framework in',
    'its own process, Node 22): in packages/llm-cycle, `npx -y node@22 --import tsx src/cycle.bench.ts` runs this bench on that Node.',
  ].join('\n');
}

/** The whole report, as the bench prints it. */
export function report(figures: Figures): string {
  const { tracing, rounds, conversations } = figures;
  return `\n@agcore/llm-cycle bench — Node ${process.version}, OpenTelemetry tracing ${tracing ? 'ON (SDK registered, batch processor, spans dropped)' : 'off (no tracer provider)'}, ${turnsPerConversation}-turn conversation (4 tool turns, one with 2 parallel calls; 100-delta answer), ${rounds} rounds x ${conversations} conversations; ratios are medians of per-round ratios; load average ${loadavg()
    .map((load) => load.toFixed(1))
    .join(
      ' ',
    )}\n\n${table(figures.json, figures.stream).join('\n')}\n\n${longLines(figures.long).join('\n')}\n\n${pauseLines(figures).join('\n')}\n\n${whereFigures()}\n\n`;
}
