// Benchmarks of @agcore/tools-registry, measured against baselines run in the same process.
// Run: pnpm bench (builds first). Prints a table; targets from the issue are shown beside.
import { createToolContext, defineTool, Permission } from '@agcore/tools-core';
import { PermissionChecker } from '@agcore/tools-permission';
import { ToolRegistry } from '@agcore/tools-registry';
import { invokeAfterIo } from './after-io.mjs';
import { hookOverhead } from './audit.mjs';
import {
  chainedRefs,
  coldStart,
  distinctTimeouts,
  exhaustedBudget,
  exponentialPattern,
  sharedSignal,
} from './hostile.mjs';

const rounds = 7;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function nsPerCall(iterations, body) {
  const samples = [];
  for (let round = 0; round < rounds; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) await body(i);
    samples.push(Number(process.hrtime.bigint() - start) / iterations);
  }
  return median(samples);
}

const trivial = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  parameters: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  },
  requiredPermissions: [Permission.Read],
  execute: async ({ a, b }) => a + b,
});
const registry = new ToolRegistry()
  .withPermissionChecker(new PermissionChecker())
  .register(trivial);
const args = { a: 1, b: 2 };
const context = createToolContext();

// Check the path really validates and checks permissions before timing it.
const check = await registry.invoke('add', { a: 1 });
if (check.output.ok || check.output.error.code !== 'invalid_arguments') {
  throw new Error('benchmark set-up: validation is not running');
}

// The options LlmCycle passes on every tool call: its tool timeout, the run's signal, the ids.
const loopSignal = new AbortController().signal;
const loopOptions = {
  timeoutMs: 60_000,
  signal: loopSignal,
  context: { sessionId: 'session-1', traceId: 'trace-1', toolCallId: 'call_1' },
};

const iterations = 200_000;
await nsPerCall(20_000, () => trivial.execute(args, context));
await nsPerCall(20_000, () => registry.invoke('add', args));
await nsPerCall(20_000, () => registry.invoke('add', args, loopOptions));
// Interleave baseline and subjects so drift hits all.
const direct = [];
const invoke = [];
const loopInvoke = [];
for (let i = 0; i < 3; i++) {
  direct.push(await nsPerCall(iterations, () => trivial.execute(args, context)));
  invoke.push(await nsPerCall(iterations, () => registry.invoke('add', args)));
  loopInvoke.push(await nsPerCall(iterations, () => registry.invoke('add', args, loopOptions)));
}
const directNs = median(direct);
const invokeNs = median(invoke);
const loopInvokeNs = median(loopInvoke);

const afterIo = await invokeAfterIo(4000);
const audit = await hookOverhead(nsPerCall, 50_000);

const waitMs = 20;
const sleeper = (name) =>
  defineTool({
    name,
    description: `waits ${waitMs} ms`,
    parameters: { type: 'object' },
    execute: (_args, { signal }) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve(name), waitMs);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
      }),
  });
const batchRegistry = new ToolRegistry();
for (let i = 0; i < 100; i++) batchRegistry.register(sleeper(`wait_${i}`));
const calls = Array.from({ length: 100 }, (_, i) => ({
  name: `wait_${i}`,
  args: {},
  callId: `c${i}`,
}));
async function timeMs(body) {
  const start = performance.now();
  await body();
  return performance.now() - start;
}
await batchRegistry.invokeAll(calls);
const single = [];
const batch = [];
for (let round = 0; round < rounds; round++) {
  single.push(await timeMs(() => batchRegistry.invoke('wait_0', {})));
  batch.push(await timeMs(() => batchRegistry.invokeAll(calls)));
}
const singleMs = median(single);
const batchMs = median(batch);

