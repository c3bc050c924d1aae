import { describe, expect, it } from 'vitest';
import { resolveExplode } from '../../src/ops/explode-spec.js';
import type { ExplodeInputSpec } from '../../src/ops/explode-spec.js';
import { PlanError } from '../../src/errors.js';
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';
import { mapType, structType } from '../support/explode-arbitraries.js';

const int32: TypeDesc = { kind: 'int', bits: 32, signed: true };
const utf8: TypeDesc = { kind: 'utf8' };
const listOf = (t: TypeDesc): TypeDesc => ({ kind: 'list', child: { name: 'item', type: t, nullable: true } });
const f = (name: string, type: TypeDesc): FieldDesc => ({ name, type, nullable: true });

// the seed's example: id | items | label | quantities
const schema: FieldDesc[] = [f('id', int32), f('items', listOf(utf8)), f('label', utf8), f('quantities', listOf(int32))];
const direct = (name: string): ExplodeInputSpec => {
  const columnIndex = schema.findIndex((c) => c.name === name);
  return { direct: true, columnIndex, name, type: schema[columnIndex].type };
};
const computed = (name: string, type: TypeDesc): ExplodeInputSpec => ({ direct: false, columnIndex: null, name, type });

function planError(fn: () => unknown): PlanError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(PlanError);
    return e as PlanError;
  }
  throw new Error('expected a PlanError');
}

describe('resolveExplode: layout', () => {
  it('direct inputs keep their original positions (seed example)', () => {
    const r = resolveExplode([direct('items'), direct('quantities')], ['item', 'quantity'], undefined, false, schema);
    expect(r.schema.map((c) => c.name)).toEqual(['id', 'item', 'label', 'quantity']);
    expect(r.schema[1]).toEqual({ name: 'item', type: utf8, nullable: true });
    expect(r.schema[3]).toEqual({ name: 'quantity', type: int32, nullable: true });
    expect(r.sources).toEqual([
      { kind: 'column', column: 0 },
      { kind: 'element', input: 0 },
      { kind: 'column', column: 2 },
      { kind: 'element', input: 1 },
    ]);
    expect(r.inputNames).toEqual(['items', 'quantities']);
  });

  it('computed outputs are appended in input order and the columns they read stay', () => {
    const r = resolveExplode([computed("split(label, ',')", listOf(utf8)), direct('quantities'), computed('tags', listOf(int32))], undefined, undefined, false, schema);
    expect(r.schema.map((c) => c.name)).toEqual(['id', 'items', 'label', 'quantities', "split(label, ',')", 'tags']);
    expect(r.sources.slice(3)).toEqual([
      { kind: 'element', input: 1 },
      { kind: 'element', input: 0 },
      { kind: 'element', input: 2 },
    ]);
  });

  it('an aliased col is computed: appended, the original column stays', () => {
    const r = resolveExplode([computed('q', listOf(int32))], undefined, undefined, false, schema);
    expect(r.schema.map((c) => c.name)).toEqual(['id', 'items', 'label', 'quantities', 'q']);
  });

  it('omitted outputColumn reuses the input names', () => {
    const r = resolveExplode([direct('items'), direct('quantities')], undefined, undefined, false, schema);
    expect(r.schema.map((c) => c.name)).toEqual(['id', 'items', 'label', 'quantities']);
    expect(r.schema[1].type).toEqual(utf8);
  });

  it('a direct output may reuse its own input name; a single string names a single input', () => {
    const r = resolveExplode([direct('items')], 'items', undefined, true, schema);
    expect(r.schema.map((c) => c.name)).toEqual(['id', 'items', 'label', 'quantities']);
  });

  it('LIST<STRUCT> stays one struct column', () => {
    const s = [...schema, f('orders', listOf(structType))];
    const r = resolveExplode([{ direct: true, columnIndex: 4, name: 'orders', type: s[4].type }], 'order', undefined, false, s);
    expect(r.schema[4]).toEqual({ name: 'order', type: structType, nullable: true });
    expect(r.schema).toHaveLength(5);
  });

  it('ordinality goes right after the last exploded output column', () => {
    const a = resolveExplode([direct('items')], undefined, 'pos', false, schema);
    expect(a.schema.map((c) => c.name)).toEqual(['id', 'items', 'pos', 'label', 'quantities']);
    expect(a.schema[2]).toEqual({ name: 'pos', type: int32, nullable: true });
    const b = resolveExplode([direct('quantities'), direct('items')], undefined, 'pos', true, schema);
    expect(b.schema.map((c) => c.name)).toEqual(['id', 'items', 'label', 'quantities', 'pos']);
    expect(b.schema[4].nullable).toBe(false);
    const c = resolveExplode([direct('items'), computed('xs', listOf(int32))], undefined, 'pos', false, schema);
    expect(c.schema.map((x) => x.name)).toEqual(['id', 'items', 'label', 'quantities', 'xs', 'pos']);
    expect(c.sources[5]).toEqual({ kind: 'ordinality' });
  });

  it('a MAP gives key and value columns at its position', () => {
    const m = mapType(utf8, int32);
    const s = [f('id', int32), f('attrs', m), f('x', utf8)];
    const r = resolveExplode([{ direct: true, columnIndex: 1, name: 'attrs', type: m }], ['k', 'v'], undefined, false, s);
    expect(r.schema).toEqual([f('id', int32), { name: 'k', type: utf8, nullable: true }, { name: 'v', type: int32, nullable: true }, f('x', utf8)]);
    expect(r.sources[1]).toEqual({ kind: 'mapKey', input: 0 });
    expect(r.sources[2]).toEqual({ kind: 'mapValue', input: 0 });
    expect(r.inputKinds).toEqual(['map']);
  });

  it('large and fixed-size lists mix with lists', () => {
    const big: TypeDesc = { kind: 'largeList', child: { name: 'item', type: utf8, nullable: true } };
    const fixed: TypeDesc = { kind: 'fixedSizeList', size: 2, child: { name: 'item', type: int32, nullable: false } };
    const r = resolveExplode([computed('a', big), computed('b', fixed)], undefined, undefined, false, schema);
    expect(r.inputKinds).toEqual(['largeList', 'fixedSizeList']);
    expect(r.schema[5]).toEqual({ name: 'b', type: int32, nullable: true });
  });
});

