/**
 * Canonical SQL text of an expression.
 *
 * `renderSql(node)` prints SQL that `parseExpr` reads back to the same tree: every binary
 * operation is parenthesized (`(price * qty)`), functions print lower-case (`split(tags, ',')`),
 * identifiers are bare when they can be and "quoted" otherwise, integers print exactly, floats
 * always carry a '.' or an exponent (`2.0`, `1e+21`), negation of a number prints `(-(5))` so it
 * stays distinct from the literal -5. NaN and ±Infinity print as CAST('NaN' AS float64), which
 * reads back as a cast of a string (same value, different tree). An alias inside a larger
 * expression is transparent; at the top it prints as `x AS name`.
 *
 * `sqlText(node)` is the output name of an unaliased computed expression: a column ref is its
 * name, an aliased expression its alias, a struct field its field name (Polars, DuckDB, Spark),
 * anything else its rendered SQL.
 */
import { typeToString } from '../types/column.js';
import type { TypeDesc } from '../types/column.js';
import type { BinaryOp, ExprNode } from './ast.js';
import { isReservedWord } from './parse.js';

const OP_TEXT: Record<BinaryOp, string> = {
  add: '+', sub: '-', mul: '*', div: '/', mod: '%',
  eq: '=', ne: '!=', lt: '<', le: '<=', gt: '>', ge: '>=',
  and: 'AND', or: 'OR',
};

export function sqlText(node: ExprNode): string {
  switch (node.kind) {
    case 'col':
    case 'alias':
    case 'field':
      return node.name;
    default:
      return renderSql(node);
  }
}

export function quoteIdent(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !isReservedWord(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

export function quoteString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

export function renderSql(node: ExprNode): string {
  return node.kind === 'alias' ? `${render(node.arg)} AS ${quoteIdent(node.name)}` : render(node);
}

function render(node: ExprNode): string {
  switch (node.kind) {
    case 'col':
      return quoteIdent(node.name);
    case 'lit':
      switch (node.type) {
        case 'null':
          return 'NULL';
        case 'bool':
          return node.value ? 'TRUE' : 'FALSE';
        case 'int':
          return node.value;
        case 'float': {
          const v = node.value;
          if (v === 'NaN' || v === 'Infinity' || v === '-Infinity') return `CAST(${quoteString(v)} AS float64)`;
          return /[.eE]/.test(v) ? v : `${v}.0`;
        }
        case 'string':
          return quoteString(node.value);
      }
      break;
    case 'unary': {
      const a = render(node.arg);
      switch (node.op) {
        case 'neg':
          return node.arg.kind === 'lit' ? `(-(${a}))` : `(-${a})`;
        case 'not':
          return `(NOT ${a})`;
        case 'isNull':
          return `(${a} IS NULL)`;
        case 'isNotNull':
          return `(${a} IS NOT NULL)`;
      }
      break;
    }
    case 'binary':
      return `(${render(node.left)} ${OP_TEXT[node.op]} ${render(node.right)})`;
    case 'cast':
      return `CAST(${render(node.arg)} AS ${typeName(node.to)})`;
    case 'alias':
      return render(node.arg);
    case 'field': {
      const a = render(node.arg);
      // a negative number literal needs parentheses before ".field"
      return `${/^-/.test(a) ? `(${a})` : a}.${quoteIdent(node.name)}`;
    }
    case 'flatten':
      return `${render(node.arg)}.*`;
    case 'call':
      if (node.fn === 'like') return `(${render(node.args[0]!)} LIKE ${render(node.args[1]!)})`;
      if (node.fn === 'case') {
        const a = node.args;
        let text = 'CASE';
        for (let k = 0; k + 1 < a.length; k += 2) text += ` WHEN ${render(a[k]!)} THEN ${render(a[k + 1]!)}`;
        if (a.length % 2 === 1) text += ` ELSE ${render(a[a.length - 1]!)}`;
        return `${text} END`;
      }
      return `${node.fn}(${node.args.map(render).join(', ')})`;
  }
  throw new Error(`renderSql: unknown node ${JSON.stringify(node)}`);
}

function typeName(t: TypeDesc): string {
  return t.kind === 'utf8' ? 'utf8' : typeToString(t);
}
