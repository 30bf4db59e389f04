// The load suite's part of docs/benchmarks.md: the figures per (client, C), the ratios
// against the floors measured in the same rounds, the runs under `ulimit -n`, the targets of
// issue 14, and the row for the root README's "How fast" table.
import { count, mb, ms, ratio, verdict } from '../format.mjs';
import { median } from '../stats.mjs';

/** How each load client is named in the report. */
export const loadLabels = {
  bare: 'bare `fetch` loop (floor)',
  sse: 'bare SSE loop (streamed floor)',
  agcore: '**agcore** `submitWithTools`',
  'agcore-stream': '**agcore** `submitStreamWithTools`',
  'ai-sdk': 'AI SDK `generateText`',
  'openai-agents': 'OpenAI Agents SDK `run`',
};

const label = (name) => loadLabels[name] ?? name;

/** The unlimited runs of a client at C that produced figures, and those that failed. */
function runsOf(load, client, concurrency) {
  const all = load.runs.filter(
    (run) =>
      run.client === client && run.concurrency === concurrency && run.openFiles === undefined,
  );
  return {
    ok: all.filter((run) => run.error === undefined),
    failed: all.filter((run) => run.error),
  };
}

const medianOf = (runs, pick) => median(runs.map(pick).filter(Number.isFinite));

/** Per round, `numerator`'s batch time ÷ `denominator`'s at C (both from the same round). */
function roundRatios(load, concurrency, numerator, denominator, pick = (run) => run.batchMs) {
  const top = runsOf(load, numerator, concurrency).ok;
  const bottom = runsOf(load, denominator, concurrency).ok;
  const values = [];
  for (const run of top) {
    const other = bottom.find((candidate) => candidate.round === run.round);
    if (other !== undefined) values.push(pick(run) / pick(other));
  }
  return values;
}

/** `1.18×` for one round (or rounds that agree), `1.18× (1.16–1.20)` for several: the median and the range. */
function ratioRange(values) {
  if (values.length === 0) return '–';
  const low = Math.min(...values).toFixed(2);
  const high = Math.max(...values).toFixed(2);
  if (low === high) return ratio(values[0]);
  return `${ratio(median(values))} (${low}–${high})`;
}

function errorsCell(runs) {
  const total = runs.reduce((sum, run) => sum + run.errors.count, 0);
  if (total === 0) return '0';
  const codes = new Set(runs.flatMap((run) => Object.keys(run.errors.codes)));
  return `**${count(total / runs.length)}**${runs.length > 1 ? ' per run' : ''} (${[...codes].join(', ')})`;
}

function batchCell(runs) {
  const batch = runs.map((run) => run.batchMs);
  if (runs.length === 1) return ms(batch[0]);
  return `${ms(median(batch))} (${ms(Math.min(...batch))}–${ms(Math.max(...batch))})`;
}

/** Retained memory is below the noise of one GC under this many conversations. */
const RETAINED_FROM = 50;

/** The columns of the figures table: title and cell (from the runs of one client at one C). */
const columns = [
  ['batch (ms)', (runs) => batchCell(runs)],
  ['conversations/s', (runs) => count(medianOf(runs, (run) => run.conversationsPerSecond))],
  ['p50 (ms)', (runs) => ms(medianOf(runs, (run) => run.p50Ms))],
  ['p99 (ms)', (runs) => ms(medianOf(runs, (run) => run.p99Ms))],
  ['errors', (runs) => errorsCell(runs)],
  ['sockets opened', (runs) => count(medianOf(runs, (run) => run.server.socketsOpened))],
  [
    'sockets / conv.',
    (runs, c) => medianOf(runs, (run) => run.server.socketsOpened / c).toFixed(2),
  ],
  ['event-loop delay p99 (ms)', (runs) => ms(medianOf(runs, (run) => run.loopDelayP99Ms))],
  ['launch: calls (ms)', (runs) => ms(medianOf(runs, (run) => run.launchCallsMs))],
  ['launch: loop blocked (ms)', (runs) => ms(medianOf(runs, (run) => run.launchBlockMs))],
  ['client CPU / conv. (ms)', (runs) => ms(medianOf(runs, (run) => run.cpuMsPerConversation))],
  ['server CPU (ms)', (runs) => ms(medianOf(runs, (run) => run.server.cpuMs))],
  ['peak RSS (MB)', (runs) => mb(medianOf(runs, (run) => run.maxRssMb))],
  [
    'retained / conv. after GC (KB)',
    (runs, c) =>
      c < RETAINED_FROM ? '–' : mb(medianOf(runs, (run) => run.retainedKbPerConversation)),
  ],
];

