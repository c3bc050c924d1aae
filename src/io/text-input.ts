/**
 * Text inputs (CSV, NDJSON) as a stream of UTF-8 string pieces: a file, standard input (`-`),
 * or a compressed file decompressed on the fly: `.gz` (Node's zlib) and `.zst` (fzstd's
 * streaming decoder). Memory: one piece (about 1 MiB of text) at a time.
 */
import { Decompress } from 'fzstd';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { InputError } from '../errors.js';
import { Transform, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { isUtf8 } from 'node:buffer';
import { malformed, type FormatName } from './input-errors.js';
import { createGunzip } from 'node:zlib';

const PIECE_BYTES = 1 << 20;

export type Compression = 'gzip' | 'zstd' | null;

/** The compression a path's extension names. */
export function compressionOf(path: string): Compression {
  const p = path.toLowerCase();
  return p.endsWith('.gz') ? 'gzip' : p.endsWith('.zst') || p.endsWith('.zstd') ? 'zstd' : null;
}

/** A Transform that decodes a zstd stream (one or more frames). */
function zstdDecoder(): Transform {
  let decoder: Decompress;
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      try {
        decoder.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        done();
      } catch (err) {
        done(err as Error);
      }
    },
    flush(done) {
      try {
        decoder.push(new Uint8Array(0), true);
        done();
      } catch (err) {
        done(err as Error);
      }
    },
  });
  decoder = new Decompress((data) => {
    t.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  });
  return t;
}

/** Destroy `s` and wait until its file descriptor is closed. */
function destroyed(s: Readable): Promise<void> {
  if (s.closed || s === process.stdin) {
    if (s !== process.stdin) return Promise.resolve();
    s.pause();
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    s.once('close', () => resolve());
    s.destroy();
  });
}

/** The bytes of `path` (`-`: standard input), decompressed when its extension says so. */
export function openBytes(path: string): { stream: Readable; close(): Promise<void> } {
  const raw: Readable = path === '-' ? process.stdin : createReadStream(path, { highWaterMark: PIECE_BYTES });
  const c = path === '-' ? null : compressionOf(path);
  if (c === null) return { stream: raw, close: () => destroyed(raw) };
  const decode = c === 'gzip' ? createGunzip({ chunkSize: 1 << 16 }) : zstdDecoder();
  raw.on('error', (err) => decode.destroy(err));
  raw.pipe(decode);
  return {
    stream: decode,
    close: async () => {
      raw.unpipe(decode);
      await Promise.all([destroyed(raw), destroyed(decode)]);
    },
  };
}

/**
 * Where the incomplete UTF-8 sequence that `b` ends with begins (b.length when it ends on a
 * character boundary): its bytes are checked with the next chunk's.
 */
function completeEnd(b: Uint8Array): number {
  for (let back = 1; back <= 3 && back <= b.length; back++) {
    const x = b[b.length - back]!;
    if ((x & 0xc0) === 0x80) continue; // a continuation byte: look further back
    return leadLength(x) > back ? b.length - back : b.length;
  }
  return b.length;
}

/** Bytes of the sequence a lead byte starts (as it claims; whether it is valid is isUtf8's call). */
function leadLength(x: number): number {
  return x >= 0xf0 ? 4 : x >= 0xe0 ? 3 : x >= 0xc0 ? 2 : 1;
}

/** The offset of the first byte of `b` that is not valid UTF-8 (b is known to hold one). */
function firstInvalid(b: Uint8Array): number {
  for (let at = 0; at < b.length; ) {
    const x = b[at]!;
    const need = x < 0x80 ? 1 : x >= 0xc2 && x < 0xe0 ? 2 : x >= 0xe0 && x < 0xf0 ? 3 : x >= 0xf0 && x < 0xf5 ? 4 : 0;
    if (need === 0 || !isUtf8(b.subarray(at, at + need)) || at + need > b.length) return at;
    at += need;
  }
  return b.length;
}

