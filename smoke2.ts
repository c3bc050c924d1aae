import { Engine, sum } from './src/index.js';
import { makeTable } from './test/support/tables.js';
const schema = [
  { name: 'k', type: { kind: 'int', bits: 32, signed: true } as const, nullable: true },
  { name: 't', type: { kind: 'int', bits: 64, signed: true } as const, nullable: true },
  { name: 'v', type: { kind: 'int', bits: 64, signed: true } as const, nullable: true },
];
const n = 5000;
const table = makeTable(schema, { k: Array.from({ length: n }, (_, i) => i % 17), t: Array.from({ length: n }, (_, i) => BigInt(i)), v: Array.from({ length: n }, (_, i) => BigInt(i % 5)) });
const engine = new Engine({ threads: 2, memoryBudget: '1KiB', slabRows: 512 });
const t0 = Date.now();
const r = await engine.fromArrow(table).window({ partitionBy: 'k', orderBy: 't', columns: { s: sum('v').rows(3) } }).execute();
console.log(r.table.numRows, r.stats, Date.now() - t0);
await engine.close();
