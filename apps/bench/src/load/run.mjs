// The load suite's conductor: starts the load server in its own process, then runs every
// (round, C, client) as a client process of its own, one at a time, the order of the clients
// rotating from one C and round to the next. Around each batch it reads the server's counters,
// so the connections accepted, the requests and the refusals are the batch's alone.
import { fork, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { rotate } from '../stats.mjs';
import { loadClients } from './clients.mjs';

const serverPath = fileURLToPath(new URL('./load-server.mjs', import.meta.url));
const clientPath = fileURLToPath(new URL('./load-client.mjs', import.meta.url));

/** The load server as a child process; `request('mark' | 'stats')` reads its counters. */
async function startServerProcess(delayMs) {
  const child = fork(serverPath, ['--delay', String(delayMs)], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text) => {
    stderr = (stderr + text).slice(-2000);
  });
  const pending = new Map();
  let nextId = 0;
  let exited;
  const ready = await new Promise((resolve, reject) => {
    child.on('message', (message) => {
      if (message.type === 'ready') resolve(message);
      else pending.get(message.id)?.(message.stats);
    });
    child.once('exit', (code, signal) => {
      exited = `the load server exited (${code ?? signal}): ${stderr.trim()}`;
      reject(new Error(exited));
      for (const settle of pending.values()) settle({ error: exited });
    });
  });
  return {
    ...ready,
    request: (type) =>
      new Promise((resolve) => {
        if (exited !== undefined) return resolve({ error: exited });
        const id = nextId++;
        pending.set(id, (stats) => {
          pending.delete(id);
          resolve(stats);
        });
        child.send({ id, type });
      }),
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.disconnect();
      }),
  };
}

/**
 * Spawns one client process and drives it: READY → mark the server → GO → RESULT.
 * With `openFiles`, the client runs under `ulimit -n openFiles` (through bash).
 */
function runClient(server, job, { openFiles, timeoutMs }) {
  const nodeArgs = ['--expose-gc', clientPath, JSON.stringify(job)];
  const child =
    openFiles === undefined
      ? spawn(process.execPath, nodeArgs, { stdio: ['pipe', 'pipe', 'pipe'], env: childEnv() })
      : spawn(
          'bash',
          ['-c', `ulimit -n ${openFiles} && exec "$0" "$@"`, process.execPath, ...nodeArgs],
          {
            stdio: ['pipe', 'pipe', 'pipe'],
            env: childEnv(),
          },
        );
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let before;
    let result;
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdin.on('error', () => {});
    child.stderr.setEncoding('utf8').on('data', (text) => {
      stderr = (stderr + text).slice(-2000);
    });
    child.stdout.setEncoding('utf8').on('data', async (text) => {
      stdout += text;
      if (before === undefined && stdout.includes('READY\n')) {
        before = server.request('mark');
        await before;
        child.stdin.write('GO\n');
      }
      const line = stdout.split('\n').find((row) => row.startsWith('RESULT '));
      if (line !== undefined && result === undefined) result = JSON.parse(line.slice(7));
    });
    child.on('close', async (code, signal) => {
      clearTimeout(timer);
      if (result === undefined) {
        const why =
          signal === 'SIGKILL'
            ? `timed out after ${timeoutMs} ms`
            : `exited with ${code ?? signal}`;
        result = { error: `client ${why}: ${stderr.trim().slice(-600)}` };
      }
      if (before !== undefined && result.error === undefined) {
        const [start, end] = [await before, await server.request('stats')];
        if (start.error || end.error) {
          resolve({ error: start.error ?? end.error });
          return;
        }
        result.server = {
          socketsOpened: end.accepted - start.accepted,
          peakOpen: end.peakOpen,
          requests: end.requests - start.requests,
          refused: end.refused - start.refused,
          cpuMs: end.cpuMs - start.cpuMs,
          lastRefusal: end.refused > start.refused ? end.lastRefusal : undefined,
        };
      }
      resolve(result);
    });
  });
}

function childEnv() {
  return { ...process.env, OPENAI_AGENTS_DISABLE_TRACING: '1' };
}

/**
 * Runs the load suite.
 * @param {object} plan `{ concurrency: number[], clients: string[], rounds, warmup, delayMs,
 *   timeoutMs, limited: { clients: string[], concurrency, openFiles, rounds } }`
 * @param {{ log?: (message: string) => void, clients?: Record<string, { module: string, method: string }> }} [options]
 *   `clients` adds or replaces client definitions (tests use it for fixtures)
 * @returns {Promise<{ plan: object, runs: object[] }>} one run per (round, C, client), each
 *   with its batch figures and the server's counters for it, or `error`
 */
export async function runLoadSuite(plan, options = {}) {
  const log = options.log ?? (() => {});
  const clients = { ...loadClients, ...options.clients };
  const server = await startServerProcess(plan.delayMs);
  const runs = [];
  const timeoutMs = plan.timeoutMs + 60_000;
  const one = async (round, name, concurrency, openFiles) => {
    const client = clients[name];
    if (client === undefined) throw new Error(`unknown load client '${name}'`);
    const job = {
      ...client,
      baseURL: server.baseURL,
      warmBaseURL: server.warmBaseURL,
      concurrency,
      warmup: plan.warmup,
      timeoutMs: plan.timeoutMs,
    };
    const result = await runClient(server, job, { openFiles, timeoutMs });
    runs.push({ round, client: name, concurrency, openFiles, ...result });
  };
  try {
    let step = 0;
    for (let round = 0; round < plan.rounds; round++) {
      for (const concurrency of plan.concurrency) {
        log(`load: round ${round + 1}/${plan.rounds}, C = ${concurrency}`);
        for (const name of rotate(plan.clients, step++)) await one(round, name, concurrency);
      }
    }
    const limited = plan.limited;
    for (let round = 0; limited !== undefined && round < limited.rounds; round++) {
      log(
        `load: round ${round + 1}/${limited.rounds}, C = ${limited.concurrency} under ulimit -n ${limited.openFiles}`,
      );
      for (const name of rotate(limited.clients, step++))
        await one(round, name, limited.concurrency, limited.openFiles);
    }
  } finally {
    await server.close();
  }
  return { plan, runs };
}
