/**
 * Text inputs (CSV, NDJSON) must be UTF-8 and hold still while they are read (a file appended
 * to or replaced mid-read is INPUT_CHANGED, as IPC and Parquet inputs are). UTF-8: bytes that are not are INPUT_MALFORMED naming their
 * offset (DuckDB and Polars refuse them too) instead of U+FFFD in the data; valid multi-byte
 * characters cut by the reader's 1 MiB chunks still read whole.
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, InputError } from '../../src/index.js';
import { textPieces } from '../../src/io/text-input.js';
import { tempDir } from '../cli/helpers.js';
import { rejection } from '../support/rejection.js';

let dir: string;
let cleanup: () => Promise<void>;
const engine = new Engine({ threads: 0 });
beforeAll(async () => ({ dir, cleanup } = await tempDir()));
afterAll(async () => {
  await engine.close();
  await cleanup();
});

/** About 2.5 MiB of rows of 1-, 2-, 3- and 4-byte characters: chunk ends fall inside some. */
function bigText(rows: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < rows; i++) out.push(`${i},a€é😀${'€'.repeat(i % 13)}`);
  return out;
}

async function failure(p: Promise<unknown>): Promise<InputError> {
  const err = await rejection(p);
  expect(err).toBeInstanceOf(InputError);
  return err as InputError;
}

describe('UTF-8 text inputs', () => {
  it('multi-byte characters across chunk boundaries read whole (CSV)', async () => {
    const lines = bigText(60_000);
    const path = join(dir, 'big.csv');
    await writeFile(path, `id,s\n${lines.join('\n')}\n`);
    const t = (await engine.readCsv(path).execute()).table;
    expect(t.numRows).toBe(lines.length);
    const s = t.getChild('s')!.toArray() as string[];
    expect(s.every((v, i) => v === lines[i]!.slice(lines[i]!.indexOf(',') + 1))).toBe(true);
  });

  it('a byte that is not UTF-8 is INPUT_MALFORMED with its offset, past the first chunk too', async () => {
    const head = Buffer.from(`id,s\n${bigText(60_000).join('\n')}\n`);
    const bad = Buffer.concat([head, Buffer.from('1,caf'), Buffer.from([0xe9]), Buffer.from('\n')]);
    const path = join(dir, 'latin1.csv');
    await writeFile(path, bad);
    const err = await failure(engine.readCsv(path).execute());
    expect(err.code).toBe('INPUT_MALFORMED');
    expect(err.message).toContain(`offset ${head.length + 5} are not UTF-8`);
  });

  it('a cut sequence at the end of the file and NDJSON are refused the same way', async () => {
    const cut = join(dir, 'cut.csv');
    await writeFile(cut, Buffer.concat([Buffer.from('a\nx'), Buffer.from([0xe2, 0x82])]));
    expect((await failure(engine.readCsv(cut).execute())).message).toContain('offset 3 are not UTF-8');
    const nd = join(dir, 'bad.ndjson');
    await writeFile(nd, Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff]), Buffer.from('"}\n')]));
    const err = await failure(engine.readNdjson(nd).execute());
    expect(err.message).toMatch(/Malformed NDJSON input .*offset 6 are not UTF-8/);
  });

  it('a Parquet or Arrow IPC file read as text says what it looks like instead of suggesting iconv', async () => {
    const pq = join(dir, 'really.parquet.csv');
    await writeFile(pq, Buffer.concat([Buffer.from('PAR1'), Buffer.from([0x15, 0x04, 0x15, 0xff, 0xfe, 0x00])]));
    const e1 = await failure(engine.readCsv(pq).execute());
    expect(e1.message).toMatch(/not UTF-8 \(the input starts like Parquet, not text: read it as Parquet \(readParquet; CLI: --input-format parquet/);
    const ipc = join(dir, 'really.arrows.ndjson');
    await writeFile(ipc, Buffer.from([0xff, 0xff, 0xff, 0xff, 0x10, 0x00, 0x00, 0x00, 0xfe]));
    expect((await failure(engine.readNdjson(ipc).execute())).message).toMatch(/starts like Arrow IPC, not text/);
    // text with a bad byte later still gets the iconv hint
    const latin = join(dir, 'latin.csv');
    await writeFile(latin, Buffer.concat([Buffer.from('a\ncaf'), Buffer.from([0xe9])]));
    expect((await failure(engine.readCsv(latin).execute())).message).toMatch(/iconv/);
  });

  it('a file appended to while it is read is INPUT_CHANGED at its end', async () => {
    const path = join(dir, 'growing.csv');
    await writeFile(path, `id,s\n${bigText(60_000).join('\n')}\n`);
    const pieces = textPieces(path, 'CSV');
    expect((await pieces.next()).done).toBe(false); // the first 1 MiB
    await appendFile(path, '60000,late\n');
    const err = await failure((async () => {
      for await (const _ of pieces);
    })());
    expect(err.code).toBe('INPUT_CHANGED');
    expect(err.message).toMatch(/CSV input .*growing\.csv changed while it was being read/);
  });

  it('characters cut into one-byte chunks (a pipe written a byte at a time) read whole; a cut invalid one is refused', async () => {
    const read = async (bytes: number[]): Promise<string> => {
      const fifo = join(dir, `pipe-${bytes.length}-${bytes[bytes.length - 1]}`);
      execFileSync('mkfifo', [fifo]);
      const writing = (async () => {
        const out = createWriteStream(fifo);
        for (const b of bytes) {
          await new Promise<void>((r) => out.write(Buffer.of(b), () => r()));
          await new Promise((r) => setTimeout(r, 2));
        }
        await new Promise<void>((r) => out.end(() => r()));
      })();
      try {
        let text = '';
        for await (const piece of textPieces(fifo, 'CSV')) text += piece;
        return text;
      } finally {
        await writing.catch(() => {});
      }
    };
    const good = [...Buffer.from('a€b😀\n')];
    expect(await read(good)).toBe('a€b😀\n');
    // 0xE2 0x82 then 'x': the third byte of € is missing
    const err = await failure(read([0x61, 0xe2, 0x82, 0x78, 0x0a]));
    expect(err.code).toBe('INPUT_MALFORMED');
    expect(err.message).toContain('offset 1 are not UTF-8');
  });
});
