import { createToolContext, defineTool, Permission } from '@agcore/tools-core';
import { PermissionChecker } from '@agcore/tools-permission';
import { ToolRegistry } from '@agcore/tools-registry';

const trivial = defineTool({
  name: 'add',
  description: 'Adds',
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
const noval = new ToolRegistry({ validateArguments: false })
  .withPermissionChecker(new PermissionChecker())
  .register(trivial);
const args = { a: 1, b: 2 };
const context = createToolContext();
async function ns(n, f) {
  const s = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await f();
  return Number(process.hrtime.bigint() - s) / n;
}
const d = [],
  v = [],
  nv = [];
for (let r = 0; r < 7; r++) {
  d.push(await ns(100000, () => trivial.execute(args, context)));
  v.push(await ns(100000, () => registry.invoke('add', args)));
  nv.push(await ns(100000, () => noval.invoke('add', args)));
}
const med = (a) => a.sort((x, y) => x - y)[3];
console.log(
  'execute',
  med(d).toFixed(0),
  'invoke',
  med(v).toFixed(0),
  'noValidate',
  med(nv).toFixed(0),
  'overhead',
  ((med(v) - med(d)) / 1000).toFixed(2),
  'µs',
);
