// One measurement, in a child process of the bench (Node 22, --expose-gc). The parent passes
// the job as JSON in argv[2]; the worker prints `RESULT <json>` as its last stdout line.
// Frameworks that fail to load or to complete the script are reported, never skipped silently.

import { describe } from './errors.mjs';
import { LONG_DELTAS, longAnswer, loopAnswer, SCALE_TURNS, scaleAnswer } from './scenario.mjs';
import { rotate } from './stats.mjs';

const job = JSON.parse(process.argv[2] ?? '{}');

const gc = globalThis.gc ?? (() => {});

/** The time the last `fetch` of a framework got its response headers (the first byte). */
const marks = { responseAt: 0, requestStarts: [] };

function timedFetch(input, init) {
  marks.requestStarts.push(performance.now());
  return fetch(input, init).then((response) => {
    marks.responseAt = performance.now();
    return response;
  });
}

async function loadFramework(name) {
  const module = await import(`./frameworks/${name}.mjs`);
  return module.create({ baseURL: job.baseURL, fetch: timedFetch });
}

async function loadMcpClient(name) {
  const module = await import(`./mcp/${name}.mjs`);
  return module.create();
}

function expectText(name, what, got, expected) {
  if (got !== expected) {
    throw new Error(
      `${name} ${what}: wrong answer (${String(got).length} chars, expected ${expected.length}): ${String(got).slice(0, 80)}`,
    );
  }
}

/** Loads each framework and runs its warm-up; returns { ready: Map, failures: {} }. */
async function prepare(names, warm) {
  const ready = new Map();
  const failures = {};
  for (const name of names) {
    try {
      const framework = await loadFramework(name);
      await warm(name, framework);
      ready.set(name, framework);
    } catch (error) {
      failures[name] = describe(error);
    }
  }
  return { ready, failures };
}

/**
 * One round of `job.batch` runs per framework, the frameworks alternating run by run (the order
 * rotating each time). Returns each framework's summed wall and CPU milliseconds.
 */
async function alternate(names, round, run) {
  const totals = new Map(names.map((name) => [name, { ms: 0, cpuMs: 0 }]));
  for (let index = 0; index < job.batch; index++) {
    for (const name of rotate(names, round + index)) {
      const total = totals.get(name);
      const cpu = process.cpuUsage();
      const start = performance.now();
      await run(name);
      total.ms += performance.now() - start;
      const used = process.cpuUsage(cpu);
      total.cpuMs += (used.user + used.system) / 1000;
    }
  }
  return totals;
}

async function loopSuite() {
  const { ready, failures } = await prepare(job.frameworks, async (name, framework) => {
    expectText(name, 'loop', await framework.loop(), loopAnswer);
    for (let index = 0; index < job.warmup; index++) await framework.loop();
  });
  const results = Object.fromEntries(
    [...ready.keys()].map((name) => [name, { msPerRun: [], cpuMsPerRun: [] }]),
  );
  // Frameworks alternate conversation by conversation (the order rotating each time), so that
  // one framework's garbage, JIT state and connection state land evenly on all of them:
  // measured in blocks, two identical loops came out up to 20 % apart by position alone.
  const names = [...ready.keys()];
  for (let round = 0; round < job.rounds; round++) {
    gc();
    const totals = await alternate(names, round, (name) => ready.get(name).loop());
    for (const [name, total] of totals) {
      results[name].msPerRun.push(total.ms / job.batch);
      results[name].cpuMsPerRun.push(total.cpuMs / job.batch);
    }
  }
  return { results, failures };
}

async function streamSuite() {
  const { ready, failures } = await prepare(job.frameworks, async (name, framework) => {
    let deltas = 0;
    expectText(name, 'streamed loop', await framework.streamLoop(() => deltas++), loopAnswer);
    if (deltas < 10)
      throw new Error(`${name}: the answer came in ${deltas} text deltas, not streamed`);
    expectText(name, 'long reply', await framework.streamLong(() => {}), longAnswer);
    for (let index = 0; index < job.warmup; index++) {
      await framework.streamLoop(() => {});
      await framework.streamLong(() => {});
    }
  });
  const results = Object.fromEntries(
    [...ready.keys()].map((name) => [
      name,
      { msPerRun: [], cpuMsPerRun: [], firstDeltaMs: [], eventsPerSecond: [] },
    ]),
  );
  // The streamed conversations alternate one by one, as in the tool loop; the long replies
  // (which measure throughput and the first delta) follow per framework.
  const names = [...ready.keys()];
  for (let round = 0; round < job.rounds; round++) {
    gc();
    const totals = await alternate(names, round, (name) => ready.get(name).streamLoop(() => {}));
    for (const name of rotate(names, round)) {
      const framework = ready.get(name);
      const result = results[name];
      const total = totals.get(name);
      result.msPerRun.push(total.ms / job.batch);
      result.cpuMsPerRun.push(total.cpuMs / job.batch);
      for (let index = 0; index < job.longBatch; index++) {
        let firstAt = 0;
        let count = 0;
        await framework.streamLong(() => {
          if (count++ === 0) firstAt = performance.now();
        });
        const end = performance.now();
        if (count !== LONG_DELTAS)
          throw new Error(`${name}: ${count} text deltas, expected ${LONG_DELTAS}`);
        result.firstDeltaMs.push(firstAt - marks.responseAt);
        result.eventsPerSecond.push(count / ((end - marks.responseAt) / 1000));
      }
    }
  }
  return { results, failures };
}

