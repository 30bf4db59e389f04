/** The report of the cycle bench: the duel table, the long reply, what a pause costs. */
import { loadavg } from 'node:os';
import { conditions, ratioText, verdict } from '@agcore/bench-method';
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
    ratios === undefined ? '1.00 (floor)' : ratioText(ratios.wall),
    result.cpuMsPerConversation.toFixed(3),
    ratios === undefined ? '1.00 (floor)' : ratioText(ratios.cpu),
    target === undefined || ratios === undefined
      ? ''
      : `CPU high <= ${target}x ${ratios.cpu.high <= target ? 'ok' : 'MISSED'}`,
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
      'wall ratio (95 %)',
      'client CPU ms/conv',
      'CPU ratio (95 %)',
      'target',
      'events/s',
    ],
    row('bare fetch loop', json.bare, undefined, undefined, false),
    row('LlmCycle.submitWithTools', json.cycle, json, 1.1, false),
    row('bare SSE loop', stream.bare, undefined, undefined, true),
    row('LlmCycle.submitStreamWithTools', stream.cycle, stream, 1.15, true),
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
    `${(((result.cycle.cpuMsPerConversation - result.bare.cpuMsPerConversation) / 2) * 1000).toFixed(0)} µs of client CPU per pause and resume (CPU ${ratioText(result.cpu)} the conversation without approval; wall ${ratioText(result.wall)})`;
  return [
    `Pause + resume (the conversation above, get_time needing approval: 2 pauses, each resumed with 'approve'; ${figures.pauseRounds} pairs):`,
    `  in the same LlmCycle:                            ${perPause(figures.inProcess)}`,
    `  through state() as JSON into a new LlmCycle:     ${perPause(figures.viaState)}`,
  ];
}

/** Which published figures this run compares with: they depend on the Node version. */
function whereFigures(): string {
  return [
    `Targets (issue 29): the upper end of the CPU ratio's 95 % interval. Compare this run with the table for Node ${process.versions.node.split('.')[0]} in`,
    'packages/llm-cycle/README.md#bench. The root README and docs/benchmarks.md publish `pnpm bench:peers` (each framework in',
    'its own process, Node 22): in packages/llm-cycle, `npx -y node@22 --import tsx src/cycle.bench.ts` runs this bench on that Node.',
  ].join('\n');
}

/** The whole report, as the bench prints it. */
export function report(figures: Figures): string {
  const { tracing, rounds, conversations } = figures;
  return `\n@agcore/llm-cycle bench — Node ${process.version}, OpenTelemetry tracing ${tracing ? 'ON (SDK registered, batch processor, spans dropped)' : 'off (no tracer provider)'}, ${turnsPerConversation}-turn conversation (4 tool turns, one with 2 parallel calls; 100-delta answer), ${rounds} pairs of passes (A B, B A, …) x ${conversations} conversations after 3 warm-up pairs; ratios are medians of per-pair ratios with their distribution-free 95 % interval; load average ${loadavg()
    .map((load) => load.toFixed(1))
    .join(
      ' ',
    )}\n\n${table(figures.json, figures.stream).join('\n')}\n\n${longLines(figures.long).join('\n')}\n\n${pauseLines(figures).join('\n')}\n\n${whereFigures()}\n\n`;
}

/** What `--root-a` compares: the cycle of two checkouts, streamed and not. */
export interface CompareFigures {
  readonly rootA: string;
  readonly rootB: string;
  readonly pairs: number;
  readonly conversations: number;
  readonly json: Duel;
  readonly stream: Duel;
}

/** The report of a comparison: B ÷ A per conversation, CPU and wall, with their intervals. */
export function compareReport(figures: CompareFigures): string {
  const line = (name: string, duel: Duel) =>
    `| ${name} | ${duel.bare.cpuMsPerConversation.toFixed(3)} | ${duel.cycle.cpuMsPerConversation.toFixed(3)} | ${ratioText(duel.cpu)} | ${verdict(duel.cpu)} | ${ratioText(duel.wall)} | ${duel.pairs} |`;
  return [
    '',
    `@agcore/llm-cycle bench, compare: A = ${figures.rootA}, B = ${figures.rootB}; ${figures.pairs} pairs x ${figures.conversations} conversations; ${conditions()}`,
    '',
    '| scenario | A CPU ms/conv | B CPU ms/conv | CPU B ÷ A (95 %) | CPU verdict | wall B ÷ A (95 %) | pairs |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    line('LlmCycle.submitWithTools', figures.json),
    line('LlmCycle.submitStreamWithTools', figures.stream),
    '',
    '',
  ].join('\n');
}
