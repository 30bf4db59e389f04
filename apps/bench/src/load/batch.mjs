// One measured batch: C conversations started at once in this process, and what it cost
// this process (time, latency, errors, event-loop delay, launch block, CPU, memory).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { describe } from '../errors.mjs';
import { quantile } from '../stats.mjs';

const gc = globalThis.gc ?? (() => {});

/** The heap in use; `process.memoryUsage()` would need a free file descriptor (it reads /proc). */
const heapUsed = () => getHeapStatistics().used_heap_size;

/** The first `code` along an error's cause chain (`EMFILE`, `ECONNRESET`, …), else its name. */
function codeOf(error) {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (typeof current.code === 'string' && /^E[A-Z]+$/.test(current.code)) return current.code;
    current = current.cause;
  }
  return error instanceof Error ? error.name : typeof error;
}

function settleAll(promises, timeoutMs) {
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  return Promise.race([Promise.allSettled(promises), timeout]).finally(() => clearTimeout(timer));
}

/** Errors of a batch: `{ count, first, codes }`, and `fail(error)` that counts one. */
function errorTally() {
  const errors = { count: 0, first: undefined, codes: {} };
  const fail = (error) => {
    errors.count++;
    errors.first ??= describe(error);
    const code = codeOf(error);
    errors.codes[code] = (errors.codes[code] ?? 0) + 1;
  };
  return { errors, fail };
}

/**
 * Calls `conversation()` `concurrency` times in one synchronous loop; each completed one adds
 * its latency to `latencies`, each failure goes to `fail`. Returns the conversations' promises.
 */
function launch(conversation, concurrency, expected, latencies, fail) {
  const promises = new Array(concurrency);
  for (let index = 0; index < concurrency; index++) {
    const begun = performance.now();
    let promise;
    try {
      promise = Promise.resolve(conversation());
    } catch (error) {
      promise = Promise.reject(error);
    }
    promises[index] = promise.then((text) => {
      if (text !== expected)
        throw new Error(
          `wrong answer (${String(text).length} chars): ${String(text).slice(0, 80)}`,
        );
      latencies.push(performance.now() - begun);
    });
    promises[index].catch(fail);
  }
  return promises;
}

/**
 * Starts `concurrency` conversations at once (each a call of `conversation()`, synchronously
 * one after the other, as a server handling a burst would) and waits for them all.
 * A conversation counts as completed when it resolves to `expected`; anything else (a
 * rejection, a wrong answer, not settling within `timeoutMs`) is an error.
 * @returns {Promise<object>} the figures of the batch (milliseconds, MB, KB)
 */
export async function runBatch(conversation, { concurrency, expected, timeoutMs = 120_000 }) {
  gc();
  gc();
  const heapBefore = heapUsed();
  const latencies = [];
  const { errors, fail } = errorTally();
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  let launchBlockMs = Number.NaN;
  loopDelay.enable();
  const cpu = process.cpuUsage();
  const start = performance.now();
  // Two launch figures: how long the C calls take to return (their synchronous part), and how
  // long until the first macrotask runs (that, plus the microtasks they queued).
  setImmediate(() => {
    launchBlockMs = performance.now() - start;
  });
  let promises = launch(conversation, concurrency, expected, latencies, fail);
  const launchCallsMs = performance.now() - start;
  const outcome = await settleAll(promises, timeoutMs);
  const batchMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  loopDelay.disable();
  if (outcome === undefined) {
    const hung = concurrency - latencies.length - errors.count;
    errors.count += hung;
    errors.first ??= `${hung} conversations did not finish within ${timeoutMs} ms`;
    errors.codes.hung = hung;
  }
  promises = undefined;
  // Let the client put its connections back before measuring what it holds on to.
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  gc();
  const retained = heapUsed() - heapBefore;
  return {
    concurrency,
    completed: latencies.length,
    errors,
    batchMs,
    conversationsPerSecond: latencies.length / (batchMs / 1000),
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    maxMs: quantile(latencies, 1),
    launchCallsMs,
    launchBlockMs,
    loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
    loopDelayMaxMs: loopDelay.max / 1e6,
    cpuMsPerConversation: (used.user + used.system) / 1000 / concurrency,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    retainedKbPerConversation: retained / 1024 / concurrency,
  };
}
