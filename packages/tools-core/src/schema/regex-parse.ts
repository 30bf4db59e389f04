/**
 * Parses an ECMA-262 regular expression (the `u` flag, as JSON Schema and ajv read `pattern`)
 * into a tree for the linear-time matcher of `regex.ts`. Only the structure is parsed here:
 * each atom that consumes one character keeps its source text, and `regex.ts` asks the
 * platform's own `RegExp` whether one character matches it, so character classes, escapes and
 * `\p{...}` mean exactly what they mean in JavaScript. Backreferences and lookaround are
 * refused: no engine can run them in linear time (RE2 refuses them for the same reason).
 */

/** A node of the parsed pattern. */
export type RegexNode =
  | { readonly kind: 'char'; readonly source: string }
  | { readonly kind: 'empty' }
  | { readonly kind: 'assert'; readonly which: 'start' | 'end' | 'word' | 'notWord' }
  | { readonly kind: 'concat'; readonly items: readonly RegexNode[] }
  | { readonly kind: 'alt'; readonly items: readonly RegexNode[] }
  | {
      readonly kind: 'repeat';
      readonly item: RegexNode;
      readonly min: number;
      readonly max: number;
    };

/** Thrown for a pattern this engine cannot run; the message says why. */
export class UnsupportedPattern extends Error {}

/** Thrown for a pattern that is not a regular expression at all (the platform's `RegExp` refuses it). */
export class InvalidPattern extends UnsupportedPattern {}

/** The largest count `{n,m}` may give, as in RE2. */
export const maxRepeatCount = 1000;

class Parser {
  private position = 0;

  constructor(
    private readonly pattern: string,
    private readonly relaxed: boolean,
  ) {}

  parse(): RegexNode {
    const node = this.disjunction();
    if (this.position < this.pattern.length) {
      throw new UnsupportedPattern(`unexpected '${this.pattern[this.position]}'`);
    }
    return node;
  }

  private peek(): string | undefined {
    return this.pattern[this.position];
  }

  private disjunction(): RegexNode {
    const items = [this.alternative()];
    while (this.peek() === '|') {
      this.position++;
      items.push(this.alternative());
    }
    return items.length === 1 ? (items[0] as RegexNode) : { kind: 'alt', items };
  }

  private alternative(): RegexNode {
    const items: RegexNode[] = [];
    for (let next = this.peek(); next !== undefined && next !== '|' && next !== ')'; ) {
      items.push(this.term());
      next = this.peek();
    }
    if (items.length === 0) return { kind: 'empty' };
    return items.length === 1 ? (items[0] as RegexNode) : { kind: 'concat', items };
  }

  private term(): RegexNode {
    const start = this.position;
    const character = this.pattern[this.position] as string;
    if (character === '^' || character === '$') {
      this.position++;
      return { kind: 'assert', which: character === '^' ? 'start' : 'end' };
    }
    if (
      character === '\\' &&
      (this.pattern[start + 1] === 'b' || this.pattern[start + 1] === 'B')
    ) {
      this.position += 2;
      return { kind: 'assert', which: this.pattern[start + 1] === 'b' ? 'word' : 'notWord' };
    }
    const atom = this.atom();
    return this.quantified(atom);
  }

  private atom(): RegexNode {
    const start = this.position;
    const character = this.pattern[this.position] as string;
    if (character === '(') return this.group();
    if (character === '[') {
      this.skipClass();
      return { kind: 'char', source: this.pattern.slice(start, this.position) };
    }
    if (character === '\\') {
      const next = this.pattern[start + 1];
      if (this.relaxed && next !== undefined && (next === 'k' || (next >= '1' && next <= '9'))) {
        return this.anyText();
      }
      this.skipEscape();
      return { kind: 'char', source: this.pattern.slice(start, this.position) };
    }
    if (character === '*' || character === '+' || character === '?' || character === '{') {
      throw new UnsupportedPattern(`nothing to repeat before '${character}'`);
    }
    const codePoint = this.pattern.codePointAt(this.position) as number;
    this.position += codePoint > 0xffff ? 2 : 1;
    return { kind: 'char', source: this.pattern.slice(start, this.position) };
  }

