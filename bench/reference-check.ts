/**
 * Side-by-side check of this harness against ../shared/peers (the reference measurement
 * behind the issues' figures), run on the same data (`npm run bench -- ... --data <peers data
 * folder>`):
 *
 *   npx tsx bench/reference-check.ts <peers out/sbs-*.jsonl> <bench/results/<name>.json>
 *
 * Prints, per workload and system, the reference's median and ours, their ratio, both peak RSS
 * figures, and whether the result checksums match (the same query on the same data). The
 * reference's Polars time is its sort plus its query (timed apart there, one plan here); its
 * DuckDB time is the `ctas` mode (result materialized in a temp table), as here.
 */
import { readFileSync } from 'node:fs';
import type { BenchCase, ResultsFile } from './results.js';

interface RefLine {
  tag: string; peer: string; workload: string; variant: string; mode: string; threads: number;
  op_s: number; sort_s?: number; peak_rss_mib?: number; checksum: unknown;
}

const [refPath, resultsPath] = process.argv.slice(2);
if (!refPath || !resultsPath) { process.stderr.write('usage: tsx bench/reference-check.ts <sbs.jsonl> <results.json>\n'); process.exit(2); }
const refs: RefLine[] = readFileSync(refPath, 'utf8').split('\n').filter((l) => l.includes(' RESULT ')).map((l) => {
  const [tag, , ...json] = l.split(' ');
  return { tag: tag!, ...(JSON.parse(json.join(' ')) as Omit<RefLine, 'tag'>) };
});
const results = JSON.parse(readFileSync(resultsPath, 'utf8')) as ResultsFile;

const WORKLOAD: Record<string, string> = { 'window1/w5_1measure': 'window1', 'window6/w5_6measures': 'window6', 'asof/backward': 'asof', 'asof/nearest': 'asof-nearest', 'explode/zip2': 'explode' };

/** the reference's checksum, in this harness' terms (sum of the checked columns' sums, matched = non-NULL bid) */
function refSum(r: RefLine): { rows?: number; sum?: number } {
  const c = r.checksum as Record<string, number | string> | string;
  if (typeof c === 'string') return { sum: Number(c) };
  if ('sum_bid' in c) return { rows: Number(c.rows), sum: Number(c.sum_bid) };
  if ('sum_qty' in c) return { rows: Number(c.rows), sum: Number(c.sum_qty) };
  return {};
}
function ourSum(c: BenchCase, workload: string): { rows?: number; sum?: number } {
  if (!c.check) return {};
  const cols = c.check.columns;
  if (workload.startsWith('window')) return { sum: Object.values(cols).reduce((a, x) => a + (x.sum ?? 0), 0) };
  if (workload.startsWith('asof')) return { rows: c.check.rows, sum: cols.bid?.sum };
  return { rows: c.check.rows, sum: cols.quantities?.sum };
}

const rows: string[][] = [['workload', 'system', 'reference s', 'harness s', 'harness / reference', 'reference peak RSS', 'harness peak RSS', 'checksum']];
for (const r of refs) {
  const w = WORKLOAD[`${r.workload}/${r.variant}`];
  if (!w || (r.peer === 'duckdb' && r.mode !== 'ctas')) continue;
  const ours = results.cases.find((c) => c.section === 'memory' && c.spec.workload === w && c.spec.system === r.peer && c.spec.threads === r.threads
    && (r.peer !== 'duckdb' || (c.spec.duckdbLoad ?? 'appender') === 'appender'));
  const refS = r.op_s + (r.sort_s ?? 0);
  const a = refSum(r); const b = ours ? ourSum(ours, w) : {};
  const same = a.sum !== undefined && b.sum !== undefined && Math.abs(a.sum - b.sum) <= Math.max(0.011, 1e-9 * Math.abs(a.sum)) && (a.rows === undefined || a.rows === b.rows);
  rows.push([w, `${r.peer} t${r.threads}`, refS.toFixed(2), ours?.medianMs ? (ours.medianMs / 1000).toFixed(2) : ours?.status ?? 'missing',
    ours?.medianMs ? (ours.medianMs / 1000 / refS).toFixed(2) : '–', r.peak_rss_mib ? `${(r.peak_rss_mib / 1024).toFixed(2)} GiB` : '–',
    ours?.peakRss ? `${(ours.peakRss / 2 ** 30).toFixed(2)} GiB` : '–', a.sum === undefined ? '–' : same ? 'same' : `DIFFERENT (${a.rows ?? ''} ${a.sum} vs ${b.rows ?? ''} ${b.sum})`]);
}
const w = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
const line = (r: string[]) => `| ${r.map((x, i) => x.padEnd(w[i]!)).join(' | ')} |`;
process.stdout.write([line(rows[0]!), `| ${w.map((n) => '-'.repeat(n)).join(' | ')} |`, ...rows.slice(1).map(line)].join('\n') + '\n');
