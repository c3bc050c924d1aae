/**
 * Reads one file with Sluice and prints `{ rows }` or `{ error: { name, code, message } }` as
 * JSON: `node --import tsx read-file.ts FORMAT PATH` (tests run it as another user to get
 * permission errors, which root never sees).
 */
import { Engine } from '../../src/index.js';

const [format, path] = process.argv.slice(2) as [string, string];
const engine = new Engine({ threads: 0 });
try {
  const df = format === 'parquet' ? engine.readParquet(path) : format === 'ipc' ? engine.readIpc(path) : engine.readCsv(path);
  const t = await df.collect();
  process.stdout.write(`${JSON.stringify({ rows: t.numRows })}\n`);
} catch (err) {
  const e = err as Error & { code?: string };
  process.stdout.write(`${JSON.stringify({ error: { name: e.name, code: e.code, message: e.message } })}\n`);
} finally {
  await engine.close();
}