async function memorySuite() {
  const name = job.framework;
  const framework = await loadFramework(name);
  const run = job.mode === 'stream' ? () => framework.streamLoop(() => {}) : () => framework.loop();
  const first = await run();
  expectText(name, job.mode, first, loopAnswer);
  gc();
  const baseline = process.memoryUsage().heapUsed;
  let peakHeap = baseline;
  for (let index = 0; index < job.count; index++) {
    await run();
    const heap = process.memoryUsage().heapUsed;
    if (heap > peakHeap) peakHeap = heap;
  }
  gc();
  const retained = process.memoryUsage().heapUsed - baseline;
  return {
    framework: name,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    peakHeapAboveBaselineMb: (peakHeap - baseline) / 2 ** 20,
    retainedAfterGcMb: retained / 2 ** 20,
    baselineHeapMb: baseline / 2 ** 20,
  };
}

async function scaleSuite() {
  const name = job.framework;
  const framework = await loadFramework(name);
  gc();
  const baseline = process.memoryUsage().heapUsed;
  let peakHeap = baseline;
  const sampler = setInterval(() => {
    const heap = process.memoryUsage().heapUsed;
    if (heap > peakHeap) peakHeap = heap;
  }, 20);
  marks.requestStarts = [];
  const start = performance.now();
  const cpu = process.cpuUsage();
  let answer;
  try {
    answer = await framework.scale();
  } finally {
    clearInterval(sampler);
  }
  const end = performance.now();
  const used = process.cpuUsage(cpu);
  expectText(name, 'scale', answer, scaleAnswer);
  const starts = marks.requestStarts;
  if (starts.length !== SCALE_TURNS + 1)
    throw new Error(`${name}: ${starts.length} requests, expected ${SCALE_TURNS + 1}`);
  // Turn i lasts from request i to request i+1 (its tool call and the next request's building).
  const turnMs = (from, to) => {
    const durations = [];
    for (let index = from; index < to; index++) durations.push(starts[index + 1] - starts[index]);
    durations.sort((a, b) => a - b);
    return durations[durations.length >> 1];
  };
  const heapAtEnd = process.memoryUsage().heapUsed;
  return {
    framework: name,
    totalMs: end - start,
    cpuMs: (used.user + used.system) / 1000,
    firstTurnsMs: turnMs(0, 100),
    middleTurnsMs: turnMs(450, 550),
    lastTurnsMs: turnMs(SCALE_TURNS - 100, SCALE_TURNS),
    peakHeapAboveBaselineMb: (peakHeap - baseline) / 2 ** 20,
    heapAtEndAboveBaselineMb: (heapAtEnd - baseline) / 2 ** 20,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  };
}

async function mcpSuite() {
  const ready = new Map();
  const failures = {};
  for (const name of job.clients) {
    try {
      const client = await loadMcpClient(name);
      ready.set(name, client);
      const text = await client.call();
      if (text !== job.expected) throw new Error(`${name}: echo answered ${JSON.stringify(text)}`);
      for (let index = 0; index < job.warmup; index++) await client.call();
      await Promise.all(Array.from({ length: job.concurrent }, () => client.call()));
    } catch (error) {
      failures[name] = describe(error);
      const client = ready.get(name);
      ready.delete(name);
      await client?.close().catch(() => {});
    }
  }
  const results = Object.fromEntries(
    [...ready.keys()].map((name) => [
      name,
      { msPerCall: [], cpuMsPerCall: [], concurrentCallsPerSecond: [] },
    ]),
  );
  for (let round = 0; round < job.rounds; round++) {
    for (const name of rotate([...ready.keys()], round)) {
      const client = ready.get(name);
      const result = results[name];
      gc();
      const cpu = process.cpuUsage();
      let start = performance.now();
      for (let index = 0; index < job.sequential; index++) await client.call();
      const elapsed = performance.now() - start;
      const used = process.cpuUsage(cpu);
      result.msPerCall.push(elapsed / job.sequential);
      result.cpuMsPerCall.push((used.user + used.system) / 1000 / job.sequential);
      start = performance.now();
      const texts = await Promise.all(Array.from({ length: job.concurrent }, () => client.call()));
      const total = performance.now() - start;
      if (texts.some((text) => text !== job.expected))
        throw new Error(`${name}: a concurrent echo answered wrong`);
      result.concurrentCallsPerSecond.push(job.concurrent / (total / 1000));
    }
  }
  for (const client of ready.values()) await client.close().catch(() => {});
  return { results, failures };
}

const suites = {
  loop: loopSuite,
  stream: streamSuite,
  memory: memorySuite,
  scale: scaleSuite,
  mcp: mcpSuite,
};

try {
  const suite = suites[job.suite];
  if (suite === undefined) throw new Error(`unknown suite '${job.suite}'`);
  const result = await suite();
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  process.exit(0);
} catch (error) {
  process.stdout.write(`RESULT ${JSON.stringify({ error: describe(error) })}\n`);
  process.exit(0);
}
