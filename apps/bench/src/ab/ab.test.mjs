// The A/B suites' contenders do the whole conversation on every wire format (no timing here:
// the method's statistics are tested in @agcore/bench-method).
import { workingTree } from '@agcore/bench-method';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agcoreContenders } from './agcore.mjs';
import { bareLoops } from './bare.mjs';
import { startServers } from './run.mjs';

let servers;
beforeAll(async () => {
  servers = await startServers();
});
afterAll(() => servers?.stop());

describe.each(['chat', 'messages', 'responses', 'gemini'])('%s', (format) => {
  it('the bare loop takes the 5 requests of the script, streamed and not', async () => {
    await expect(bareLoops[format](servers.urls[format], false)).resolves.toBe(0);
    await expect(bareLoops[format](servers.urls[format], true)).resolves.toBeGreaterThan(100);
  });

  it('agcore of the working tree runs the same conversation', async () => {
    const agcore = await agcoreContenders(workingTree, format, servers.urls[format]);
    expect(agcore).toBeDefined();
    await expect(agcore.json()).resolves.toBe(0);
    await expect(agcore.stream()).resolves.toBeGreaterThan(100);
  });
});
