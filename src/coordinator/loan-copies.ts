/**
 * A task's input goes to the worker as a copy in a lent buffer that is reused once the task
 * ends, and a result may point into it (a column passed through, an exploded list's bytes):
 * the worker names such regions (BufRef.inInput: which region of the input they lie in), and
 * they must leave the loan before it is given back.
 *
 * LoanCopies records the verbatim copies made into the loan (describeBatch's onCopy) and
 * resolves each named region: to the same bytes in the memory they were copied from when that
 * is the caller's own JavaScript memory (an ArrayBuffer, which lives as long as a view of it:
 * the result shares the input's bytes, no copy), or to a copy otherwise (shared memory that an
 * upstream stage may reuse, offsets rebased on the way in). This relies on Sluice never giving
 * back early (releaseLocalBuffer) an ArrayBuffer that reaches a stage: only the spill merges'
 * buffers are, and they are written to disk, not passed on.
 */
import { bufRefsOf } from '../columns/shared.js';
import type { BatchDesc, BufRef, ColumnDesc } from '../types/column.js';
import type { TypedArray } from '../types/keys.js';
import { newLocalBuffer } from '../memory/mapped-buffers.js';

interface Copy {
  from: TypedArray;
  to: TypedArray;
}

export class LoanCopies {
  private readonly copies: Copy[] = [];

  readonly onCopy = (from: TypedArray, to: TypedArray): void => {
    if (from.buffer instanceof ArrayBuffer) this.copies.push({ from, to });
  };

  /** The result columns with no region left in the buffers of the task's input `input`. */
  resolveAll(columns: ColumnDesc[], input: BatchDesc): ColumnDesc[] {
    const inputRefs = input.columns.flatMap(bufRefsOf);
    return columns.map((c) => this.resolve(c, inputRefs));
  }

  private resolve(desc: ColumnDesc, inputRefs: BufRef[]): ColumnDesc {
    return {
      ...desc,
      validity: this.ref(desc.validity, inputRefs),
      offsets: this.ref(desc.offsets, inputRefs),
      values: this.ref(desc.values, inputRefs),
      children: desc.children.map((c) => this.resolve(c, inputRefs)),
    };
  }

  private ref(r: BufRef | null, inputRefs: BufRef[]): BufRef | null {
    if (r === null || r.inInput === undefined) return r;
    const input = inputRefs[r.inInput];
    if (input === undefined) throw new Error(`internal: a result names input region ${r.inInput} of ${inputRefs.length}`);
    // Byte offsets are the same in every thread's view of a shared buffer.
    const end = r.byteOffset + r.byteLength;
    for (const { from, to } of this.copies) {
      if (to.buffer === input.sab && r.byteOffset >= to.byteOffset && end <= to.byteOffset + to.byteLength) {
        return { sab: from.buffer as ArrayBuffer, byteOffset: from.byteOffset + (r.byteOffset - to.byteOffset), byteLength: r.byteLength };
      }
    }
    const copy = newLocalBuffer(Math.max(8, r.byteLength));
    new Uint8Array(copy, 0, r.byteLength).set(new Uint8Array(input.sab, r.byteOffset, r.byteLength));
    return { sab: copy, byteOffset: 0, byteLength: r.byteLength };
  }
}
