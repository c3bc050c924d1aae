/**
 * Text inputs (CSV, NDJSON) as a stream of UTF-8 string pieces: a file, standard input (`-`),
 * or a compressed file decompressed on the fly: `.gz` (Node's zlib) and `.zst` (fzstd's
 * streaming decoder). Memory: one piece (about 1 MiB of text) at a time.
 */
import { Decompress } from 'fzstd';
import { createReadStream } from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
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

/** UTF-8 text pieces of `path` (a multi-byte character cut by a piece boundary waits for the next). */
export async function* textPieces(path: string): AsyncGenerator<string> {
  const { stream, close } = openBytes(path);
  const utf8 = new StringDecoder('utf8');
  try {
    for await (const chunk of stream as AsyncIterable<Buffer | string>) {
      const s = typeof chunk === 'string' ? chunk : utf8.write(chunk);
      if (s.length > 0) yield s;
    }
    const rest = utf8.end();
    if (rest.length > 0) yield rest;
  } finally {
    await close();
  }
}
