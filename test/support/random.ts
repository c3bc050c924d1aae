/**
 * Seeded pseudo-random numbers for generated test data (fast-check drives the randomized
 * properties; this is for the fixed tables built from a seed): a 32-bit linear congruential
 * generator (Numerical Recipes constants), the same sequence for the same seed on every run.
 */

/** The generator's successive 32-bit states (unsigned integers) after `seed`. */
export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0);
}

/** Uniform numbers in [0, 1) from the same generator. */
export function rng(seed: number): () => number {
  const next = lcg(seed);
  return () => next() / 4294967296;
}
