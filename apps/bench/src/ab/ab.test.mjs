// The A/B suites' contenders do the whole conversation on every wire format (no timing here:
// the method's statistics are tested in @agcore/bench-method).
import { workingTree } from '@agcore/bench-method';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agcoreContenders } from './agcore.mjs';
import { bareLoops } from './bare.mjs';
import { collector, collectText, startServers } from './run.mjs';

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

describe('what runs before each pass', () => {
  it('a minor GC by default, a full one with --collect, none with --no-collect', () => {
    const saved = globalThis.gc;
    try {
      const calls = [];
      globalThis.gc = (options) => calls.push(options ?? 'full');
      collector([])?.();
      expect(calls).toEqual([{ type: 'minor' }]);
      // undefined: the method's own default (a full `gc()`); null: nothing.
      expect(collector(['--collect'])).toBeUndefined();
      expect(collector(['--no-collect'])).toBeNull();
      expect([[], ['--collect'], ['--no-collect']].map(collectText)).toEqual([
        'a minor GC',
        'a full GC',
        'no GC',
      ]);
      globalThis.gc = undefined;
      expect(collector([])).toBeNull();
      expect(collectText([])).toBe('no GC (node without --expose-gc)');
    } finally {
      globalThis.gc = saved;
    }
  });
});
