// `pnpm --filter @agcore/tools-mcp-server bench` (issue 21 §3, issue 29 §1), in one run:
// 1. server CPU and latency per call on the bench method (@agcore/bench-method,
//    docs/benchmarks.md): serveTools (B) against the MCP SDK's own stateless server with the same
//    tool (A: as the SDK's example writes it, and with a shared JSON Schema validator, its best
//    case), each in its own process, the same v1 SDK client, passes of A and B alternating
//    (≥ 20 pairs after a warm-up), the server's CPU read from /proc/<pid>/task/*/schedstat, the
//    median of the per-pair ratios B ÷ A with its 95 % interval. With `--root-a DIR`
//    (`pnpm bench:compare <ref> --suite tools-mcp-server`): serveTools of DIR's build (A) against
//    the working tree's (B). `--pairs N` (30), `--conversations N` (calls per pass, 100),
//    `--warmup N` (3); `--method`: part 1 only;
// 2. calls per second of 3 serveTools processes behind haproxy (roundrobin) against 1 process
//    behind the same haproxy, a tool that sleeps 20 ms, at concurrency 8 and 64.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  alternate,
  conditions,
  flagValue,
  libraryRoots,
  markdownTable,
  processSources,
  ratioText,
  type Sources,
  verdict,
} from '@agcore/bench-method';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { freePort } from './test-support/haproxy-fleet.js';

const nodePath = process.argv[2] ?? '';
const setting = (name: string, fallback: number): number =>
  Number(flagValue(process.argv, name) ?? fallback);

async function startNode(
  kind: string,
  sleepMs: number,
  root?: string,
): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const args = [
    nodePath,
    kind,
    String(port),
    String(sleepMs),
    ...(root === undefined ? [] : [root]),
  ];
  const child = spawn(process.execPath, args, {
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

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

type Kind = 'agcore' | 'sdk' | 'sdk-shared';

/** One server process and a client connected to it; `cpu` reads that server's CPU. */
interface Side {
  readonly call: () => Promise<void>;
  readonly sources: Sources;
  readonly stop: () => Promise<void>;
}

/** Starts a server of `kind` (serveTools of `root`'s build when given) and connects a client. */
async function side(kind: Kind, root?: string): Promise<Side> {
  const node = await startNode(kind, 0, root);
  const client = await connect(`http://127.0.0.1:${node.port}/mcp`);
  const pid = node.child.pid;
  if (pid === undefined) throw new Error(`the ${kind} server has no pid`);
  return {
    call: async () => {
      const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
      const text = (result.content as { text?: unknown }[] | undefined)?.[0]?.text;
      if (text !== 'hi') throw new Error(`${kind} answered ${JSON.stringify(result)}`);
    },
    sources: processSources(pid),
    stop: async () => {
      await client.close();
      node.child.kill('SIGKILL');
    },
  };
}

interface Row {
  readonly name: string;
  readonly a: () => Promise<Side>;
  readonly b: () => Promise<Side>;
}

const us = (ms: number): string => (ms * 1000).toFixed(0);

/**
 * Part 1, on the bench method: sequential calls, passes of A and B alternating, per call the
 * server CPU (its process's threads, /proc) and the client's wall time, ratios B ÷ A.
 */
async function perCall(rows: readonly Row[]): Promise<string> {
  const settings = {
    pairs: Math.max(20, setting('pairs', 30)),
    conversations: setting('conversations', 100),
    warmupPairs: setting('warmup', 3),
  };
  const table: string[][] = [];
  for (const row of rows) {
    const a = await row.a();
    const b = await row.b();
    try {
      const result = await alternate(a.call, b.call, {
        ...settings,
        sources: { a: a.sources, b: b.sources },
      });
      table.push([
        row.name,
        us(result.a.cpuMs),
        us(result.b.cpuMs),
        ratioText(result.cpuRatio),
        verdict(result.cpuRatio),
        us(result.a.wallMs),
        us(result.b.wallMs),
        ratioText(result.wallRatio),
        String(result.pairs),
      ]);
    } finally {
      await a.stop();
      await b.stop();
    }
  }
  const header = ['row', 'A server CPU µs/call', 'B server CPU µs/call', 'CPU B ÷ A (95 %)'];
  header.push('CPU verdict', 'A wall µs/call', 'B wall µs/call', 'wall B ÷ A (95 %)', 'pairs');
  return [
    `server CPU per tools/call (v1 SDK client, 2025-11-25, Streamable HTTP), ${settings.pairs} pairs of passes of ${settings.conversations} sequential calls after ${settings.warmupPairs} warm-up pairs`,
    conditions(),
    '',
    markdownTable(header, table),
    '',
    '',
  ].join('\n');
}

/** The rows: against the SDK's servers, or (`--root-a`) serveTools of A's build against B's. */
function rowsOf(roots: ReturnType<typeof libraryRoots>): Row[] {
  if (roots.compare)
    return [
      {
        name: `serveTools of ${roots.a} (A), of ${roots.b} (B)`,
        a: () => side('agcore', roots.a),
        b: () => side('agcore', roots.b),
      },
    ];
  return [
    {
      name: 'SDK stateless, its example (A), serveTools (B)',
      a: () => side('sdk'),
      b: () => side('agcore'),
    },
    {
      name: 'SDK stateless, shared validator (A), serveTools (B)',
      a: () => side('sdk-shared'),
      b: () => side('agcore'),
    },
  ];
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

const roots = libraryRoots();
process.stdout.write(await perCall(rowsOf(roots)));
if (roots.compare || process.argv.includes('--method')) {
  // bench:compare and --method: the per-call rows only.
} else if (spawnSync('haproxy', ['-v'], { stdio: 'ignore' }).status !== 0) {
  process.stdout.write('haproxy is not installed: the fleet part is skipped\n');
} else {
  process.stdout.write('fleet behind haproxy (roundrobin), tool sleeps 20 ms, calls/s\n');
  for (const concurrency of [8, 64]) {
    const one = await throughput(1, concurrency);
    const three = await throughput(3, concurrency);
    process.stdout.write(
      `concurrency ${String(concurrency).padStart(2)}: 1 process ${one.toFixed(0).padStart(5)}/s, 3 processes ${three.toFixed(0).padStart(5)}/s, ratio ${(three / one).toFixed(2)}× (target ≥ 2.5×), ${conditions()}\n`,
    );
  }
}