describe('resolveExplode: PlanErrors', () => {
  it('non-LIST input in a multi-input explode', () => {
    const e = planError(() => resolveExplode([direct('items'), direct('label')], undefined, undefined, false, schema));
    expect(e.code).toBe('EXPLODE_NOT_LIST');
    expect(e.message).toContain('label');
  });

  it('non-LIST, non-MAP single input', () => {
    expect(planError(() => resolveExplode([direct('id')], undefined, undefined, false, schema)).code).toBe('EXPLODE_NOT_LIST');
  });

  it('MAP in a multi-input explode', () => {
    const e = planError(() => resolveExplode([direct('items'), computed('m', mapType(utf8, int32))], ['a', 'b'], undefined, false, schema));
    expect(e.code).toBe('EXPLODE_NOT_LIST');
  });

  it('struct input is not a list', () => {
    expect(planError(() => resolveExplode([computed('s', structType)], undefined, undefined, false, schema)).code).toBe('EXPLODE_NOT_LIST');
  });

  it('duplicate direct inputs', () => {
    const e = planError(() => resolveExplode([direct('items'), direct('items')], ['a', 'b'], undefined, false, schema));
    expect(e.code).toBe('EXPLODE_DUPLICATE_INPUT');
    expect(e.message).toContain('items');
  });

  it('a direct and a computed reference to the same column are allowed', () => {
    const r = resolveExplode([direct('items'), computed('items2', listOf(utf8))], undefined, undefined, false, schema);
    expect(r.schema.map((c) => c.name)).toEqual(['id', 'items', 'label', 'quantities', 'items2']);
  });

  it('wrong name counts', () => {
    expect(planError(() => resolveExplode([direct('items'), direct('quantities')], ['a'], undefined, false, schema)).code).toBe('EXPLODE_NAME_COUNT');
    expect(planError(() => resolveExplode([direct('items'), direct('quantities')], 'a', undefined, false, schema)).code).toBe('EXPLODE_NAME_COUNT');
    expect(planError(() => resolveExplode([direct('items')], ['a', 'b'], undefined, false, schema)).code).toBe('EXPLODE_NAME_COUNT');
  });

  it('MAP needs exactly two names', () => {
    const m = computed('m', mapType(utf8, int32));
    expect(planError(() => resolveExplode([m], undefined, undefined, false, schema)).code).toBe('EXPLODE_MAP_NAMES');
    expect(planError(() => resolveExplode([m], 'k', undefined, false, schema)).code).toBe('EXPLODE_MAP_NAMES');
    expect(planError(() => resolveExplode([m], ['k', 'v', 'w'], undefined, false, schema)).code).toBe('EXPLODE_MAP_NAMES');
  });

  it('empty names', () => {
    expect(planError(() => resolveExplode([direct('items'), direct('quantities')], ['a', ''], undefined, false, schema)).code).toBe('EXPLODE_NAME_EMPTY');
    expect(planError(() => resolveExplode([direct('items')], undefined, '', false, schema)).code).toBe('EXPLODE_NAME_EMPTY');
  });

  it('duplicate output names, also by default naming and with ordinality', () => {
    expect(planError(() => resolveExplode([direct('items'), direct('quantities')], ['x', 'x'], undefined, false, schema)).code).toBe('EXPLODE_NAME_DUPLICATE');
    const t = listOf(int32);
    expect(planError(() => resolveExplode([computed('f(x)', t), computed('f(x)', t)], undefined, undefined, false, schema)).code).toBe('EXPLODE_NAME_DUPLICATE');
    expect(planError(() => resolveExplode([direct('items')], 'x', 'x', false, schema)).code).toBe('EXPLODE_NAME_DUPLICATE');
  });

  it('names clashing with remaining columns', () => {
    const e = planError(() => resolveExplode([direct('items'), direct('quantities')], ['label', 'q'], undefined, false, schema));
    expect(e.code).toBe('EXPLODE_NAME_CLASH');
    expect(e.message).toContain('label');
    // a computed input keeps its source column, so reusing its name clashes
    expect(planError(() => resolveExplode([computed('items', listOf(utf8))], undefined, undefined, false, schema)).code).toBe('EXPLODE_NAME_CLASH');
    expect(planError(() => resolveExplode([direct('items')], undefined, 'id', false, schema)).code).toBe('EXPLODE_NAME_CLASH');
  });

  it('a directly exploded column name is free for another output', () => {
    const r = resolveExplode([direct('items'), direct('quantities')], ['quantities', 'items'], undefined, false, schema);
    expect(r.schema.map((c) => c.name)).toEqual(['id', 'quantities', 'label', 'items']);
  });

  it('no inputs', () => {
    expect(planError(() => resolveExplode([], undefined, undefined, false, schema)).code).toBe('EXPLODE_NO_INPUT');
  });
});
