// The READMEs say the ESM-only packages load with require() from Node 20.19 / 22.12: they do.
const assert = require('node:assert/strict');

for (const name of [
  '@agcore/tools-core',
  '@agcore/tools-core/schema',
  '@agcore/tools-permission',
  '@agcore/tools-registry',
  '@agcore/tools-mcp',
  '@agcore/llm-cycle',
  '@agcore/llm-cycle/testing',
]) {
  const loaded = require(name);
  assert.ok(Object.keys(loaded).length > 0, `require('${name}') returned no exports`);
}
assert.equal(typeof require('@agcore/llm-cycle').LlmCycle, 'function');
process.stdout.write('require check passed\n');
