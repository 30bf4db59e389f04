// pnpm bench: a call's round trip through McpClient against the raw SDK Client, both on
// server-everything's `echo` over stdio, plus 200 concurrent against 200 sequential calls.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpClient } from './index.js';
import { serverEntries } from './test-support/servers.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? 15);
const callsPerRound = Number(process.env.BENCH_CALLS ?? 300);

interface Sample {
  wallMs: number;
  cpuMs: number;
  calls: number;
}

async function measure(call: () => Promise<unknown>, calls: number): Promise<Sample> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let index = 0; index < calls; index++) await call();
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000, calls };
}

function total(samples: Sample[]): Sample {
  return samples.reduce((sum, sample) => ({
    wallMs: sum.wallMs + sample.wallMs,
    cpuMs: sum.cpuMs + sample.cpuMs,
    calls: sum.calls + sample.calls,
  }));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function main(): Promise<void> {
  const raw = new Client({ name: 'bench-raw', version: '1.0.0' });
  await raw.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [serverEntries.everything, 'stdio'],
      stderr: 'pipe',
    }),
  );
  // A second raw Client on its own server: the A/A control that shows the noise floor.
  const control = new Client({ name: 'bench-control', version: '1.0.0' });
  await control.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [serverEntries.everything, 'stdio'],
      stderr: 'pipe',
    }),
  );
  const adapter = new McpClient('everything', {
    type: 'stdio',
    command: process.execPath,
    args: [serverEntries.everything, 'stdio'],
  });
  await adapter.connect();
  const args = { message: 'benchmark' };
  const rawCall = () =>
    raw.callTool({ name: 'echo', arguments: args }, undefined, { timeout: 30_000 });
  const adapterCall = () => adapter.callTool('echo', args);
  const controlCall = () =>
    control.callTool({ name: 'echo', arguments: args }, undefined, { timeout: 30_000 });

  // Warm up both paths (JIT, server caches).
  await measure(rawCall, 500);
  await measure(adapterCall, 500);
  await measure(controlCall, 500);

  const rawSamples: Sample[] = [];
  const adapterSamples: Sample[] = [];
  const controlSamples: Sample[] = [];
  const contenders: [() => Promise<unknown>, Sample[]][] = [
    [rawCall, rawSamples],
    [adapterCall, adapterSamples],
    [controlCall, controlSamples],
  ];
  for (let round = 0; round < rounds; round++) {
    // Rotate the order so drift on a shared machine hits all alike.
    for (let index = 0; index < contenders.length; index++) {
      const [call, samples] = contenders[(round + index) % contenders.length] ?? contenders[0]!;
      samples.push(await measure(call, callsPerRound));
    }
  }
  const perCall = (sample: Sample) => sample.wallMs / sample.calls;
  const cpuPerCall = (sample: Sample) => sample.cpuMs / sample.calls;
  const rawMedian = median(rawSamples.map(perCall));
  const adapterMedian = median(adapterSamples.map(perCall));
  const rawCpu = median(rawSamples.map(cpuPerCall));
  const adapterCpu = median(adapterSamples.map(cpuPerCall));
  const controlMedian = median(controlSamples.map(perCall));
  const controlCpu = median(controlSamples.map(cpuPerCall));
  const rawTotal = total(rawSamples);
  const adapterTotal = total(adapterSamples);

  const burst = async (call: () => Promise<unknown>) => {
    const sequentialStart = performance.now();
    for (let index = 0; index < 200; index++) await call();
    const sequential = performance.now() - sequentialStart;
    const concurrentStart = performance.now();
    await Promise.all(Array.from({ length: 200 }, () => call()));
    const concurrent = performance.now() - concurrentStart;
    return { sequential, concurrent };
  };
  const rawBurst = await burst(rawCall);
  const adapterBurst = await burst(adapterCall);

  await adapter.close();
  await raw.close();
  await control.close();

  const rows: [string, string, string, string][] = [
    ['measure', 'raw SDK Client', 'McpClient', 'ratio'],
    [
      `echo round trip, median of ${rounds} rounds (ms/call)`,
      rawMedian.toFixed(3),
      adapterMedian.toFixed(3),
      `${(adapterMedian / rawMedian).toFixed(3)}x`,
    ],
    [
      `echo round trip, mean over ${rawTotal.calls} calls (ms/call)`,
      perCall(rawTotal).toFixed(3),
      perCall(adapterTotal).toFixed(3),
      `${(perCall(adapterTotal) / perCall(rawTotal)).toFixed(3)}x`,
    ],
    [
      `client CPU per call, median of ${rounds} rounds (ms)`,
      rawCpu.toFixed(3),
      adapterCpu.toFixed(3),
      `${(adapterCpu / rawCpu).toFixed(3)}x`,
    ],
    [
      'A/A control: a 2nd raw Client, median latency / CPU',
      `${controlMedian.toFixed(3)} / ${controlCpu.toFixed(3)}`,
      '',
      `${(controlMedian / rawMedian).toFixed(3)}x / ${(controlCpu / rawCpu).toFixed(3)}x`,
    ],
    [
      '200 sequential calls (ms)',
      rawBurst.sequential.toFixed(1),
      adapterBurst.sequential.toFixed(1),
      `${(adapterBurst.sequential / rawBurst.sequential).toFixed(3)}x`,
    ],
    [
      '200 concurrent calls (ms)',
      rawBurst.concurrent.toFixed(1),
      adapterBurst.concurrent.toFixed(1),
      `${(adapterBurst.concurrent / rawBurst.concurrent).toFixed(3)}x`,
    ],
    [
      'concurrent speed-up (sequential / concurrent)',
      `${(rawBurst.sequential / rawBurst.concurrent).toFixed(2)}x`,
      `${(adapterBurst.sequential / adapterBurst.concurrent).toFixed(2)}x`,
      '',
    ],
  ];
  const widths = [0, 1, 2, 3].map((column) =>
    Math.max(...rows.map((row) => row[column]?.length ?? 0)),
  );
  const line = (row: string[]) =>
    row
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[0] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ');
  const output = [
    '@agcore/tools-mcp bench: server-everything echo over stdio (target: McpClient within 1.05x the raw SDK Client)',
    line(rows[0] ?? []),
    widths.map((width) => '-'.repeat(width)).join('  '),
    ...rows.slice(1).map(line),
    '',
  ].join('\n');
  process.stdout.write(output);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
