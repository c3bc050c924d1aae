/**
 * A per-thread staging buffer for values written as whole 32-bit words (src/columns/runs
 * repeatVarBinary, src/columns/gather gatherInlined): a DataView over shared or resizable memory
 * (where outputs live) is ~8x slower than over a plain ArrayBuffer in Node 20, so short values are
 * written here, four bytes at a time, and moved out a block at a time. The bytes past a value's
 * end are overwritten by the next one (writes move forward) or never moved out; 16 bytes of
 * slack past STAGE_BYTES take a short value's last word.
 */
export const STAGE_BYTES = 1 << 16;
const STAGE = new ArrayBuffer(STAGE_BYTES + 16);
export const STAGE_WORDS = new DataView(STAGE);
export const STAGE_BYTES_VIEW = new Uint8Array(STAGE);
