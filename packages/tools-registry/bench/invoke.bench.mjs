// `pnpm bench` (first part): the cost of `ToolRegistry.invoke` on the bench method
// (@agcore/bench-method, docs/benchmarks.md): alternating passes of A and B (≥ 20 pairs after a
// warm-up), per call the CPU (`process.cpuUsage`) and the wall time, the median of the per-pair
// ratios B ÷ A with its 95 % interval. One "conversation" is one call of `add` ({ a: 1, b: 2 }).
//
// Without `--root-a`, A is the tool's `execute` called directly (the bare call) and B
// `registry.invoke` of the built package (`--root-b`, the working tree by default): lookup,
// permission check, schema validation, time limit, result check, record. Rows: `invoke` (no
// options) and `loop` (the options LlmCycle passes: timeoutMs, a signal, session/trace/call
// ids). With `--root-a DIR` (`pnpm bench:compare <ref> --suite tools-registry`): the same
// invoke of DIR's build (A) against the working tree's (B).
//
// `--conversations N`: calls per pass (default 2000). `--collect`: a full GC before each pass
// (the method's default elsewhere; here off, because a forced GC deoptimizes the registry's code
// and the pass then measures its re-warming — see the README). `--pairs N` (default 30),
// `--warmup N` (pairs, default 3), `--only invoke,loop`.
import {
  alternate,
  conditions,
  flagValue,
  importLibrary,
  libraryRoots,
  markdownTable,
  ratioText,
  verdict,
} from '@agcore/bench-method';

/** The registry, tool and context of the checkout at `root` (its own built packages). */
async function subject(root) {
  const core = await importLibrary(root, '@agcore/tools-core');
  const { ToolRegistry } = await importLibrary(root, '@agcore/tools-registry');
  const { PermissionChecker } = await importLibrary(root, '@agcore/tools-permission');
  const tool = core.defineTool({
    name: 'add',
    description: 'Adds two numbers',
    parameters: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
      additionalProperties: false,
    },
    requiredPermissions: [core.Permission.Read],
    execute: async ({ a, b }) => a + b,
  });
  const registry = new ToolRegistry().withPermissionChecker(new PermissionChecker()).register(tool);
  // The path really validates and checks permissions.
  const refused = await registry.invoke('add', { a: 1 });
  if (refused.output.ok || refused.output.error.code !== 'invalid_arguments')
    throw new Error(`bench set-up (${root}): validation is not running`);
  return { tool, registry, context: core.createToolContext() };
}

const args = { a: 1, b: 2 };
const loopOptions = {
  timeoutMs: 60_000,
  signal: new AbortController().signal,
  context: { sessionId: 'session-1', traceId: 'trace-1', toolCallId: 'call_1' },
};

/** A call of `invoke` that checks its answer. */
function invoker(registry, options) {
  return async () => {
    const { output } = await registry.invoke('add', args, options);
    if (!output.ok || output.value !== 3) throw new Error('invoke did not answer 3');
  };
}

/** The direct call of the tool: the floor. */
function direct(tool, context) {
  return async () => {
    if ((await tool.execute(args, context)) !== 3) throw new Error('execute did not answer 3');
  };
}

function rows(roots, a, b) {
  if (roots.compare)
    return [
      {
        key: 'invoke',
        name: 'invoke(add), no options',
        a: invoker(a.registry),
        b: invoker(b.registry),
      },
      {
        key: 'loop',
        name: "invoke(add) with the loop's options",
        a: invoker(a.registry, loopOptions),
        b: invoker(b.registry, loopOptions),
      },
    ];
  return [
    {
      key: 'invoke',
      name: 'execute() directly (A), invoke(add) (B)',
      a: direct(b.tool, b.context),
      b: invoker(b.registry),
    },
    {
      key: 'loop',
      name: "execute() directly (A), invoke(add) with the loop's options (B)",
      a: direct(b.tool, b.context),
      b: invoker(b.registry, loopOptions),
    },
  ];
}

const us = (ms) => (ms * 1000).toFixed(2);
const signed = (ms) => `${ms < 0 ? '−' : '+'}${us(Math.abs(ms))}`;

async function main() {
  const roots = libraryRoots();
  const setting = (name, fallback) => Number(flagValue(process.argv, name) ?? fallback);
  const settings = {
    pairs: Math.max(20, setting('pairs', 30)),
    conversations: setting('conversations', 2000),
    warmupPairs: setting('warmup', 3),
    // No full GC before each pass unless `--collect`: a forced GC deoptimizes the registry's
    // code, and the next ~5 000 calls re-warm it (README, "Performance").
    ...(process.argv.includes('--collect') ? {} : { collect: null }),
  };
  const only = flagValue(process.argv, 'only')?.split(',');
  const b = await subject(roots.b);
  const a = roots.compare ? await subject(roots.a) : b;
  const table = [];
  for (const row of rows(roots, a, b)) {
    if (only !== undefined && !only.includes(row.key)) continue;
    const result = await alternate(row.a, row.b, settings);
    table.push([
      row.name,
      us(result.a.cpuMs),
      us(result.b.cpuMs),
      signed(result.b.cpuMs - result.a.cpuMs),
      ratioText(result.cpuRatio),
      verdict(result.cpuRatio),
      us(result.a.wallMs),
      us(result.b.wallMs),
      ratioText(result.wallRatio),
      String(result.pairs),
    ]);
  }
  const header = ['row', 'A CPU µs/call', 'B CPU µs/call', 'B − A µs', 'CPU B ÷ A (95 %)'];
  header.push('CPU verdict', 'A wall µs/call', 'B wall µs/call', 'wall B ÷ A (95 %)', 'pairs');
  const who = roots.compare ? `A = ${roots.a}, B = ${roots.b}` : `B = the registry of ${roots.b}`;
  process.stdout.write(
    [
      `ToolRegistry.invoke, ${settings.pairs} pairs of passes of ${settings.conversations} calls after ${settings.warmupPairs} warm-up pairs${settings.collect === null ? ', no GC between passes' : ', a full GC before each pass'}; ${who}`,
      conditions(),
      '',
      markdownTable(header, table),
      '',
      '',
    ].join('\n'),
  );
}

await main();
