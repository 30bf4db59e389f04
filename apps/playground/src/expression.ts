/**
 * A small arithmetic evaluator for the `calculator` tool: numbers, + - * / % ^ (right
 * associative), unary minus, parentheses, the constants pi and e, and a few Math functions.
 * It never uses `eval`.
 */

const functions: Readonly<Record<string, (...values: number[]) => number>> = {
  sqrt: Math.sqrt,
  abs: Math.abs,
  round: Math.round,
  floor: Math.floor,
  ceil: Math.ceil,
  min: Math.min,
  max: Math.max,
  pow: Math.pow,
  log: Math.log,
  exp: Math.exp,
};

const constants: Readonly<Record<string, number>> = { pi: Math.PI, e: Math.E };

type Token =
  | { kind: 'number'; value: number; at: number }
  | { kind: 'name'; value: string; at: number }
  | { kind: 'op'; value: string; at: number };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  const pattern =
    /\s*(?:(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+)|([A-Za-z_]\w*)|(\*\*|[-+*/%^(),]))/y;
  let index = 0;
  while (index < source.length) {
    if (/^\s*$/.test(source.slice(index))) break;
    pattern.lastIndex = index;
    const match = pattern.exec(source);
    if (match === null) {
      throw new Error(`unexpected character '${source.slice(index).trim()[0]}' at ${index + 1}`);
    }
    const at = match.index + match[0].length - (match[1] ?? match[2] ?? match[3] ?? '').length;
    if (match[1] !== undefined) tokens.push({ kind: 'number', value: Number(match[1]), at });
    else if (match[2] !== undefined) tokens.push({ kind: 'name', value: match[2], at });
    else if (match[3] !== undefined)
      tokens.push({ kind: 'op', value: match[3] === '**' ? '^' : match[3], at });
    index = pattern.lastIndex;
  }
  return tokens;
}

/**
 * Evaluates an arithmetic expression.
 *
 * @throws {Error} with a short reason when the expression is malformed, uses an unknown name,
 * or its result is not a finite number (division by zero, say).
 */
export function evaluateExpression(source: string): number {
  const tokens = tokenize(source);
  let position = 0;
  const peek = (): Token | undefined => tokens[position];
  const isOp = (value: string): boolean => {
    const token = peek();
    return token?.kind === 'op' && token.value === value;
  };
  const expect = (value: string): void => {
    if (!isOp(value)) {
      const token = peek();
      throw new Error(
        token === undefined
          ? `expected '${value}' at the end`
          : `expected '${value}' at ${token.at + 1}`,
      );
    }
    position += 1;
  };

  const parseSum = (): number => {
    let value = parseProduct();
    while (isOp('+') || isOp('-')) {
      const op = (peek() as Token).value;
      position += 1;
      const right = parseProduct();
      value = op === '+' ? value + right : value - right;
    }
    return value;
  };
  const parseProduct = (): number => {
    let value = parseUnary();
    while (isOp('*') || isOp('/') || isOp('%')) {
      const op = (peek() as Token).value;
      position += 1;
      const right = parseUnary();
      value = op === '*' ? value * right : op === '/' ? value / right : value % right;
    }
    return value;
  };
  const parseUnary = (): number => {
    if (isOp('-')) {
      position += 1;
      return -parseUnary();
    }
    if (isOp('+')) {
      position += 1;
      return parseUnary();
    }
    return parsePower();
  };
  const parsePower = (): number => {
    const base = parseAtom();
    if (isOp('^')) {
      position += 1;
      return base ** parseUnary();
    }
    return base;
  };
  const parseAtom = (): number => {
    const token = peek();
    if (token === undefined) throw new Error('the expression ends too early');
    position += 1;
    if (token.kind === 'number') return token.value;
    if (token.kind === 'op' && token.value === '(') {
      const value = parseSum();
      expect(')');
      return value;
    }
    if (token.kind === 'name') {
      const name = token.value.toLowerCase();
      const fn = functions[name];
      if (fn !== undefined) {
        expect('(');
        const args: number[] = [];
        if (!isOp(')')) {
          args.push(parseSum());
          while (isOp(',')) {
            position += 1;
            args.push(parseSum());
          }
        }
        expect(')');
        return fn(...args);
      }
      const constant = constants[name];
      if (constant !== undefined) return constant;
      throw new Error(`unknown name '${token.value}'`);
    }
    throw new Error(`unexpected '${token.value}' at ${token.at + 1}`);
  };

  const result = parseSum();
  const rest = peek();
  if (rest !== undefined) throw new Error(`unexpected '${rest.value}' at ${rest.at + 1}`);
  if (!Number.isFinite(result)) throw new Error('the result is not a finite number');
  return result;
}
