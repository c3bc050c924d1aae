import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseExpr } from '../../src/expr/parse.js';
import { renderSql, sqlText } from '../../src/expr/sql-text.js';
import type { ExprNode } from '../../src/expr/ast.js';
import { floatLit, intLit } from '../../src/expr/ast.js';
import { PlanError } from '../../src/errors.js';
import { col, lit, split, cardinality, slice, sequence } from '../../src/expr/builders.js';

const c = (name: string): ExprNode => ({ kind: 'col', name });

describe('parseExpr', () => {
  it('follows SQL precedence', () => {
    const neg = (arg: ExprNode): ExprNode => ({ kind: 'unary', op: 'neg', arg });
    const bin = (op: string, left: ExprNode, right: ExprNode) => ({ kind: 'binary', op, left, right }) as ExprNode;
    expect(parseExpr('a OR b AND NOT c = 1 + 2 * -d')).toEqual(
      bin('or', c('a'), bin('and', c('b'), { kind: 'unary', op: 'not', arg: bin('eq', c('c'), bin('add', intLit(1), bin('mul', intLit(2), neg(c('d'))))) })),
    );
    expect(parseExpr('a OR b AND NOT c = 1 + 2 * -d')).toEqual(parseExpr('a OR (b AND (NOT (c = (1 + (2 * (-d))))))'));
    expect(parseExpr('NOT a IS NULL')).toEqual({ kind: 'unary', op: 'not', arg: { kind: 'unary', op: 'isNull', arg: c('a') } });
    expect(parseExpr('(a + b) * c')).toEqual(bin('mul', bin('add', c('a'), c('b')), c('c')));
  });
  it('parses the API example', () => {
    expect(parseExpr('price * qty > 10 AND venue = venue_right')).toEqual(
      col('price').mul(col('qty')).gt(10).and(col('venue').eq(col('venue_right'))).node,
    );
  });
  it('left-associative arithmetic and comparison chains', () => {
    expect(parseExpr('a - b - c')).toEqual({ kind: 'binary', op: 'sub', left: { kind: 'binary', op: 'sub', left: c('a'), right: c('b') }, right: c('c') });
    expect(parseExpr('a / b % c')).toEqual({ kind: 'binary', op: 'mod', left: { kind: 'binary', op: 'div', left: c('a'), right: c('b') }, right: c('c') });
  });
  it('literals: strings with quotes, big ints, floats, booleans, null', () => {
    expect(parseExpr("'it''s'")).toEqual({ kind: 'lit', type: 'string', value: "it's" });
    expect(parseExpr('-9223372036854775808')).toEqual(intLit(-9223372036854775808n));
    expect(parseExpr('18446744073709551615')).toEqual(intLit(18446744073709551615n));
    expect(parseExpr('1.5')).toEqual(floatLit(1.5));
    expect(parseExpr('1e5')).toEqual(floatLit(1e5));
    expect(parseExpr('.5')).toEqual(floatLit(0.5));
    expect(parseExpr('TRUE')).toEqual({ kind: 'lit', type: 'bool', value: true });
    expect(parseExpr('null')).toEqual({ kind: 'lit', type: 'null' });
  });
  it('identifiers, quoted identifiers, fields, IS [NOT] NULL, CAST, functions, AS', () => {
    expect(parseExpr('"my ""col"""')).toEqual(c('my "col"'));
    expect(parseExpr('s.a.b')).toEqual({ kind: 'field', arg: { kind: 'field', arg: c('s'), name: 'a' }, name: 'b' });
    expect(parseExpr('x IS NOT NULL')).toEqual({ kind: 'unary', op: 'isNotNull', arg: c('x') });
    expect(parseExpr('CAST(x AS timestamp[ms, UTC])')).toEqual({ kind: 'cast', arg: c('x'), to: { kind: 'timestamp', unit: 'ms', timezone: 'UTC' } });
    expect(parseExpr("SPLIT(tags, ',')")).toEqual(split('tags', ',').node);
    expect(parseExpr('cardinality(items)')).toEqual(cardinality('items').node);
    expect(parseExpr('a + 1 AS total')).toEqual(col('a').add(1).alias('total').node);
    expect(parseExpr('a <> b')).toEqual(col('a').ne(col('b')).node);
    expect(parseExpr('a == b')).toEqual(col('a').eq(col('b')).node);
  });
  it('reports errors with positions and a caret', () => {
    const cases: Array<[string, number]> = [
      ['a +', 3],
      ['a + * b', 4],
      ["'open", 0],
      ['(a + b', 6],
      ['a $ b', 2],
      ['foo(a)', 0],
      ['CAST(a AS wat)', 10],
      ['split(a)', 0],
      ['a b', 2],
    ];
    for (const [sql, pos] of cases) {
      let err: unknown;
      try {
        parseExpr(sql);
      } catch (e) {
        err = e;
      }
      expect(err, sql).toBeInstanceOf(PlanError);
      const pe = err as PlanError;
      expect(pe.code).toBe('PARSE_ERROR');
      expect(pe.details.position, sql).toBe(pos);
      expect(pe.message).toContain(`position ${pos + 1}`);
      expect(pe.message).toContain(`\n  ${' '.repeat(pos)}^`);
    }
  });
  it('an unknown type in CAST gets the did-you-mean of schema type names', () => {
    const message = (sql: string): string => {
      try {
        parseExpr(sql);
      } catch (e) {
        expect(e).toBeInstanceOf(PlanError);
        return (e as PlanError).message;
      }
      throw new Error(`${sql} parsed`);
    };
    expect(message('CAST(x AS int65)')).toMatch(/^Unknown type "int65"; did you mean "int64"\? \(known: bool, /);
    expect(message('CAST(x AS doubel) > 1')).toMatch(/^Unknown type "doubel"; did you mean "double"\? /);
    expect(message('CAST(x AS timestamp[sec])')).toMatch(/^Unknown type "timestamp\[sec\]"; did you mean "timestamp\[s\]"\? /);
    expect(message('CAST(x AS wat)')).toMatch(/^Unknown type "wat" \(known: /);
    expect(() => col('x').cast('int65')).toThrow(/; did you mean "int64"\?$/);
  });
});

describe('sqlText', () => {
  it('names expressions', () => {
    expect(sqlText(split('tags', ',').node)).toBe("split(tags, ',')");
    expect(sqlText(col('price').mul(col('qty')).node)).toBe('(price * qty)');
    expect(sqlText(cardinality('items').node)).toBe('cardinality(items)');
    expect(sqlText(col('my col').node)).toBe('my col');
    expect(sqlText(col('a').add(1).alias('x').node)).toBe('x');
    expect(sqlText(col('my col').add(lit(2.0)).node)).toBe('("my col" + 2)');
    expect(sqlText(col('a').add(lit(2.5)).node)).toBe('(a + 2.5)');
  });

  const ident = fc.oneof(fc.constantFrom('a', 'b', 'price', 'and', 'my col', 'x"y', 'é'), fc.string({ minLength: 1, maxLength: 4 }));
  const leaf: fc.Arbitrary<ExprNode> = fc.oneof(
    ident.map((name) => ({ kind: 'col', name }) as ExprNode),
    fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((v) => intLit(v)),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map(floatLit),
    fc.string({ maxLength: 5 }).map((value) => ({ kind: 'lit', type: 'string', value }) as ExprNode),
    fc.boolean().map((value) => ({ kind: 'lit', type: 'bool', value }) as ExprNode),
    fc.constant({ kind: 'lit', type: 'null' } as ExprNode),
  );
  const tree = fc.letrec<{ e: ExprNode }>((tie) => ({
    e: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.record({
        kind: fc.constant('binary'),
        op: fc.constantFrom('add', 'sub', 'mul', 'div', 'mod', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'and', 'or'),
        left: tie('e'),
        right: tie('e'),
      }) as fc.Arbitrary<ExprNode>,
      fc.record({ kind: fc.constant('unary'), op: fc.constantFrom('neg', 'not', 'isNull', 'isNotNull'), arg: tie('e') }) as fc.Arbitrary<ExprNode>,
      fc.record({ kind: fc.constant('field'), arg: ident.map((name) => ({ kind: 'col', name }) as ExprNode), name: ident }) as fc.Arbitrary<ExprNode>,
      fc.record({ kind: fc.constant('cast'), arg: tie('e'), to: fc.constantFrom({ kind: 'int', bits: 8, signed: false }, { kind: 'utf8' }, { kind: 'timestamp', unit: 'ns', timezone: 'Europe/Paris' }) }) as fc.Arbitrary<ExprNode>,
      tie('e').map((a) => ({ kind: 'call', fn: 'cardinality', args: [a] }) as ExprNode),
      fc.tuple(tie('e'), tie('e'), tie('e')).map(([a, b, d]) => ({ kind: 'call', fn: 'slice', args: [a, b, d] }) as ExprNode),
      fc.array(tie('e'), { minLength: 1, maxLength: 3 }).map((args) => ({ kind: 'call', fn: 'array', args }) as ExprNode),
    ),
  })).e;

  it('round-trips through parseExpr', () => {
    fc.assert(
      fc.property(tree, (node) => {
        expect(parseExpr(renderSql(node))).toEqual(node);
        if (node.kind !== 'col' && node.kind !== 'field') expect(parseExpr(sqlText(node))).toEqual(node);
      }),
      { numRuns: 200 },
    );
    expect(parseExpr(renderSql(sequence('a', -3).node))).toEqual(sequence('a', -3).node);
    expect(parseExpr(renderSql(slice('a', 1, 2).node))).toEqual(slice('a', 1, 2).node);
    expect(parseExpr(renderSql(lit(5).neg().node))).toEqual(lit(5).neg().node);
  });
});
