// `pnpm --filter @agcore/tools-mcp-server bench` (issue 21 §3), in one run:
// 1. latency and server CPU per call, serveTools against the MCP SDK's own stateless server with
//    the same tool (as the SDK's example writes it, and with a shared JSON Schema validator, its
//    best case), each in its own process, the same v1 SDK client, rounds rotated; and the floor:
//    the CPU of `registry.invoke` alone (validation, policy, timer, span), in process;
// 2. calls per second of 3 serveTools processes behind haproxy (roundrobin) against 1 process
//    behind the same haproxy, a tool that sleeps 20 ms, at concurrency 8 and 64.
// Figures are ratios measured in this run; the README quotes one run and what limits it.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const nodePath = process.argv[2] ?? '';
const ticksPerSecond = 100;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function startNode(
  kind: string,
  sleepMs: number,
): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(process.execPath, [nodePath, kind, String(port), String(sleepMs)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${kind} exited with ${String(code)}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
  });
  return { child, port };
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
function cpuSeconds(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

type Kind = 'agcore' | 'sdk' | 'sdk-shared';
const kinds: readonly Kind[] = ['agcore', 'sdk', 'sdk-shared'];
const labels: Record<Kind, string> = {
  agcore: 'serveTools                    ',
  sdk: 'SDK stateless (its example)   ',
  'sdk-shared': 'SDK stateless, shared validator',
};

/** Part 1: sequential calls; median latency and server CPU per call over rotated rounds. */
async function latency(): Promise<void> {
  const servers: Record<Kind, { child: ChildProcess; port: number }> = {
    agcore: await startNode('agcore', 0),
    sdk: await startNode('sdk', 0),
    'sdk-shared': await startNode('sdk-shared', 0),
  };
  const clients: Record<Kind, Client> = {
    agcore: await connect(`http://127.0.0.1:${servers.agcore.port}/mcp`),
    sdk: await connect(`http://127.0.0.1:${servers.sdk.port}/mcp`),
    'sdk-shared': await connect(`http://127.0.0.1:${servers['sdk-shared'].port}/mcp`),
  };
  const calls = 800;
  const rounds = 7;
  const latencies: Record<Kind, number[]> = { agcore: [], sdk: [], 'sdk-shared': [] };
  const cpu: Record<Kind, number[]> = { agcore: [], sdk: [], 'sdk-shared': [] };
  for (let round = 0; round < rounds; round += 1) {
    // Each kind goes first, second and third in turn, so a burst of load elsewhere is shared.
    const order = kinds.map((_, index) => kinds[(index + round) % kinds.length] ?? 'agcore');
    for (const kind of order) {
      const client = clients[kind];
      const pid = servers[kind].child.pid;
      const cpuBefore = cpuSeconds(pid);
      const started = performance.now();
      for (let n = 0; n < calls; n += 1)
        await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
      const elapsed = performance.now() - started;
      // Round 0 warms them up; it is not counted.
      if (round === 0) continue;
      latencies[kind].push((elapsed / calls) * 1000);
      cpu[kind].push(((cpuSeconds(pid) - cpuBefore) / calls) * 1e6);
    }
  }
  const line = (kind: Kind) =>
    `${labels[kind]} ${median(latencies[kind]).toFixed(0).padStart(5)} µs/call  ${median(cpu[kind])
      .toFixed(0)
      .padStart(5)} µs server CPU/call`;
  process.stdout.write(
    `latency, ${calls} sequential calls × ${rounds - 1} rounds (median of rounds)\n${kinds.map(line).join('\n')}\n`,
  );
  for (const baseline of ['sdk', 'sdk-shared'] as const) {
    process.stdout.write(
      `ratio serveTools / ${labels[baseline].trim()}: latency ${(median(latencies.agcore) / median(latencies[baseline])).toFixed(2)}×, server CPU ${(median(cpu.agcore) / median(cpu[baseline])).toFixed(2)}× (target ≤ 1.05×)\n`,
    );
  }
  for (const client of Object.values(clients)) await client.close();
  for (const server of Object.values(servers)) server.child.kill('SIGKILL');
}

/** The floor: CPU per call of `registry.invoke` alone with the bench's tool, in this process. */
async function registryFloor(): Promise<void> {
  const registry = new ToolRegistry({ timeoutMs: 30_000 });
  registry.register(
    defineTool({
      name: 'echo',
      description: 'Echoes its text',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      execute: async ({ text }) => text,
    }),
  );
  const calls = 20_000;
  const perCall: number[] = [];
  for (let round = 0; round < 6; round += 1) {
    const before = process.cpuUsage();
    for (let n = 0; n < calls; n += 1) {
      const { output } = await registry.invoke('echo', { text: 'hi' });
      if (!output.ok) throw new Error(`the floor's call failed: ${output.error.message}`);
    }
    const used = process.cpuUsage(before);
    if (round > 0) perCall.push((used.user + used.system) / calls);
  }
  process.stdout.write(
    `floor: registry.invoke alone ${median(perCall).toFixed(1)} µs CPU/call (validation, policy, timer, span; no audit hook, no tracer registered)\n\n`,
  );
}

async function haproxyFor(ports: readonly number[]): Promise<{ proxy: ChildProcess; url: string }> {
  const front = await freePort();
  const file = join(tmpdir(), `agcore-bench-haproxy-${front}.cfg`);
  writeFileSync(
    file,
    [
      'global',
      '  maxconn 1024',
      'defaults',
      '  mode http',
      '  option abortonclose',
      '  option http-server-close',
      '  timeout connect 2s',
      '  timeout client 60s',
      '  timeout server 60s',
      'frontend mcp',
      `  bind 127.0.0.1:${front}`,
      '  http-request set-header Host 127.0.0.1',
      '  default_backend tools',
      'backend tools',
      '  balance roundrobin',
      ...ports.map((port, index) => `  server n${index} 127.0.0.1:${port}`),
      '',
    ].join('\n'),
  );
  const proxy = spawn('haproxy', ['-f', file, '-db'], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${front}/mcp`;
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const up = await fetch(`http://127.0.0.1:${front}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { proxy, url };
}

/** Part 2: calls/s through haproxy to `processes` serveTools processes at `concurrency`. */
async function throughput(processes: number, concurrency: number): Promise<number> {
  const nodes = [];
  for (let n = 0; n < processes; n += 1) nodes.push(await startNode('agcore', 20));
  const { proxy, url } = await haproxyFor(nodes.map((node) => node.port));
  const clients = await Promise.all(Array.from({ length: concurrency }, () => connect(url)));
  const run = async (seconds: number) => {
    let calls = 0;
    const end = performance.now() + seconds * 1000;
    await Promise.all(
      clients.map(async (client) => {
        while (performance.now() < end) {
          await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
          calls += 1;
        }
      }),
    );
    return calls / seconds;
  };
  await run(1);
  const rate = await run(4);
  for (const client of clients) await client.close();
  proxy.kill('SIGKILL');
  for (const node of nodes) node.child.kill('SIGKILL');
  return rate;
}

process.stdout.write(
  `load average at start: ${loadavg()
    .map((n) => n.toFixed(1))
    .join(' ')}\n`,
);
await latency();
await registryFloor();
if (spawnSync('haproxy', ['-v'], { stdio: 'ignore' }).status !== 0) {
  process.stdout.write('haproxy is not installed: the fleet part is skipped\n');
} else {
  process.stdout.write('fleet behind haproxy (roundrobin), tool sleeps 20 ms, calls/s\n');
  for (const concurrency of [8, 64]) {
    const one = await throughput(1, concurrency);
    const three = await throughput(3, concurrency);
    process.stdout.write(
      `concurrency ${String(concurrency).padStart(2)}: 1 process ${one.toFixed(0).padStart(5)}/s, 3 processes ${three.toFixed(0).padStart(5)}/s, ratio ${(three / one).toFixed(2)}× (target ≥ 2.5×)\n`,
    );
  }
}
process.stdout.write(
  `load average at end: ${loadavg()
    .map((n) => n.toFixed(1))
    .join(' ')}\n`,
);
