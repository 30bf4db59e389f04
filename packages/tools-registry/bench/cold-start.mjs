// One cold start, in a fresh process: import @agcore/tools-registry, register a tool with a
// schema, run the first invoke. Prints the milliseconds as JSON. Used by registry.bench.mjs.
const start = performance.now();
const { ToolRegistry } = await import('@agcore/tools-registry');
const imported = performance.now();
const registry = new ToolRegistry().register({
  name: 'add',
  description: 'Adds two numbers',
  parameters: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  },
  execute: async ({ a, b }) => a + b,
});
const invocation = await registry.invoke('add', { a: 1, b: 2 });
const end = performance.now();
if (!invocation.output.ok) throw new Error('cold start: the first invoke failed');
process.stdout.write(JSON.stringify({ importMs: imported - start, totalMs: end - start }));
