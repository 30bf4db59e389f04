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
  const parser = new Parser(tokenize(source));
  const result = parser.sum();
  const rest = parser.peek();
  if (rest !== undefined) throw new Error(`unexpected '${rest.value}' at ${rest.at + 1}`);
  if (!Number.isFinite(result)) throw new Error('the result is not a finite number');
  return result;
}

/** A recursive-descent parser that evaluates as it goes, one method per precedence level. */
class Parser {
  readonly #tokens: readonly Token[];
  #position = 0;

  constructor(tokens: readonly Token[]) {
    this.#tokens = tokens;
  }

  peek(): Token | undefined {
    return this.#tokens[this.#position];
  }

  /** `product (('+' | '-') product)*` */
  sum(): number {
    let value = this.#product();
    while (this.#isOp('+') || this.#isOp('-')) {
      const op = (this.peek() as Token).value;
      this.#position += 1;
      const right = this.#product();
      value = op === '+' ? value + right : value - right;
    }
    return value;
  }

  #isOp(value: string): boolean {
    const token = this.peek();
    return token?.kind === 'op' && token.value === value;
  }

  #expect(value: string): void {
    if (!this.#isOp(value)) {
      const token = this.peek();
      throw new Error(
        token === undefined
          ? `expected '${value}' at the end`
          : `expected '${value}' at ${token.at + 1}`,
      );
    }
    this.#position += 1;
  }

  #product(): number {
    let value = this.#unary();
    while (this.#isOp('*') || this.#isOp('/') || this.#isOp('%')) {
      const op = (this.peek() as Token).value;
      this.#position += 1;
      const right = this.#unary();
      value = op === '*' ? value * right : op === '/' ? value / right : value % right;
    }
    return value;
  }

  #unary(): number {
    if (this.#isOp('-')) {
      this.#position += 1;
      return -this.#unary();
    }
    if (this.#isOp('+')) {
      this.#position += 1;
      return this.#unary();
    }
    return this.#power();
  }

  /** `atom ('^' unary)?`: right associative. */
  #power(): number {
    const base = this.#atom();
    if (this.#isOp('^')) {
      this.#position += 1;
      return base ** this.#unary();
    }
    return base;
  }

  #atom(): number {
    const token = this.peek();
    if (token === undefined) throw new Error('the expression ends too early');
    this.#position += 1;
    if (token.kind === 'number') return token.value;
    if (token.kind === 'op' && token.value === '(') {
      const value = this.sum();
      this.#expect(')');
      return value;
    }
    if (token.kind === 'name') return this.#name(token.value);
    throw new Error(`unexpected '${token.value}' at ${token.at + 1}`);
  }

  /** A function call or a constant. */
  #name(text: string): number {
    const name = text.toLowerCase();
    const fn = functions[name];
    if (fn !== undefined) {
      this.#expect('(');
      const args: number[] = [];
      if (!this.#isOp(')')) {
        args.push(this.sum());
        while (this.#isOp(',')) {
          this.#position += 1;
          args.push(this.sum());
        }
      }
      this.#expect(')');
      return fn(...args);
    }
    const constant = constants[name];
    if (constant !== undefined) return constant;
    throw new Error(`unknown name '${text}'`);
  }
}
