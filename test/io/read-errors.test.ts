/**
 * Broken inputs never leak raw apache-arrow / parquet-wasm exceptions: truncated, garbage,
 * empty and missing files give InputError with a stable code and the path in message and
 * details, for Arrow IPC (file and stream) and Parquet, for batch and schema readers.
 */
import * as arrow from 'apache-arrow';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { readIpcBatches, readIpcSchema, writeIpcAtomic } from '../../src/io/ipc.js';
import { readParquetBatches, readParquetSchema, writeParquetAtomic } from '../../src/io/parquet.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-io-err-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function batch(n: number, k: number): arrow.RecordBatch {
  return new arrow.Table({
    a: arrow.makeVector(BigInt64Array.from({ length: n }, (_, i) => BigInt(i + k))),
    s: arrow.vectorFromArray(Array.from({ length: n }, (_, i) => `v${i}`), new arrow.Utf8()),
  }).batches[0]!;
}
const batches = [batch(300, 0), batch(300, 300), batch(300, 600)];

async function drain(it: AsyncIterable<arrow.RecordBatch>): Promise<number> {
  let rows = 0;
  for await (const b of it) rows += b.numRows;
  return rows;
}

/** The error of `p`, or null when it resolves. */
async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
    return null;
  } catch (err) {
    return err;
  }
}

function expectInputError(err: unknown, path: string, code: string): void {
  expect(err).toBeInstanceOf(InputError);
  const e = err as InputError;
  expect(e.code).toBe(code);
  expect(e.details.path).toBe(path);
  expect(e.message).toContain(path);
}

describe('Arrow IPC read errors', () => {
  for (const format of ['file', 'stream'] as const) {
    it(`truncated ${format} files give INPUT_MALFORMED, never a TypeError`, async () => {
      const whole = join(dir, `whole.${format}`);
      await writeIpcAtomic(whole, batches[0]!.schema, batches, { format });
      const bytes = readFileSync(whole);
      expect(await drain(readIpcBatches(whole))).toBe(900);
      let checked = 0;
      // cut points across the schema, the batches and the footer (a stream may lose its
      // 8-byte end marker and still be complete, so only cuts before it are checked)
      for (let cut = 1; cut < bytes.length - 8; cut += Math.ceil(bytes.length / 40)) {
        const p = join(dir, `cut-${format}-${cut}`);
        writeFileSync(p, bytes.subarray(0, cut));
        const err = await failure(drain(readIpcBatches(p)));
        expectInputError(err, p, 'INPUT_MALFORMED');
        checked++;
      }
      expect(checked).toBeGreaterThan(10);
    });
  }

  it('garbage, empty files and a few stray bytes are INPUT_MALFORMED', async () => {
    const cases: Array<[string, Uint8Array | string]> = [
      ['garbage.arrow', 'a,b,c\n1,2,3\nthis is a CSV file, not Arrow\n'],
      ['empty.arrow', ''],
      ['stray.arrow', Uint8Array.of(0xff, 0xff, 0xff)],
      ['magic-only.arrow', 'ARROW1\0\0ARROW1'],
    ];
    for (const [name, content] of cases) {
      const p = join(dir, name);
      writeFileSync(p, content);
      expectInputError(await failure(drain(readIpcBatches(p))), p, 'INPUT_MALFORMED');
      expectInputError(await failure(readIpcSchema(p)), p, 'INPUT_MALFORMED');
    }
  });

  it('a missing file is INPUT_NOT_FOUND, a directory INPUT_UNREADABLE', async () => {
    const missing = join(dir, 'nope.arrow');
    expectInputError(await failure(drain(readIpcBatches(missing))), missing, 'INPUT_NOT_FOUND');
    expectInputError(await failure(readIpcSchema(missing)), missing, 'INPUT_NOT_FOUND');
    const sub = join(dir, 'a-directory');
    mkdirSync(sub);
    const err = await failure(drain(readIpcBatches(sub)));
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).details.path).toBe(sub);
  });
});

describe('Parquet read errors', () => {
  it('truncated, corrupted, garbage and empty files give InputError with the path', async () => {
    const whole = join(dir, 'whole.parquet');
    await writeParquetAtomic(whole, batches[0]!.schema, batches);
    const bytes = readFileSync(whole);
    expect(await drain(readParquetBatches(whole))).toBe(900);
    const variants: Array<[string, Uint8Array | string]> = [
      ['garbage.parquet', 'definitely not parquet, just some text\n'],
      ['empty.parquet', ''],
      ['tail-cut.parquet', bytes.subarray(0, bytes.length - 1)],
      ['half.parquet', bytes.subarray(0, bytes.length >> 1)],
    ];
    for (let cut = 50; cut < bytes.length; cut += Math.ceil(bytes.length / 3)) variants.push([`cut-${cut}.parquet`, bytes.subarray(0, cut)]);
    for (const [name, content] of variants) {
      const p = join(dir, name);
      writeFileSync(p, content);
      const err = await failure(drain(readParquetBatches(p)));
      if (!(err instanceof InputError)) throw new Error(`${name}: expected an InputError, got ${String(err)}`);
      expectInputError(err, p, 'INPUT_MALFORMED');
      expect(err).not.toBeInstanceOf(TypeError);
    }
    const g = join(dir, 'garbage.parquet');
    expectInputError(await failure(readParquetSchema(g)), g, 'INPUT_MALFORMED');
  });

  it('corrupted column data inside a valid frame is an InputError too', async () => {
    const whole = join(dir, 'whole2.parquet');
    await writeParquetAtomic(whole, batches[0]!.schema, batches);
    const bytes = Buffer.from(readFileSync(whole));
    bytes.fill(0x07, 8, 400); // page headers and data of the first column chunks
    const p = join(dir, 'corrupt.parquet');
    writeFileSync(p, bytes);
    expectInputError(await failure(drain(readParquetBatches(p))), p, 'INPUT_MALFORMED');
  });

  it('a missing file is INPUT_NOT_FOUND', async () => {
    const missing = join(dir, 'nope.parquet');
    expectInputError(await failure(drain(readParquetBatches(missing))), missing, 'INPUT_NOT_FOUND');
    expectInputError(await failure(readParquetSchema(missing)), missing, 'INPUT_NOT_FOUND');
  });
});
