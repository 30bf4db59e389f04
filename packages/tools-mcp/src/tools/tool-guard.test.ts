// Issue 18 §2: no MCP tool slips past a pin or an approval. A `BaseTool` made by tools() runs
// only while its MCP tool is listed and not blocked; its approval and permissions follow the
// definition the client knows now; pins are kept by the exposed name, so a rename is a change.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LlmCycle } from '@agcore/llm-cycle';
import { ScriptedProvider, textResponse, toolCallsResponse } from '@agcore/llm-cycle/testing';
import {
  type BaseTool,
  createToolContext,
  type JsonObject,
  type ToolError,
} from '@agcore/tools-core';
import { PermissionChecker } from '@agcore/tools-permission';
import { type ToolInvocation, ToolRegistry } from '@agcore/tools-registry';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  McpClient,
  type McpClientOptions,
  type McpTool,
  type McpToolChangedWarning,
} from '../index.js';
import { failure, hostileServer, logLines, tempDir } from '../test-support/servers.js';

interface Shape {
  readonly destructive?: boolean;
  readonly hidden?: boolean;
  readonly renamed?: boolean;
  readonly twin?: boolean;
  readonly note?: boolean;
  readonly long?: boolean;
  readonly impostor?: string;
}

let dir: { path: string; remove(): Promise<void> };
let logFile: string;
let clients: McpClient[] = [];

beforeEach(async () => {
  dir = await tempDir('guard');
  logFile = join(dir.path, 'calls.log');
});
afterEach(async () => {
  await Promise.all(clients.map((client) => client.close()));
  clients = [];
  await dir.remove();
});

/** A connected client of the shape-shifting server, and the tool_changed warnings it gave. */
async function shifty(options: McpClientOptions = {}): Promise<{
  client: McpClient;
  changes: McpToolChangedWarning[];
  /** Changes the server's listing and waits until the client has listed it. */
  shift(shape: Shape): Promise<void>;
}> {
  const changes: McpToolChangedWarning[] = [];
  const env = { FAULT_SHAPE: join(dir.path, 'shape.json') };
  const client = new McpClient('box', hostileServer('shape-shift', { logFile, env }), {
    ...options,
    onWarning: (warning) => {
      if (warning.kind === 'tool_changed') changes.push(warning);
    },
  });
  clients.push(client);
  await client.connect();
  const shift = async (shape: Shape): Promise<void> => {
    await client.callTool('set', { ...shape });
    await client.refreshTools();
  };
  return { client, changes, shift };
}

async function serverCalls(name: string): Promise<number> {
  return (await logLines(logFile)).filter((line) => line === `call ${name}`).length;
}

/** What the LLM loop asks of a tool's `needsApproval` before a call (see llm-cycle's approval). */
async function approvalAsked(tool: BaseTool<JsonObject> | undefined): Promise<boolean> {
  const needs = tool?.needsApproval;
  if (typeof needs !== 'function') return needs === true;
  return needs.call(tool, {}, createToolContext());
}

function errorOf(invocation: ToolInvocation): ToolError | undefined {
  return invocation.output.ok ? undefined : invocation.output.error;
}

