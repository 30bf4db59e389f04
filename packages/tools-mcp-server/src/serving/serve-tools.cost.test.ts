// What a served call costs that it need not: work `serveTools` can do once per server instead of
// once per request (issue 21 §3; the CPU figures are in `pnpm bench`, these pin the causes).
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ListeningServer, serveTools, type ToolServer } from '../index.js';
import { connectV1, fixtureRegistry } from '../test-support/fixtures.js';

let served: ToolServer | undefined;
let listening: ListeningServer | undefined;

afterEach(async () => {
  vi.restoreAllMocks();
  await listening?.close();
  await served?.close();
});

/** The v1 SDK's Ajv class, whose constructor compiles the meta-schemas (the expensive part). */
function ajvPrototype(): { _addVocabularies(): void } {
  const ajv: unknown = Reflect.get(new AjvJsonSchemaValidator(), '_ajv');
  return Object.getPrototypeOf(ajv) as { _addVocabularies(): void };
}

describe('serveTools per-request cost', () => {
  it('builds no JSON Schema engine per 2025-era request (one per server at most)', async () => {
    served = serveTools(fixtureRegistry().registry);
    listening = await served.listen({ port: 0 });
    const client = await connectV1(listening.url);
    const built = vi.spyOn(ajvPrototype(), '_addVocabularies');
    for (let n = 0; n < 5; n += 1) {
      const result = await client.callTool({ name: 'echo', arguments: { text: `hi ${n}` } });
      expect(result.isError).toBeFalsy();
    }
    await client.close();
    expect(built).not.toHaveBeenCalled();
  });
});