function figuresTable(load, lines, notes) {
  lines.push(
    `| C | client | ${columns.map(([title]) => title).join(' | ')} |`,
    `| ---: | --- |${' ---: |'.repeat(columns.length)}`,
  );
  for (const concurrency of load.plan.concurrency) {
    for (const client of load.plan.clients) {
      const { ok, failed } = runsOf(load, client, concurrency);
      const where = `${label(client)} at C = ${concurrency}`;
      for (const run of failed) notes.push(`- ${where}: **could not be measured**: ${run.error}`);
      if (ok.length === 0) continue;
      const first = ok.find((run) => run.errors.first !== undefined)?.errors.first;
      if (first !== undefined) notes.push(`- ${where}, first error: \`${first}\``);
      const refused = ok.find((run) => run.server.refused > 0)?.server.lastRefusal;
      if (refused !== undefined) notes.push(`- ${where}: the server refused a request: ${refused}`);
      const cells = columns.map(([, cell]) => cell(ok, concurrency));
      lines.push(`| ${count(concurrency)} | ${label(client)} | ${cells.join(' | ')} |`);
    }
  }
  lines.push('');
}

function ratioTable(load, lines) {
  const cpu = (run) => run.cpuMsPerConversation;
  lines.push(
    '| C | agcore ÷ fetch loop (batch time) | agcore ÷ AI SDK `generateText` | agcore ÷ Agents SDK `run` | agcore streamed ÷ SSE loop | client CPU / conv.: agcore ÷ fetch loop | agcore streamed ÷ SSE loop |',
    '| ---: | --- | --- | --- | --- | --- | --- |',
  );
  for (const concurrency of load.plan.concurrency) {
    const cells = [
      roundRatios(load, concurrency, 'agcore', 'bare'),
      roundRatios(load, concurrency, 'agcore', 'ai-sdk'),
      roundRatios(load, concurrency, 'agcore', 'openai-agents'),
      roundRatios(load, concurrency, 'agcore-stream', 'sse'),
      roundRatios(load, concurrency, 'agcore', 'bare', cpu),
      roundRatios(load, concurrency, 'agcore-stream', 'sse', cpu),
    ].map(ratioRange);
    lines.push(`| ${count(concurrency)} | ${cells.join(' | ')} |`);
  }
  lines.push('');
}

function limitedRuns(load, client) {
  return load.runs.filter((run) => run.client === client && run.openFiles !== undefined);
}

