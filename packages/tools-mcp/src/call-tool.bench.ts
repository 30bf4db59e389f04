/**
 * `pnpm bench`: `McpClient.callTool` on the bench method (`@agcore/bench-method`,
 * docs/benchmarks.md): alternating passes of A and B (A B, B A, …, ≥ 20 pairs after a warm-up),
 * per call the client CPU (`process.cpuUsage`, the servers run in other processes) and the wall
 * time, and the median of the per-pair ratios B ÷ A with its 95 % interval. The call is
 * `echo` ('benchmark'): over stdio to server-everything (one server process per client), and
 * over Streamable HTTP to the v2 SDK test server (both eras, in a child process) on the legacy
 * engine (2025-11-25) and on the v2 engine (`protocol: '2026-07-28'`).
 *
 * Without `--root-a`, A is the natural baseline — the v1 SDK `Client` (stdio, HTTP 2025), the v2
 * SDK `Client` pinned to 2026-07-28 — and B the McpClient of the built package (`--root-b`, the
 * working tree by default); plus the `BaseTool` from `tools()` against the raw Client. With
 * `--root-a DIR` (`pnpm bench:compare <ref> --suite tools-mcp`): A is the McpClient of DIR's
 * build, B the working tree's, the same rows. `--pairs N` (default 30), `--conversations N`
 * (calls per pass, default 100), `--warmup N` (pairs, default 3), `--only a,b` (row keys),
 * `--no-collect` (no full GC before each pass).
 */
import { fork } from 'node:child_process';
import {
  alternate,
  type Comparison,
  conditions,
  flagValue,
  importLibrary,
  libraryRoots,
  markdownTable,
  ratioText,
  verdict,
} from '@agcore/bench-method';
import {
  type Contender,
  type McpClientClass,
  mcpCall,
  mcpTool,
  rawHttpV1,
  rawHttpV2,
  rawStdio,
  type Servers,
} from './test-support/bench-calls.js';

interface Row {
  readonly key: string;
  readonly name: string;
  readonly a: () => Promise<Contender>;
  readonly b: () => Promise<Contender>;
}

/** The rows against the raw SDK clients (B = McpClient of `Mcp`). */
function baselineRows(Mcp: McpClientClass, servers: Servers): Row[] {
  return [
    {
      key: 'stdio',
      name: 'stdio, 2025-11-25: v1 SDK Client (A), McpClient.callTool (B)',
      a: rawStdio,
      b: () => mcpCall(Mcp, 'stdio', servers),
    },
    {
      key: 'tool',
      name: 'stdio, 2025-11-25: v1 SDK Client (A), BaseTool from tools() (B)',
      a: rawStdio,
      b: () => mcpTool(Mcp),
    },
    {
      key: 'http-legacy',
      name: 'HTTP, 2025-11-25: v1 SDK Client (A), McpClient legacy engine (B)',
      a: () => rawHttpV1(servers),
      b: () => mcpCall(Mcp, 'http-legacy', servers),
    },
    {
      key: 'http-modern',
      name: "HTTP, 2026-07-28: v2 SDK Client (A), McpClient protocol '2026-07-28' (B)",
      a: () => rawHttpV2(servers),
      b: () => mcpCall(Mcp, 'http-modern', servers),
    },
  ];
}

/** The rows of a comparison: the same McpClient path of A's build and of B's. */
function compareRows(A: McpClientClass, B: McpClientClass, servers: Servers): Row[] {
  return [
    {
      key: 'stdio',
      name: 'stdio, 2025-11-25: McpClient.callTool',
      a: () => mcpCall(A, 'stdio', servers),
      b: () => mcpCall(B, 'stdio', servers),
    },
    {
      key: 'tool',
      name: 'stdio, 2025-11-25: BaseTool from tools()',
      a: () => mcpTool(A),
      b: () => mcpTool(B),
    },
    {
      key: 'http-legacy',
      name: 'HTTP, 2025-11-25: McpClient legacy engine',
      a: () => mcpCall(A, 'http-legacy', servers),
      b: () => mcpCall(B, 'http-legacy', servers),
    },
    {
      key: 'http-modern',
      name: "HTTP, 2026-07-28: McpClient protocol '2026-07-28'",
      a: () => mcpCall(A, 'http-modern', servers),
      b: () => mcpCall(B, 'http-modern', servers),
    },
  ];
}

