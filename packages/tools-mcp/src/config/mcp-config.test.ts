// Configuration is validated, and names from a file never reach an object's prototype.
import { createToolContext } from '@agcore/tools-core';
import { describe, expect, it } from 'vitest';
import { McpServers, parseMcpServersConfig } from '../index.js';
import { hostileServer } from '../test-support/servers.js';

/** An own property's value, read without the __proto__ accessor. */
function ownValue(record: object | undefined, key: string): unknown {
  return record === undefined ? undefined : Object.getOwnPropertyDescriptor(record, key)?.value;
}

describe('parseMcpServersConfig with names that are Object.prototype keys', () => {
  const file = JSON.parse(`{
    "mcpServers": {
      "__proto__": { "command": "node", "env": { "__proto__": "p", "constructor": "c" } },
      "constructor": {
        "url": "https://example.test/mcp",
        "headers": { "__proto__": "h" },
        "permissions": { "__proto__": ["read"], "constructor": ["custom:ctor"], "toString": ["write"] }
      }
    }
  }`) as unknown;

  it('keeps a server named __proto__, and env, headers and permissions keyed __proto__', () => {
    const [proto, ctor] = parseMcpServersConfig(file, {});
    expect(proto?.name).toBe('__proto__');
    const env = proto?.transport.type === 'stdio' ? proto.transport.env : undefined;
    expect(env !== undefined && Object.hasOwn(env, '__proto__')).toBe(true);
    expect(ownValue(env, '__proto__')).toBe('p');
    expect(env?.constructor).toBe('c');
    const headers = ctor?.transport.type === 'streamable-http' ? ctor.transport.headers : undefined;
    expect(headers !== undefined && Object.hasOwn(headers, '__proto__')).toBe(true);
    const permissions = ctor?.permissions as Record<string, readonly string[]>;
    expect(Object.hasOwn(permissions, '__proto__')).toBe(true);
    expect(ownValue(permissions, '__proto__')).toEqual(['read']);
    expect(permissions.constructor).toEqual(['custom:ctor']);
    expect(permissions.toString).toEqual(['write']);
  });

  it('applies a permission override to a real tool named __proto__', async () => {
    const server = hostileServer('proto');
    const servers = new McpServers({
      mcpServers: {
        proto: {
          command: server.command,
          args: server.args,
          permissions: JSON.parse(
            '{ "__proto__": ["custom:proto"], "constructor": ["custom:ctor"] }',
          ),
        },
      },
    });
    try {
      await servers.connect();
      const tools = await servers.tools();
      const byMcpName = new Map(tools.map((tool) => [tool.mcpName, tool]));
      expect(byMcpName.get('__proto__')?.requiredPermissions).toEqual(['custom:proto']);
      expect(byMcpName.get('constructor')?.requiredPermissions).toEqual(['custom:ctor']);
      expect(byMcpName.get('echo')?.requiredPermissions).toEqual(['write', 'delete', 'network']);
      expect(await byMcpName.get('__proto__')?.execute({}, createToolContext())).toBe(
        'called __proto__',
      );
    } finally {
      await servers.close();
    }
  });

  it('does not take per-server options from Object.prototype for a server named constructor', async () => {
    const server = hostileServer('proto');
    const servers = new McpServers(
      { mcpServers: { constructor: { command: server.command, args: server.args } } },
      { servers: {} },
    );
    try {
      await servers.connect();
      const tools = await servers.tools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([
        'constructor____proto__',
        'constructor__constructor',
        'constructor__echo',
      ]);
    } finally {
      await servers.close();
    }
  });
});

describe('permission overrides are checked', () => {
  it.each([
    [[''], "''"],
    [[42], '42'],
    [['READ'], "'READ'"],
    [['read', 'custom:'], "'custom:'"],
  ])(
    'refuses %j in an mcpServers file, naming the server, the tool and the value',
    (list, shown) => {
      const config = {
        mcpServers: { files: { command: 'node', permissions: { write_file: list } } },
      };
      expect(() => parseMcpServersConfig(config, {})).toThrow(
        new RegExp(`'files'.*'write_file'.*${shown.replace(/[()[\]]/g, '\\$&')}`),
      );
      const forAll = { mcpServers: { files: { command: 'node', permissions: list } } };
      expect(() => parseMcpServersConfig(forAll, {})).toThrow(/'files'.*every tool/);
    },
  );

  it('reads trustAnnotations and onToolChange per server, and refuses other values', () => {
    const [remote, local] = parseMcpServersConfig(
      {
        mcpServers: {
          remote: {
            url: 'https://example.test/mcp',
            trustAnnotations: true,
            onToolChange: 'block',
          },
          local: { command: 'node', trustAnnotations: false },
        },
      },
      {},
    );
    expect(remote?.trustAnnotations).toBe(true);
    expect(remote?.onToolChange).toBe('block');
    expect(local?.trustAnnotations).toBe(false);
    expect(local?.onToolChange).toBeUndefined();
    expect(() =>
      parseMcpServersConfig({ mcpServers: { x: { command: 'n', trustAnnotations: 'yes' } } }, {}),
    ).toThrow(/'x'.*trustAnnotations.*true or false/);
    expect(() =>
      parseMcpServersConfig({ mcpServers: { x: { command: 'n', onToolChange: 'ignore' } } }, {}),
    ).toThrow(/'x'.*onToolChange.*'report' or 'block'/);
  });

  it('reads protocol per server, and refuses other values', () => {
    const [modern, plain] = parseMcpServersConfig(
      {
        mcpServers: {
          modern: { url: 'https://example.test/mcp', protocol: '2026-07-28' },
          plain: { command: 'node' },
        },
      },
      {},
    );
    expect(modern?.protocol).toBe('2026-07-28');
    expect(plain?.protocol).toBeUndefined();
    expect(() =>
      parseMcpServersConfig({ mcpServers: { x: { command: 'n', protocol: 'modern' } } }, {}),
    ).toThrow(/'x'.*"protocol" must be 'legacy', 'auto' or '2026-07-28'/);
  });
});
