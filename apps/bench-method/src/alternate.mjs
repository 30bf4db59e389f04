// The alternating runner: passes of A and B in the order A B, B A, A B, … (so neither always
// runs first), a warm-up of the same shape that is not recorded, and per pass the client CPU
// (user + system, `process.cpuUsage`) and the wall time of `conversations` conversations.
import { medianInterval, pairRatios } from './stats.mjs';

/** The real sources: `performance.now()` in ms and `process.cpuUsage()` as user + system ms. */
export const realSources = Object.freeze({
  wallMs: () => performance.now(),
  cpuMs: () => {
    const used = process.cpuUsage();
    return (used.user + used.system) / 1000;
  },
});

/** The order of pair `index` (0-based): `['a', 'b']` for even pairs, `['b', 'a']` for odd. */
export function pairOrder(index) {
  return index % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
}

/** One pass: `conversations` runs of `run`, timed by `sources`; GC first when exposed. */
export async function measurePass(run, conversations, sources = realSources, collect) {
  collect?.();
  const cpu = sources.cpuMs();
  const wall = sources.wallMs();
  for (let index = 0; index < conversations; index++) await run();
  return {
    wallMs: (sources.wallMs() - wall) / conversations,
    cpuMs: (sources.cpuMs() - cpu) / conversations,
  };
}

/**
 * The sources of `side`: `sources` itself, or `sources[side]` when it gives one per side
 * (`{ a, b }`: e.g. the CPU of the server process each side talks to).
 */
export function sourcesOf(sources, side) {
  return typeof sources.cpuMs === 'function' ? sources : sources[side];
}

/**
 * A young-generation GC before each pass (`gc({ type: 'minor' })`), or undefined without
 * `--expose-gc`: it takes the previous pass's short-lived garbage out of this one's time without
 * what a forced full GC does to the code — it deoptimizes hot functions, and the pass after it
 * measures V8 re-optimizing them (the loop suites: about 1.4 ms a conversation on both sides,
 * which pulled the ratios toward 1; see docs/benchmarks.md, "Collecting between passes").
 */
export function minorCollect() {
  const gc = globalThis.gc;
  return typeof gc === 'function' ? () => gc({ type: 'minor' }) : undefined;
}

/** The collector run before each pass: `globalThis.gc` when node runs with `--expose-gc`. */
function defaultCollect() {
  return typeof globalThis.gc === 'function' ? () => globalThis.gc() : undefined;
}

/**
 * Runs `a` and `b` in alternating passes and returns every pass and the ratios B ÷ A of client
 * CPU and of wall time per conversation: the median of the per-pair ratios with its
 * distribution-free 95 % interval. Options: `pairs` (>= 20, default 20), `warmupPairs`
 * (default 3), `conversations` per pass (default 10), `sources` (clock and CPU, for tests; or
 * `{ a, b }`, one per side),
 * `collect` (run before each pass; `globalThis.gc` by default when exposed; `null` for none),
 * `confidence` (0.95).
 */
export async function alternate(a, b, options = {}) {
  const pairs = options.pairs ?? 20;
  if (!Number.isInteger(pairs) || pairs < 20)
    throw new RangeError(`pairs must be an integer >= 20 (got ${pairs})`);
  const warmupPairs = options.warmupPairs ?? 3;
  const conversations = options.conversations ?? 10;
  const sources = options.sources ?? realSources;
  const collect = options.collect === null ? undefined : (options.collect ?? defaultCollect());
  const runs = { a, b };
  const order = [];
  const passes = { a: [], b: [] };
  for (let index = 0; index < warmupPairs + pairs; index++) {
    for (const side of pairOrder(index)) {
      const pass = await measurePass(runs[side], conversations, sourcesOf(sources, side), collect);
      if (index < warmupPairs) continue;
      order.push(side);
      passes[side].push(pass);
    }
  }
  return summarize(passes, order, options.confidence ?? 0.95);
}

/** The figures of recorded passes: medians per side and the B ÷ A ratios with intervals. */
export function summarize(passes, order = [], confidence = 0.95) {
  const of = (side, key) => passes[side].map((pass) => pass[key]);
  const side = (name) => ({
    cpuMs: medianInterval(of(name, 'cpuMs'), confidence).median,
    wallMs: medianInterval(of(name, 'wallMs'), confidence).median,
  });
  return {
    a: side('a'),
    b: side('b'),
    cpuRatio: medianInterval(pairRatios(of('a', 'cpuMs'), of('b', 'cpuMs')), confidence),
    wallRatio: medianInterval(pairRatios(of('a', 'wallMs'), of('b', 'wallMs')), confidence),
    pairs: passes.a.length,
    order,
    passes,
  };
}
