// Every reach into the MCP SDK's internals, checked against the installed SDK: these fail when
// an SDK upgrade moves what this package relies on (each names the file that relies on it).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { CallAbort } from './calls/call-abort.js';
import { faultServer } from './test-support/servers.js';
import { ObservedStdioTransport } from './transport/stdio-process.js';

const require = createRequire(import.meta.url);

describe('the MCP SDK this package was checked against', () => {
  it('is 1.32.2 (pinned exactly in package.json)', async () => {
    const entry = require.resolve('@modelcontextprotocol/sdk/client/index.js');
    const root = join(dirname(entry), '..', '..', '..');
    const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(manifest.version).toBe('1.32.2');
  });

  it('keeps the stdio child in _process (transport/stdio-process.ts: exit codes, fast close, one drain listener)', async () => {
    const transport = new ObservedStdioTransport(
      faultServer('fault-server.mjs', 'exit-mid-call'),
      1024,
    );
    await transport.start();
    try {
      expect((transport as unknown as { _process?: unknown })._process).toBe(transport.child);
      expect(transport.child?.pid).toBeGreaterThan(0);
    } finally {
      await transport.stop(300);
    }
  });

  it('has the private Client.cacheToolMetadata (listing/tool-listing.ts: output validators of every page)', () => {
    const prototype = Client.prototype as unknown as Record<string, unknown>;
    expect(typeof prototype.cacheToolMetadata).toBe('function');
    expect(typeof prototype.getToolOutputValidator).toBe('function');
  });

  it("installs its dispatcher as the transport's onmessage on connect (engines/legacy/connection.ts: progress before responses)", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    serverSide.onmessage = (message) => {
      if ('method' in message && message.method === 'initialize' && 'id' in message) {
        void serverSide.send({
          jsonrpc: '2.0',
          id: message.id,
          result: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            serverInfo: { name: 'probe', version: '1' },
          },
        });
      }
    };
    await serverSide.start();
    const client = new Client({ name: 'probe', version: '1' });
    expect(clientSide.onmessage).toBeUndefined();
    await client.connect(clientSide);
    expect(typeof clientSide.onmessage).toBe('function');
    await client.close();
  });

  it("keeps a transport's onerror and calls it before its own (engines/legacy/connection.ts: transport failures apart from noise)", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    serverSide.onmessage = (message) => {
      if ('method' in message && message.method === 'initialize' && 'id' in message) {
        void serverSide.send({
          jsonrpc: '2.0',
          id: message.id,
          result: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            serverInfo: { name: 'probe', version: '1' },
          },
        });
      }
    };
    await serverSide.start();
    const seen: string[] = [];
    clientSide.onerror = () => seen.push('transport');
    const client = new Client({ name: 'probe', version: '1' });
    client.onerror = () => seen.push('client');
    await client.connect(clientSide);
    clientSide.onerror?.(new Error('broken pipe'));
    expect(seen).toEqual(['transport', 'client']);
    await client.close();
  });

  it('uses of a request signal only aborted, reason, throwIfAborted and one abort listener (calls/call-abort.ts)', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const sent: unknown[] = [];
    serverSide.onmessage = (message) => {
      sent.push(message);
      if ('method' in message && message.method === 'initialize' && 'id' in message) {
        void serverSide.send({
          jsonrpc: '2.0',
          id: message.id,
          result: {
            protocolVersion: '2025-06-18',
            capabilities: { tools: {} },
            serverInfo: { name: 'probe', version: '1' },
          },
        });
      }
    };
    await serverSide.start();
    const client = new Client({ name: 'probe', version: '1' });
    await client.connect(clientSide);
    const controller = new AbortController();
    const abort = CallAbort.follow(controller.signal);
    const call = client.callTool({ name: 'never', arguments: {} }, undefined, {
      signal: abort.sdkSignal(),
      timeout: 60_000,
    });
    const outcome = call.then(
      () => 'resolved',
      () => 'rejected',
    );
    controller.abort('stop');
    expect(await outcome).toBe('rejected');
    expect(sent).toContainEqual(expect.objectContaining({ method: 'notifications/cancelled' }));
    abort.release();
    await client.close();
  });
});
