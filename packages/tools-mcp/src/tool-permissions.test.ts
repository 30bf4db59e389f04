// Annotations are untrusted unless the application says otherwise; overrides must be permissions.
import { PermissionChecker } from '@agcore/tools-permission';
import { ToolRegistry } from '@agcore/tools-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient, McpServers } from './index.js';
import {
  type HttpServerProcess,
  hostileServer,
  startEverythingHttp,
} from './test-support/servers.js';

describe('trustAnnotations', () => {
  it('by default trusts a stdio server the application started itself', async () => {
    const client = new McpClient('liar', hostileServer('liar'));
    try {
      await client.connect();
      const [wipe] = await client.tools({ filter: { allow: ['wipe'] } });
      expect(wipe?.requiredPermissions).toEqual(['read']);
    } finally {
      await client.close();
    }
  });

  it('with trustAnnotations: false, a tool that claims readOnlyHint needs write, delete and network', async () => {
    const client = new McpClient('liar', hostileServer('liar'), { trustAnnotations: false });
    try {
      await client.connect();
      const [wipe] = await client.tools({ filter: { allow: ['wipe'] } });
      expect(wipe?.requiredPermissions).toEqual(['write', 'delete', 'network']);
      // The default policy allows read: the lie no longer gets the tool through.
      const registry = new ToolRegistry({ permissionChecker: new PermissionChecker() });
      registry.registerAll(await client.tools());
      const invocation = await registry.invoke('wipe', {});
      expect(invocation.output.ok ? 'ok' : invocation.output.error.code).toBe('permission_denied');
      // An explicit override is the application's word, and still applies.
      const [overridden] = await client.tools({ permissions: { wipe: ['read'] } });
      expect(overridden?.requiredPermissions).toEqual(['read']);
    } finally {
      await client.close();
    }
  });

  describe('over HTTP', () => {
    let server: HttpServerProcess;
    beforeAll(async () => {
      server = await startEverythingHttp('streamableHttp');
    });
    afterAll(async () => {
      await server.stop();
    });

    it('does not trust a remote server silently', async () => {
      const client = new McpClient('remote', { type: 'streamable-http', url: server.url });
      try {
        await client.connect();
        const [echo] = await client.tools({ filter: { allow: ['echo'] } });
        // server-everything's echo says readOnlyHint: true.
        expect(echo?.annotations?.readOnlyHint).toBe(true);
        expect(echo?.requiredPermissions).toEqual(['write', 'delete', 'network']);
      } finally {
        await client.close();
      }
      const trusted = new McpClient(
        'remote',
        { type: 'streamable-http', url: server.url },
        { trustAnnotations: true },
      );
      try {
        await trusted.connect();
        const [echo] = await trusted.tools({ filter: { allow: ['echo'] } });
        expect(echo?.requiredPermissions).toEqual(['read']);
      } finally {
        await trusted.close();
      }
    });

    it('reads trustAnnotations from an mcpServers entry', async () => {
      const servers = new McpServers({
        mcpServers: {
          untrusted: { url: server.url },
          trusted: { url: server.url, trustAnnotations: true },
        },
      });
      try {
        await servers.connect();
        const tools = await servers.tools();
        const echo = (name: string) => tools.find((tool) => tool.name === `${name}__echo`);
        expect(echo('untrusted')?.requiredPermissions).toEqual(['write', 'delete', 'network']);
        expect(echo('trusted')?.requiredPermissions).toEqual(['read']);
      } finally {
        await servers.close();
      }
    });
  });
});

describe('permission overrides in tools()', () => {
  it.each([
    [[''], "''"],
    [[42], '42'],
    [['READ'], "'READ'"],
  ])('refuses %j, naming the server, the tool and the value', async (list, shown) => {
    const client = new McpClient('liar', hostileServer('liar'));
    try {
      await client.connect();
      const perTool = client.tools({ permissions: { wipe: list as never } });
      await expect(perTool).rejects.toThrow(TypeError);
      await expect(perTool).rejects.toThrow(new RegExp(`'liar'.*'wipe'.*${shown}`));
      await expect(client.tools({ permissions: list as never })).rejects.toThrow(
        new RegExp(`'liar'.*every tool.*${shown}`),
      );
    } finally {
      await client.close();
    }
  });
});
