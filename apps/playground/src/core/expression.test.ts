import { describe, expect, it } from 'vitest';
import { evaluateExpression } from './expression.js';

describe('evaluateExpression (the calculator tool)', () => {
  it('follows precedence, associativity, unary minus and functions', () => {
    expect(evaluateExpression('(22 + 14) / 2')).toBe(18);
    expect(evaluateExpression('2 + 3 * 4')).toBe(14);
    expect(evaluateExpression('2 ^ 3 ^ 2')).toBe(512);
    expect(evaluateExpression('-2 ^ 2')).toBe(-4);
    expect(evaluateExpression('10 % 4 - -1')).toBe(3);
    expect(evaluateExpression('max(1, sqrt(16), 3) + round(pi)')).toBe(7);
    expect(evaluateExpression('1.5e3 / .5')).toBe(3000);
  });

  it('rejects malformed input with a reason instead of evaluating it', () => {
    expect(() => evaluateExpression('2 +')).toThrow('ends too early');
    expect(() => evaluateExpression('(1 + 2')).toThrow("expected ')'");
    expect(() => evaluateExpression('exit(1)')).toThrow("unknown name 'exit'");
    expect(() => evaluateExpression('process.exit(1)')).toThrow("unexpected character '.'");
    expect(() => evaluateExpression('1 / 0')).toThrow('not a finite number');
    expect(() => evaluateExpression('2 $ 3')).toThrow("unexpected character '$'");
    expect(() => evaluateExpression('1 2')).toThrow("unexpected '2'");
  });
});
