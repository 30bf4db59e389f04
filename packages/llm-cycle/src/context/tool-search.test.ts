/**
 * Issue 25 §2: past a threshold the model gets the always-on tools and `search_tools`; tools
 * it finds are sent from the next turn on (and travel in the state); an unknown query and a
 * tool removed mid-run are answered, not crashed on. On both loops.
 */
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { describe, expect, it } from 'vitest';
import { loops, runLoop, scriptedCycle, toolMessagesOf } from '../test-support/budget-kit.js';
import { type ScriptedProvider, textResponse, toolCallsResponse } from '../testing/index.js';

const verbs = [
  'read',
  'write',
  'list',
  'delete',
  'move',
  'search',
  'create',
  'tag',
  'count',
  'copy',
];
const things = ['file', 'directory', 'issue', 'entity'];

function bigRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  for (const thing of things) {
    for (const verb of verbs) {
      registry.register(
        defineTool({
          name: `${verb}_${thing}`,
          description: `${verb[0]?.toUpperCase()}${verb.slice(1)}s a ${thing} of the workspace`,
          parameters: {
            type: 'object',
            properties: { path: { type: 'string', description: `The ${thing} to ${verb}` } },
          },
          execute: async ({ path }: { path?: string }) => `${verb} ${thing} ${path ?? ''} done`,
        }),
        { tags: verb === 'read' ? ['core'] : [], category: thing },
      );
    }
  }
  return registry;
}

const sentNames = (provider: ScriptedProvider, call: number) =>
  provider.calls[call]?.request.tools?.map((tool) => tool.function.name) ?? [];
const search = (query: string, id = 'call_search') =>
  toolCallsResponse([{ id, name: 'search_tools', arguments: { query } }]);

describe.each(loops)('toolSearch (%s)', (loop) => {
  it('sends always-on tools + search_tools, then the tools found from the next turn on', async () => {
    const { cycle, provider } = scriptedCycle(
      [
        search('create a directory'),
        toolCallsResponse([
          { id: 'call_mk', name: 'create_directory', arguments: { path: 'out' } },
        ]),
        textResponse('created'),
      ],
      { toolSearch: { threshold: 10, alwaysOn: ['core'] } },
    );
    await runLoop(loop, cycle, 'create the out directory', bigRegistry());
    expect(sentNames(provider, 0)).toEqual([
      'read_file',
      'read_directory',
      'read_issue',
      'read_entity',
      'search_tools',
    ]);
    const found = JSON.parse(toolMessagesOf(provider, 1)[0]?.content ?? '{}') as {
      tools: { name: string; parameters: unknown }[];
    };
    expect(found.tools[0]?.name).toBe('create_directory');
    expect(found.tools[0]?.parameters).toMatchObject({ properties: { path: { type: 'string' } } });
    expect(found.tools.length).toBeLessThanOrEqual(5);
    expect(sentNames(provider, 1)).toContain('create_directory');
    expect(sentNames(provider, 1).length).toBeLessThan(12);
    expect(toolMessagesOf(provider, 2)[1]?.content).toBe('create directory out done');
    // Found tools travel in the state: a cycle restored from it sends them at once.
    const next = scriptedCycle([textResponse('ok')], {
      toolSearch: { threshold: 10, alwaysOn: ['core'] },
      state: cycle.state(),
      systemPrompt: undefined,
    });
    await runLoop(loop, next.cycle, 'and now?', bigRegistry());
    expect(sentNames(next.provider, 0)).toContain('create_directory');
  });

  it('answers a query that matches nothing, and leaves a small registry alone', async () => {
    const { cycle, provider } = scriptedCycle(
      [search('zzz quantum teleport'), textResponse('no such tool')],
      { toolSearch: { threshold: 10 } },
    );
    await runLoop(loop, cycle, 'teleport me', bigRegistry());
    expect(toolMessagesOf(provider, 1)[0]?.content).toMatch(
      /^No tool matches "zzz quantum teleport"/,
    );
    const byCategory = scriptedCycle([textResponse('hi')], {
      toolSearch: { threshold: 10, alwaysOn: ['issue', 'copy_file'] },
    });
    await runLoop(loop, byCategory.cycle, 'hello', bigRegistry());
    expect(sentNames(byCategory.provider, 0)).toEqual([
      'copy_file',
      ...verbs.map((verb) => `${verb}_issue`),
      'search_tools',
    ]);
    const small = scriptedCycle([textResponse('hi')], { toolSearch: { threshold: 100 } });
    await runLoop(loop, small.cycle, 'hello', bigRegistry());
    expect(sentNames(small.provider, 0)).toHaveLength(40);
    expect(sentNames(small.provider, 0)).not.toContain('search_tools');
  });

  it('a found tool removed mid-run is no longer sent, and calling it is a not_found the model reads', async () => {
    const registry = bigRegistry().register(
      defineTool({
        name: 'close_tracker',
        description: 'Closes the issue tracker',
        parameters: { type: 'object', properties: {} },
        execute: async () => (registry.unregister('delete_issue') === undefined ? 'no' : 'closed'),
      }),
      { tags: ['core'] },
    );
    const { cycle, provider } = scriptedCycle(
      [
        search('delete an issue'),
        toolCallsResponse([{ id: 'call_close', name: 'close_tracker', arguments: {} }]),
        toolCallsResponse([{ id: 'call_del', name: 'delete_issue', arguments: { path: '7' } }]),
        textResponse('could not'),
      ],
      { toolSearch: { threshold: 10 }, onUnknownTool: 'return_to_model' },
    );
    await runLoop(loop, cycle, 'delete issue 7', registry);
    expect(sentNames(provider, 1)).toContain('delete_issue');
    expect(toolMessagesOf(provider, 2).at(-1)?.content).toBe('closed');
    expect(sentNames(provider, 2)).not.toContain('delete_issue');
    expect(toolMessagesOf(provider, 3).at(-1)?.content).toMatch(
      /^Error \[not_found\]: .*delete_issue/,
    );
  });
});
