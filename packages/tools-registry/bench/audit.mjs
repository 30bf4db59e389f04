// invoke() with an onInvocation hook set (issue 18 §1): the hook gets its own copy of the
// record, so its cost grows with the size of the arguments and the result. Used by
// registry.bench.mjs, which measures a registry without a hook beside it.
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';

/** A result of about 10 KB of JSON: 100 records of a search, what a typical tool returns. */
export const mediumResult = Array.from({ length: 100 }, (_, index) => ({
  id: `item-${index}`,
  title: `Result number ${index} of the search`,
  score: index / 100,
  tags: ['alpha', 'beta', 'gamma'],
  source: { url: `https://example.com/${index}`, fetched: true },
}));

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  parameters: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  },
  execute: async ({ a, b }) => a + b,
});
const search = defineTool({
  name: 'search',
  description: 'Returns 100 records',
  parameters: { type: 'object', properties: { query: { type: 'string' } } },
  execute: async () => mediumResult,
});

/**
 * Nanoseconds per call (median of `measure`'s rounds) of invoke() of a trivial tool and of a
 * tool returning `mediumResult`, each without and with a hook that keeps the last record.
 */
export async function hookOverhead(measure, iterations) {
  let last;
  const plain = new ToolRegistry().registerAll([add, search]);
  const hooked = new ToolRegistry({
    onInvocation: (invocation) => {
      last = invocation;
    },
  }).registerAll([add, search]);
  const args = { a: 1, b: 2 };
  const query = { query: 'weather' };
  const check = await hooked.invoke('search', query);
  if (!check.output.ok || last === undefined)
    throw new Error('bench set-up: the hook was not called');
  const rows = { plainAdd: [], hookedAdd: [], plainSearch: [], hookedSearch: [] };
  for (let round = 0; round < 3; round++) {
    rows.plainAdd.push(await measure(iterations, () => plain.invoke('add', args)));
    rows.hookedAdd.push(await measure(iterations, () => hooked.invoke('add', args)));
    rows.plainSearch.push(await measure(iterations / 250, () => plain.invoke('search', query)));
    rows.hookedSearch.push(await measure(iterations / 250, () => hooked.invoke('search', query)));
  }
  const median = (values) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
  return {
    plainAddNs: median(rows.plainAdd),
    hookedAddNs: median(rows.hookedAdd),
    plainSearchNs: median(rows.plainSearch),
    hookedSearchNs: median(rows.hookedSearch),
  };
}
