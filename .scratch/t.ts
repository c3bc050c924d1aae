import { makeVector, Table } from 'apache-arrow';
import { renderTable } from '../src/cli/format.ts';
const data: Record<string, any> = {};
for (let c = 0; c < 12; c++) data[`column_number_${c}`] = makeVector(Float64Array.from({ length: 30 }, (_x, i) => i + c / 100 + 0.04999999999998295));
const t = new Table(data);
process.stdout.write(renderTable(t.schema, t.batches, { maxRows: 6, maxWidth: 80 }));
