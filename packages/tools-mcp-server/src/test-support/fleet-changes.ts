// Issue 30 §5 in the fleet: a watcher McpClient connected through haproxy hears tool list changes
// published on each node in turn (so at least two of them on a node its stream is not on).
import { McpClient, type McpProtocol } from '@agcore/tools-mcp';
import { expect } from 'vitest';
import type { HaproxyFleet } from './haproxy-fleet.js';

/** How long after a publish the watcher is given before it is published again (a stream not yet open misses it). */
const republishMs = 3000;

/**
 * For each node in turn: registers `added_<n>` on every node, publishes `tools_list_changed` on
 * node n only (through the nodes' shared feed), and waits until the watcher's `onToolsChanged`
 * lists the tool. Resolves with, per node, the milliseconds from the hub relaying the last
 * publish (on a fleet whose feed is not the hub's, from the last publishing call's start) to the
 * watcher hearing the new list (its re-listing included).
 */
export async function changesAcrossNodes(
  fleet: HaproxyFleet,
  protocol: McpProtocol,
): Promise<number[]> {
  const heard: { readonly names: readonly string[]; readonly at: number }[] = [];
  const watcher = new McpClient(
    'watcher',
    { type: 'streamable-http', url: fleet.url },
    {
      protocol,
      onToolsChanged: (tools) =>
        heard.push({ names: tools.map((t) => t.name), at: performance.now() }),
    },
  );
  const direct = fleet.nodes.map(
    (node) =>
      new McpClient(
        node.name,
        { type: 'streamable-http', url: `http://127.0.0.1:${node.port}/mcp` },
        { protocol: '2026-07-28' },
      ),
  );
  try {
    await watcher.connect();
    await watcher.listTools();
    for (const client of direct) await client.connect();
    const latencies: number[] = [];
    for (const [round, publisher] of direct.entries()) {
      const name = `added_${round}`;
      for (const client of direct) await client.callTool('add_tool', { name, publish: false });
      let publishedAt = 0;
      let publishStartedAt = 0;
      const arrival = () => heard.find((entry) => entry.names.includes(name));
      await expect
        .poll(
          async () => {
            if (arrival() === undefined && performance.now() - publishedAt > republishMs) {
              publishStartedAt = performance.now();
              await publisher.callTool('add_tool', { name, publish: true });
              publishedAt = performance.now();
            }
            return arrival() !== undefined;
          },
          { timeout: 60_000, interval: 20 },
        )
        .toBe(true);
      const at = arrival()?.at ?? 0;
      // A fleet on Postgres relays nothing through the hub: from the publishing call's start then.
      const relayed =
        fleet.hub.relayed.filter((entry) => entry.at <= at).at(-1)?.at ?? publishStartedAt;
      latencies.push(at - relayed);
    }
    return latencies;
  } finally {
    await watcher.close();
    for (const client of direct) await client.close();
  }
}
