// pnpm bench (on the built package, as a user gets it), in one run:
// 1. import time: `import '@agcore/tools-mcp'` against the SDK client with its stdio transport,
//    each in fresh processes, alternated (target: at most 10 ms more);
// 2. one call at a time on server-everything's `echo` over stdio, each contender with its own
//    server child, rounds interleaved: the raw SDK Client, a second raw Client (the A/A control:
//    the noise of the machine), McpClient.callTool, and the BaseTool from tools() (one
//    ToolContext for all calls) — latency and client CPU, as the median of the per-round
//    ratios to the raw Client next to them (target <= 1.05x);
// 3. throughput at 200 concurrent calls, bursts interleaved;
// 4. the same calls with the pipe taken out (each transport answers the echo in-process after
//    the real handshake): the client-side JavaScript per call, where what McpClient and the
//    adapter add shows in microseconds instead of drowning in process switches.
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createToolContext } from '@agcore/tools-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { hostileSchemas } from './test-support/bench-hostile.js';
import { modernReport } from './test-support/bench-modern.js';
import { median, paired, table } from './test-support/bench-stats.js';
import { serverEntries } from './test-support/servers.js';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
// BENCH_ENTRY: another build of the package to measure (an earlier version, for before/after).
const entry = pathToFileURL(process.env.BENCH_ENTRY ?? join(packageRoot, 'dist', 'index.js')).href;
const { McpClient } = (await import(entry)) as typeof import('./index.js');
type McpClient = InstanceType<typeof McpClient>;

const rounds = Number(process.env.BENCH_ROUNDS ?? 31);
const callsPerRound = Number(process.env.BENCH_CALLS ?? 200);
const importRuns = Number(process.env.BENCH_IMPORTS ?? 21);
const bursts = Number(process.env.BENCH_BURSTS ?? 15);
const message = 'benchmark';
const expected = `Echo: ${message}`;
const target = 1.05;

interface Contender {
  readonly label: string;
  readonly call: () => Promise<unknown>;
  readonly close: () => Promise<void>;
  /** Makes the transport answer tools/call in-process from now on. */
  readonly unplug: () => void;
  readonly wall: number[];
  readonly cpu: number[];
  readonly burst: number[];
  /** Client CPU per call in the bursts, µs. */
  readonly burstCpu: number[];
  readonly js: number[];
}

function contender(
  label: string,
  call: () => Promise<unknown>,
  close: () => Promise<void>,
  unplug: () => void,
): Contender {
  return { label, call, close, unplug, wall: [], cpu: [], burst: [], burstCpu: [], js: [] };
}

/** From now on, `transport` answers each echo call itself, on the next turn of the loop. */
function answerInProcess(transport: Transport): void {
  transport.send = async (outgoing: JSONRPCMessage) => {
    if (!('method' in outgoing) || outgoing.method !== 'tools/call' || !('id' in outgoing)) return;
    const args = outgoing.params?.arguments as { message?: unknown } | undefined;
    const text = `Echo: ${String(args?.message)}`;
    const line = JSON.stringify({
      jsonrpc: '2.0',
      id: outgoing.id,
      result: { content: [{ type: 'text', text }] },
    });
    setImmediate(() => transport.onmessage?.(JSON.parse(line) as JSONRPCMessage));
  };
}

/** The SDK transport inside an McpClient (private fields, of this version or earlier ones). */
function transportOf(client: McpClient): Transport {
  const inside = client as unknown as {
    link?: { current?: { transport: Transport } };
    current?: { transport: Transport };
  };
  const current = inside.link?.current ?? inside.current;
  if (current === undefined) throw new Error('McpClient is not connected');
  return current.transport;
}

const server = { command: process.execPath, args: [serverEntries.everything, 'stdio'] };

async function rawClient(label: string): Promise<Contender> {
  const client = new Client({ name: 'bench-raw', version: '1.0.0' });
  const transport = new StdioClientTransport({ ...server, stderr: 'ignore' });
  await client.connect(transport);
  return contender(
    label,
    async () => {
      const result = await client.callTool({ name: 'echo', arguments: { message } });
      return (result.content as { text: string }[])[0]?.text;
    },
    () => client.close(),
    () => answerInProcess(transport),
  );
}

async function mcpClient(): Promise<Contender> {
  const client = new McpClient('everything', { type: 'stdio', ...server });
  await client.connect();
  return contender(
    'McpClient.callTool',
    async () => (await client.callTool('echo', { message })).value,
    () => client.close(),
    () => answerInProcess(transportOf(client)),
  );
}

async function mcpTool(): Promise<Contender> {
  const client = new McpClient('everything', { type: 'stdio', ...server });
  await client.connect();
  const echo = (await client.tools()).find((tool) => tool.name === 'echo');
  if (echo === undefined) throw new Error('server-everything has no echo tool');
  // One context for all calls, as the peer bench does: its signal is the adapter's to follow.
  const context = createToolContext();
  return contender(
    'tools() -> execute',
    () => echo.execute({ message }, context),
    () => client.close(),
    () => answerInProcess(transportOf(client)),
  );
}

