/**
 * The floors of the Anthropic bench: hand-written Messages tool loops over `fetch`, no
 * validation, no retries; non-streaming, and streaming (split on blank lines, `JSON.parse`
 * each data line, `partial_json` joined per block).
 */
import { toolFunctions } from './conversation.js';

type Block = Record<string, unknown> & { type: string };
interface Turn {
  role: 'user' | 'assistant';
  content: string | Block[];
}

const headers = {
  'content-type': 'application/json',
  'x-api-key': 'sk-ant-bench',
  'anthropic-version': '2023-06-01',
};

/** The tool definitions in Messages' shape. */
export interface MessagesTool {
  name: string;
  description: string;
  input_schema: unknown;
}

function request(messages: Turn[], tools: readonly MessagesTool[], stream: boolean): string {
  return JSON.stringify({
    model: 'claude-bench',
    max_tokens: 4096,
    system: 'You are a helpful assistant.',
    messages,
    tools,
    ...(stream ? { stream: true } : {}),
  });
}

/** Runs the calls of `content` and appends the user turn with their results. */
async function answer(messages: Turn[], content: Block[]): Promise<boolean> {
  const calls = content.filter((block) => block.type === 'tool_use');
  if (calls.length === 0) return false;
  const results = await Promise.all(
    calls.map(async (call) =>
      toolFunctions[String(call.name)]?.(call.input as Record<string, string>),
    ),
  );
  messages.push({
    role: 'user',
    content: calls.map((call, index) => ({
      type: 'tool_result',
      tool_use_id: String(call.id),
      content: JSON.stringify(results[index]),
    })),
  });
  return true;
}

/** The non-streaming floor. */
export async function bareMessagesLoop(
  baseURL: string,
  tools: readonly MessagesTool[],
): Promise<number> {
  const messages: Turn[] = [{ role: 'user', content: 'Plan my trip.' }];
  for (;;) {
    const response = await fetch(`${baseURL}/v1/messages`, {
      method: 'POST',
      headers,
      body: request(messages, tools, false),
    });
    const body = (await response.json()) as { content: Block[] };
    messages.push({ role: 'assistant', content: body.content });
    if (!(await answer(messages, body.content))) return 0;
  }
}

/** The streaming floor; returns the number of events read. */
export async function bareMessagesSseLoop(
  baseURL: string,
  tools: readonly MessagesTool[],
): Promise<number> {
  const messages: Turn[] = [{ role: 'user', content: 'Plan my trip.' }];
  let events = 0;
  for (;;) {
    const response = await fetch(`${baseURL}/v1/messages`, {
      method: 'POST',
      headers,
      body: request(messages, tools, true),
    });
    const turn = await readTurn(response);
    events += turn.events;
    messages.push({ role: 'assistant', content: turn.content });
    if (!(await answer(messages, turn.content))) return events;
  }
}

async function readTurn(response: Response): Promise<{ content: Block[]; events: number }> {
  const blocks: Block[] = [];
  const json: string[] = [];
  let events = 0;
  let buffer = '';
  const decoder = new TextDecoder();
  const apply = (data: string): void => {
    const event = JSON.parse(data) as {
      type: string;
      index: number;
      content_block?: Block;
      delta?: { type: string; text?: string; partial_json?: string };
    };
    events++;
    if (event.type === 'content_block_start' && event.content_block !== undefined) {
      blocks[event.index] = { ...event.content_block };
      json[event.index] = '';
    } else if (event.type === 'content_block_delta' && event.delta !== undefined) {
      const block = blocks[event.index] as Block;
      if (event.delta.type === 'text_delta') block.text = `${block.text ?? ''}${event.delta.text}`;
      else if (event.delta.type === 'input_json_delta')
        json[event.index] = `${json[event.index] ?? ''}${event.delta.partial_json}`;
    } else if (event.type === 'content_block_stop') {
      const block = blocks[event.index] as Block;
      if (block.type === 'tool_use') block.input = JSON.parse(json[event.index] || '{}');
    }
  };
  for await (const bytes of response.body as ReadableStream<Uint8Array>) {
    buffer += decoder.decode(bytes, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame.split('\n').find((line) => line.startsWith('data: '));
      if (data !== undefined) apply(data.slice(6));
      end = buffer.indexOf('\n\n');
    }
  }
  return { content: blocks, events };
}
