// Turns the results of a run into docs/benchmarks.md.
import { count, mb, ms, percent, ratio, us, verdict } from './format.mjs';
import { loadSection } from './load/report.mjs';
import { median, spread } from './stats.mjs';

const labels = {
  bare: 'bare `fetch` loop (floor)',
  agcore: '**agcore** `submitWithTools`',
  'ai-sdk': 'AI SDK `generateText`',
  'openai-agents': 'OpenAI Agents SDK `run`',
};
const streamLabels = {
  bare: 'bare SSE loop (floor)',
  agcore: '**agcore** `submitStreamWithTools`',
  'ai-sdk': 'AI SDK `streamText` fullStream',
  'openai-agents': 'OpenAI Agents SDK `run({ stream: true })`',
};
const mcpLabels = {
  'bare-jsonrpc': 'bare JSON-RPC line (floor)',
  'raw-sdk': 'MCP SDK `Client.callTool`',
  'agcore-client': '**agcore** `McpClient.callTool`',
  'agcore-tool': '**agcore** MCP tool (`McpClient.tools()` → `execute`)',
  'ai-sdk-mcp': '`@ai-sdk/mcp` tool `execute`',
  langchain: '`@langchain/mcp-adapters` tool `invoke`',
};

function failureLines(failures, names) {
  return Object.entries(failures ?? {}).map(
    ([name, why]) =>
      `- ${names[name] ?? name}: **could not be measured**: ${why.replaceAll('\n', ' ')}`,
  );
}

function loopSection(results, lines, summary) {
  const loop = results.loop;
  lines.push('## 1. Tool loop (non-streaming)', '');
  lines.push(
    'One conversation = 5 model requests against the scripted server: `get_weather`, `lookup_order`, then `get_weather` + `add` in parallel, then `add`, then a text answer (3 tools, 5 tool calls). Time for the whole conversation; per turn = / 5. Overhead per turn is the time above the bare loop. Client CPU is the user+system CPU of the client process per conversation (the server runs in another process). Peak memory: each framework alone in its own process running the conversation repeatedly.',
    '',
  );
  if (loop === undefined || loop.error) {
    lines.push(`Not measured: ${loop?.error ?? 'suite not run'}`, '');
    return;
  }
  const floor = median(loop.results.bare?.msPerRun ?? []);
  const ours = median(loop.results.agcore?.msPerRun ?? []);
  lines.push(
    '| framework | per conversation (ms) | per turn (ms) | overhead / turn vs floor | × bare | agcore ÷ this | client CPU / conv. (ms) | spread of rounds | max RSS (MB) | heap peak above start (MB) | retained after GC (MB) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const [name, data] of Object.entries(loop.results)) {
    const value = median(data.msPerRun);
    const memory = results.loopMemory?.[name] ?? {};
    lines.push(
      `| ${labels[name] ?? name} | ${ms(value)} | ${ms(value / 5)} | ${name === 'bare' ? '–' : us((value - floor) / 5)} | ${ratio(value / floor)} | ${name === 'agcore' ? '–' : ratio(ours / value)} | ${ms(median(data.cpuMsPerRun))} | ${percent(spread(data.msPerRun))} | ${mb(memory.maxRssMb)} | ${mb(memory.peakHeapAboveBaselineMb)} | ${mb(memory.retainedAfterGcMb)} |`,
    );
  }
  lines.push('', ...failureLines(loop.failures, labels));
  for (const [name, memory] of Object.entries(results.loopMemory ?? {})) {
    if (memory.error)
      lines.push(`- memory of ${labels[name] ?? name}: not measured: ${memory.error}`);
  }
  lines.push('');
  const cpuRatio =
    median(loop.results.agcore?.cpuMsPerRun ?? []) / median(loop.results.bare?.cpuMsPerRun ?? []);
  summary.push(
    `- Tool loop, agcore ÷ bare fetch loop: wall time ${verdict(ours / floor, 1.05)}; client CPU ${verdict(cpuRatio, 1.05)} (target ≤ 1.05×).`,
  );
  for (const name of ['ai-sdk', 'openai-agents']) {
    const value = median(loop.results[name]?.msPerRun ?? []);
    if (Number.isFinite(value))
      summary.push(
        `  - ${labels[name]}: ${ratio(value / floor)} the floor; agcore takes ${ratio(ours / value)} its time.`,
      );
  }
}