/** Import times (ms) of each set of modules, in fresh processes, alternated run by run. */
function importTimes(sets: Readonly<Record<string, readonly string[]>>): Map<string, number[]> {
  const times = new Map<string, number[]>(Object.keys(sets).map((name) => [name, []]));
  for (let run = 0; run < importRuns; run++) {
    for (const [name, modules] of Object.entries(sets)) {
      const script = `const start = performance.now(); ${modules
        .map((module) => `await import(${JSON.stringify(module)});`)
        .join(' ')} process.stdout.write(String(performance.now() - start));`;
      const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        cwd: packageRoot,
      });
      times.get(name)?.push(Number(output.toString()));
    }
  }
  return times;
}

async function round(subject: Contender, calls: number): Promise<void> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let index = 0; index < calls; index++) await subject.call();
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  subject.wall.push((wall * 1000) / calls);
  subject.cpu.push((used.user + used.system) / calls);
}

async function burst(subject: Contender): Promise<void> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await Promise.all(Array.from({ length: 200 }, () => subject.call()));
  subject.burst.push(200_000 / (performance.now() - start));
  const used = process.cpuUsage(cpu);
  subject.burstCpu.push((used.user + used.system) / 200);
}

/** Runs `step` for each contender, `times` times, rotating the order so drift hits all alike. */
async function interleaved(
  contenders: readonly Contender[],
  times: number,
  step: (subject: Contender) => Promise<void>,
): Promise<void> {
  for (let index = 0; index < times; index++) {
    for (let offset = 0; offset < contenders.length; offset++) {
      const subject = contenders[(index + offset) % contenders.length];
      if (subject !== undefined) await step(subject);
    }
  }
}

const x = (ratio: number): string => `${ratio.toFixed(3)}x`;
const within = (ok: boolean): string => (ok ? 'within' : 'NOT within');

/** In fresh processes: the SDK client's import, then what importing `entry` after it adds. */
function addedAfterSdk(sdk: readonly string[]): { sdk: number[]; added: number[] } {
  const result = { sdk: [] as number[], added: [] as number[] };
  for (let run = 0; run < importRuns; run++) {
    const script = `let start = performance.now(); ${sdk
      .map((module) => `await import(${JSON.stringify(module)});`)
      .join(
        ' ',
      )} const sdk = performance.now() - start; start = performance.now(); await import(${JSON.stringify(
      entry,
    )}); process.stdout.write(JSON.stringify([sdk, performance.now() - start]));`;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: packageRoot,
    });
    const [sdkMs, addedMs] = JSON.parse(output.toString()) as [number, number];
    result.sdk.push(sdkMs);
    result.added.push(addedMs);
  }
  return result;
}

function importReport(): string[] {
  const sdk = [
    '@modelcontextprotocol/sdk/client/index.js',
    '@modelcontextprotocol/sdk/client/stdio.js',
  ];
  const times = importTimes({
    sdk,
    mcp: [entry],
    all: [
      ...sdk,
      '@modelcontextprotocol/sdk/client/streamableHttp.js',
      '@modelcontextprotocol/sdk/client/sse.js',
    ],
  });
  const sdkTimes = times.get('sdk') ?? [];
  const mcpTimes = times.get('mcp') ?? [];
  const paired = median(mcpTimes.map((value, index) => value - (sdkTimes[index] ?? value)));
  const after = addedAfterSdk(sdk);
  const added = median(after.added);
  return [
    `Import time (fresh processes, median of ${importRuns}, alternated):`,
    '',
    table([
      ['import', 'ms'],
      ['SDK Client + stdio transport', median(sdkTimes).toFixed(1)],
      ['@agcore/tools-mcp', median(mcpTimes).toFixed(1)],
      ['SDK Client + all transports (reference)', median(times.get('all') ?? []).toFixed(1)],
      ['@agcore/tools-mcp after the SDK client (what it adds)', added.toFixed(1)],
    ]),
    '',
    `target: @agcore/tools-mcp adds ${added.toFixed(1)} ms to the SDK client's import (measured after it in one process; ${paired.toFixed(1)} ms as the paired difference of separate processes, noisier): ${within(added <= 10)} 10 ms.`,
    '',
  ];
}

async function warmUp(contenders: readonly Contender[]): Promise<void> {
  for (const subject of contenders) {
    for (let index = 0; index < 500; index++) {
      const answer = await subject.call();
      if (answer !== expected) throw new Error(`${subject.label} answered ${String(answer)}`);
    }
  }
}

