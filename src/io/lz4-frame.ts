/**
 * LZ4 frame decoding (the LZ4_FRAME codec of Arrow IPC), with every read and match checked:
 * lz4js' decoder skips the dictionary-id field, trusts block sizes and writes past its output
 * silently on corrupt input, so Sluice decodes frames itself (lz4js still encodes).
 *
 * Frame: magic 0x184D2204, FLG (version 01, block independence, block checksum, content size,
 * content checksum, dict id), BD, [content size u64], [dict id u32], header checksum; then
 * blocks (u32 size, high bit = stored uncompressed; 0 ends the frame), each followed by a u32
 * checksum when flagged; then a u32 content checksum when flagged. Several frames may follow
 * one another; skippable frames (magic 0x184D2A5x) are skipped. Checksums are not verified.
 * A block is a sequence of (token, literals, 2-byte offset, match length) with lengths
 * extended by 255-runs; matches may overlap their output and reach into earlier blocks.
 */

const MAGIC = 0x184d2204;

class Output {
  buf: Uint8Array;
  len = 0;
  constructor(hint: number) {
    this.buf = new Uint8Array(Math.max(64, hint));
  }
  reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }
}

function decodeBlock(src: Uint8Array, start: number, end: number, out: Output): void {
  let p = start;
  const fail = (what: string) => new Error(`corrupt LZ4 block: ${what}`);
  while (p < end) {
    const token = src[p++]!;
    let lit = token >> 4;
    if (lit === 15) {
      for (;;) {
        if (p >= end) throw fail('literal length runs past the block');
        const b = src[p++]!;
        lit += b;
        if (b !== 255) break;
      }
    }
    if (p + lit > end) throw fail('literals run past the block');
    out.reserve(lit);
    out.buf.set(src.subarray(p, p + lit), out.len);
    out.len += lit;
    p += lit;
    if (p >= end) break; // the last sequence has literals only
    if (p + 2 > end) throw fail('truncated match offset');
    const offset = src[p]! | (src[p + 1]! << 8);
    p += 2;
    if (offset === 0 || offset > out.len) throw fail(`match offset ${offset} outside the output`);
    let mlen = token & 15;
    if (mlen === 15) {
      for (;;) {
        if (p >= end) throw fail('match length runs past the block');
        const b = src[p++]!;
        mlen += b;
        if (b !== 255) break;
      }
    }
    mlen += 4;
    out.reserve(mlen);
    const buf = out.buf;
    let from = out.len - offset;
    let to = out.len;
    if (offset >= mlen) buf.copyWithin(to, from, from + mlen);
    else for (let i = 0; i < mlen; i++) buf[to++] = buf[from++]!; // overlapping: byte by byte
    out.len += mlen;
  }
}

/** Decode one or more concatenated LZ4 frames. */
export function decodeLz4Frames(src: Uint8Array): Uint8Array {
  const view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  const u32 = (p: number) => {
    if (p + 4 > src.length) throw new Error('truncated LZ4 frame');
    return view.getUint32(p, true);
  };
  const out = new Output(src.length * 3);
  let p = 0;
  while (p < src.length) {
    const magic = u32(p);
    if ((magic & 0xfffffff0) === 0x184d2a50) {
      p += 8 + u32(p + 4);
      continue;
    }
    if (magic !== MAGIC) throw new Error('not an LZ4 frame (bad magic number)');
    if (p + 7 > src.length) throw new Error('truncated LZ4 frame header');
    const flg = src[p + 4]!;
    if (flg >> 6 !== 1) throw new Error('unsupported LZ4 frame version');
    p += 6;
    if (flg & 0x08) {
      if (p + 8 > src.length) throw new Error('truncated LZ4 frame header');
      const size = Number(view.getBigUint64(p, true));
      if (size <= 0x7fffffff) out.reserve(size);
      p += 8;
    }
    if (flg & 0x01) p += 4;
    p += 1; // header checksum
    for (;;) {
      const raw = u32(p);
      p += 4;
      if (raw === 0) break;
      const size = raw & 0x7fffffff;
      if (p + size > src.length) throw new Error('an LZ4 block runs past the data');
      if (raw & 0x80000000) {
        out.reserve(size);
        out.buf.set(src.subarray(p, p + size), out.len);
        out.len += size;
      } else decodeBlock(src, p, p + size, out);
      p += size;
      if (flg & 0x10) p += 4;
    }
    if (flg & 0x04) p += 4;
  }
  return out.buf.subarray(0, out.len);
}