function streamSection(results, lines, summary) {
  const stream = results.stream;
  lines.push('## 2. Streaming', '');
  lines.push(
    'The same 5-turn conversation streamed (SSE, tool-call arguments in 4-character pieces, a 100-delta answer, usage chunk, `[DONE]`), consuming every event. First delta: from the moment `fetch` resolves (first byte of the response: the server sends the headers with the role chunk and the first text delta, and the rest one event-loop turn later) to the first text delta the framework hands to the caller, on a 2 000-delta reply. Events/s: text deltas of that reply handed to the caller per second, from the first byte to the end.',
    '',
  );
  if (stream === undefined || stream.error) {
    lines.push(`Not measured: ${stream?.error ?? 'suite not run'}`, '');
    return;
  }
  const floor = median(stream.results.bare?.msPerRun ?? []);
  const ours = median(stream.results.agcore?.msPerRun ?? []);
  const floorEvents = median(stream.results.bare?.eventsPerSecond ?? []);
  lines.push(
    '| framework | streamed conversation (ms) | × bare SSE | agcore ÷ this | client CPU / conv. (ms) | spread of rounds | first delta after first byte | long reply: deltas/s | deltas/s ÷ bare |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const [name, data] of Object.entries(stream.results)) {
    const value = median(data.msPerRun);
    const events = median(data.eventsPerSecond);
    lines.push(
      `| ${streamLabels[name] ?? name} | ${ms(value)} | ${ratio(value / floor)} | ${name === 'agcore' ? '–' : ratio(ours / value)} | ${ms(median(data.cpuMsPerRun))} | ${percent(spread(data.msPerRun))} | ${us(median(data.firstDeltaMs))} | ${count(events)} | ${ratio(events / floorEvents)} |`,
    );
  }
  lines.push('', ...failureLines(stream.failures, streamLabels), '');
  const cpuRatio =
    median(stream.results.agcore?.cpuMsPerRun ?? []) /
    median(stream.results.bare?.cpuMsPerRun ?? []);
  const eventsRatio = median(stream.results.agcore?.eventsPerSecond ?? []) / floorEvents;
  summary.push(
    `- Streaming, agcore ÷ bare SSE loop: wall time ${verdict(ours / floor, 1.1)}; client CPU ${verdict(cpuRatio, 1.1)}; on the long reply agcore hands over ${ratio(eventsRatio)} the floor's deltas per second (target ≤ 1.10×).`,
  );
  for (const name of ['ai-sdk', 'openai-agents']) {
    const value = median(stream.results[name]?.msPerRun ?? []);
    if (Number.isFinite(value))
      summary.push(
        `  - ${streamLabels[name]}: ${ratio(value / floor)} the floor; agcore takes ${ratio(ours / value)} its time.`,
      );
  }
}

function mcpSection(results, lines, summary) {
  const mcp = results.mcp;
  lines.push('## 3. MCP: `echo` on `@modelcontextprotocol/server-everything` over stdio', '');
  lines.push(
    `Each client starts its own server child (same Node 22) and all clients run in one process, interleaved round by round. Latency: ${results.plan.mcp.sequential} sequential calls per round; client CPU: CPU of the client process per call (the server's CPU is not counted); throughput: ${results.plan.mcp.concurrent} calls in flight at once.`,
    '',
  );
  if (mcp === undefined || mcp.error) {
    lines.push(`Not measured: ${mcp?.error ?? 'suite not run'}`, '');
    return;
  }
  const floor = median(mcp.results['bare-jsonrpc']?.msPerCall ?? []);
  const sdk = median(mcp.results['raw-sdk']?.msPerCall ?? []);
  const sdkCpu = median(mcp.results['raw-sdk']?.cpuMsPerCall ?? []);
  lines.push(
    '| client | latency / call | × bare JSON-RPC | × raw SDK `Client` | client CPU / call | CPU × raw SDK | spread of rounds | 200 concurrent: calls/s |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const [name, data] of Object.entries(mcp.results)) {
    const value = median(data.msPerCall);
    const cpu = median(data.cpuMsPerCall);
    lines.push(
      `| ${mcpLabels[name] ?? name} | ${us(value)} | ${ratio(value / floor)} | ${ratio(value / sdk)} | ${us(cpu)} | ${ratio(cpu / sdkCpu)} | ${percent(spread(data.msPerCall))} | ${count(median(data.concurrentCallsPerSecond))} |`,
    );
  }
  lines.push('', ...failureLines(mcp.failures, mcpLabels), '');
  for (const name of ['agcore-client', 'agcore-tool']) {
    const value = median(mcp.results[name]?.msPerCall ?? []);
    const cpu = median(mcp.results[name]?.cpuMsPerCall ?? []);
    summary.push(
      `- MCP, ${mcpLabels[name]} ÷ raw SDK \`Client\`: latency ${verdict(value / sdk, 1.05)}, client CPU ${verdict(cpu / sdkCpu, 1.05)} (target ≤ 1.05×).`,
    );
  }
}

