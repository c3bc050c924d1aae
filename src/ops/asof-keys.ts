/**
 * ASOF join keys, the public surface of the key modules (other modules import from here):
 * - src/ops/asof-key-types: key plans, normalized key forms, temporal units;
 * - src/ops/asof-tolerance: the exact tolerance;
 * - src/ops/asof-key-conversion, asof-key-base: unit conversion; a common base (rebased keys);
 * - src/ops/asof-normalize: one side's column to a normalized key (rebased or limbs), widening,
 *   permutation;
 * - src/ops/zone-midnights: DATE midnights in a zone;
 * - src/ops/asof-gaps: comparisons and exact gaps (tolerance checks, nearest ties);
 * - src/ops/asof-string-keys: UTF-8 byte order and ranks;
 * - src/ops/asof-sort-words: order-preserving sort fields (range-reduced where the key is exact);
 * - src/ops/int64-words: the exact limb arithmetic underneath.
 */
export { asofKeyLength, NS_PER_UNIT, temporalUnit, UNIT_RANK, type AsofKeyClass, type AsofKeyPlan, type AsofUnit, type NormalizedKey } from './asof-key-types.js';
export { makeAsofTolerance, type NormalizedTolerance } from './asof-tolerance.js';
export { asofKeyRanges } from './asof-key-base.js';
export { normalizeAsofKey, permuteAsofKey, permuteScaledKey, scaledWordsKey, widenAsofKey, type ScaledWordsKey } from './asof-normalize.js';
export { ZoneMidnights, zoneOffsetSeconds } from './zone-midnights.js';
export { asofGapWithin, compareAsofGaps, compareAsofKeys, gapSignF, gapSignLimbs, scaledDouble, withinF, withinLimbs } from './asof-gaps.js';
export { compareUtf8, utf8Ranks } from './asof-string-keys.js';
export { asofExactRange, asofSortFields, exactRangeOf } from './asof-sort-words.js';
export { cmpLimbs, limbGap, limbScratch } from './int64-words.js';