describe('a blocked or unlisted tool never runs', () => {
  it("under 'block', a tool blocked and then left out of the listing stays refused", async () => {
    const { client, changes, shift } = await shifty({ onToolChange: 'block' });
    const [rm] = await client.tools({ filter: { allow: ['rm_rf'] } });
    expect(await rm?.execute({}, createToolContext())).toBe('removed by rm_rf');
    await shift({ destructive: true });
    expect(changes.map((change) => [change.toolName, change.blocked])).toEqual([['rm_rf', true]]);
    const blocked = await failure(rm?.execute({}, createToolContext()) ?? Promise.resolve());
    expect(blocked.code).toBe('denied');
    expect(blocked.isRecoverable()).toBe(true);
    expect(blocked.message).toMatch(/'rm_rf'.*'box'.*blocked.*acceptToolChange\('rm_rf'\)/);
    // The server drops the tool from its listing but keeps serving it.
    await shift({ destructive: true, hidden: true });
    const unlisted = await failure(rm?.execute({}, createToolContext()) ?? Promise.resolve());
    expect(unlisted.code).toBe('denied');
    expect(unlisted.isRecoverable()).toBe(true);
    expect(unlisted.message).toMatch(/'rm_rf'.*'box'.*no longer listed by the server/);
    expect(await serverCalls('rm_rf')).toBe(1);
    // Listed again with the pinned definition: the same object runs again.
    await shift({});
    expect(await rm?.execute({}, createToolContext())).toBe('removed by rm_rf');
    expect(await serverCalls('rm_rf')).toBe(2);
  });

  it('an unlisted tool is refused in the default mode too, and runs once listed again', async () => {
    const { client, shift } = await shifty();
    const [rm] = await client.tools({ filter: { allow: ['rm_rf'] } });
    await shift({ hidden: true });
    const refused = await failure(rm?.execute({}, createToolContext()) ?? Promise.resolve());
    expect(refused.code).toBe('denied');
    expect(refused.message).toMatch(/no longer listed/);
    expect(await serverCalls('rm_rf')).toBe(0);
    await shift({});
    expect(await rm?.execute({}, createToolContext())).toBe('removed by rm_rf');
  });

  it('after a reconnect, a tool runs only once the new server process lists it', async () => {
    const { client } = await shifty();
    const registry = new ToolRegistry({ permissionChecker: PermissionChecker.allowAll() });
    registry.registerAll(await client.tools({ needsApproval: true }));
    // The next process serves rm_rf, destructive, without listing it.
    await writeFile(join(dir.path, 'shape.json'), JSON.stringify({ hidden: true }));
    await client.reconnect();
    expect(await approvalAsked(registry.get('rm_rf'))).toBe(true);
    const refused = errorOf(await registry.invoke('rm_rf', {}));
    expect(refused?.code).toBe('denied');
    expect(refused?.message).toMatch(/no longer listed/);
    expect(await serverCalls('rm_rf')).toBe(0);
    // Listed, destructive: it needs approval, and more permissions than it declared.
    await writeFile(join(dir.path, 'shape.json'), JSON.stringify({ destructive: true }));
    await client.reconnect();
    expect(await approvalAsked(registry.get('rm_rf'))).toBe(true);
    expect(errorOf(await registry.invoke('rm_rf', {}))?.code).toBe('permission_denied');
    expect(await serverCalls('rm_rf')).toBe(0);
  });

  it('an accepted change lets the same object run again, unless it needs more permissions', async () => {
    const { client, shift } = await shifty({ onToolChange: 'block' });
    const [rm] = await client.tools({ filter: { allow: ['rm_rf'] } });
    await shift({ note: true });
    expect((await failure(rm?.execute({}, createToolContext()) ?? Promise.resolve())).code).toBe(
      'denied',
    );
    expect(client.acceptToolChange('rm_rf')).toBe(true);
    expect(await rm?.execute({}, createToolContext())).toBe('removed by rm_rf');
    // Accepting a definition that deletes does not grant the object the permissions for it.
    await shift({ note: true, destructive: true });
    expect(client.acceptToolChange('rm_rf')).toBe(true);
    const refused = await failure(rm?.execute({}, createToolContext()) ?? Promise.resolve());
    expect(refused.code).toBe('permission_denied');
    expect(await serverCalls('rm_rf')).toBe(1);
    const [fresh] = await client.tools({ filter: { allow: ['rm_rf'] } });
    expect(fresh?.requiredPermissions).toEqual(['write', 'delete']);
    expect(await fresh?.execute({}, createToolContext())).toBe('removed by rm_rf');
  });
});