  private group(): RegexNode {
    this.position++;
    if (this.peek() === '?') {
      const marker = this.pattern.slice(this.position, this.position + 3);
      if (marker.startsWith('?:')) {
        this.position += 2;
      } else if (marker.startsWith('?<') && marker !== '?<=' && marker !== '?<!') {
        const end = this.pattern.indexOf('>', this.position);
        if (end < 0) throw new UnsupportedPattern('unterminated group name');
        this.position = end + 1;
      } else if (this.relaxed) {
        // A lookaround only narrows what matches: without it, the pattern matches more.
        this.position += marker.startsWith('?<') ? 3 : 2;
        this.disjunction();
        if (this.peek() !== ')') throw new UnsupportedPattern('unterminated group');
        this.position++;
        return { kind: 'empty' };
      } else {
        throw new UnsupportedPattern(
          'lookahead and lookbehind cannot run in linear time and are not supported',
        );
      }
    }
    const inner = this.disjunction();
    if (this.peek() !== ')') throw new UnsupportedPattern('unterminated group');
    this.position++;
    return inner;
  }

  /** A backreference, relaxed: any text at all (what the group matched is some text). */
  private anyText(): RegexNode {
    if (this.pattern[this.position + 1] === 'k') {
      const end = this.pattern.indexOf('>', this.position);
      if (end < 0) throw new UnsupportedPattern('unterminated group name');
      this.position = end + 1;
    } else {
      this.position++;
      while (/[0-9]/.test(this.pattern[this.position] ?? '')) this.position++;
    }
    return {
      kind: 'repeat',
      item: { kind: 'char', source: '[\\s\\S]' },
      min: 0,
      max: Number.POSITIVE_INFINITY,
    };
  }

  private skipClass(): void {
    this.position++;
    while (this.position < this.pattern.length) {
      const character = this.pattern[this.position];
      if (character === ']') {
        this.position++;
        return;
      }
      if (character === '\\') this.skipEscape();
      else this.position++;
    }
    throw new UnsupportedPattern('unterminated character class');
  }

  private skipEscape(): void {
    const next = this.pattern[this.position + 1];
    if (next === undefined) throw new UnsupportedPattern('a pattern cannot end with \\');
    if (next === 'k' || (next >= '1' && next <= '9')) {
      throw new UnsupportedPattern(
        'backreferences cannot run in linear time and are not supported',
      );
    }
    if (next === 'p' || next === 'P' || (next === 'u' && this.pattern[this.position + 2] === '{')) {
      const end = this.pattern.indexOf('}', this.position);
      if (end < 0) throw new UnsupportedPattern('unterminated escape');
      this.position = end + 1;
      return;
    }
    if (next === 'u') {
      this.position += 6;
      // A surrogate pair written as two \u escapes is one character.
      if (
        /^\\u[dD][89abAB]/.test(this.pattern.slice(this.position - 6)) &&
        this.pattern.startsWith('\\u', this.position)
      ) {
        this.position += 6;
      }
      return;
    }
    if (next === 'x') {
      this.position += 4;
      return;
    }
    if (next === 'c') {
      this.position += 3;
      return;
    }
    this.position += 2;
  }

  private quantified(atom: RegexNode): RegexNode {
    let min: number;
    let max: number;
    const character = this.peek();
    if (character === '*') [min, max] = [0, Number.POSITIVE_INFINITY];
    else if (character === '+') [min, max] = [1, Number.POSITIVE_INFINITY];
    else if (character === '?') [min, max] = [0, 1];
    else if (character === '{') {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(
        this.pattern.slice(this.position, this.position + 24),
      );
      if (match === null) throw new UnsupportedPattern("a '{' that is not a count");
      min = Number(match[1]);
      max =
        match[2] === undefined
          ? min
          : match[3] === ''
            ? Number.POSITIVE_INFINITY
            : Number(match[3]);
      if (min > maxRepeatCount || (max !== Number.POSITIVE_INFINITY && max > maxRepeatCount)) {
        throw new UnsupportedPattern(`a count above ${maxRepeatCount} (the limit, as in RE2)`);
      }
      this.position += match[0].length - 1;
    } else {
      return atom;
    }
    this.position++;
    if (this.peek() === '?') this.position++; // lazy: the same for a yes/no match
    if (atom.kind === 'assert') throw new UnsupportedPattern('an assertion cannot be repeated');
    return { kind: 'repeat', item: atom, min, max };
  }
}

/**
 * Parses `pattern`. The caller has checked that `new RegExp(pattern, 'u')` accepts it, so the
 * syntax is valid ECMA-262; what remains to refuse is what cannot run in linear time.
 * `relaxed`: parse a looser pattern instead, that matches every string `pattern` matches and
 * maybe more (each lookaround removed, each backreference read as any text), as a linear-time
 * pre-check of a pattern that otherwise runs on a backtracking engine.
 *
 * @throws {UnsupportedPattern} for backreferences and lookaround (unless relaxed), counts above
 * 1000.
 */
export function parseRegex(pattern: string, relaxed = false): RegexNode {
  return new Parser(pattern, relaxed).parse();
}
