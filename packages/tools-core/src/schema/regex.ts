import { InvalidPattern, parseRegex, type RegexNode, UnsupportedPattern } from './regex-parse.js';

/**
 * A linear-time matcher for JSON Schema's `pattern` (RE2 semantics: a Thompson NFA run as a
 * Pike VM, no backtracking). The structure of the pattern is compiled here; whether one
 * character matches one atom is asked of the platform's `RegExp` on that single character
 * (constant time), cached for ASCII, so atoms mean exactly what they mean in JavaScript.
 *
 * Work is `O(input length × program size)`, counted in `budget.steps`: when the steps run out,
 * the match stops and reports `false` with `budget.steps < 0`.
 */
export type LinearRegex = (input: string, budget: { steps: number }) => boolean;

export { InvalidPattern, UnsupportedPattern };

/** The largest program (instructions) one pattern may compile to. */
export const maxRegexProgramSize = 10_000;

const CHAR = 0;
const SPLIT = 1;
const JMP = 2;
const ASSERT = 3;
const MATCH = 4;

type Predicate = (codePoint: number) => boolean;

interface Program {
  readonly op: number[];
  readonly x: number[];
  readonly y: number[];
  readonly predicates: Predicate[];
}

class Emitter implements Program {
  readonly op: number[] = [];
  readonly x: number[] = [];
  readonly y: number[] = [];
  readonly predicates: Predicate[] = [];
  private readonly predicateCache = new Map<string, number>();

  emit(op: number, x = 0, y = 0): number {
    if (this.op.length >= maxRegexProgramSize) {
      throw new UnsupportedPattern(
        `it compiles to more than ${maxRegexProgramSize} instructions (the limit)`,
      );
    }
    this.op.push(op);
    this.x.push(x);
    this.y.push(y);
    return this.op.length - 1;
  }

  node(node: RegexNode): void {
    switch (node.kind) {
      case 'empty':
        return;
      case 'char':
        this.emit(CHAR, this.predicate(node.source));
        return;
      case 'assert':
        this.emit(ASSERT, ['start', 'end', 'word', 'notWord'].indexOf(node.which));
        return;
      case 'concat':
        for (const item of node.items) this.node(item);
        return;
      case 'alt':
        this.alternation(node.items, 0);
        return;
      case 'repeat':
        this.repeat(node.item, node.min, node.max);
    }
  }

  private alternation(items: readonly RegexNode[], index: number): void {
    if (index === items.length - 1) {
      this.node(items[index] as RegexNode);
      return;
    }
    const split = this.emit(SPLIT);
    this.x[split] = this.op.length;
    this.node(items[index] as RegexNode);
    const jump = this.emit(JMP);
    this.y[split] = this.op.length;
    this.alternation(items, index + 1);
    this.x[jump] = this.op.length;
  }

  private repeat(item: RegexNode, min: number, max: number): void {
    for (let count = 0; count < min; count++) this.node(item);
    if (max === Number.POSITIVE_INFINITY) {
      const split = this.emit(SPLIT);
      this.x[split] = this.op.length;
      this.node(item);
      this.emit(JMP, split);
      this.y[split] = this.op.length;
      return;
    }
    const splits: number[] = [];
    for (let count = min; count < max; count++) {
      const split = this.emit(SPLIT);
      this.x[split] = this.op.length;
      splits.push(split);
      this.node(item);
    }
    for (const split of splits) this.y[split] = this.op.length;
  }

  private predicate(source: string): number {
    const cached = this.predicateCache.get(source);
    if (cached !== undefined) return cached;
    this.predicates.push(makePredicate(source));
    this.predicateCache.set(source, this.predicates.length - 1);
    return this.predicates.length - 1;
  }
}

function makePredicate(source: string): Predicate {
  const first = source.codePointAt(0) as number;
  if (source.length === String.fromCodePoint(first).length && source !== '.') {
    return (codePoint) => codePoint === first;
  }
  if (source === '.') {
    return (codePoint) =>
      codePoint !== 10 && codePoint !== 13 && codePoint !== 0x2028 && codePoint !== 0x2029;
  }
  const native = new RegExp(`^(?:${source})$`, 'u');
  // 0: not asked yet, 1: no, 2: yes.
  const ascii = new Uint8Array(128);
  return (codePoint) => {
    if (codePoint < 128) {
      let known = ascii[codePoint] as number;
      if (known === 0) {
        known = native.test(String.fromCharCode(codePoint)) ? 2 : 1;
        ascii[codePoint] = known;
      }
      return known === 2;
    }
    return native.test(String.fromCodePoint(codePoint));
  };
}