const us = (ms: number): string => (ms * 1000).toFixed(1);

/** The table of the rows measured: µs per call of each side, the ratios and the verdict. */
function table(results: readonly { row: Row; result: Comparison }[]): string {
  const rows = results.map(({ row, result }) => [
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
  const header = ['row', 'A CPU µs/call', 'B CPU µs/call', 'CPU B ÷ A (95 %)', 'CPU verdict'];
  header.push('A wall µs/call', 'B wall µs/call', 'wall B ÷ A (95 %)', 'pairs');
  return markdownTable(header, rows);
}

/** Runs each row (connect both sides, alternate, close), in order. */
async function measure(
  rows: readonly Row[],
  settings: { pairs: number; conversations: number; warmupPairs: number },
): Promise<{ row: Row; result: Comparison }[]> {
  const results = [];
  for (const row of rows) {
    const a = await row.a();
    const b = await row.b();
    try {
      results.push({ row, result: await alternate(a.call, b.call, settings) });
    } finally {
      await a.close();
      await b.close();
    }
    process.stderr.write(`call-tool bench: ${row.key} done\n`);
  }
  return results;
}

async function loadMcp(root: string): Promise<McpClientClass> {
  const library = await importLibrary<{ McpClient: McpClientClass }>(root, '@agcore/tools-mcp');
  if (library === undefined) throw new Error(`${root} has no @agcore/tools-mcp`);
  return library.McpClient;
}

/** The HTTP server in a child process (so its CPU is billed to neither client). */
async function startHttpServer(): Promise<{ url: string; stop: () => void }> {
  const child = fork(process.argv[1] as string, ['--server'], {
    execArgv: process.execArgv.filter((flag) => !flag.includes('gc')),
    stdio: 'inherit',
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the bench server exited with ${code}`)));
    child.once('message', (answer: { url: string }) => resolve(answer.url));
  });
  return { url, stop: () => child.kill('SIGKILL') };
}

async function main(): Promise<void> {
  const roots = libraryRoots();
  const setting = (name: string, fallback: number): number =>
    Number(flagValue(process.argv, name) ?? fallback);
  const settings = {
    pairs: Math.max(20, setting('pairs', 30)),
    conversations: setting('conversations', 100),
    warmupPairs: setting('warmup', 3),
    // `--no-collect`: no full GC before each pass (a forced GC deoptimizes hot code; see README).
    ...(process.argv.includes('--no-collect') ? { collect: null } : {}),
  };
  const only = flagValue(process.argv, 'only')?.split(',');
  const server = await startHttpServer();
  try {
    const servers = { httpUrl: server.url };
    const B = await loadMcp(roots.b);
    const all = roots.compare
      ? compareRows(await loadMcp(roots.a), B, servers)
      : baselineRows(B, servers);
    const rows = all.filter((row) => only === undefined || only.includes(row.key));
    const results = await measure(rows, settings);
    const labels = roots.compare ? `A = ${roots.a}, B = ${roots.b}` : `B = McpClient of ${roots.b}`;
    process.stdout.write(
      [
        `McpClient.callTool ('echo'), ${settings.pairs} pairs of passes of ${settings.conversations} calls after ${settings.warmupPairs} warm-up pairs${'collect' in settings ? ', no GC between passes' : ''}; ${labels}`,
        conditions(),
        '',
        table(results),
        '',
      ].join('\n'),
    );
  } finally {
    server.stop();
  }
}

if (process.argv.includes('--server')) {
  const { startModernHttp } = await import('./test-support/modern-server.js');
  const server = await startModernHttp({ legacy: 'stateless' });
  process.send?.({ url: server.url });
} else {
  main().catch((error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
