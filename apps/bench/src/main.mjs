// The peer comparison (run under Node 22 by launch.mjs). This process hosts the scripted Chat
// Completions server; every measurement runs in a child process under the same Node binary:
// timing suites run all frameworks in one child, interleaved conversation by conversation (same warm-up,
// same machine state), and peak-memory / scale suites run one child per framework so each
// figure is that framework's alone.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChatServer } from './chat-server.mjs';
import { describe } from './errors.mjs';
import { loadReadmeRow } from './load/report.mjs';
import { runLoadSuite } from './load/run.mjs';
import { ECHO_TEXT } from './mcp/server.mjs';
import { keepOtherSuites, suiteNames } from './previous-run.mjs';
import { renderReport } from './report.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const appRoot = join(here, '..');
const repoRoot = join(appRoot, '..', '..');

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const onlyIndex = args.indexOf('--only');
const only = onlyIndex === -1 ? undefined : new Set(args[onlyIndex + 1].split(','));
for (const name of only ?? []) {
  if (!suiteNames.includes(name)) {
    process.stderr.write(
      `[bench] unknown suite '${name}' in --only; the suites: ${suiteNames.join(', ')}\n`,
    );
    process.exit(1);
  }
}
const outIndex = args.indexOf('--out');
const outPath = outIndex === -1 ? join(repoRoot, 'docs', 'benchmarks.md') : args[outIndex + 1];

/** The load suite's plan: every client at each C, then C = 1 000 under `ulimit -n 1024`. */
function loadPlan({ concurrency, rounds, warmup, limitedRounds }) {
  return {
    concurrency,
    clients: ['bare', 'sse', 'agcore', 'agcore-stream', 'ai-sdk', 'openai-agents'],
    rounds,
    warmup,
    delayMs: 20,
    timeoutMs: 120_000,
    limited: {
      clients: ['bare', 'sse', 'agcore', 'agcore-stream'],
      concurrency: 1000,
      openFiles: 1024,
      rounds: limitedRounds,
    },
  };
}

/** Work per suite: the full run takes a few minutes on 2 cores; --quick is a smoke run. */
const plan = quick
  ? {
      loop: { warmup: 5, rounds: 3, batch: 5 },
      stream: { warmup: 2, rounds: 3, batch: 3, longBatch: 1 },
      memory: { count: 30 },
      mcp: { warmup: 20, rounds: 3, sequential: 50, concurrent: 200 },
      load: loadPlan({ concurrency: [1, 50, 200], rounds: 1, warmup: 10, limitedRounds: 1 }),
    }
  : {
      loop: { warmup: 100, rounds: 21, batch: 40 },
      stream: { warmup: 20, rounds: 21, batch: 20, longBatch: 3 },
      memory: { count: 500 },
      mcp: { warmup: 500, rounds: 15, sequential: 300, concurrent: 200 },
      load: loadPlan({ concurrency: [1, 50, 200, 1000], rounds: 3, warmup: 50, limitedRounds: 2 }),
    };

const frameworks = ['bare', 'agcore', 'ai-sdk', 'openai-agents'];
const mcpClients = [
  'bare-jsonrpc',
  'raw-sdk',
  'agcore-client',
  'agcore-tool',
  'ai-sdk-mcp',
  'langchain',
];

function log(message) {
  process.stderr.write(`[bench] ${message}\n`);
}

/** Runs one job in a child process; resolves to its RESULT, or { error } (never rejects). */
function runWorker(job, timeoutMs = 300_000) {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', join(here, 'worker.mjs'), JSON.stringify(job)],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, OPENAI_AGENTS_DISABLE_TRACING: '1' },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text) => {
      stdout += text;
    });
    child.stderr.setEncoding('utf8').on('data', (text) => {
      stderr = (stderr + text).slice(-4000);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.split('\n').findLast((text) => text.startsWith('RESULT '));
      if (line === undefined) {
        const why =
          signal === 'SIGKILL'
            ? `timed out after ${timeoutMs} ms`
            : `exited with ${code ?? signal}`;
        resolve({ error: `worker ${why}: ${stderr.trim().slice(-800)}` });
        return;
      }
      resolve(JSON.parse(line.slice('RESULT '.length)));
    });
  });
}

function wanted(suite) {
  return only === undefined || only.has(suite);
}

