// The worst cases of issue 9 section 2 and 4, each measured once per call of these functions.
import { execFileSync } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { ToolRegistry } from '@agcore/tools-registry';

const echo = (name, parameters) => ({
  name,
  description: 'echoes',
  parameters,
  execute: async (args) => args,
});

/** Milliseconds of one invoke of a tool whose pattern is ^(a+)+$ on `length` a's and a '!'. */
export async function exponentialPattern(length) {
  const registry = new ToolRegistry().register(
    echo('redos', {
      type: 'object',
      properties: { text: { type: 'string', pattern: '^(a+)+$' } },
    }),
  );
  const start = performance.now();
  const invocation = await registry.invoke('redos', { text: `${'a'.repeat(length)}!` });
  const ms = performance.now() - start;
  if (invocation.output.ok) throw new Error('bench: the pattern should not match');
  return ms;
}

/** Twenty definitions, each anyOf of two $refs to the next. */
export function chainedAnyOf(length) {
  const definitions = { [`d${length}`]: { type: 'string' } };
  for (let index = 0; index < length; index++) {
    const next = { $ref: `#/definitions/d${index + 1}` };
    definitions[`d${index}`] = { anyOf: [next, next] };
  }
  return {
    type: 'object',
    definitions,
    properties: { value: { $ref: '#/definitions/d0' } },
  };
}

/** Registers the chain and validates one bad value: { ms, outcome, heapMb }. */
export async function chainedRefs(length) {
  const heapBefore = process.memoryUsage().heapUsed;
  const start = performance.now();
  let outcome;
  try {
    const registry = new ToolRegistry().register(echo('chain', chainedAnyOf(length)));
    const invocation = await registry.invoke('chain', { value: 42 });
    outcome = invocation.output.ok ? 'ok' : invocation.output.error.code;
  } catch (error) {
    outcome = `refused at register (${error.code})`;
  }
  const ms = performance.now() - start;
  const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
  return { ms, outcome, heapMb };
}

function collect() {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  gc();
  gc();
}

/** 10 000 concurrent invokes sharing one caller signal: warnings, ms, retained heap. */
export async function sharedSignal(count) {
  const warnings = [];
  const onWarning = (warning) => warnings.push(warning.name);
  process.on('warning', onWarning);
  const registry = new ToolRegistry().register({
    name: 'wait',
    description: 'waits a tick, watching its signal',
    parameters: { type: 'object' },
    execute: (_args, { signal }) =>
      new Promise((resolve) => {
        signal.addEventListener('abort', () => resolve('aborted'), { once: true });
        setImmediate(() => resolve('done'));
      }),
  });
  const controller = new AbortController();
  collect();
  const heapBefore = process.memoryUsage().heapUsed;
  const start = performance.now();
  const all = [];
  for (let index = 0; index < count; index++) {
    all.push(registry.invoke('wait', {}, { signal: controller.signal }));
  }
  const listeners = getEventListeners(controller.signal, 'abort').length;
  let results = await Promise.all(all);
  const ms = performance.now() - start;
  const failed = results.some((result) => !result.output.ok);
  // What is measured is what the registry keeps, not the invocations this function holds.
  all.length = 0;
  results = undefined;
  await new Promise((resolve) => setImmediate(resolve));
  collect();
  const retainedKb = (process.memoryUsage().heapUsed - heapBefore) / 1024;
  process.off('warning', onWarning);
  if (failed) throw new Error('bench: a wait call failed');
  return { ms, warnings: warnings.length, retainedKb, listeners };
}

/** 100 000 calls, each with its own timeoutMs: heap retained after they settle. */
export async function distinctTimeouts(count) {
  const registry = new ToolRegistry().register({
    name: 'quick',
    description: 'returns at once',
    parameters: { type: 'object' },
    execute: async () => 1,
  });
  collect();
  const heapBefore = process.memoryUsage().heapUsed;
  for (let index = 0; index < count; index++) {
    await registry.invoke('quick', {}, { timeoutMs: 10_000 + index });
  }
  collect();
  return (process.memoryUsage().heapUsed - heapBefore) / 1024;
}

/** Median and best of `runs` cold starts (fresh processes of this Node). */
export function coldStart(runs) {
  const script = fileURLToPath(new URL('./cold-start.mjs', import.meta.url));
  const samples = [];
  for (let run = 0; run < runs; run++) {
    samples.push(JSON.parse(execFileSync(process.execPath, [script], { encoding: 'utf8' })));
  }
  samples.sort((a, b) => a.totalMs - b.totalMs);
  return { median: samples[Math.floor(runs / 2)], best: samples[0] };
}

/**
 * A validation that runs out of its budget: 2 000 items, each checked against `not` an 11-deep
 * chain (every path of the chain is tried, and each item passes, so nothing stops early).
 */
export async function exhaustedBudget() {
  const chain = chainedAnyOf(11);
  const registry = new ToolRegistry().register(
    echo('budget', {
      type: 'object',
      definitions: chain.definitions,
      properties: { items: { type: 'array', items: { not: { $ref: '#/definitions/d0' } } } },
    }),
  );
  const start = performance.now();
  const invocation = await registry.invoke('budget', { items: new Array(2000).fill(42) });
  const ms = performance.now() - start;
  return { ms, outcome: invocation.output.ok ? 'ok' : invocation.output.error.message };
}