/** Parquet or Arrow IPC (file or stream) by the magic of an input's first bytes, or null. */
export function binaryFormat(head: Uint8Array): 'parquet' | 'arrow' | null {
  const text = Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, 8)).toString('latin1');
  if (text.startsWith('PAR1')) return 'parquet';
  if (text.startsWith('ARROW1')) return 'arrow';
  if (head.length >= 4 && head[0] === 0xff && head[1] === 0xff && head[2] === 0xff && head[3] === 0xff) return 'arrow';
  return null;
}

const BINARY_HINT = {
  parquet: { name: 'Parquet', reader: 'readParquet' },
  arrow: { name: 'Arrow IPC', reader: 'readIpc' },
} as const;

/**
 * UTF-8 text pieces of `path` (a multi-byte character cut by a piece boundary waits for the
 * next). Bytes that are not UTF-8 are `INPUT_MALFORMED` naming their offset, as DuckDB and
 * Polars refuse them, rather than U+FFFD in the data.
 */
export async function* textPieces(path: string, format: FormatName): AsyncGenerator<string> {
  // A file that changes while it is read (appended to, replaced) is INPUT_CHANGED, as IPC and
  // Parquet inputs are: compared by path, so a file renamed over this one counts too.
  // (regular files only: a pipe's times move as it is written)
  const opened = path === '-' ? null : await stat(path).catch(() => null);
  const before = opened?.isFile() ? opened : null;
  const { stream, close } = openBytes(path);
  const utf8 = new StringDecoder('utf8');
  let offset = 0; // bytes of the input before `chunk`
  let carry: Buffer | null = null; // an incomplete sequence at the end of the previous chunk
  const refuse = (bytes: Uint8Array, base: number): never => {
    const at = base + firstInvalid(bytes);
    const magic = base === 0 ? binaryFormat(bytes) : null;
    const binary = magic === null ? null : BINARY_HINT[magic];
    const hint = binary
      ? `the input starts like ${binary.name}, not text: read it as ${binary.name} (${binary.reader}; CLI: --input-format ${magic}, or no --input-format)`
      : 'convert the file first, e.g. `iconv -f latin1 -t utf-8`';
    throw malformed(path, format, `bytes at offset ${at} are not UTF-8 (${hint})`, { offset: at });
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer | string>) {
      if (typeof chunk === 'string') {
        if (chunk.length > 0) yield chunk;
        continue;
      }
      // Checked natively (Node's isUtf8): the previous chunk's cut sequence completed by this
      // one's first bytes (a few bytes joined, not the chunk copied), then the chunk's own.
      let from = 0;
      if (carry) {
        const joint = Buffer.concat([carry, chunk.subarray(0, 4)]);
        const need = leadLength(joint[0]!);
        if (joint.length < need) {
          carry = joint; // still cut: this chunk is shorter than the rest of the sequence
          offset += chunk.length;
          const s = utf8.write(chunk);
          if (s.length > 0) yield s;
          continue;
        }
        if (!isUtf8(joint.subarray(0, need))) refuse(joint, offset - carry.length);
        from = need - carry.length;
      }
      const end = from + completeEnd(chunk.subarray(from));
      if (!isUtf8(chunk.subarray(from, end))) refuse(chunk.subarray(from, end), offset + from);
      carry = end < chunk.length ? Buffer.from(chunk.subarray(end)) : null;
      offset += chunk.length;
      const s = utf8.write(chunk);
      if (s.length > 0) yield s;
    }
    if (carry) refuse(carry, offset - carry.length);
    if (before) {
      const after = await stat(path).catch(() => null);
      if (!after || after.ino !== before.ino || after.size !== before.size || after.mtimeMs !== before.mtimeMs) {
        throw new InputError('INPUT_CHANGED', `${format} input ${path} changed while it was being read (${after ? 'modified or replaced' : 'removed'}); read it again once it is complete`, { path, format });
      }
    }
    const rest = utf8.end();
    if (rest.length > 0) yield rest;
  } finally {
    await close();
  }
}
