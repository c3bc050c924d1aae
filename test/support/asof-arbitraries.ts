/**
 * The tables of the engine-level asofJoin differential tests (asof-differential,
 * preserve-order-differential): string and two-column by keys with repeats and NULLs, an int64
 * left `ts` against an int32 right one, on small ranges so matches, ties and gaps all happen.
 * Each test adds its own left payload column.
 */
import fc from 'fast-check';
import type { FieldDesc } from '../../src/types/column.js';
import type { JsValue } from './tables.js';

/** The left side's key columns (sym, ts, venue); a test appends its payload column. */
export const ASOF_LEFT_KEYS: FieldDesc[] = [
  { name: 'sym', type: { kind: 'utf8' }, nullable: true },
  { name: 'ts', type: { kind: 'int', bits: 64, signed: true }, nullable: true },
  { name: 'venue', type: { kind: 'utf8' }, nullable: true },
];
export const ASOF_RIGHT_SCHEMA: FieldDesc[] = [
  { name: 'sym', type: { kind: 'utf8' }, nullable: true },
  { name: 'ts', type: { kind: 'int', bits: 32, signed: true }, nullable: true },
  { name: 'venue', type: { kind: 'utf8' }, nullable: true },
  { name: 'rv', type: { kind: 'int', bits: 64, signed: true }, nullable: true },
];

const sym = fc.constantFrom<JsValue>('A', 'B', 'C', 'é', null);
const venue = fc.constantFrom<JsValue>('x', 'y', null);

/** Arbitraries of the ASOF_LEFT_KEYS columns, for fc.record (spread them before a payload). */
export const asofLeftKeyArbs = { sym, ts: fc.oneof(fc.bigInt({ min: 0n, max: 30n }), fc.constant(null)), venue };

export const asofRightRow = fc.record({
  sym,
  ts: fc.oneof(fc.integer({ min: 0, max: 30 }), fc.constant(null)),
  venue,
  rv: fc.oneof(fc.bigInt({ min: -5n, max: 5n }), fc.constant(null)),
});