/** The report of the stdio rounds and bursts: latency and CPU tables, the verdicts, the A/A noise. */
function stdioReport(
  raw: Contender,
  control: Contender,
  client: Contender,
  tool: Contender,
): string[] {
  const contenders = [raw, control, client, tool];
  const rows: string[][] = [
    ['client', 'latency µs', '× raw', 'CPU µs', '× raw'],
    ...contenders.map((subject) => [
      subject.label,
      median(subject.wall).toFixed(1),
      subject === raw ? '' : x(paired(subject.wall, raw.wall)),
      median(subject.cpu).toFixed(1),
      subject === raw ? '' : x(paired(subject.cpu, raw.cpu)),
    ]),
  ];
  const burstRows: string[][] = [
    ['client, 200 concurrent calls', 'calls/s', '× raw', 'CPU µs/call', '× raw'],
    ...contenders.map((subject) => [
      subject.label,
      median(subject.burst).toFixed(0),
      subject === raw ? '' : x(paired(subject.burst, raw.burst)),
      median(subject.burstCpu).toFixed(1),
      subject === raw ? '' : x(paired(subject.burstCpu, raw.burstCpu)),
    ]),
  ];
  const verdict = (subject: Contender): string => {
    const latency = paired(subject.wall, raw.wall);
    const cpu = paired(subject.cpu, raw.cpu);
    return `${subject.label}: latency ${x(latency)}, CPU ${x(cpu)} (${within(latency <= target && cpu <= target)} ${target}x)`;
  };
  const noise = Math.max(
    Math.abs(paired(control.cpu, raw.cpu) - 1),
    Math.abs(paired(control.wall, raw.wall) - 1),
  );
  return [
    `server-everything echo over stdio, ${rounds} rounds x ${callsPerRound} calls and ${bursts} bursts of 200 concurrent calls per client, interleaved; ratios are medians of the per-round ratios to the raw Client:`,
    '',
    table(rows),
    '',
    table(burstRows),
    '',
    `target: ${verdict(client)}; ${verdict(tool)}.`,
    `A/A control: a second raw Client differs by up to ${(noise * 100).toFixed(1)}%: ratios closer than that to the target are noise.`,
    '',
  ];
}

/** In-process: the client-side JavaScript of a call, without the pipe (unplugs every contender). */
async function measureInProcess(contenders: readonly Contender[]): Promise<void> {
  for (const subject of contenders) {
    subject.unplug();
    for (let index = 0; index < 2000; index++) await subject.call();
  }
  await interleaved(contenders, rounds, async (subject) => {
    const cpu = process.cpuUsage();
    for (let call = 0; call < 2000; call++) await subject.call();
    const used = process.cpuUsage(cpu);
    subject.js.push((used.user + used.system) / 2000);
  });
}

/** The report of the in-process rounds, against the raw Client's CPU per stdio round trip. */
function inProcessReport(contenders: readonly Contender[], raw: Contender): string[] {
  // Without the pipe a round is pure CPU work: other processes only ever slow it down, so
  // the fastest round is the best estimate of what the code itself costs.
  const fastest = (values: readonly number[]): number => Math.min(...values);
  const jsRaw = fastest(raw.js);
  const rawStdioCpu = median(raw.cpu);
  const jsRows: string[][] = [
    ['client (pipe taken out)', 'CPU µs', 'added µs', '× raw', 'added / stdio round trip CPU'],
    ...contenders.map((subject) => {
      const cpu = fastest(subject.js);
      return [
        subject.label,
        cpu.toFixed(2),
        subject === raw ? '' : (cpu - jsRaw).toFixed(2),
        x(cpu / jsRaw),
        subject === raw ? '' : x(1 + (cpu - jsRaw) / rawStdioCpu),
      ];
    }),
  ];
  return [
    `Client-side JavaScript per call, the pipe taken out (same in-process answers for all; fastest of ${rounds} rounds x 2000 calls); the last column is what that adds to the raw Client's CPU per stdio round trip, the same ratio without the pipe's noise:`,
    '',
    table(jsRows),
    '',
  ];
}

async function main(): Promise<void> {
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  const header = `@agcore/tools-mcp bench (${fileURLToPath(entry)}): Node ${process.version}, load ${load}`;
  const imports = importReport();
  // BENCH_SKIP_HOSTILE=1 for a build that would hang on them (before this package compiled
  // server schemas itself, ^(a+)+$ blocked for minutes).
  const hostile = process.env.BENCH_SKIP_HOSTILE === '1' ? [] : hostileSchemas(entry, packageRoot);
  const raw = await rawClient('raw SDK Client');
  const control = await rawClient('raw SDK Client (A/A)');
  const client = await mcpClient();
  const tool = await mcpTool();
  const contenders = [raw, control, client, tool];
  try {
    await warmUp(contenders);
    await interleaved(contenders, rounds, (subject) => round(subject, callsPerRound));
    await interleaved(contenders, bursts, burst);
    const stdio = stdioReport(raw, control, client, tool);
    await measureInProcess(contenders);
    const http =
      process.env.BENCH_SKIP_MODERN === '1' ? [] : await modernReport(McpClient, rounds, 100);
    process.stdout.write(
      [
        header,
        '',
        ...imports,
        ...hostile,
        ...stdio,
        ...inProcessReport(contenders, raw),
        ...http,
      ].join('\n'),
    );
  } finally {
    for (const subject of contenders) await subject.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
