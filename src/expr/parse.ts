/**
 * `parseExpr(sql)`: a small hand-written recursive-descent parser for SQL expressions.
 *
 * Precedence, loosest first: OR < AND < NOT < comparison (= == != <> < <= > >=, IS [NOT] NULL)
 * < + - < * / % < unary - + < postfix `.field`. Binary operators are left-associative.
 * Atoms: identifiers (bare, case kept, or "double quoted" with "" escaping), 'strings' with ''
 * escaping, integers (any size, kept exact), decimals and exponents (floats), TRUE FALSE NULL,
 * CAST(x AS type), array(...) split(s, sep) slice(l, start, len) cardinality(l) sequence(a, b)
 * (function names and keywords are case-insensitive), parentheses. A minus sign directly in
 * front of a number literal is part of the literal (so -9223372036854775808 is an int64).
 * A whole expression may end with `AS name` (an alias).
 * Errors: PlanError 'PARSE_ERROR' with `details.position` (0-based) and a caret snippet.
 */
import { PlanError } from '../errors.js';
import type { BinaryOp, ExprNode, FunctionName } from './ast.js';
import { anyOf, FUNCTION_ARITY } from './ast.js';
import { parseTypeName, TYPE_NAMES, typeNameHint } from './arrow-types.js';

type TokKind = 'ident' | 'qident' | 'string' | 'int' | 'float' | 'op' | 'eof';
interface Token {
  kind: TokKind;
  text: string;
  /** Decoded value: identifier name, string content, number text. */
  value: string;
  pos: number;
  end: number;
}

const KEYWORDS = new Set(['and', 'or', 'not', 'is', 'null', 'true', 'false', 'cast', 'as', 'in', 'between', 'like', 'case']);
const FUNCTIONS = new Set<string>(['array', 'split', 'slice', 'cardinality', 'sequence', 'coalesce']);
const COMPARE: Record<string, BinaryOp> = { '=': 'eq', '==': 'eq', '!=': 'ne', '<>': 'ne', '<': 'lt', '<=': 'le', '>': 'gt', '>=': 'ge' };

export function isReservedWord(name: string): boolean {
  return KEYWORDS.has(name.toLowerCase());
}

export function parseExpr(sql: string): ExprNode {
  if (typeof sql !== 'string') throw new PlanError('PARSE_ERROR', `expr expects SQL text, got ${typeof sql}`);
  const p = new Parser(sql);
  let node = p.parseOr();
  if (p.isKeyword('as')) {
    p.next();
    const t = p.peek();
    if (t.kind !== 'ident' && t.kind !== 'qident') p.fail(t, 'an alias name after AS');
    p.next();
    node = { kind: 'alias', arg: node, name: t.value };
  }
  const t = p.peek();
  if (t.kind !== 'eof') p.fail(t, 'an operator or the end of the expression');
  return node;
}

export function syntaxError(sql: string, pos: number, message: string): PlanError {
  const lineStart = sql.lastIndexOf('\n', pos - 1) + 1;
  let lineEnd = sql.indexOf('\n', pos);
  if (lineEnd < 0) lineEnd = sql.length;
  const line = sql.slice(lineStart, lineEnd);
  const caret = ' '.repeat(pos - lineStart) + '^';
  return new PlanError('PARSE_ERROR', `${message} at position ${pos + 1}\n  ${line}\n  ${caret}`, { position: pos, sql });
}

