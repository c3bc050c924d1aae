/**
 * Explode benchmark (issue 4, "Speed").
 *
 * orders: default 2M rows, `id` int64, `items` list<utf8>, `quantities` list<int64>, lengths
 * uniform 0..16 (mean 8), ~6% empty, ~3% NULL (both lists together). End to end from an
 * in-memory Arrow table:
 *   - Sluice explode(['items', 'quantities']) (zip, NULL/empty rows kept as one NULL row), 2 threads
 *   - Polars df.explode(['items', 'quantities']) (same NULL/empty semantics)
 *   - DuckDB SELECT id, unnest(items), unnest(quantities) (drops NULL/empty rows: ~9% fewer rows)
 * Extra: streaming readIpc -> explode -> writeIpc of `--stream-rows` input rows (default 20M,
 * 2M with --quick) in a child process (bench/explode-stream-child.mjs) whose RSS is sampled
 * every 20 ms from /proc; the input IPC stream file is written first (not timed) and both files
 * are removed at the end.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { RecordBatchStreamWriter } from 'apache-arrow';
import { orders, tableBytes } from './data.js';
import { type BenchArgs, fmtBytes, fmtS, gc, header, measure, type Measurement, printTable, rssBytes, wanted } from './harness.js';
import { duckdbVersion, explodeSql, loadTable, openDuck, timedQuery, type FetchMode } from './peers/duckdb.js';
import { explodeQuery, polarsThreads, polarsVersion, toPolars } from './peers/polars.js';
import { loadSluice, SLUICE_URL } from './sluice.js';

/** writes `rows` generated order rows as an Arrow IPC stream, batch by batch (bounded memory) */
export async function writeOrdersIpc(path: string, rows: number, batchRows = 65_536): Promise<number> {
  const out = createWriteStream(path);
  const writer = new RecordBatchStreamWriter();
  const pump = (async () => {
    for await (const chunk of writer) { if (!out.write(chunk)) await once(out, 'drain'); }
    out.end();
    await finished(out);
  })();
  for (let start = 0, k = 0; start < rows; start += batchRows, k++) {
    const t = orders({ rows: Math.min(batchRows, rows - start), startId: start, seed: 1000 + k });
    for (const b of t.batches) writer.write(b);
    await new Promise((r) => setImmediate(r));
  }
  writer.finish();
  await pump;
  return statSync(path).size;
}

interface StreamResult { ms: number; cpuMs: number; rowsOut: number; peakRss: number; sampledPeak: number; inBytes: number; outBytes: number; }

async function streamingRun(inPath: string, outPath: string, threads: number): Promise<StreamResult> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./explode-stream-child.mjs', import.meta.url)), SLUICE_URL.href, inPath, outPath, String(threads)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let sampled = 0;
  const timer = setInterval(() => { sampled = Math.max(sampled, rssBytes(child.pid!)); }, 20);
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
  const [code] = await once(child, 'exit') as [number | null];
  clearInterval(timer);
  if (code !== 0) throw new Error(`streaming child exited with ${code}: ${stdout}`);
  const r = JSON.parse(stdout.trim().split('\n').pop()!) as { ms: number; cpuMs: number; rowsOut: number; maxRssBytes: number };
  return { ms: r.ms, cpuMs: r.cpuMs, rowsOut: r.rowsOut, peakRss: Math.max(r.maxRssBytes, sampled), sampledPeak: sampled, inBytes: statSync(inPath).size, outBytes: statSync(outPath).size };
}

export async function runExplode(args: BenchArgs): Promise<string> {
  const rows = args.rows ?? (args.quick ? 500_000 : 2_000_000);
  const streamRows = Number(args.values.get('stream-rows') ?? (args.quick ? 2_000_000 : 20_000_000));
  const fetch = (args.values.get('duckdb-fetch') ?? 'table') as FetchMode;
  const opts = { warmup: args.warmup, repeat: args.repeat };
  const table = orders({ rows, seed: 4 });
  const elements = (table.getChild('items')!.data[0]!.valueOffsets as Int32Array)[rows]!;
  header(args, { bench: 'explode', rows, elements, input: fmtBytes(tableBytes(table)), 'null lists': table.getChild('items')!.nullCount });
  const threads = args.threads;
  const ms: Measurement[] = [];
  const sluice = args.peersOnly ? undefined : await loadSluice();
  let sl: Measurement | undefined; let po: Measurement | undefined; let dk: Measurement | undefined;

  if (sluice && wanted(args, 'sluice')) {
    for (const t of threads === 1 ? [1] : [threads, 1]) {
      const engine = new sluice.Engine({ threads: t });
      let outRows = 0;
      const m = await measure('in memory', `sluice threads=${t}`, opts, async () => {
        const out = await engine.fromArrow(table).explode(['items', 'quantities'], { outputColumn: ['item', 'quantity'] }).collect();
        outRows = out.numRows;
      });
      m.note = `${outRows} rows out`;
      await engine.close();
      ms.push(m);
      if (t === threads) sl = m;
    }
  }
  if (!args.sluiceOnly && wanted(args, 'polars')) {
    let df: ReturnType<typeof toPolars> | undefined = toPolars(table);
    let outRows = 0;
    po = await measure('in memory', `polars ${polarsVersion()}`, opts, () => { outRows = explodeQuery(df!).height; });
    po.note = `${outRows} rows out; threads ${polarsThreads()}`;
    df = undefined; gc();
    ms.push(po);
  }
  if (!args.sluiceOnly && wanted(args, 'duckdb')) {
    const duck = await openDuck(2);
    await loadTable(duck.conn, 'orders', table);
    let outRows = 0;
    dk = await measure('in memory', `duckdb ${duckdbVersion()}`, opts, async () => { const r = await timedQuery(duck, explodeSql(), fetch); outRows = r.rows; return r.ms; });
    dk.note = `${outRows} rows out (unnest drops NULL/empty lists); threads=${duck.threads}; ${fetch === 'table' ? 'materialized in a temp table' : 'fetched into JS'}`;
    duck.close(); gc();
    ms.push(dk);
  }

  if (sluice && wanted(args, 'stream')) {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-bench-'));
    try {
      const inPath = join(dir, 'orders.arrows'); const outPath = join(dir, 'exploded.arrows');
      const t0 = performance.now();
      const size = await writeOrdersIpc(inPath, streamRows);
      process.stderr.write(`  wrote ${streamRows} rows (${fmtBytes(size)}) to ${inPath} in ${fmtS(performance.now() - t0)} s\n`);
      const r = await streamingRun(inPath, outPath, threads);
      ms.push({
        group: 'streaming', name: `sluice threads=${threads}`, medianMs: r.ms, minMs: r.ms, runsMs: [r.ms], cpuMs: r.cpuMs, peakRss: r.peakRss, baseRss: 0,
        note: `readIpc -> explode -> writeIpc, ${streamRows} rows in (${fmtBytes(r.inBytes)}), ${r.rowsOut} out (${fmtBytes(r.outBytes)}); child peak RSS (target < 300 MiB): max of its own maxRSS and /proc VmRSS samples (sampled ${fmtBytes(r.sampledPeak)}); 1 run`,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return printTable(`explode: ${rows} rows, 2 list columns`, ms, [
    ['sluice / polars (target <= 1.0)', sl, po],
    ['sluice / duckdb', sl, dk],
    ['sluice 1 thread / 2 threads', ms.find((m) => m.name === 'sluice threads=1' && m.group === 'in memory'), threads === 1 ? undefined : sl],
  ]);
}
