import { type BaseTool, defineTool, ToolError } from '@agcore/tools-core';
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
 * contain it (case-insensitive, with line numbers, from `offset` on counted in lines). One read
 * returns at most `maxBytes` bytes and says how to read on. An unknown or expired handle is a
 * recoverable `ToolError` (`invalid_arguments`) the model reads.
 */
export function readResultTool(store: ResultStore, maxBytes: number): BaseTool {
  return defineTool({
    name: readResultName,
    description:
      'Reads a tool result that was cut (its marker gives the handle): a slice by byte offset and length, or the lines matching grep (case-insensitive) with their line numbers.',
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
          description: 'Return only the lines containing this text.',
        },
      },
      required: ['handle'],
      additionalProperties: false,
    },
    execute: async (args: ReadResultArgs) => {
      const content = await store.get(args.handle);
      if (content === undefined) {
        throw new ToolError(
          'invalid_arguments',
          `No result is kept under handle ${JSON.stringify(args.handle)} (unknown, or expired from the result store); use the head and tail you have, or call the tool again.`,
          { toolName: readResultName },
        );
      }
      return args.grep === undefined
        ? slice(content, args, maxBytes)
        : grep(content, args.grep, args.offset ?? 1, maxBytes);
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

function grep(content: string, needle: string, fromLine: number, maxBytes: number): string {
  const wanted = needle.toLowerCase();
  const lines = content.split('\n');
  const out: string[] = [];
  let used = 0;
  for (let index = Math.max(0, fromLine - 1); index < lines.length; index++) {
    const line = lines[index] ?? '';
    if (!line.toLowerCase().includes(wanted)) continue;
    const shown = `${index + 1}: ${line.length > 500 ? `${line.slice(0, 500)}…` : line}`;
    const size = encoder.encode(shown).length + 1;
    if (used + size > maxBytes) {
      out.push(`[more matches from line ${index + 1}: call again with "offset":${index + 1}]`);
      break;
    }
    out.push(shown);
    used += size;
  }
  return out.length === 0 ? `[no line contains ${JSON.stringify(needle)}]` : out.join('\n');
}
