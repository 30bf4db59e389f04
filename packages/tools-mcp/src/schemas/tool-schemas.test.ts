// Schemas from a server are untrusted: a hostile one is refused or checked in linear time, and
// no schema breaks another tool, another client, or the same client after a reconnect.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ToolRegistry } from '@agcore/tools-registry';
import { describe, expect, it } from 'vitest';
import { McpClient, type McpWarning } from '../index.js';
import { failure, hostileServer } from '../test-support/servers.js';

function schemasServer(...names: string[]) {
  return hostileServer('schemas', { env: { FAULT_SCHEMAS: names.join(',') } });
}

describe('hostile schemas from a server', () => {
  it('refuses $ref blow-ups and 100 000-level nesting, checks ^(a+)+$ in linear time, and never blocks the event loop', async () => {
    const warnings: McpWarning[] = [];
    const client = new McpClient('hostile', schemasServer('plain', 'redos', 'ref-bomb', 'deep'), {
      onWarning: (warning) => warnings.push(warning),
    });
    const loop = monitorEventLoopDelay({ resolution: 10 });
    try {
      await client.connect();
      loop.enable();
      const tools = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['plain', 'redos']);
      expect(warnings.map((warning) => warning.toolName)).toEqual(['ref-bomb', 'deep']);
      expect(warnings[0]?.message).toMatch(/'hostile'.*'ref-bomb'.*inputSchema was refused/);
      expect(warnings[1]?.message).toMatch(/'hostile'.*'deep'.*inputSchema was refused/);
      expect((await client.tools()).map((tool) => tool.name)).toEqual(['plain', 'redos']);
      // structuredContent 'aaaa…b' (41 characters) against ^(a+)+$: 2^40 steps for a
      // backtracking engine, a few hundred here.
      const error = await failure(client.callTool('redos'));
      expect(error.code).toBe('execution_failed');
      expect(error.message).toMatch(/'redos'.*outputSchema.*pattern/);
      loop.disable();
      // A bound against a backtracking engine (2^40 steps: minutes), not a timing claim (the
      // bench measures the longest block: 15–527 ms quiet). Parsing the 100 000-level line took
      // 1.7 s once under a load of 16 on 2 cores, so the bound is 10 s.
      expect(loop.max / 1e6).toBeLessThan(10_000);
      expect(client.isConnected).toBe(true);
    } finally {
      loop.disable();
      await client.close();
    }
  });
});

describe('$id in output schemas', () => {
  it('keeps two tools with one $id apart, in two clients, after refreshTools() and after a reconnect', async () => {
    const first = new McpClient('first', schemasServer('id-a', 'id-b'));
    const second = new McpClient('second', schemasServer('id-a', 'id-b'));
    try {
      await Promise.all([first.connect(), second.connect()]);
      for (const client of [first, second]) {
        await client.listTools();
        expect((await client.callTool('id-a')).structuredContent).toEqual({ n: 1 });
        expect((await client.callTool('id-b')).structuredContent).toEqual({ s: 'b' });
      }
      await first.refreshTools();
      expect((await first.callTool('id-b')).structuredContent).toEqual({ s: 'b' });
      await second.reconnect();
      await second.listTools();
      expect((await second.callTool('id-a')).structuredContent).toEqual({ n: 1 });
      expect((await second.callTool('id-b')).structuredContent).toEqual({ s: 'b' });
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});

describe('patterns a linear-time engine cannot run, from a server', () => {
  it('lists the tool, marks it untrusted, leaves the pattern unchecked and warns once', async () => {
    const warnings: McpWarning[] = [];
    const client = new McpClient('zodlike', schemasServer('plain', 'lookaround'), {
      onWarning: (warning) => warnings.push(warning),
    });
    try {
      await client.connect();
      const tools = await client.tools();
      expect(tools.map((tool) => tool.name)).toEqual(['plain', 'lookaround']);
      expect(tools.every((tool) => tool.schemaTrust === 'untrusted')).toBe(true);
      await client.refreshTools();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({
        kind: 'unchecked_pattern',
        serverName: 'zodlike',
        toolName: 'lookaround',
      });
      expect(warnings[0]?.message).toMatch(/'zodlike'.*'lookaround'.*not checked/);
      const registry = new ToolRegistry().registerAll(tools);
      const loose = await registry.invoke('lookaround', { host: '-not a host-' });
      expect(loose.output).toMatchObject({ ok: true });
      const wrongType = await registry.invoke('lookaround', { host: 5 });
      expect(wrongType.output.ok).toBe(false);
    } finally {
      await client.close();
    }
  });
});