function scaleSection(results, lines) {
  const scale = results.scale;
  lines.push('## 4. Scale: 200 registered tools, 1 000 turns of history', '');
  lines.push(
    'One conversation of 1 001 model requests: each of the first 1 000 answers calls one of 200 tools, so request *n* carries the 200 tool definitions and about 2*n* history messages (≈ 45 kB of definitions, up to ≈ 250 kB of history per request). Time per turn is the median gap between consecutive requests over turns 1–100, 451–550 and 901–1000 (building and sending the request, the scripted answer, parsing it, running the tool). Heap sampled every 20 ms. One run per framework, each in its own process.',
    '',
  );
  if (scale === undefined) {
    lines.push('Not measured: suite not run', '');
    return;
  }
  lines.push(
    '| framework | turns 1–100 (ms/turn) | 451–550 | 901–1000 | last ÷ first | whole run (s) | client CPU (s) | heap peak above start (MB) | max RSS (MB) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  const failures = [];
  for (const [name, data] of Object.entries(scale)) {
    if (data.error) {
      failures.push(`- ${labels[name] ?? name}: **could not be measured**: ${data.error}`);
      continue;
    }
    lines.push(
      `| ${labels[name] ?? name} | ${ms(data.firstTurnsMs)} | ${ms(data.middleTurnsMs)} | ${ms(data.lastTurnsMs)} | ${ratio(data.lastTurnsMs / data.firstTurnsMs)} | ${(data.totalMs / 1000).toFixed(1)} | ${(data.cpuMs / 1000).toFixed(1)} | ${mb(data.peakHeapAboveBaselineMb)} | ${mb(data.maxRssMb)} |`,
    );
  }
  lines.push('', ...failures, '');
}

function loadServerText(load) {
  const runs = (load?.runs ?? []).filter((run) => run.server !== undefined);
  if (runs.length === 0) return '';
  const requests = runs.reduce((sum, run) => sum + run.server.requests, 0);
  const refused = runs.reduce((sum, run) => sum + run.server.refused, 0);
  return ` The load suite's server, which checks the same way: ${requests.toLocaleString('en-US')} requests in the measured batches, ${refused} refused.`;
}

function loadPlanText(load) {
  if (load === undefined) return '';
  return `; load ${load.rounds} round(s) at C = ${load.concurrency.join(', ')} after ${load.warmup} warm-up conversations, server delay ${load.delayMs} ms${load.limited ? `, and ${load.limited.rounds} at C = ${load.limited.concurrency} under \`ulimit -n ${load.limited.openFiles}\`` : ''}`;
}

/** The markdown of docs/benchmarks.md; `method` (apps/bench/src/method.md) goes after the introduction. */
export function renderReport(results, reading, method = '') {
  const lines = [];
  const summary = [];
  const { machine } = results;
  lines.push(
    '# Benchmarks: agcore against its peers',
    '',
    '<!-- Written by apps/bench (`pnpm bench:peers`); edit apps/bench/src/method.md for the A/B method and apps/bench/src/reading.md for the reading, not this file. -->',
    '',
    'Measured side by side in one run, on the same machine, under the same Node 22 binary: a local Chat Completions server on 127.0.0.1 answers instantly from a script (after 20 ms in the load suite; real wire format: JSON completions, SSE chunks with tool-call deltas by index, a usage chunk, `[DONE]`), so the figures are each framework’s own overhead. Every figure is the median of several rounds after a warm-up; in the tool-loop and streaming suites the frameworks alternate conversation by conversation (the order rotating each time), so that a busy neighbour, garbage collection and JIT state fall on them all alike. “Spread” is half the interquartile range of the rounds relative to the median: when it is large the machine was busy and the ratios are less sure than they look.',
    '',
  );
  if (method.trim().length > 0) lines.push(method.trim(), '');
  if (results.quick)
    lines.push('> **Quick run (`--quick`)**: too few rounds for the figures to mean much.', '');
  if (results.kept !== undefined)
    lines.push(
      `> **Partial run (\`--only\`)**: the figures of ${results.kept.suites.join(', ')} come from the run of ${results.kept.date ?? 'an earlier date'} recorded in the previous version of this file; every ratio still compares figures of one run.`,
      '',
    );
  const body = [];
  loopSection(results, body, summary);
  streamSection(results, body, summary);
  mcpSection(results, body, summary);
  scaleSection(results, body);
  loadSection(results, body, summary);
  lines.push('## Targets', '', ...summary, '', ...body);
  lines.push(
    '## Setup',
    '',
    `- Machine: ${machine.cpus} cores (${machine.cpuModel}), ${machine.memoryGiB.toFixed(1)} GiB, ${machine.platform}; load average at start ${machine.loadAtStart.map((n) => n.toFixed(2)).join(' / ')}, at end ${machine.loadAtEnd.map((n) => n.toFixed(2)).join(' / ')} (the machine is shared).`,
    `- Runtime: Node ${machine.node} for the bench, every framework and every MCP server child.`,
    `- Run: ${results.durationS.toFixed(0)} s; rounds: tool loop ${results.plan.loop.rounds} × ${results.plan.loop.batch} conversations after ${results.plan.loop.warmup} warm-up ones; streaming ${results.plan.stream.rounds} × ${results.plan.stream.batch} (+ ${results.plan.stream.longBatch} long replies); peak memory ${results.plan.memory.count} conversations per framework; MCP ${results.plan.mcp.rounds} rounds after ${results.plan.mcp.warmup} warm-up calls${loadPlanText(results.plan.load)}.`,
    `- Scripted server: ${results.serverStats.requests.toLocaleString('en-US')} requests, ${results.serverStats.errors} refused${results.serverStats.errors ? ` (last: ${results.serverStats.lastError})` : ''}. It checks every request (the tools sent, one tool message per call with the right \`tool_call_id\`), so a framework that skipped work would have failed, not looked fast.${loadServerText(results.load)}`,
    '- Tools: the same JSON Schemas for everyone (`jsonSchema()` for the AI SDK, strict JSON-Schema `tool()` for the Agents SDK, `defineTool` + `ToolRegistry` for agcore, which validates arguments with ajv before running a tool). Retries off where the framework allows (`maxRetries: 0`); Agents SDK tracing disabled.',
    '',
    '| package | version |',
    '| --- | --- |',
    ...Object.entries(results.versions).map(([name, version]) => `| \`${name}\` | ${version} |`),
    '',
    '### Reproduce',
    '',
    '```sh',
    'pnpm install',
    'pnpm bench:peers            # builds the workspace packages it needs, then runs under Node 22 (npx -y node@22)',
    'pnpm bench:peers -- --quick # a smoke run; --only loop,stream,mcp,scale,load runs some suites (the others are kept from this file)',
    '```',
    '',
    'The raw figures of the run (every round) are at the end of this file.',
    '',
  );
  if (reading.trim().length > 0) lines.push(reading.trim(), '');
  lines.push(
    '<details><summary>Raw figures of this run (every round)</summary>',
    '',
    '```json',
    JSON.stringify(results),
    '```',
    '',
    '</details>',
    '',
  );
  return `${lines.join('\n')}`;
}