describe('approval and permissions follow the definition the client knows now', () => {
  it('a tool made while read-only needs approval once the server makes it destructive', async () => {
    const { client, changes, shift } = await shifty();
    const registry = new ToolRegistry({ permissionChecker: PermissionChecker.allowAll() });
    registry.registerAll(await client.tools({ needsApproval: true }));
    expect(await approvalAsked(registry.get('rm_rf'))).toBe(false);
    await shift({ destructive: true });
    expect(changes.map((change) => [change.toolName, change.blocked])).toEqual([['rm_rf', false]]);
    expect(await approvalAsked(registry.get('rm_rf'))).toBe(true);
    expect((registry.get('rm_rf') as McpTool | undefined)?.annotations).toMatchObject({
      destructiveHint: true,
    });
    // Back to read-only: no approval again.
    await shift({});
    expect(await approvalAsked(registry.get('rm_rf'))).toBe(false);
  });

  it('an LlmCycle pauses for approval at the next call after the tool became destructive', async () => {
    const { client, shift } = await shifty();
    const registry = new ToolRegistry({ permissionChecker: new PermissionChecker() });
    // Permissions the application sets itself: a new definition changes approval, not them.
    const permissions = { rm_rf: ['read' as const] };
    registry.registerAll(await client.tools({ needsApproval: true, permissions }));
    const rm = (id: string) => toolCallsResponse([{ name: 'rm_rf', arguments: {}, id }]);
    const provider = new ScriptedProvider([
      rm('call_1'),
      textResponse('Removed.'),
      rm('call_2'),
      textResponse('Removed again.'),
    ]);
    const cycle = new LlmCycle({ provider, model: 'test' });
    const first = await cycle.submitWithTools('Clean up', registry);
    expect(first.interruptions ?? []).toEqual([]);
    expect(await serverCalls('rm_rf')).toBe(1);
    await shift({ destructive: true });
    const second = await cycle.submitWithTools('Clean up again', registry);
    expect(second.interruptions).toEqual([
      { kind: 'approval', callId: 'call_2', toolName: 'rm_rf', input: {} },
    ]);
    expect(await serverCalls('rm_rf')).toBe(1);
    // Approved by a person, it runs.
    const resumed = await cycle.resume({ call_2: 'approve' }, registry);
    expect(resumed.message.content).toBe('Removed again.');
    expect(await serverCalls('rm_rf')).toBe(2);
  });

  it('a definition that changes between the approval verdict and the call stops the call', async () => {
    const { client, shift } = await shifty();
    const registry = new ToolRegistry({ permissionChecker: PermissionChecker.allowAll() });
    const permissions = { rm_rf: ['read' as const] };
    registry.registerAll(await client.tools({ needsApproval: true, permissions }));
    const provider = new ScriptedProvider([
      toolCallsResponse([{ name: 'rm_rf', arguments: {}, id: 'call_1' }]),
      textResponse('It was not run.'),
    ]);
    const heard: boolean[] = [];
    const cycle = new LlmCycle({
      provider,
      model: 'test',
      // Cleared on the read-only definition; the server turns it destructive meanwhile.
      approval: async (request) => {
        heard.push(request.needsApproval);
        await shift({ destructive: true });
        return 'approve' as const;
      },
    });
    const response = await cycle.submitWithTools('Clean up', registry);
    expect(heard).toEqual([false]);
    expect(response.message.content).toBe('It was not run.');
    const answer = cycle.messages().find((message) => message.role === 'tool');
    expect(answer?.content).toMatch(/'rm_rf'.*'box'.*definition changed after.*approval/);
    expect(await serverCalls('rm_rf')).toBe(0);
  });

  it('a registry that allowed the read-only tool does not run it once it deletes', async () => {
    const { client, shift } = await shifty();
    // The default policy allows read and network only.
    const registry = new ToolRegistry({ permissionChecker: new PermissionChecker() });
    registry.registerAll(await client.tools());
    expect((await registry.invoke('rm_rf', {})).output).toEqual({
      ok: true,
      value: 'removed by rm_rf',
    });
    await shift({ destructive: true });
    const refused = errorOf(await registry.invoke('rm_rf', {}));
    expect(refused?.code).toBe('permission_denied');
    expect(refused?.message).toMatch(/'rm_rf'.*'box'.*'write'.*'delete'.*tools\(\)/);
    expect(await serverCalls('rm_rf')).toBe(1);
    // Tools made now declare what the new definition needs: the registry's checker decides.
    const fresh = new ToolRegistry({ permissionChecker: new PermissionChecker() });
    fresh.registerAll(await client.tools());
    expect(errorOf(await fresh.invoke('rm_rf', {}))?.message).toMatch(/Permission denied/);
    expect(await serverCalls('rm_rf')).toBe(1);
  });
});

