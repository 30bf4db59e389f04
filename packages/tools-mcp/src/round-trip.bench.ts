// pnpm bench: a call's round trip through McpClient.callTool and through the BaseTool adapter
// (McpClient.tools() -> execute) against the raw SDK Client, all on server-everything's `echo`
// over stdio, each with its own server child; plus 200 concurrent against 200 sequential calls.
// A second raw Client is the A/A control: its ratio shows the noise of the machine.
//
// Then the same contenders once more with the pipe taken out: after the real handshake each
// transport's send() answers the echo itself on the next turn of the event loop, the same for
// everyone. What is left is the client-side JavaScript of a call (the SDK's and ours), measured
// without the process switches that make the stdio figures noisy on a shared machine: the
// difference to the raw Client is what McpClient and the adapter add, in microseconds.
import { loadavg } from 'node:os';
import { createToolContext } from '@agcore/tools-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { McpClient } from './index.js';
import { serverEntries } from './test-support/servers.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? 21);
const callsPerRound = Number(process.env.BENCH_CALLS ?? 300);
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

/** The SDK transport inside an McpClient (a private field: bench only). */
function transportOf(client: McpClient): Transport {
  const current = (client as unknown as { current?: { transport: Transport } }).current;
  if (current === undefined) throw new Error('McpClient is not connected');
  return current.transport;
}

const server = { command: process.execPath, args: [serverEntries.everything, 'stdio'] };

async function rawClient(label: string): Promise<Contender> {
  const client = new Client({ name: 'bench-raw', version: '1.0.0' });
  const transport = new StdioClientTransport({ ...server, stderr: 'ignore' });
  await client.connect(transport);
  return {
    label,
    unplug: () => answerInProcess(transport),
    call: async () => {
      const result = await client.callTool({ name: 'echo', arguments: { message } });
      return (result.content as { text: string }[])[0]?.text;
    },
    close: () => client.close(),
    wall: [],
    cpu: [],
  };
}

async function mcpClient(): Promise<Contender> {
  const client = new McpClient('everything', { type: 'stdio', ...server });
  await client.connect();
  return {
    label: 'McpClient.callTool',
    unplug: () => answerInProcess(transportOf(client)),
    call: async () => (await client.callTool('echo', { message })).value,
    close: () => client.close(),
    wall: [],
    cpu: [],
  };
}

async function mcpTool(): Promise<Contender> {
  const client = new McpClient('everything', { type: 'stdio', ...server });
  await client.connect();
  const echo = (await client.tools()).find((tool) => tool.name === 'echo');
  if (echo === undefined) throw new Error('server-everything has no echo tool');
  // One context for all calls, as the peer bench does: its signal is the adapter's to follow.
  const context = createToolContext();
  return {
    label: 'tools() -> execute',
    unplug: () => answerInProcess(transportOf(client)),
    call: () => echo.execute({ message }, context),
    close: () => client.close(),
    wall: [],
    cpu: [],
  };
}

async function round(contender: Contender, calls: number): Promise<void> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let index = 0; index < calls; index++) await contender.call();
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  contender.wall.push((wall * 1000) / calls);
  contender.cpu.push((used.user + used.system) / calls);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** Median of the per-round ratios: each round of a contender against the raw round next to it. */
function pairedRatio(values: readonly number[], baseline: readonly number[]): number {
  return median(values.map((value, index) => value / (baseline[index] ?? value)));
}

async function burst(contender: Contender): Promise<{ sequential: number; concurrent: number }> {
  const sequentialStart = performance.now();
  for (let index = 0; index < 200; index++) await contender.call();
  const sequential = performance.now() - sequentialStart;
  const concurrentStart = performance.now();
  await Promise.all(Array.from({ length: 200 }, () => contender.call()));
  const concurrent = performance.now() - concurrentStart;
  return { sequential, concurrent };
}

function table(rows: readonly (readonly string[])[]): string {
  const widths = (rows[0] ?? []).map((_, column) =>
    Math.max(...rows.map((row) => row[column]?.length ?? 0)),
  );
  const line = (row: readonly string[]): string =>
    row
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[0] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ');
  return [
    line(rows[0] ?? []),
    widths.map((width) => '-'.repeat(width)).join('  '),
    ...rows.slice(1).map(line),
  ].join('\n');
}

