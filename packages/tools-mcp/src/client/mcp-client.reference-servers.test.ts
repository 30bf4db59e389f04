import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createToolContext, type ToolError } from '@agcore/tools-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../index.js';
import { serverEntries, tempDir } from '../test-support/servers.js';

describe('McpClient against server-filesystem on a temp dir', () => {
  let dir: { path: string; remove(): Promise<void> };
  let outside: { path: string; remove(): Promise<void> };
  let client: McpClient;
  beforeAll(async () => {
    dir = await tempDir('fs');
    outside = await tempDir('outside');
    await writeFile(join(dir.path, 'hello.txt'), 'hello from disk\n');
    await writeFile(join(outside.path, 'secret.txt'), 'do not read\n');
    client = new McpClient('fs', {
      type: 'stdio',
      command: process.execPath,
      args: [serverEntries.filesystem, dir.path],
    });
    await client.connect();
  });
  afterAll(async () => {
    await client.close();
    await dir.remove();
    await outside.remove();
  });

  it('reads and writes files through the tools', async () => {
    const read = await client.callTool('read_text_file', { path: join(dir.path, 'hello.txt') });
    expect(JSON.stringify(read.value)).toContain('hello from disk');
    await client.callTool('write_file', {
      path: join(dir.path, 'new.txt'),
      content: 'written by agcore',
    });
    expect(await readFile(join(dir.path, 'new.txt'), 'utf8')).toBe('written by agcore');
  });

  it('reports an access-denied path as a recoverable error with the server text', async () => {
    const error = (await client
      .callTool('read_text_file', { path: join(outside.path, 'secret.txt') })
      .catch((caught: unknown) => caught)) as ToolError;
    expect(error.code).toBe('execution_failed');
    expect(error.isRecoverable()).toBe(true);
    expect(error.message).toMatch(/denied|outside allowed/i);
  });

  it('derives permissions from the annotations', async () => {
    const tools = await client.tools({ prefix: true });
    const byMcpName = new Map(tools.map((tool) => [tool.mcpName, tool]));
    expect(byMcpName.get('read_text_file')?.requiredPermissions).toEqual(['read']);
    expect(byMcpName.get('write_file')?.requiredPermissions).toEqual(['write', 'delete']);
    expect(byMcpName.get('write_file')?.name).toBe('fs__write_file');
    const overridden = await client.tools({ permissions: { write_file: ['filesystem'] } });
    expect(overridden.find((tool) => tool.mcpName === 'write_file')?.requiredPermissions).toEqual([
      'filesystem',
    ]);
    expect(
      overridden.find((tool) => tool.mcpName === 'read_text_file')?.requiredPermissions,
    ).toEqual(['read']);
  });
});

describe('McpClient against server-memory', () => {
  it('stores and finds entities in a MEMORY_FILE_PATH inside a temp dir', async () => {
    const dir = await tempDir('memory');
    const memoryFile = join(dir.path, 'memory.jsonl');
    const client = new McpClient('memory', {
      type: 'stdio',
      command: process.execPath,
      args: [serverEntries.memory],
      env: { MEMORY_FILE_PATH: memoryFile },
    });
    try {
      await client.connect();
      const tools = await client.tools({ prefix: 'mem' });
      const create = tools.find((tool) => tool.name === 'mem__create_entities');
      expect(create?.requiredPermissions).toEqual(['write']);
      await create?.execute(
        {
          entities: [
            { name: 'Ada', entityType: 'person', observations: ['wrote the first program'] },
          ],
        },
        createToolContext(),
      );
      const found = await client.callTool('search_nodes', { query: 'Ada' });
      expect(JSON.stringify(found.value)).toContain('wrote the first program');
      expect(await readFile(memoryFile, 'utf8')).toContain('Ada');
    } finally {
      await client.close();
      await dir.remove();
    }
  });
});