function isWordCharacter(codePoint: number): boolean {
  return (
    (codePoint >= 48 && codePoint <= 57) ||
    (codePoint >= 65 && codePoint <= 90) ||
    (codePoint >= 97 && codePoint <= 122) ||
    codePoint === 95
  );
}

/**
 * Compiles a JSON Schema `pattern` (ECMA-262 with the `u` flag) to a linear-time matcher that
 * searches anywhere in the input, as `RegExp.prototype.test` does.
 *
 * @throws {InvalidPattern} (an `UnsupportedPattern`) for a pattern `RegExp` refuses;
 * {UnsupportedPattern} for backreferences, lookaround, a count above 1000 or a program above
 * `maxRegexProgramSize` instructions; the message says which. `relaxed`: compile the looser
 * pattern of `parseRegex(pattern, true)` (no lookaround, backreferences as any text).
 */
export function compileLinearRegex(pattern: string, relaxed = false): LinearRegex {
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    throw new InvalidPattern(`it is not a valid regular expression (${(error as Error).message})`);
  }
  const program = new Emitter();
  program.node(parseRegex(pattern, relaxed));
  program.emit(MATCH);
  // \b and \B look at both neighbours of a position: those patterns run on the Pike VM alone.
  const wordAssertions = program.op.some(
    (op, pc) => op === ASSERT && (program.x[pc] as number) >= 2,
  );
  if (wordAssertions) return (input, budget) => run(program, input, budget);
  const dfa = new LazyDfa(program);
  return (input, budget) => dfa.run(input, budget);
}

interface DfaState {
  /** CHAR instructions the threads wait at. */
  readonly waiting: readonly number[];
  /** Instructions after a `$` reached: they go on only at the end of the input. */
  readonly atEnd: readonly number[];
  readonly match: boolean;
  /** Transitions by ASCII code point, then by any other (filled as met). */
  readonly ascii: (DfaState | undefined)[];
  readonly other: Map<number, DfaState>;
}

/** States kept per pattern; past it, new transitions are computed and not kept (still linear). */
const maxDfaStates = 4096;

/**
 * The Pike VM's sets of threads, each computed once and cached with its transitions (a lazy
 * DFA, as RE2 does): a character then costs one table look-up instead of one step per thread.
 * Work stays `O(input × program)` when nothing is cached.
 */
class LazyDfa {
  private readonly states = new Map<string, DfaState>();
  private initial: DfaState | undefined;

  constructor(private readonly program: Program) {}

  run(input: string, budget: { steps: number }): boolean {
    this.initial ??= this.closure([0], true, false, budget);
    let state = this.initial;
    if (input.length === 0) {
      return state.match || this.closure([...state.atEnd], true, true, budget).match;
    }
    for (let index = 0; index < input.length; ) {
      if (state.match) return true;
      if (state.waiting.length === 0 && state.atEnd.length === 0) return false;
      const codePoint = input.codePointAt(index) as number;
      index += codePoint > 0xffff ? 2 : 1;
      if (--budget.steps < 0) return false;
      const known = codePoint < 128 ? state.ascii[codePoint] : state.other.get(codePoint);
      state = known ?? this.advance(state, codePoint, budget);
    }
    return (
      state.match ||
      (state.atEnd.length > 0 && this.closure([...state.atEnd], false, true, budget).match)
    );
  }

  private advance(state: DfaState, codePoint: number, budget: { steps: number }): DfaState {
    const { x, predicates } = this.program;
    const moved: number[] = [];
    for (const pc of state.waiting) {
      if ((predicates[x[pc] as number] as Predicate)(codePoint)) moved.push(pc + 1);
    }
    moved.push(0); // a match may start at every position
    const next = this.closure(moved, false, false, budget);
    if (this.states.size < maxDfaStates) {
      if (codePoint < 128) state.ascii[codePoint] = next;
      else if (state.other.size < 256) state.other.set(codePoint, next);
    }
    return next;
  }

