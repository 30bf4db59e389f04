// The A/B suites' contenders do the whole conversation on every wire format (no timing here:
// the method's statistics are tested in @agcore/bench-method).
import { workingTree } from '@agcore/bench-method';
import {
  startChatCompletionsServer,
  textCompletion,
  toolCallCompletion,
} from '@agcore/llm-cycle/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agcoreContenders } from './agcore.mjs';
import { bareLoops } from './bare.mjs';
import { floorChat, floorLevels } from './floor.mjs';
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

describe('the floor of the guarantees (--floor)', () => {
  it('each level takes the 5 requests of the script', async () => {
    for (const level of Object.keys(floorLevels)) {
      await expect(floorChat(servers.urls.chat, level)).resolves.toBe(0);
    }
    await expect(floorChat(servers.urls.chat, 'none')).rejects.toThrow(/unknown floor level/);
  });

  it('the checked level refuses arguments that break the schema', async () => {
    const server = await startChatCompletionsServer({ recordRequests: false });
    server.fallback((request) =>
      request.body.messages.some((message) => message.role === 'tool')
        ? { kind: 'json', body: textCompletion('done') }
        : {
            kind: 'json',
            body: toolCallCompletion([{ id: 'c1', name: 'get_weather', arguments: '{"city":7}' }]),
          },
    );
    try {
      await expect(floorChat(server.baseURL, 'checked')).rejects.toMatchObject({
        code: 'invalid_arguments',
      });
      // The levels below it do not check: the call runs.
      await expect(floorChat(server.baseURL, 'bounded')).rejects.toThrow(/2 requests, not 5/);
    } finally {
      await server.close();
    }
  });
});