const rows = [
  ['execute() directly (baseline)', `${directNs.toFixed(0)} ns/call`, '', ''],
  [
    'invoke(): lookup + permission + schema + timeout',
    `${invokeNs.toFixed(0)} ns/call`,
    `+${((invokeNs - directNs) / 1000).toFixed(2)} µs, ${(invokeNs / directNs).toFixed(2)}x`,
    '<= +2 µs',
  ],
  [
    "invoke() with the loop's options (timeoutMs, signal, ids)",
    `${loopInvokeNs.toFixed(0)} ns/call`,
    `+${((loopInvokeNs - directNs) / 1000).toFixed(2)} µs, ${(loopInvokeNs / directNs).toFixed(2)}x`,
    '',
  ],
  [
    'the same, first call after an HTTP round trip',
    `${afterIo.firstUs.toFixed(1)} µs/call`,
    `execute() there ${afterIo.directUs.toFixed(1)} µs; 2nd invoke ${afterIo.secondUs.toFixed(1)} µs`,
    '',
  ],
  [
    'invoke() of add, no hook (baseline of the next row)',
    `${audit.plainAddNs.toFixed(0)} ns/call`,
    `+${((audit.plainAddNs - directNs) / 1000).toFixed(2)} µs over execute()`,
    '',
  ],
  [
    'the same with an onInvocation hook (record copied)',
    `${audit.hookedAddNs.toFixed(0)} ns/call`,
    `+${((audit.hookedAddNs - audit.plainAddNs) / 1000).toFixed(2)} µs, ${(audit.hookedAddNs / audit.plainAddNs).toFixed(2)}x`,
    '',
  ],
  [
    'invoke() returning 100 records (~10 KB), no hook',
    `${(audit.plainSearchNs / 1000).toFixed(2)} µs/call`,
    '',
    '',
  ],
  [
    'the same with an onInvocation hook (record copied)',
    `${(audit.hookedSearchNs / 1000).toFixed(2)} µs/call`,
    `+${((audit.hookedSearchNs - audit.plainSearchNs) / 1000).toFixed(2)} µs, ${(audit.hookedSearchNs / audit.plainSearchNs).toFixed(2)}x`,
    '',
  ],
  ['one tool waiting 20 ms (baseline)', `${singleMs.toFixed(1)} ms`, '', ''],
  [
    'invokeAll of 100 such tools',
    `${batchMs.toFixed(1)} ms`,
    `${(batchMs / singleMs).toFixed(2)}x`,
    '<= 1.2x',
  ],
];

// Section 2 of issue 9: each worst case measured once (they are the point, not an average).
const short = await exponentialPattern(24);
rows.push(["pattern ^(a+)+$ on 24 a's and '!'", `${short.toFixed(1)} ms`, '', '<= 50 ms']);
if (short < 50) {
  const long = await exponentialPattern(100_000);
  rows.push(["pattern ^(a+)+$ on 100 000 a's and '!'", `${long.toFixed(1)} ms`, '', '<= 50 ms']);
}
for (const length of [11, 20]) {
  const chain = await chainedRefs(length);
  rows.push([
    `${length} chained anyOf/$ref, register + one invoke`,
    `${chain.ms.toFixed(1)} ms`,
    `${chain.outcome}, heap +${chain.heapMb.toFixed(0)} MB`,
    '<= 50 ms',
  ]);
}
const budget = await exhaustedBudget();
rows.push([
  'validation that spends its whole budget',
  `${budget.ms.toFixed(1)} ms`,
  /validation budget/.test(budget.outcome) ? 'refused: over 500 000 steps' : budget.outcome,
  '<= 50 ms',
]);
const cold = coldStart(9);
rows.push([
  'import + first invoke (fresh process)',
  `${cold.median.totalMs.toFixed(1)} ms`,
  `best of 9 ${cold.best.totalMs.toFixed(1)} ms; import ${cold.median.importMs.toFixed(1)} ms`,
  '<= 15 ms (Node 22)',
]);
const shared = await sharedSignal(10_000);
rows.push([
  '10 000 concurrent invokes on one signal',
  `${shared.ms.toFixed(0)} ms`,
  `${shared.listeners} listener(s), ${shared.warnings} warnings, heap retained ${shared.retainedKb.toFixed(0)} KB`,
  'no warning, flat heap',
]);
const distinct = await distinctTimeouts(100_000);
rows.push([
  '100 000 invokes, each its own timeoutMs',
  '',
  `heap retained ${distinct.toFixed(0)} KB`,
  'flat heap',
]);
const widths = [0, 1, 2, 3].map((column) => Math.max(...rows.map((row) => row[column].length), 8));
const line = (row) => row.map((cell, column) => cell.padEnd(widths[column])).join('  ');
process.stdout.write(
  `@agcore/tools-registry bench (node ${process.version}, median of ${rounds} rounds)\n`,
);
process.stdout.write(`${line(['case', 'time', 'overhead', 'target'])}\n`);
for (const row of rows) process.stdout.write(`${line(row)}\n`);
