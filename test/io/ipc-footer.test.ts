/**
 * Corrupt IPC footers (issue 7 item 3): every single-byte corruption of the footer (and of the
 * trailing length and magic) of a valid IPC file, one written by Sluice (no leading schema
 * message, as apache-arrow writes) and one by Polars (with it), either reads back exactly the
 * original table or fails with InputError INPUT_MALFORMED naming the file. Never a table with
 * fewer rows or columns, or other values. The same holds for flipped bytes in the messages.
 */
import * as A from 'apache-arrow';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { Engine } from '../../src/index.js';
import { readIpcBatches, writeIpcAtomic } from '../../src/io/ipc.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-ipc-footer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function rowsOf(batches: A.RecordBatch[]): string {
  return JSON.stringify(
    batches.flatMap((b) => b.toArray().map((r) => r.toJSON())),
    (_k, v) => (typeof v === 'bigint' ? `${v}n` : v),
  );
}

async function readAll(p: string): Promise<{ rows: string; names: string } | InputError> {
  try {
    const got: A.RecordBatch[] = [];
    for await (const b of readIpcBatches(p)) got.push(b);
    return { rows: rowsOf(got), names: got[0]?.schema.fields.map((f) => `${f.name}:${String(f.type)}`).join(',') ?? '' };
  } catch (err) {
    if (err instanceof InputError) return err;
    throw err;
  }
}

function footerRange(bytes: Buffer): [number, number] {
  const len = bytes.readInt32LE(bytes.length - 10);
  return [bytes.length - 10 - len, bytes.length];
}

async function checkFlips(file: string, from: number, to: number): Promise<{ errors: number; same: number }> {
  const bytes = readFileSync(file);
  const want = await readAll(file);
  if (want instanceof InputError) throw want;
  let errors = 0;
  let same = 0;
  const p = join(dir, 'flipped.arrow');
  for (let i = from; i < to; i++) {
    const copy = Buffer.from(bytes);
    copy[i] = copy[i]! ^ 0xff;
    writeFileSync(p, copy);
    const got = await readAll(p);
    if (got instanceof InputError) {
      expect(got.code, `byte ${i}`).toBe('INPUT_MALFORMED');
      expect(got.message).toContain(p);
      errors++;
    } else {
      expect(got, `byte ${i} of ${bytes.length} flipped gave another table`).toEqual(want);
      same++;
    }
  }
  return { errors, same };
}

const table = () =>
  A.tableFromArrays({
    id: Int32Array.from({ length: 1000 }, (_, i) => i),
    x: Float64Array.from({ length: 1000 }, (_, i) => i / 4),
    s: Array.from({ length: 1000 }, (_, i) => (i % 7 === 0 ? null : `s${i}`)),
  });

describe('corrupt IPC footers', () => {
  it('a file written by Sluice: every footer byte flipped', async () => {
    const p = join(dir, 'sluice.arrow');
    const t = table();
    await writeIpcAtomic(p, t.schema, [t.slice(0, 400).batches[0]!, t.slice(400).batches[0]!].map((b) => b));
    const [from, to] = footerRange(readFileSync(p));
    const { errors } = await checkFlips(p, from, to);
    expect(errors).toBeGreaterThan((to - from) / 2);
  });

  it('a file written by Polars (with a leading schema message): every footer byte flipped', async () => {
    const pl = (await import('nodejs-polars')).default;
    const p = join(dir, 'polars.arrow');
    pl.DataFrame({ id: Array.from({ length: 500 }, (_, i) => i), name: Array.from({ length: 500 }, (_, i) => `n${i}`) }).writeIPC(p);
    const [from, to] = footerRange(readFileSync(p));
    const { errors } = await checkFlips(p, from, to);
    expect(errors).toBeGreaterThan((to - from) / 2);
  });

  it('message headers flipped: an error or the same table (file and stream formats)', async () => {
    const t = table();
    const file = join(dir, 'messages.arrow');
    await writeIpcAtomic(file, t.schema, t.batches);
    // the leading schema message and the start of the first record batch
    await checkFlips(file, 8, 8 + 400);
    const stream = join(dir, 'messages.arrows');
    await writeIpcAtomic(stream, t.schema, t.batches, { format: 'stream' });
    // a stream's schema message is its only schema (a flipped name byte cannot be seen):
    // flip the record batch message after it
    const schemaEnd = 8 + readFileSync(stream).readInt32LE(4);
    await checkFlips(stream, schemaEnd, schemaEnd + 300);
  });

  it('the engine reports the path', async () => {
    const p = join(dir, 'engine.arrow');
    const t = table();
    await writeIpcAtomic(p, t.schema, t.batches);
    const bytes = readFileSync(p);
    const [from] = footerRange(bytes);
    // the footer's record-batch count sits near its end: flip a run of bytes there
    for (let i = from; i < bytes.length - 10; i++) bytes[i] = 0;
    writeFileSync(p, bytes);
    const engine = new Engine({ threads: 0 });
    try {
      for (const action of [() => engine.readIpc(p).collect(), () => engine.readIpc(p).schema()]) {
        const err = await action().catch((e: unknown) => e);
        expect(err).toBeInstanceOf(InputError);
        expect((err as InputError).code).toBe('INPUT_MALFORMED');
        expect((err as Error).message).toContain(p);
      }
    } finally {
      await engine.close();
    }
  });
});
