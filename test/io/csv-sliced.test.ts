/** CSV write of sliced batches (values pre-sliced by arrow-js, bits offset) and schemas read back from IPC. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as A from 'apache-arrow';
import { afterAll, expect, it } from 'vitest';
import { readCsvBatches } from '../../src/io/csv.js';
import { writeCsvAtomic } from '../../src/io/csv-write.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-csv-sliced-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('writes the rows of a sliced batch, not the rows before them', async () => {
  const t = A.tableFromArrays({ x: Int32Array.from([1, 2, 3, 4, 5, 6]), f: Float64Array.from([1.5, 2.5, 3.5, 4.5, 5.5, 6.5]) });
  const s = new A.Table([t.batches[0]!.slice(2, 5)]);
  const path = join(dir, 'sliced.csv');
  await writeCsvAtomic(path, s.batches);
  expect(readFileSync(path, 'utf8')).toBe('x,f\n3,3.5\n4,4.5\n5,5.5\n');
});

it('reads CSV with a schema that came from an IPC file (plain Float/Date_ type objects)', async () => {
  const t = A.tableFromArrays({ price: Float64Array.from([1.25]) });
  const schema = A.tableFromIPC(A.tableToIPC(t)).schema;
  const path = join(dir, 'p.csv');
  writeFileSync(path, 'price\n2.5\n');
  const batches = [];
  for await (const b of readCsvBatches(path, { schema })) batches.push(b);
  expect(batches[0]!.getChild('price')!.get(0)).toBe(2.5);
});
