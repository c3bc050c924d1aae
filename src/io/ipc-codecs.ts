/**
 * Compressed Arrow IPC buffers (LZ4_FRAME and ZSTD, what Polars, pyarrow and DuckDB write):
 * codecs registered once per thread in apache-arrow's `compressionRegistry`, where its reader
 * and writer look for them. Importing this module registers them; the IPC reader, the IPC
 * writer and anything else that decodes IPC (a worker too) imports it.
 *
 * Decoding is pure JS (fzstd; LZ4 frames by lz4-frame.ts), available at once; lz4js encodes LZ4. ZSTD encoding uses zstd's own C code
 * compiled to WASM (@bokuweb/zstd-wasm, loaded by ./wasm on first use), which must be loaded once before the first encode:
 * writers `await prepareIpcCompression('zstd')` first. A codec failure (corrupt data) throws a
 * plain Error, which the readers turn into an InputError naming the file.
 */
import { compressionRegistry, CompressionType } from 'apache-arrow';
import { decompress as zstdDecompress } from 'fzstd';
import * as lz4 from 'lz4js';
import { decodeLz4Frames } from './lz4-frame.js';
import { loadZstdWasm } from './wasm.js';

export type IpcCompression = 'none' | 'lz4' | 'zstd';
export const IPC_COMPRESSIONS: readonly IpcCompression[] = ['none', 'lz4', 'zstd'];

/** apache-arrow's compression type for `c` (null: uncompressed). */
export function compressionType(c: IpcCompression): CompressionType | null {
  return c === 'lz4' ? CompressionType.LZ4_FRAME : c === 'zstd' ? CompressionType.ZSTD : null;
}

const ZSTD_LEVEL = 3; // zstd's default: pyarrow and Polars use it too

let zstdReady: Promise<void> | null = null;
let zstdLoaded = false;

/** Load what encoding with `c` needs (the zstd WASM module, once per thread). */
export async function prepareIpcCompression(c: IpcCompression): Promise<void> {
  if (c !== 'zstd' || zstdLoaded) return;
  zstdReady ??= loadZstdWasm('ZSTD-compressed Arrow IPC output (use compression "lz4" or "none")').then((zstd) => {
    zstdLoaded = true;
    // the registry test-encodes a codec when it is set, so the encoder is added only now
    compressionRegistry.set(CompressionType.ZSTD, {
      encode: (data) => asBytes(zstd.compress(data, ZSTD_LEVEL)),
      decode: (data) => aligned(zstdDecompress(data)),
    });
  });
  try {
    await zstdReady;
  } catch (err) {
    zstdReady = null; // refused (no WebAssembly): asked again, refused again
    throw err;
  }
}

/** `u` at an 8-byte-aligned offset (fzstd may return a view at any offset; typed arrays need alignment). */
function aligned(u: Uint8Array): Uint8Array {
  return u.byteOffset % 8 === 0 ? u : u.slice();
}

/** A copy: zstd-wasm returns a view of its WASM memory, which the next call overwrites. */
function asBytes(u: Uint8Array | Buffer): Uint8Array {
  return Uint8Array.prototype.slice.call(u);
}

compressionRegistry.set(CompressionType.LZ4_FRAME, {
  encode: (data) => lz4.compress(data),
  decode: (data) => decodeLz4Frames(data),
});
compressionRegistry.set(CompressionType.ZSTD, { decode: (data) => aligned(zstdDecompress(data)) });