function versionOf(name) {
  try {
    return JSON.parse(readFileSync(join(appRoot, 'node_modules', name, 'package.json'), 'utf8'))
      .version;
  } catch {
    return 'not installed';
  }
}

const started = Date.now();
const machine = {
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model ?? 'unknown',
  memoryGiB: totalmem() / 2 ** 30,
  node: process.version,
  platform: `${process.platform} ${release()} ${process.arch}`,
  loadAtStart: loadavg(),
};
log(
  `Node ${process.version}, ${machine.cpus} cores, load ${machine.loadAtStart.map((n) => n.toFixed(2)).join(' ')}`,
);

const server = await startChatServer();
const results = { plan, machine, quick };
try {
  if (wanted('loop')) {
    log('1/5 tool loop: timing (all frameworks interleaved in one process)');
    results.loop = await runWorker({
      suite: 'loop',
      baseURL: server.baseURL,
      frameworks,
      ...plan.loop,
    });
    results.loopMemory = {};
    for (const framework of frameworks) {
      if (results.loop.failures?.[framework]) continue;
      log(`1/5 tool loop: peak memory of ${framework} (own process)`);
      results.loopMemory[framework] = await runWorker({
        suite: 'memory',
        mode: 'loop',
        baseURL: server.baseURL,
        framework,
        ...plan.memory,
      });
    }
  }
  if (wanted('stream')) {
    log('2/5 streaming: timing (all frameworks interleaved in one process)');
    results.stream = await runWorker({
      suite: 'stream',
      baseURL: server.baseURL,
      frameworks,
      ...plan.stream,
    });
  }
  if (wanted('mcp')) {
    log('3/5 MCP: server-everything over stdio, every client in one process');
    results.mcp = await runWorker({
      suite: 'mcp',
      clients: mcpClients,
      expected: ECHO_TEXT,
      ...plan.mcp,
    });
  }
  if (wanted('scale')) {
    results.scale = {};
    for (const framework of frameworks) {
      log(`4/5 scale: ${framework}, 200 tools, 1000 turns (own process)`);
      results.scale[framework] = await runWorker(
        { suite: 'scale', baseURL: server.baseURL, framework },
        quick ? 120_000 : 300_000,
      );
    }
  }
  if (wanted('load')) {
    log('5/5 load: C conversations at once, each client in its own process, the server in another');
    try {
      results.load = await runLoadSuite(plan.load, { log });
    } catch (error) {
      results.load = { error: describe(error) };
    }
  }
} finally {
  results.serverStats = { ...server.stats };
  await server.close();
}
results.durationS = (Date.now() - started) / 1000;
results.date = new Date(started).toISOString();
results.machine.loadAtEnd = loadavg();

const versions = Object.fromEntries(
  [
    '@agcore/llm-cycle',
    '@agcore/tools-mcp',
    '@agcore/tools-registry',
    '@agcore/tools-core',
    'ai',
    '@ai-sdk/openai-compatible',
    '@openai/agents',
    'openai',
    'zod',
    '@modelcontextprotocol/sdk',
    '@ai-sdk/mcp',
    '@langchain/mcp-adapters',
    '@langchain/core',
    '@langchain/langgraph',
    '@modelcontextprotocol/server-everything',
  ].map((name) => [name, versionOf(name)]),
);
results.versions = versions;

/** A hand-written part of the report, empty when its file is missing. */
function handWritten(name) {
  try {
    return readFileSync(join(here, name), 'utf8');
  } catch {
    return '';
  }
}
const reading = handWritten('reading.md');
const method = handWritten('method.md');
if (only !== undefined) keepOtherSuites(results, outPath, only);
const markdown = renderReport(results, reading, method);
mkdirSync(dirname(outPath), { recursive: true });
writeFileSync(outPath, markdown);
log(`wrote ${outPath} in ${results.durationS.toFixed(0)} s`);
process.stdout.write(`${markdown.split('\n## Reading')[0]}\n`);
const readmeRow = loadReadmeRow(results.load);
if (readmeRow !== undefined && results.kept?.suites.includes('load') !== true)
  log(`the root README's "How fast" row for this run:\n${readmeRow}`);
if (results.serverStats.errors > 0)
  log(
    `the scripted server refused ${results.serverStats.errors} requests: ${results.serverStats.lastError}`,
  );
