import { type BaseTool, defineTool, ToolError } from '@agcore/tools-core';
import { grep } from './grep-windows.js';
import type { ResultStore } from './result-store.js';

/** The name of the built-in tool that reads spilled results. */
export const readResultName = 'read_result';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

interface ReadResultArgs {
  readonly handle: string;
  readonly offset?: number;
  readonly length?: number;
  readonly grep?: string;
}

/**
 * The built-in `read_result({ handle, offset?, length?, grep? })`: a slice of a spilled result
 * by UTF-8 byte offset and length (never inside a character), or with `grep` the lines that
 * contain it (literally, ignoring case, with line numbers, from `offset` on counted in lines): a
 * line of up to 500 characters whole, a longer one as a window of 200 characters each side of
 * every match, labelled `N: [bytes a-b]` (windows that overlap merged). One read
 * returns at most `maxBytes` bytes and says how to read on. An unknown or expired handle is a
 * recoverable `ToolError` (`invalid_arguments`) the model reads.
 */
export function readResultTool(store: ResultStore, maxBytes: number): BaseTool {
  return defineTool({
    name: readResultName,
    description:
      'Reads a tool result that was cut (its marker gives the handle): a slice by byte offset and length, or the lines containing the grep text (literal, case-insensitive) with their line numbers; in a long line, 200 characters around each match, labelled with their byte offsets.',
    parameters: {
      type: 'object',
      properties: {
        handle: { type: 'string', description: 'The handle from the truncation marker.' },
        offset: {
          type: 'integer',
          minimum: 0,
          description: 'First byte (with grep: first line, 1-based) to read; default 0.',
        },
        length: {
          type: 'integer',
          minimum: 1,
          description: `Bytes to read (at most ${maxBytes}).`,
        },
        grep: {
          type: 'string',
          minLength: 1,
          description:
            'Return only the lines containing this text (literal, not a pattern); in a long line, the parts around each match.',
        },
      },
      required: ['handle'],
      additionalProperties: false,
    },
    execute: async (args: ReadResultArgs) => {
      if (args.grep === '') {
        throw new ToolError(
          'invalid_arguments',
          'grep must not be empty: give the text to look for.',
          {
            toolName: readResultName,
          },
        );
      }
      const content = await store.get(args.handle);
      if (content === undefined) {
        throw new ToolError(
          'invalid_arguments',
          `No result is kept under handle ${JSON.stringify(args.handle)} (unknown, or expired from the result store); use the head and tail you have, or call the tool again.`,
          { toolName: readResultName },
        );
      }
      if (args.grep === undefined) return slice(content, args, maxBytes);
      return grep(content, {
        handle: args.handle,
        needle: args.grep,
        fromLine: args.offset ?? 1,
        maxBytes,
      });
    },
  }) as BaseTool;
}

function slice(content: string, args: ReadResultArgs, maxBytes: number): string {
  const bytes = encoder.encode(content);
  const total = bytes.length;
  let start = Math.min(args.offset ?? 0, total);
  while (start < total && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++;
  let end = Math.min(total, start + Math.min(args.length ?? maxBytes, maxBytes));
  while (end > start && end < total && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  const more =
    end < total
      ? `\n[more from offset ${end}: read_result({"handle":${JSON.stringify(args.handle)},"offset":${end}})]`
      : '';
  return `[bytes ${start}-${end} of ${total}]\n${decoder.decode(bytes.subarray(start, end))}${more}`;
}
