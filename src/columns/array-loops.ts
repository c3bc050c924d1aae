/**
 * The small typed-array loops several modules need (counting, running sums, shifted copies),
 * each a function of its own: a loop written inline next to an allocator call or a result
 * object was compiled while it ran and thrown away when the code after it first ran, at nearly
 * every task (see src/ops/group-accumulate, and columns/gather's gatherBits).
 */

/** out[i] = first + i for i < n; returns out. */
export function iota<T extends Uint32Array | Int32Array>(out: T, n: number, first = 0): T {
  for (let i = 0; i < n; i++) out[i] = first + i;
  return out;
}

/** a[1..n] made running sums (a[0] is the start); returns a[n]. */
export function runningSums(a: Int32Array, n: number): number {
  for (let k = 0; k < n; k++) a[k + 1] += a[k]!;
  return a[n]!;
}

/** out[at + i] = src[i] + shift for i in [from, to) (offsets rebased; exact below 2^53). */
export function shiftedCopy(src: Int32Array | Float64Array, from: number, to: number, shift: number, out: Int32Array | Float64Array, at: number): void {
  for (let i = from; i < to; i++) out[at + i] = src[i]! + shift;
}

/** out[perm[k] - base] = k for k < n: where each of perm's targets came from. */
export function invertInto(perm: Uint32Array | Int32Array, base: number, out: Uint32Array | Int32Array, n: number): void {
  for (let k = 0; k < n; k++) out[perm[k]! - base] = k;
}