async function main(): Promise<void> {
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  const raw = await rawClient('raw SDK Client');
  const control = await rawClient('raw SDK Client (A/A)');
  const client = await mcpClient();
  const tool = await mcpTool();
  const contenders = [raw, control, client, tool];
  try {
    for (const contender of contenders) {
      // Warm-up (JIT, server caches), and a check that every path really echoes.
      for (let index = 0; index < 500; index++) {
        const answer = await contender.call();
        if (answer !== expected) throw new Error(`${contender.label} answered ${String(answer)}`);
      }
    }
    for (let index = 0; index < rounds; index++) {
      // Rotate the order so that drift on a shared machine hits all alike.
      for (let offset = 0; offset < contenders.length; offset++) {
        const contender = contenders[(index + offset) % contenders.length];
        if (contender !== undefined) await round(contender, callsPerRound);
      }
    }
    const bursts = new Map<Contender, { sequential: number; concurrent: number }>();
    for (const contender of [raw, client, tool]) bursts.set(contender, await burst(contender));

    const rawWall = median(raw.wall);
    const rawCpu = median(raw.cpu);
    const rows: string[][] = [
      ['client', 'latency µs', '× raw', 'CPU µs', '× raw', 'CPU × raw (paired)'],
      ...contenders.map((contender) => [
        contender.label,
        median(contender.wall).toFixed(1),
        `${(median(contender.wall) / rawWall).toFixed(3)}x`,
        median(contender.cpu).toFixed(1),
        `${(median(contender.cpu) / rawCpu).toFixed(3)}x`,
        contender === raw ? '' : `${pairedRatio(contender.cpu, raw.cpu).toFixed(3)}x`,
      ]),
    ];
    const burstRows: string[][] = [
      ['client', '200 sequential (ms)', '200 concurrent (ms)', 'speed-up'],
      ...[raw, client, tool].map((contender) => {
        const figures = bursts.get(contender) ?? { sequential: 0, concurrent: 0 };
        return [
          contender.label,
          figures.sequential.toFixed(1),
          figures.concurrent.toFixed(1),
          `${(figures.sequential / figures.concurrent).toFixed(2)}x`,
        ];
      }),
    ];
    const verdict = (contender: Contender): string => {
      const latency = median(contender.wall) / rawWall;
      const cpu = median(contender.cpu) / rawCpu;
      return `${contender.label}: latency ${latency.toFixed(3)}x, CPU ${cpu.toFixed(3)}x (${
        latency <= target && cpu <= target ? 'within' : 'NOT within'
      } ${target}x)`;
    };
    const noise = Math.abs(median(control.cpu) / rawCpu - 1);

    // In-process: the client-side JavaScript of a call, without the pipe.
    const inProcess = new Map<Contender, number[]>(contenders.map((contender) => [contender, []]));
    for (const contender of contenders) {
      contender.unplug();
      for (let index = 0; index < 2000; index++) await contender.call();
    }
    for (let index = 0; index < rounds; index++) {
      for (let offset = 0; offset < contenders.length; offset++) {
        const contender = contenders[(index + offset) % contenders.length];
        if (contender === undefined) continue;
        const cpu = process.cpuUsage();
        for (let call = 0; call < 2000; call++) await contender.call();
        const used = process.cpuUsage(cpu);
        inProcess.get(contender)?.push((used.user + used.system) / 2000);
      }
    }
    // Without the pipe a round is pure CPU work: other processes only ever slow it down, so
    // the fastest round is the best estimate of what the code itself costs.
    const fastest = (values: readonly number[]): number => Math.min(...values);
    const jsRaw = fastest(inProcess.get(raw) ?? []);
    const jsRows: string[][] = [
      ['client (pipe taken out)', 'CPU µs', 'added µs', '× raw'],
      ...contenders.map((contender) => {
        const cpu = fastest(inProcess.get(contender) ?? []);
        return [
          contender.label,
          cpu.toFixed(2),
          contender === raw ? '' : (cpu - jsRaw).toFixed(2),
          `${(cpu / jsRaw).toFixed(3)}x`,
        ];
      }),
    ];
    process.stdout.write(
      [
        `@agcore/tools-mcp bench: server-everything echo over stdio, Node ${process.version}, ${rounds} rounds x ${callsPerRound} calls, load ${load}`,
        '',
        table(rows),
        '',
        table(burstRows),
        '',
        `target: ${verdict(client)}; ${verdict(tool)}.`,
        `A/A control: a second raw Client differs by ${(noise * 100).toFixed(1)}% in CPU: ratios closer than that to the target are noise.`,
        '',
        `Client-side JavaScript per call, the pipe taken out (same in-process answers for all; fastest of ${rounds} rounds x 2000 calls):`,
        '',
        table(jsRows),
        '',
      ].join('\n'),
    );
  } finally {
    for (const contender of contenders) await contender.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