  private closure(
    starts: number[],
    atStart: boolean,
    atEnd: boolean,
    budget: { steps: number },
  ): DfaState {
    const { op, x, y } = this.program;
    const seen = new Uint8Array(op.length);
    const waiting: number[] = [];
    const pending: number[] = [];
    let match = false;
    const stack = starts.reverse();
    while (stack.length > 0) {
      const pc = stack.pop() as number;
      if (seen[pc] === 1) continue;
      seen[pc] = 1;
      budget.steps--;
      switch (op[pc]) {
        case JMP:
          stack.push(x[pc] as number);
          break;
        case SPLIT:
          stack.push(y[pc] as number, x[pc] as number);
          break;
        case ASSERT:
          if (x[pc] === 0 ? atStart : atEnd) stack.push(pc + 1);
          else if (x[pc] === 1) pending.push(pc + 1);
          break;
        case MATCH:
          match = true;
          break;
        default:
          waiting.push(pc);
      }
    }
    waiting.sort((a, b) => a - b);
    pending.sort((a, b) => a - b);
    const key = `${waiting.join(',')}|${pending.join(',')}|${match ? 1 : 0}`;
    const known = this.states.get(key);
    if (known !== undefined) return known;
    const state: DfaState = {
      waiting,
      atEnd: pending,
      match,
      ascii: new Array(128),
      other: new Map(),
    };
    if (this.states.size < maxDfaStates) this.states.set(key, state);
    return state;
  }
}

/** A VM step costs about four times a DFA step or a subschema application: budget it so. */
const vmStepCost = 4;

/** Pike VM: one pass over the input, every thread advanced in lock step. */
function run(program: Program, input: string, budget: { steps: number }): boolean {
  const { op, x, y, predicates } = program;
  const marks = new Int32Array(op.length).fill(-1);
  // A pattern that starts with ^ cannot match once no thread is left.
  const anchored = op[0] === ASSERT && x[0] === 0;
  let current: number[] = [];
  let next: number[] = [];
  const stack: number[] = [];
  let generation = 0;
  let previous = -1;
  let position = 0;

  // Follows jumps, splits and assertions from `start`; keeps CHAR and MATCH instructions.
  const add = (list: number[], start: number, at: number, nextPoint: number): boolean => {
    stack.push(start);
    while (stack.length > 0) {
      const pc = stack.pop() as number;
      if (marks[pc] === generation) continue;
      marks[pc] = generation;
      budget.steps -= vmStepCost;
      switch (op[pc]) {
        case JMP:
          stack.push(x[pc] as number);
          break;
        case SPLIT:
          stack.push(y[pc] as number, x[pc] as number);
          break;
        case ASSERT: {
          const which = x[pc] as number;
          const holds =
            which === 0
              ? at === 0
              : which === 1
                ? at === input.length
                : ((previous >= 0 && isWordCharacter(previous)) !==
                    (nextPoint >= 0 && isWordCharacter(nextPoint))) ===
                  (which === 2);
          if (holds) stack.push(pc + 1);
          break;
        }
        case MATCH:
          return true;
        default:
          list.push(pc);
      }
    }
    return false;
  };

  let codePoint = input.length > 0 ? (input.codePointAt(0) as number) : -1;
  if (add(current, 0, 0, codePoint)) return true;
  while (position < input.length) {
    if (budget.steps < 0) return false;
    const width = codePoint > 0xffff ? 2 : 1;
    const after = position + width;
    const following = after < input.length ? (input.codePointAt(after) as number) : -1;
    generation++;
    next.length = 0;
    for (let index = 0; index < current.length; index++) {
      const pc = current[index] as number;
      budget.steps -= vmStepCost;
      if ((predicates[x[pc] as number] as Predicate)(codePoint)) {
        previous = codePoint;
        if (add(next, pc + 1, after, following)) return true;
      }
    }
    previous = codePoint;
    if (add(next, 0, after, following)) return true;
    const swap = current;
    current = next;
    next = swap;
    position = after;
    codePoint = following;
    if (anchored && current.length === 0) return false;
  }
  return false;
}
