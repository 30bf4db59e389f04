import type { AwaitingInput, JsonValue, ToolError } from '@agcore/tools-core';
import { describe, expectTypeOf, it } from 'vitest';
import type { ToolOutput } from './tool-invocation.js';

describe('ToolOutput', () => {
  it('keeps `if (output.ok) … else output.error` type-safe, and awaitingInput narrows', () => {
    const read = (output: ToolOutput): void => {
      if (output.ok) {
        expectTypeOf(output.value).toEqualTypeOf<JsonValue>();
      } else {
        expectTypeOf(output.error).toEqualTypeOf<ToolError>();
      }
      if (output.awaitingInput !== undefined) {
        expectTypeOf(output.awaitingInput).toEqualTypeOf<AwaitingInput>();
        expectTypeOf(output.ok).toEqualTypeOf<false>();
      }
    };
    expectTypeOf(read).toBeFunction();
  });
});
