/**
 * The model and the agent every Web-only runtime test uses: a local Chat Completions server
 * (`startChatCompletionsServer`, in this Node process) that answers by what it is asked, so
 * that runs in several runtimes may share it, and the agent of `fixtures/agent.ts` bundled for
 * `--platform=browser` from the packed tarballs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type ChatCompletionsServer,
  type ReceivedRequest,
  type ServerReply,
  startChatCompletionsServer,
  textCompletion,
  textStream,
  toolCallCompletion,
  toolCallStream,
} from '@agcore/llm-cycle/testing';
import { expect } from 'vitest';
import { bundle, consumerProject } from './support.js';

/** The streamed answer, in the pieces the server sends. */
export const streamedPieces = ['It is ', '22 °C', ' in Paris.'] as const;
const wholeAnswer = 'It is 22 °C in Oslo.';

/** Streamed or not, the tool call first; once the tool answered, the text. */
function answer(request: ReceivedRequest): ServerReply {
  const body = request.body as { stream?: boolean; messages?: { role: string }[] } | undefined;
  const toolAnswered = body?.messages?.at(-1)?.role === 'tool';
  if (body?.stream === true) {
    const writes = toolAnswered
      ? textStream(streamedPieces)
      : toolCallStream([
          { id: 'call_paris', name: 'get_weather', pieces: ['{"city":', '"Paris"}'] },
        ]);
    return { kind: 'sse', writes, pause: 'next-turn' };
  }
  return {
    kind: 'json',
    body: toolAnswered
      ? textCompletion(wholeAnswer)
      : toolCallCompletion([
          { id: 'call_oslo', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        ]),
  };
}

/** Starts the model. */
export async function startModel(): Promise<ChatCompletionsServer> {
  const server = await startChatCompletionsServer();
  return server.fallback(answer);
}

/** A folder of its own (no package.json around it) holding `agent.js`, the browser bundle of the agent. */
export async function agentFolder(): Promise<{
  readonly dir: string;
  readonly remove: () => void;
}> {
  const bundled = await bundle(path.join(consumerProject(), 'agent.ts'), 'browser');
  expect(bundled.errors).toEqual([]);
  const dir = mkdtempSync(path.join(tmpdir(), 'agcore-agent-'));
  writeFileSync(path.join(dir, 'agent.js'), bundled.code);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A script that runs the agent against `baseURL` and prints its report as one JSON line. */
export function printingMain(baseURL: string): string {
  return `import { runAgent } from './agent.js';\nconsole.log(JSON.stringify(await runAgent(${JSON.stringify(baseURL)})));\n`;
}

/**
 * The seal of the fixture's pinned cycle and the hashes under it, as Node's `node:crypto`
 * computed them (and the hand-written SHA-256 before `@noble/hashes`): the same on every
 * runtime, whichever code hashes there.
 */
export const pinnedSeal = {
  mac: '22b568d7175417ea0f471d00a8ca0a1b6ccf94397e4ab51f9287532748713510',
  sha256: '43063aee3dc116bf26bfc157ff74e6cfe935f758025826a0100397b6543a8fea',
  hmac: 'cd49f2471905d78953a8cc4321726bfbe279f0bd2b6f93f321c5743e6500a896',
} as const;

/**
 * What every runtime must show: the streamed answer in its pieces, the tool loop (streamed and
 * not), the run state sealed and restored, the pinned seal (hashed by `node:crypto` when
 * `hashing` is `'native'`, by `@noble/hashes` when `'noble'`), and the requests made by that
 * runtime's `fetch`.
 */
export function expectAgentWorked(
  report: unknown,
  server: ChatCompletionsServer,
  userAgent: RegExp,
  hashing: 'native' | 'noble',
): void {
  const { events, ...rest } = report as { events: string[] };
  // The tool's events and the first turn's end may interleave; the answer comes after the tool.
  expect([...new Set(events)].sort()).toEqual([
    'assistant_text_delta',
    'tool_call_delta',
    'tool_execution_completed',
    'tool_execution_started',
    'turn_complete',
  ]);
  expect(events.indexOf('assistant_text_delta')).toBeGreaterThan(
    events.indexOf('tool_execution_completed'),
  );
  expect(events.at(-1)).toBe('turn_complete');
  expect(rest).toEqual({
    deltas: [...streamedPieces],
    streamedAnswer: streamedPieces.join(''),
    wholeAnswer,
    toolCalls: ['Paris', 'Oslo'],
    restoredMessages: 4,
    seal: { ...pinnedSeal, native: hashing === 'native' },
  });
  const made = server.requests.map((request) => ({
    stream: (request.body as { stream?: boolean }).stream === true,
    agent: request.headers['user-agent'] ?? '',
  }));
  expect(made.map((request) => request.stream)).toEqual([true, true, false, false]);
  for (const request of made) expect(request.agent).toMatch(userAgent);
}
