// One client of the load suite, in its own process (Node 22, --expose-gc; under
// `ulimit -n 1024` for the limited runs). The job comes as JSON in argv[2]:
//   { module, method, baseURL, warmBaseURL, concurrency, warmup, timeoutMs }
// It creates the client once (one provider, tool set or agent for the process), warms it up
// and checks its answer, prints `READY`, waits for `GO` on stdin (the parent marks the
// server's counters in between), runs one batch with that same client and prints
// `RESULT <json>` as its last line.
import { readFileSync } from 'node:fs';
import { describe } from '../errors.mjs';
import { loopAnswer } from '../scenario.mjs';
import { runBatch } from './batch.mjs';

const job = JSON.parse(process.argv[2] ?? '{}');

/** The soft limit on open files of this process (Linux), or undefined. */
function openFilesLimit() {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((text) => text.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    return soft === undefined || soft === 'unlimited' ? soft : Number(soft);
  } catch {
    return undefined;
  }
}

/**
 * The `fetch` given to the client: the global one, except that during the warm-up it sends
 * each request to the warm-up port. That is another origin, so the warm-up leaves no pooled
 * connection for the batch, while the client that runs the batch is the one that warmed up.
 */
function routingFetch(state) {
  const from = new URL(job.baseURL).origin;
  const to = new URL(job.warmBaseURL).origin;
  return (input, init) => {
    if (!state.warming) return fetch(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : '';
    if (!url.startsWith(from))
      throw new Error(`warm-up: cannot route a fetch of ${String(input)} to the warm-up port`);
    return fetch(to + url.slice(from.length), init);
  };
}

function waitForGo() {
  return new Promise((resolve, reject) => {
    let input = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (text) => {
      input += text;
      if (input.includes('GO\n')) {
        process.stdin.pause();
        resolve();
      }
    });
    process.stdin.once('end', () => reject(new Error('stdin closed before GO')));
  });
}

let result;
try {
  // Read now: with the batch's sockets open there may be no descriptor left to read it.
  const limit = openFilesLimit();
  const state = { warming: true };
  const module = await import(job.module);
  const client = await module.create({ baseURL: job.baseURL, fetch: routingFetch(state) });
  const method = client[job.method];
  if (typeof method !== 'function') throw new Error(`${job.module} has no method ${job.method}`);
  // The streaming adapters take a text callback; the others ignore the argument.
  const conversation = () => method.call(client, () => {});
  for (let index = 0; index < Math.max(1, job.warmup); index++) {
    const text = await conversation();
    if (text !== loopAnswer)
      throw new Error(
        `warm-up: wrong answer (${String(text).length} chars): ${String(text).slice(0, 80)}`,
      );
  }
  state.warming = false;
  process.stdout.write('READY\n');
  await waitForGo();
  result = await runBatch(conversation, {
    concurrency: job.concurrency,
    expected: loopAnswer,
    timeoutMs: job.timeoutMs,
  });
  result.openFilesLimit = limit;
} catch (error) {
  result = { error: describe(error) };
}
process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
process.exit(0);
