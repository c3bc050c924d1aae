import * as A from 'apache-arrow';
import { explodeBatch } from '/work/main/src/worker/explode-batch.ts';
import { resolveExplode } from '/work/main/src/ops/explode-spec.ts';
import { gatherData } from '/work/main/src/columns/gather.ts';
const n = 1_000_000;
const offs = new Int32Array(n + 1);
for (let i = 0; i < n; i++) offs[i + 1] = offs[i] + (i % 7 === 0 ? 0 : (i % 5) + 1);
const total = offs[n];
const child = A.makeData({ type: new A.Int32(), length: total, data: new Int32Array(total).map((_, i) => i) });
const list = A.makeData({ type: new A.List(new A.Field('item', new A.Int32(), true)), length: n, valueOffsets: offs, child });
const sOffs = new Int32Array(total + 1); for (let i = 0; i < total; i++) sOffs[i + 1] = sOffs[i] + 8;
const schild = A.makeData({ type: new A.Utf8(), length: total, valueOffsets: sOffs, data: new Uint8Array(total * 8).fill(97) });
const slist = A.makeData({ type: new A.List(new A.Field('item', new A.Utf8(), true)), length: n, valueOffsets: offs, child: schild });
const id = A.makeData({ type: new A.Int64(), length: n, data: new BigInt64Array(n) });
const i32 = { kind: 'int', bits: 32, signed: true } as const;
const schema: any = [
  { name: 'id', type: { kind: 'int', bits: 64, signed: true }, nullable: true },
  { name: 'a', type: { kind: 'list', child: { name: 'item', type: i32, nullable: true } }, nullable: true },
  { name: 'b', type: { kind: 'list', child: { name: 'item', type: { kind: 'utf8' }, nullable: true } }, nullable: true },
];
const spec = resolveExplode([{ direct: true, columnIndex: 1, name: 'a', type: schema[1].type }, { direct: true, columnIndex: 2, name: 'b', type: schema[2].type }], undefined, 'pos', false, schema);
for (let k = 0; k < 3; k++) {
  const t0 = performance.now();
  const out = explodeBatch([id, list, slist], [list, slist], spec, 0);
  console.log('explode', n, 'rows ->', out[0].length, (performance.now() - t0).toFixed(0), 'ms');
}
const idx = new Int32Array(n).map((_, i) => (i * 7919) % n);
for (let k = 0; k < 3; k++) { const t0 = performance.now(); gatherData(slist, idx); console.log('gather list<utf8> 1M random', (performance.now() - t0).toFixed(0), 'ms'); }