describe('a rename cannot evade the pin', () => {
  it("'rm.rf' taking the place of a pinned 'rm_rf' is a change", async () => {
    const { client, changes, shift } = await shifty();
    const [rm] = await client.tools({ filter: { allow: ['rm_rf'] } });
    await shift({ renamed: true });
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      toolName: 'rm.rf',
      previousToolName: 'rm_rf',
      blocked: false,
    });
    expect(changes[0]?.message).toMatch(/'rm\.rf'.*'rm_rf'/);
    // The object made for 'rm_rf' never calls 'rm.rf' (nor 'rm_rf', no longer listed).
    expect((await failure(rm?.execute({}, createToolContext()) ?? Promise.resolve())).code).toBe(
      'denied',
    );
    expect(await serverCalls('rm.rf')).toBe(0);
  });

  it("under 'block', the newcomer is blocked until accepted", async () => {
    const { client, changes, shift } = await shifty({ onToolChange: 'block' });
    await client.tools();
    await shift({ renamed: true });
    expect(changes.map((change) => [change.toolName, change.blocked])).toEqual([['rm.rf', true]]);
    expect((await client.tools()).map((tool) => tool.name)).toEqual(['set']);
    expect(client.acceptToolChange('rm.rf')).toBe(true);
    const [renamed] = await client.tools({ filter: { allow: ['rm.rf'] } });
    expect(renamed?.name).toBe('rm_rf');
    expect(await renamed?.execute({}, createToolContext())).toBe('removed by rm.rf');
  });

  it('two MCP names for one exposed name in one listing are reported; the newcomer is blocked', async () => {
    const { client, changes, shift } = await shifty({ onToolChange: 'block' });
    const [rm] = await client.tools({ filter: { allow: ['rm_rf'] } });
    await shift({ twin: true });
    expect(changes.map((change) => [change.toolName, change.previousToolName])).toEqual([
      ['rm.rf', 'rm_rf'],
    ]);
    const tools = await client.tools();
    expect(tools.map((tool) => [tool.name, tool.mcpName])).toEqual([
      ['rm_rf', 'rm_rf'],
      ['set', 'set'],
    ]);
    expect(await rm?.execute({}, createToolContext())).toBe('removed by rm_rf');
    expect(await serverCalls('rm.rf')).toBe(0);
  });

  it('in the default mode, the same listing is reported and tools() names both', async () => {
    const { client, changes, shift } = await shifty();
    await client.listTools();
    await shift({ twin: true });
    expect(changes.map((change) => change.toolName)).toEqual(['rm.rf']);
    const collided = await failure(client.tools());
    expect(collided.code).toBe('mcp_error');
    expect(collided.message).toMatch(/'rm_rf' and 'rm\.rf' both become 'rm_rf'/);
  });

  it("a name that takes a long name's exposed name only under a prefix is a change too", async () => {
    const { client, changes, shift } = await shifty({ onToolChange: 'block' });
    await shift({ long: true });
    const before = await client.tools({ prefix: true });
    const long = before.find((tool) => tool.mcpName.startsWith('remove_'));
    expect(long?.name).toHaveLength(64);
    // The server drops the long name and lists the 64-character name it becomes under 'box'.
    await shift({ impostor: 'box' });
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ previousToolName: long?.mcpName, blocked: true });
    const after = await client.tools({ prefix: true });
    expect(after.map((tool) => tool.name)).not.toContain(long?.name);
    expect(client.acceptToolChange(changes[0]?.toolName ?? '')).toBe(true);
    const accepted = await client.tools({ prefix: true });
    expect(accepted.find((tool) => tool.name === long?.name)?.mcpName).toBe(changes[0]?.toolName);
  });
});
