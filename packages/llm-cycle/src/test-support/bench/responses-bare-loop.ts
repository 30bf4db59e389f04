/**
 * The floor of the Responses bench: a hand-written tool loop over `fetch`, no validation, no
 * retries, no limits: output items appended to `input`, calls run in parallel, their outputs
 * appended; streamed, split on blank lines and `JSON.parse` each data line, the output taken
 * from `response.completed`.
 */
import { toolFunctions } from './conversation.js';

/** An input or output item, as far as the bare loop reads it. */
interface Item {
  type?: string;
  call_id?: string;
  name?: string;
  arguments?: string;
}

/** One conversation; resolves to the number of text deltas seen. */
export async function bareResponsesLoop(
  baseURL: string,
  tools: unknown,
  stream: boolean,
): Promise<number> {
  const input: unknown[] = [{ type: 'message', role: 'user', content: 'Plan my trip.' }];
  let events = 0;
  for (;;) {
    const response = await fetch(`${baseURL}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
      body: JSON.stringify({
        model: 'gpt-5-mini',
        instructions: 'You are a helpful assistant.',
        input,
        tools,
        store: false,
        include: ['reasoning.encrypted_content'],
        ...(stream ? { stream: true } : {}),
      }),
    });
    let output: Item[];
    if (stream) {
      const read = await readStream(response);
      events += read.deltas;
      output = read.output;
    } else output = ((await response.json()) as { output: Item[] }).output;
    input.push(...output);
    const calls = output.filter((item) => item.type === 'function_call');
    if (calls.length === 0) return events;
    const results = await Promise.all(
      calls.map(async (call) =>
        toolFunctions[call.name ?? '']?.(JSON.parse(call.arguments || '{}')),
      ),
    );
    calls.forEach((call, index) => {
      input.push({
        type: 'function_call_output',
        call_id: call.call_id,
        output: JSON.stringify(results[index]),
      });
    });
  }
}

/** Reads a stream to its end: the text deltas counted, the output of `response.completed`. */
async function readStream(response: Response): Promise<{ deltas: number; output: Item[] }> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let deltas = 0;
  let output: Item[] = [];
  for (;;) {
    const read = await reader.read();
    if (read.done) break;
    buffer += decoder.decode(read.value, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.slice(block.indexOf('data: ') + 6);
      const event = JSON.parse(data) as { type: string; response?: { output: Item[] } };
      if (event.type === 'response.output_text.delta') deltas++;
      if (event.type === 'response.completed') output = event.response?.output ?? [];
      end = buffer.indexOf('\n\n');
    }
  }
  return { deltas, output };
}
