/**
 * Reads standard input with Sluice (`-` as the path) and prints what it read as one JSON line:
 * `{ schema: [...], rows: [...] }`, or `{ error: { name, code, message } }`. Used by
 * test/io/stdin.test.ts through a child process: `node --import tsx stdin-reader.ts FORMAT`.
 */
import { Engine } from '../../src/index.js';

const format = process.argv[2];
const engine = new Engine({ threads: 0 });
try {
  const df = format === 'ipc' ? engine.readIpc('-') : format === 'csv' ? engine.readCsv('-') : engine.readNdjson('-');
  const explained = await df.explain(); // the schema, before the run: the input is replayed, not read twice
  const t = await df.collect();
  const again = await df.collect().catch((e: Error & { code?: string }) => e.code);
  const rows = t.toArray().map((r) => r.toJSON());
  process.stdout.write(
    `${JSON.stringify({ schema: t.schema.fields.map((f) => `${f.name}:${String(f.type)}`), rows, again, explained: explained.length > 0 }, (_k, v) => (typeof v === 'bigint' ? Number(v) : v))}\n`,
  );
} catch (err) {
  const e = err as Error & { code?: string };
  process.stdout.write(`${JSON.stringify({ error: { name: e.name, code: e.code, message: e.message } })}\n`);
} finally {
  await engine.close();
}