function tokenize(sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    const start = i;
    if (/[A-Za-z_]/.test(c)) {
      while (i < n && /[A-Za-z0-9_]/.test(sql[i])) i++;
      const text = sql.slice(start, i);
      out.push({ kind: 'ident', text, value: text, pos: start, end: i });
    } else if (c === '"' || c === "'") {
      let value = '';
      i++;
      for (;;) {
        if (i >= n) throw syntaxError(sql, start, c === '"' ? 'Unterminated quoted identifier' : 'Unterminated string literal');
        if (sql[i] === c) {
          if (sql[i + 1] === c) {
            value += c;
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += sql[i++];
      }
      if (c === '"' && value === '') throw syntaxError(sql, start, 'Empty quoted identifier');
      out.push({ kind: c === '"' ? 'qident' : 'string', text: sql.slice(start, i), value, pos: start, end: i });
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(sql[i + 1] ?? ''))) {
      let isFloat = false;
      while (i < n && /[0-9]/.test(sql[i])) i++;
      if (sql[i] === '.' && /[0-9]/.test(sql[i + 1] ?? '')) {
        isFloat = true;
        i++;
        while (i < n && /[0-9]/.test(sql[i])) i++;
      } else if (sql[i] === '.' && !/[A-Za-z_"]/.test(sql[i + 1] ?? '')) {
        isFloat = true; // "1." is a float
        i++;
      }
      if (sql[i] === 'e' || sql[i] === 'E') {
        let j = i + 1;
        if (sql[j] === '+' || sql[j] === '-') j++;
        if (!/[0-9]/.test(sql[j] ?? '')) throw syntaxError(sql, i, 'Malformed number exponent');
        while (j < n && /[0-9]/.test(sql[j])) j++;
        i = j;
        isFloat = true;
      }
      if (i < n && /[A-Za-z_]/.test(sql[i])) throw syntaxError(sql, i, 'Unexpected character after number');
      const text = sql.slice(start, i);
      out.push({ kind: isFloat ? 'float' : 'int', text, value: text, pos: start, end: i });
    } else {
      const two = sql.slice(i, i + 2);
      if (two === '<=' || two === '>=' || two === '!=' || two === '<>' || two === '==') {
        i += 2;
      } else if ('=<>+-*/%(),.[]'.includes(c)) {
        i += 1;
      } else {
        throw syntaxError(sql, i, `Unexpected character ${JSON.stringify(c)}`);
      }
      const text = sql.slice(start, i);
      out.push({ kind: 'op', text, value: text, pos: start, end: i });
    }
  }
  out.push({ kind: 'eof', text: '', value: '', pos: n, end: n });
  return out;
}

class Parser {
  private readonly toks: Token[];
  private i = 0;
  constructor(private readonly sql: string) {
    this.toks = tokenize(sql);
  }

  peek(): Token {
    return this.toks[this.i];
  }
  next(): Token {
    return this.toks[this.i++];
  }
  isKeyword(k: string): boolean {
    const t = this.peek();
    return t.kind === 'ident' && t.value.toLowerCase() === k;
  }
  isOp(o: string): boolean {
    const t = this.peek();
    return t.kind === 'op' && t.text === o;
  }
  fail(t: Token, expected: string): never {
    const found = t.kind === 'eof' ? 'the end of the input' : JSON.stringify(t.text);
    throw syntaxError(this.sql, t.pos, `Syntax error: expected ${expected}, found ${found}`);
  }
  expectOp(o: string): Token {
    if (!this.isOp(o)) this.fail(this.peek(), JSON.stringify(o));
    return this.next();
  }

  parseOr(): ExprNode {
    let left = this.parseAnd();
    while (this.isKeyword('or')) {
      this.next();
      left = { kind: 'binary', op: 'or', left, right: this.parseAnd() };
    }
    return left;
  }
  private parseAnd(): ExprNode {
    let left = this.parseNot();
    while (this.isKeyword('and')) {
      this.next();
      left = { kind: 'binary', op: 'and', left, right: this.parseNot() };
    }
    return left;
  }
  private parseNot(): ExprNode {
    if (this.isKeyword('not')) {
      this.next();
      return { kind: 'unary', op: 'not', arg: this.parseNot() };
    }
    return this.parseComparison();
  }
  private parseComparison(): ExprNode {
    let left = this.parseMembership();
    for (;;) {
      const t = this.peek();
      if (t.kind === 'op' && COMPARE[t.text]) {
        this.next();
        left = { kind: 'binary', op: COMPARE[t.text], left, right: this.parseMembership() };
      } else if (this.isKeyword('is')) {
        this.next();
        let negate = false;
        if (this.isKeyword('not')) {
          this.next();
          negate = true;
        }
        if (!this.isKeyword('null')) this.fail(this.peek(), 'NULL after IS [NOT]');
        this.next();
        left = { kind: 'unary', op: negate ? 'isNotNull' : 'isNull', arg: left };
      } else {
        return left;
      }
    }
  }
  /**
   * `[NOT] IN`, `[NOT] BETWEEN`, `[NOT] LIKE`: tighter than comparisons, as in Postgres and
   * DuckDB (`f = s LIKE 'a%'` is `f = (s LIKE 'a%')`).
   */
  private parseMembership(): ExprNode {
    let left = this.parseAdditive();
    while (this.isKeyword('in') || this.isKeyword('between') || this.isKeyword('like') || (this.isKeyword('not') && this.followedByPredicateKeyword())) {
      const negate = this.isKeyword('not');
      if (negate) this.next();
      const test = this.isKeyword('in') ? this.parseIn(left) : this.isKeyword('between') ? this.parseBetween(left) : this.parseLike(left);
      left = negate ? { kind: 'unary', op: 'not', arg: test } : test;
    }
    return left;
  }
  private followedByPredicateKeyword(): boolean {
    const t = this.toks[this.i + 1];
    return t.kind === 'ident' && ['in', 'between', 'like'].includes(t.value.toLowerCase());
  }
  /** `s LIKE pattern`: `%` any characters, `_` one (src/expr/evaluate-like). */
  private parseLike(left: ExprNode): ExprNode {
    this.next();
    return { kind: 'call', fn: 'like', args: [left, this.parseAdditive()] };
  }
  /**
   * `x IN (a, b, ...)` as `(x = a) OR (x = b) ...` (anyOf): SQL's three-valued result exactly
   * (NULL when x is NULL, or when nothing matched and a listed value is NULL).
   */
  private parseIn(left: ExprNode): ExprNode {
    this.next();
    this.expectOp('(');
    if (this.isOp(')')) this.fail(this.peek(), 'at least one value in IN (...)');
    const equalities: ExprNode[] = [];
    for (;;) {
      equalities.push({ kind: 'binary', op: 'eq', left, right: this.parseAdditive() });
      if (!this.isOp(',')) break;
      this.next();
    }
    this.expectOp(')');
    return anyOf(equalities);
  }
  /** `x BETWEEN lo AND hi` as `(x >= lo) AND (x <= hi)` (bounds included, as in SQL). */
  private parseBetween(left: ExprNode): ExprNode {
    this.next();
    const lo = this.parseAdditive();
    if (!this.isKeyword('and')) this.fail(this.peek(), 'AND in BETWEEN ... AND ...');
    this.next();
    const hi = this.parseAdditive();
    return { kind: 'binary', op: 'and', left: { kind: 'binary', op: 'ge', left, right: lo }, right: { kind: 'binary', op: 'le', left, right: hi } };
  }
  private parseAdditive(): ExprNode {
    let left = this.parseMultiplicative();
    for (;;) {
      if (this.isOp('+')) {
        this.next();
        left = { kind: 'binary', op: 'add', left, right: this.parseMultiplicative() };
      } else if (this.isOp('-')) {
        this.next();
        left = { kind: 'binary', op: 'sub', left, right: this.parseMultiplicative() };
      } else {
        return left;
      }
    }
  }
  private parseMultiplicative(): ExprNode {
    let left = this.parseUnary();
    for (;;) {
      const op = this.isOp('*') ? 'mul' : this.isOp('/') ? 'div' : this.isOp('%') ? 'mod' : null;
      if (!op) return left;
      this.next();
      left = { kind: 'binary', op, left, right: this.parseUnary() };
    }
  }
  private parseUnary(): ExprNode {
    if (this.isOp('-')) {
      this.next();
      const t = this.peek();
      // "-<number>" is a negative literal (keeps INT64_MIN exact), unless a postfix follows.
      if ((t.kind === 'int' || t.kind === 'float') && !(this.toks[this.i + 1].kind === 'op' && this.toks[this.i + 1].text === '.')) {
        this.next();
        return numberNode(t, true);
      }
      return { kind: 'unary', op: 'neg', arg: this.parseUnary() };
    }
    if (this.isOp('+')) {
      this.next();
      return this.parseUnary();
    }
    return this.parsePostfix();
  }
  private parsePostfix(): ExprNode {
    let node = this.parsePrimary();
    while (this.isOp('.')) {
      this.next();
      const t = this.peek();
      if (t.kind !== 'ident' && t.kind !== 'qident') this.fail(t, 'a field name after "."');
      this.next();
      node = { kind: 'field', arg: node, name: t.value };
    }
    return node;
  }
  private parsePrimary(): ExprNode {
    const t = this.peek();
    switch (t.kind) {
      case 'int':
      case 'float':
        this.next();
        return numberNode(t, false);
      case 'string':
        this.next();
        return { kind: 'lit', type: 'string', value: t.value };
      case 'qident':
        this.next();
        return { kind: 'col', name: t.value };
      case 'ident': {
        const lower = t.value.toLowerCase();
        if (lower === 'true' || lower === 'false') {
          this.next();
          return { kind: 'lit', type: 'bool', value: lower === 'true' };
        }
        if (lower === 'null') {
          this.next();
          return { kind: 'lit', type: 'null' };
        }
        if (lower === 'cast') return this.parseCast();
        if (lower === 'case') return this.parseCase();
        if (KEYWORDS.has(lower)) this.fail(t, 'an expression');
        this.next();
        if (this.isOp('(')) {
          if (!FUNCTIONS.has(lower)) {
            throw syntaxError(this.sql, t.pos, `Unknown function ${JSON.stringify(t.value)} (known: ${[...FUNCTIONS].join(', ')})`);
          }
          return this.parseCall(lower as FunctionName, t);
        }
        return { kind: 'col', name: t.value };
      }
      case 'op':
        if (t.text === '(') {
          this.next();
          const inner = this.parseOr();
          this.expectOp(')');
          return inner;
        }
        return this.fail(t, 'an expression');
      default:
        return this.fail(t, 'an expression');
    }
  }
  private parseCall(fn: FunctionName, nameTok: Token): ExprNode {
    this.expectOp('(');
    const args: ExprNode[] = [];
    if (!this.isOp(')')) {
      for (;;) {
        args.push(this.parseOr());
        if (this.isOp(',')) {
          this.next();
          continue;
        }
        break;
      }
    }
    const close = this.expectOp(')');
    const [min, max] = FUNCTION_ARITY[fn];
    if (args.length < min || args.length > max) {
      const want = max === Infinity ? `at least ${min}` : min === max ? `${min}` : `${min} to ${max}`;
      throw syntaxError(this.sql, nameTok.pos, `${fn}() takes ${want} argument(s), got ${args.length} (ends at position ${close.end})`);
    }
    return { kind: 'call', fn, args };
  }
  /**
   * `CASE [x] WHEN a THEN v ... [ELSE e] END`; the simple form (`CASE x WHEN a`) compares with
   * `x = a`. WHEN, THEN, ELSE and END are words only here (a column may be named `end`).
   */
  private parseCase(): ExprNode {
    this.next();
    const subject = this.isKeyword('when') ? null : this.parseOr();
    const args: ExprNode[] = [];
    if (!this.isKeyword('when')) this.fail(this.peek(), 'WHEN in CASE');
    while (this.isKeyword('when')) {
      this.next();
      const test = this.parseOr();
      args.push(subject === null ? test : { kind: 'binary', op: 'eq', left: subject, right: test });
      if (!this.isKeyword('then')) this.fail(this.peek(), 'THEN after CASE ... WHEN');
      this.next();
      args.push(this.parseOr());
    }
    if (this.isKeyword('else')) {
      this.next();
      args.push(this.parseOr());
    }
    if (!this.isKeyword('end')) this.fail(this.peek(), 'WHEN, ELSE or END in CASE');
    this.next();
    return { kind: 'call', fn: 'case', args };
  }
  private parseCast(): ExprNode {
    this.next();
    this.expectOp('(');
    const arg = this.parseOr();
    if (!this.isKeyword('as')) this.fail(this.peek(), 'AS in CAST(x AS type)');
    this.next();
    const start = this.peek();
    if (start.kind !== 'ident') this.fail(start, 'a type name');
    this.next();
    let end = start.end;
    if (this.isOp('[')) {
      while (!this.isOp(']')) {
        if (this.peek().kind === 'eof') this.fail(this.peek(), '"]"');
        this.next();
      }
      end = this.next().end;
    }
    const text = this.sql.slice(start.pos, end);
    const to = parseTypeName(text);
    if (!to) throw syntaxError(this.sql, start.pos, `Unknown type ${JSON.stringify(text)}${typeNameHint(text)} (known: ${TYPE_NAMES.join(', ')})`);
    this.expectOp(')');
    return { kind: 'cast', arg, to };
  }
}

function numberNode(t: Token, negative: boolean): ExprNode {
  if (t.kind === 'int') {
    const v = BigInt(t.value);
    return { kind: 'lit', type: 'int', value: (negative ? -v : v).toString() };
  }
  const x = Number(t.value);
  const v = negative ? -x : x;
  return { kind: 'lit', type: 'float', value: Object.is(v, -0) ? '-0' : String(v) };
}