function limitedTable(load, lines) {
  const limited = load.plan.limited;
  lines.push(
    `Under \`ulimit -n ${limited.openFiles}\` (the client process only), C = ${count(limited.concurrency)}:`,
    '',
    '| client | open-files limit seen | completed | failed | sockets opened | batch (ms) | first error |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
  );
  for (const client of limited.clients) {
    for (const run of limitedRuns(load, client)) {
      if (run.error !== undefined) {
        lines.push(
          `| ${label(client)} | – | – | – | – | – | could not be measured: ${run.error} |`,
        );
        continue;
      }
      lines.push(
        `| ${label(client)} | ${run.openFilesLimit ?? '?'} | ${count(run.completed)} | ${count(run.errors.count)} | ${count(run.server.socketsOpened)} | ${ms(run.batchMs)} | ${run.errors.first === undefined ? '–' : `\`${run.errors.first}\``} |`,
      );
    }
  }
  lines.push('');
}

function completesVerdict(load, client) {
  const runs = limitedRuns(load, client);
  if (runs.length === 0 || runs.some((run) => run.error !== undefined)) return 'not measured';
  const total = load.plan.limited.concurrency;
  const done = runs.map((run) => run.completed);
  const range =
    Math.min(...done) === Math.max(...done)
      ? count(done[0])
      : `${count(Math.min(...done))}–${count(Math.max(...done))}`;
  return done.every((n) => n === total)
    ? `met (${range} of ${count(total)} in ${runs.length === 1 ? 'the run' : `each of ${runs.length} runs`})`
    : `**missed** (${range} of ${count(total)} completed)`;
}

function socketsVerdict(load, client, concurrency) {
  const { ok } = runsOf(load, client, concurrency);
  const value = medianOf(ok, (run) => run.server.socketsOpened / concurrency);
  if (!Number.isFinite(value)) return 'not measured';
  return value <= 1 ? `met (${value.toFixed(2)})` : `**missed** (${value.toFixed(2)})`;
}

/**
 * The verdict on the median of the rounds' ratios, flagged as not conclusive when the rounds
 * fall on both sides of the target (a busy machine: the median alone would decide by chance).
 */
function roundsVerdict(values, target) {
  const text = verdict(median(values), target);
  const low = Math.min(...values);
  const high = Math.max(...values);
  if (values.length < 2 || high <= target || low > target) return text;
  return `${text}, *not conclusive*: the rounds range ${low.toFixed(2)}–${high.toFixed(2)}×`;
}

function targets(load, summary) {
  const at = (concurrency, top, bottom, target) =>
    roundsVerdict(roundRatios(load, concurrency, top, bottom), target);
  for (const concurrency of [200, 1000]) {
    summary.push(
      `- Load, C = ${count(concurrency)}, batch time: agcore ÷ bare fetch loop ${at(concurrency, 'agcore', 'bare', 1.05)}; agcore streamed ÷ bare SSE loop ${at(concurrency, 'agcore-stream', 'sse', 1.0)}.`,
    );
  }
  const limited = load.plan.limited;
  if (limited !== undefined)
    summary.push(
      `- Load, C = ${count(limited.concurrency)} under \`ulimit -n ${limited.openFiles}\`, every conversation completes: agcore ${completesVerdict(load, 'agcore')}; agcore streamed ${completesVerdict(load, 'agcore-stream')}.`,
    );
  const top = Math.max(...load.plan.concurrency);
  summary.push(
    `- Load, C = ${count(top)}, one socket per conversation: agcore ${socketsVerdict(load, 'agcore', top)}; agcore streamed ${socketsVerdict(load, 'agcore-stream', top)}.`,
    `- Load, C = ${count(top)}, client CPU per conversation (median of the rounds' ratios): agcore ÷ bare fetch loop ${ratioRange(roundRatios(load, top, 'agcore', 'bare', (run) => run.cpuMsPerConversation))}; agcore streamed ÷ bare SSE loop ${ratioRange(roundRatios(load, top, 'agcore-stream', 'sse', (run) => run.cpuMsPerConversation))}.`,
    `- Load, C = ${count(top)}, responsiveness (medians; the floors in brackets): launch, loop blocked: agcore ${figure(load, 'agcore', top, 'launchBlockMs')} (${figure(load, 'bare', top, 'launchBlockMs')}), streamed ${figure(load, 'agcore-stream', top, 'launchBlockMs')} (${figure(load, 'sse', top, 'launchBlockMs')}); event-loop delay p99: agcore ${figure(load, 'agcore', top, 'loopDelayP99Ms')} (${figure(load, 'bare', top, 'loopDelayP99Ms')}), streamed ${figure(load, 'agcore-stream', top, 'loopDelayP99Ms')} (${figure(load, 'sse', top, 'loopDelayP99Ms')}).`,
  );
}

/** `123 ms`: the median of a figure over a client's rounds at C, or `–`. */
function figure(load, client, concurrency, key) {
  const value = medianOf(runsOf(load, client, concurrency).ok, (run) => run[key]);
  return Number.isFinite(value) ? `${ms(value)} ms` : '–';
}

/**
 * The root README's "How fast" row for the largest C (batch time ÷ the floors, each from the
 * same rounds), or undefined when the load suite did not run.
 */
export function loadReadmeRow(load) {
  if (load === undefined || load.error || load.runs.length === 0) return undefined;
  const top = Math.max(...load.plan.concurrency);
  const range = (values) => {
    if (values.length === 0) return '–';
    const low = Math.min(...values).toFixed(2);
    const high = Math.max(...values).toFixed(2);
    return low === high ? `${low}×` : `${low}–${high}×`;
  };
  const floor = (name) => range(roundRatios(load, top, name, 'bare'));
  return `| ${String(top).replace(/\B(?=(\d{3})+$)/g, ' ')} concurrent conversations (batch time; streamed ÷ SSE loop) | ${floor('agcore')} (streamed ${range(roundRatios(load, top, 'agcore-stream', 'sse'))}) | ${floor('ai-sdk')} | ${floor('openai-agents')} |`;
}

/** Appends the load section to `lines` and its targets to `summary`. */
export function loadSection(results, lines, summary) {
  const load = results.load;
  lines.push('## 5. Load: C conversations at once', '');
  lines.push(
    `C conversations of the tool-loop script (5 model requests, 5 tool calls) are started at once in one client process, and the batch runs until the last ends. The scripted server runs in a process of its own and answers every request ${load?.plan.delayMs ?? 20} ms after it arrived (a model that thinks), from the bytes of the bench's scripted server, checking each request against the script. Every (client, C) runs in a fresh process (Node 22, \`--expose-gc\`) after ${load?.plan.warmup ?? '–'} warm-up conversations of the same client, which its \`fetch\` sends to another port (another origin, so no warm connection is pooled for the batch); one provider, tool set or agent per process, shared by the conversations; agcore builds a new \`LlmCycle\` per conversation; retries are off for every client (\`maxRetries: 0\`), so a failed request shows as an error. Clients take turns, the order rotating from one C and round to the next; figures are medians over the rounds (${load?.plan.rounds ?? '–'}) (batch time: median and range), ratios are taken round by round against the floor measured in the same round.`,
    '',
    `- **sockets opened**: connections the server accepted during the batch (all were still open at its end: the clients keep them alive). **launch**: *calls* is the time the C calls take to return (their synchronous part); *loop blocked* is the time from starting the batch until the first macrotask runs (the calls plus the microtasks they queued: the event loop serves nothing else meanwhile). **event-loop delay p99**: \`monitorEventLoopDelay\` (10 ms resolution) over the batch. **client CPU**: user + system CPU of the client process over the batch ÷ C (all its threads: JIT and GC helpers too). **server CPU**: the server process's CPU over the batch, to show whether it could have been the bottleneck. **peak RSS**: the process maximum. **retained after GC**: heap after the batch (results dropped, two GCs) minus the heap before it, ÷ C; it includes the idle keep-alive connections the client still holds; below C = ${RETAINED_FROM} it is within the noise of a GC and not shown.`,
    '',
  );
  if (load === undefined || load.error) {
    lines.push(`Not measured: ${load?.error ?? 'suite not run'}`, '');
    return;
  }
  const notes = [];
  figuresTable(load, lines, notes);
  if (notes.length > 0) lines.push(...notes, '');
  lines.push('Ratios (lower is better for agcore), round by round:', '');
  ratioTable(load, lines);
  if (load.plan.limited !== undefined) limitedTable(load, lines);
  targets(load, summary);
}
