import { unlink } from 'node:fs/promises';
import { type AnyTool, awaitInput, defineTool, type JsonObject } from '@agcore/tools-core';
import { sandboxPath } from './sandbox.js';

/**
 * `delete_file`: deletes a file in the sandbox. Destructive twice over: it needs the `delete`
 * permission (which the default policy denies) and a person's approval for every call
 * (`needsApproval: true`), which the loop asks for before it runs.
 */
export function createDeleteFileTool(sandboxDir: string): AnyTool {
  return defineTool({
    name: 'delete_file',
    description: "Delete a file from the playground's sandbox directory (asks a person first).",
    parameters: {
      type: 'object',
      properties: {
        path: {
          type: 'string',
          description: 'File path relative to the sandbox, e.g. "notes.txt"',
        },
      },
      required: ['path'],
      additionalProperties: false,
    },
    requiredPermissions: ['delete'],
    needsApproval: true,
    execute: async ({ path: requested }) => {
      await unlink(await sandboxPath(sandboxDir, requested, 'delete_file', 'deletes'));
      return { deleted: requested };
    },
  }) as AnyTool;
}

/** Above this amount (in euros) `transfer_money` asks a person before it sends anything. */
const suspiciousAmount = 5000;

/**
 * `transfer_money`: the design's "a suspicious transfer: freeze the account?". Below 5 000 € it
 * sends (pretend: nothing leaves the machine); above, it asks back with `awaitInput`, and when
 * the person answers it is called again with the answer: `yes` freezes the account, anything
 * else sends the money.
 */
export const transferMoneyTool = defineTool({
  name: 'transfer_money',
  description: 'Transfer money to an account (pretend). Large transfers are checked by a person.',
  parameters: {
    type: 'object',
    properties: {
      to: { type: 'string', description: 'The receiving account or person' },
      amount: { type: 'number', minimum: 0, description: 'Euros' },
    },
    required: ['to', 'amount'],
    additionalProperties: false,
  },
  execute: async ({ to, amount }, context) => {
    const formatted = amount.toLocaleString('en-US').replace(/,/g, ' ');
    if (amount > suspiciousAmount && context.input === undefined) {
      return awaitInput({
        prompt: `A suspicious transfer of ${formatted} € to ${to}: freeze the account? (yes/no)`,
        data: { to, amount },
      });
    }
    const answer = String(context.input?.value ?? '')
      .trim()
      .toLowerCase();
    const result: JsonObject =
      answer === 'yes' || answer === 'y'
        ? { frozen: true, to, amount, note: 'The account is frozen; nothing was sent.' }
        : { sent: true, to, amount };
    return result;
  },
});
