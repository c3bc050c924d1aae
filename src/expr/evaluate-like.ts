/**
 * SQL `LIKE` on UTF-8 bytes: `%` matches any run of characters (none included), `_` exactly one
 * character, every other pattern character itself, case-sensitive; no escape character (as
 * DuckDB and Postgres without ESCAPE ''). NULL on either side gives NULL.
 *
 * One pass with one backtracking point (the last `%`): when a literal or `_` fails, that `%`
 * takes one more character and matching resumes after it. Worst case O(|s| * |pattern|), no
 * allocation per row. Matching starts at character boundaries and pattern literals are whole
 * UTF-8 characters, so byte comparison is character comparison.
 */
import type { Data } from 'apache-arrow';
import type { TypeDesc } from '../types/column.js';
import { allocBits, andValidity, getBit, makeResult, strViewOf, validityOf, type Alloc } from './evaluate-data.js';
import { isConst, materialize, type Val } from './evaluate-value.js';

const BOOL: TypeDesc = { kind: 'bool' };
const PERCENT = 0x25;
const UNDERSCORE = 0x5f;
const ENCODER = new TextEncoder();

/** The byte after the UTF-8 character that starts at `i`. */
function nextChar(s: Uint8Array, i: number, end: number): number {
  i++;
  while (i < end && (s[i]! & 0xc0) === 0x80) i++;
  return i;
}

/** Whether s[s0..s1) matches the LIKE pattern p[p0..p1). */
export function likeMatch(s: Uint8Array, s0: number, s1: number, p: Uint8Array, p0: number, p1: number): boolean {
  let si = s0;
  let pi = p0;
  let starP = -1; // pattern position after the last '%'
  let starS = -1; // where that '%' stopped taking characters
  while (si < s1) {
    if (pi < p1) {
      const c = p[pi]!;
      if (c === PERCENT) {
        starP = ++pi;
        starS = si;
        continue;
      }
      if (c === UNDERSCORE) {
        si = nextChar(s, si, s1);
        pi++;
        continue;
      }
      if (c === s[si]) {
        si++;
        pi++;
        continue;
      }
    }
    if (starP < 0) return false;
    starS = nextChar(s, starS, s1);
    si = starS;
    pi = starP;
  }
  while (pi < p1 && p[pi] === PERCENT) pi++;
  return pi === p1;
}

export function like(str: Val, pattern: Val, n: number, alloc: Alloc): Data {
  if ((isConst(str) && str.value === null) || (isConst(pattern) && pattern.value === null)) return materialize(null, BOOL, n, alloc);
  const sConst = isConst(str) ? ENCODER.encode(String(str.value)) : null;
  const pConst = isConst(pattern) ? ENCODER.encode(String(pattern.value)) : null;
  const sv = isConst(str) ? null : strViewOf(str);
  const pv = isConst(pattern) ? null : strViewOf(pattern);
  const validity = andValidity(alloc, n, isConst(str) ? null : validityOf(str), isConst(pattern) ? null : validityOf(pattern));
  const out = allocBits(alloc, n);
  const sb = sConst ?? sv!.bytes;
  const pb = pConst ?? pv!.bytes;
  for (let i = 0; i < n; i++) {
    if (validity && !getBit(validity, i)) continue;
    const s0 = sv ? sv.offsets[i]! : 0;
    const s1 = sv ? sv.offsets[i + 1]! : sConst!.length;
    const p0 = pv ? pv.offsets[i]! : 0;
    const p1 = pv ? pv.offsets[i + 1]! : pConst!.length;
    if (likeMatch(sb, s0, s1, pb, p0, p1)) out[i >> 3]! |= 1 << (i & 7);
  }
  return makeResult(BOOL, n, validity, { data: out });
}
