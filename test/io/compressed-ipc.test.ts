/**
 * Compressed Arrow IPC (issue 10 item 1): files written by Polars with LZ4_FRAME and ZSTD
 * buffers read back exactly; Sluice writes both compressions (file and stream formats) and
 * reads them back; the written buffers follow the format (int64 uncompressed length or -1,
 * then the frame) and decode with independent decoders (zstd's C code, lz4js) to the bytes
 * of the uncompressed file. (nodejs-polars 0.25 cannot read any apache-arrow-written IPC,
 * compressed or not, and parquet-wasm's arrow-rs lacks the codecs, so neither can be the
 * second reader.) A bad option is a PlanError; a corrupt compressed buffer an InputError.
 */
import * as A from 'apache-arrow';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pl from 'nodejs-polars';
import * as zstdWasm from '@bokuweb/zstd-wasm';
import * as lz4js from 'lz4js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, InputError, PlanError } from '../../src/index.js';
import { prepareIpcCompression } from '../../src/io/ipc-codecs.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-ipc-comp-'));
const engines: Engine[] = [];
// zstd-wasm's init() is not idempotent: load it once, through Sluice
beforeAll(() => prepareIpcCompression('zstd'));
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await Promise.all(engines.map((e) => e.close()));
});
const engine = (threads = 0) => {
  const e = new Engine({ threads });
  engines.push(e);
  return e;
};

/** The body buffers of every record batch of an IPC stream, decoded by independent codecs. */
function recordBatchBuffers(stream: Buffer, compression: 'lz4' | 'zstd' | null): Buffer[] {
  const out: Buffer[] = [];
  for (let p = 0; p + 8 <= stream.length; ) {
    const len = stream.readInt32LE(p + 4);
    if (len === 0) break;
    const msg = A.Message.decode(stream.subarray(p + 8, p + 8 + len));
    const body = stream.subarray(p + 8 + len, p + 8 + len + msg.bodyLength);
    if (msg.isRecordBatch()) {
      for (const b of msg.header().buffers) {
        const region = body.subarray(b.offset, b.offset + b.length);
        if (compression === null || region.length === 0) {
          out.push(region);
          continue;
        }
        const size = region.readBigInt64LE(0);
        const data = region.subarray(8);
        if (size === -1n) {
          out.push(data);
          continue;
        }
        const decoded = Buffer.from(compression === 'zstd' ? zstdWasm.decompress(data) : lz4js.decompress(data));
        expect(BigInt(decoded.length)).toBe(size); // the prefix is the uncompressed length
        out.push(decoded);
      }
    }
    p += 8 + len + msg.bodyLength;
  }
  return out;
}

const N = 5000;
const ids = Array.from({ length: N }, (_, i) => i * 3);
const names = Array.from({ length: N }, (_, i) => (i % 11 === 0 ? null : `name-${i % 97}`));
const xs = Array.from({ length: N }, (_, i) => (i % 13 === 0 ? null : i / 8));

function check(t: A.Table): void {
  expect(t.numRows).toBe(N);
  expect([...t.getChild('id')!].map(Number)).toEqual(ids);
  expect([...t.getChild('name')!]).toEqual(names);
  expect([...t.getChild('x')!]).toEqual(xs);
}

describe('compressed Arrow IPC', () => {
  for (const compression of ['lz4', 'zstd'] as const) {
    it(`reads a Polars file with ${compression} buffers`, async () => {
      const p = join(dir, `polars-${compression}.arrow`);
      pl.DataFrame({ id: ids, name: names, x: xs }).writeIPC(p, { compression });
      for (const threads of [0, 2]) check(await engine(threads).readIpc(p).collect());
    });
    for (const format of ['file', 'stream'] as const) {
      it(`writes ${compression} (${format} format) that Sluice and independent decoders read back`, async () => {
        const e = engine();
        const src = e.fromArrow(new A.Table({ id: A.makeVector(BigInt64Array.from(ids, BigInt)), name: A.vectorFromArray(names, new A.Utf8()), x: A.vectorFromArray(xs, new A.Float64()) }));
        const plain = join(dir, `plain.${format}`);
        const packed = join(dir, `packed-${compression}.${format}`);
        await src.writeIpc(plain, { format });
        await src.writeIpc(packed, { format, compression });
        expect(statSync(packed).size).toBeLessThan(statSync(plain).size / 2);
        check(await e.readIpc(packed).collect());
        if (format === 'stream') {
          const want = recordBatchBuffers(readFileSync(plain), null);
          const got = recordBatchBuffers(readFileSync(packed), compression);
          expect(got.length).toBe(want.length);
          // uncompressed regions are padded to 8 bytes, compressed ones hold the exact bytes
          for (let i = 0; i < want.length; i++) {
            expect(got[i]!.length).toBeLessThanOrEqual(want[i]!.length);
            expect(Buffer.compare(got[i]!, want[i]!.subarray(0, got[i]!.length)), `buffer ${i}`).toBe(0);
            expect(want[i]!.subarray(got[i]!.length).every((b) => b === 0)).toBe(true);
          }
        }
      });
    }
  }
  it('a bad compression is a PlanError; a corrupt compressed buffer an InputError', async () => {
    const e = engine();
    const src = e.fromArrow(A.tableFromArrays({ a: Int32Array.from(ids) }));
    await expect(src.writeIpc(join(dir, 'x.arrow'), { compression: 'brotli' as never })).rejects.toBeInstanceOf(PlanError);
    const p = join(dir, 'corrupt.arrows');
    await src.writeIpc(p, { format: 'stream', compression: 'zstd' });
    const bytes = readFileSync(p);
    // the record batch body sits before the 8-byte end marker: damage the middle of it
    for (let i = bytes.length - 400; i < bytes.length - 300; i++) bytes[i] = bytes[i]! ^ 0x5a;
    writeFileSync(p, bytes);
    const err = await e.readIpc(p).collect().catch((x: unknown) => x);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toContain(p);
  });
});
