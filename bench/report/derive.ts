/**
 * Comparisons derived from the cases of one run: per workload (and mode, input format, size),
 * Sluice / Polars and Sluice / DuckDB as ratios of medians, the 1-thread vs N-thread speedup,
 * peak RSS ratios, and whether each peer's result checks agree with Sluice's.
 */
import { compareChecks } from '../check.js';
import type { BenchCase, Comparison, ResultsFile } from '../results.js';
import { workload } from '../workloads.js';

const ok = (c?: BenchCase): c is BenchCase => !!c && c.status === 'ok' && Number.isFinite(c.medianMs);

function checkAgainst(ref: BenchCase | undefined, other: BenchCase | undefined, system: 'polars' | 'duckdb' | 'sluice'): string | undefined {
  if (!ok(ref) || !ok(other) || !ref.check || !other.check) return undefined;
  const diff = compareChecks(ref.check, other.check);
  if (!diff) return 'agree';
  const why = system === 'sluice' ? undefined : workload(ref.spec.workload).differs?.[system];
  return why ? `differs (expected: ${why})` : `DIFFERS: ${diff}`;
}

export function deriveComparisons(r: ResultsFile): Comparison[] {
  const groups = new Map<string, BenchCase[]>();
  for (const c of r.cases) {
    if (c.section !== 'memory' && c.section !== 'file') continue;
    const key = JSON.stringify([c.suite, c.section, c.spec.workload, c.section === 'file' ? c.spec.format : '', c.spec.params, c.variant ?? '']);
    const g = groups.get(key) ?? [];
    g.push(c); groups.set(key, g);
  }
  const main = r.settings.threads;
  const out: Comparison[] = [];
  for (const g of groups.values()) {
    const first = g[0]!;
    const find = (system: string, pred: (c: BenchCase) => boolean = () => true) => g.find((c) => c.spec.system === system && pred(c));
    const sluice = find('sluice', (c) => c.spec.threads === main);
    const sluice1 = main !== 1 ? find('sluice', (c) => c.spec.threads === 1) : undefined;
    const polars = find('polars', (c) => c.spec.threads === main);
    const duckdb = find('duckdb', (c) => c.spec.threads === main && (c.section === 'file' || (c.spec.duckdbLoad ?? 'appender') === 'appender'));
    const duckdbParquet = first.section === 'memory' ? find('duckdb', (c) => c.spec.threads === main && c.spec.duckdbLoad === 'parquet') : undefined;
    const ratio = (a?: BenchCase, b?: BenchCase) => (ok(a) && ok(b) ? a.medianMs! / b.medianMs! : undefined);
    const rss = (a?: BenchCase, b?: BenchCase) => (ok(a) && ok(b) && a.peakRss && b.peakRss ? a.peakRss / b.peakRss : undefined);
    const peers = [polars, duckdb, duckdbParquet].filter(ok);
    const fastest = peers.length ? peers.reduce((a, b) => (a.medianMs! <= b.medianMs! ? a : b)) : undefined;
    out.push({
      suite: first.suite, section: first.section, workload: first.spec.workload, format: first.spec.format, rows: first.spec.params.rows, variant: first.variant,
      sluice: sluice?.id, sluice1: sluice1?.id, polars: polars?.id, duckdb: duckdb?.id, duckdbParquet: duckdbParquet?.id,
      ratios: {
        polars: ratio(sluice, polars), duckdb: ratio(sluice, duckdb), duckdbParquet: ratio(sluice, duckdbParquet), fasterPeer: ratio(sluice, fastest),
        speedup: ratio(sluice1, sluice), rssVsPolars: rss(sluice, polars), rssVsDuckdb: rss(sluice, duckdb),
      },
      checks: {
        polars: checkAgainst(sluice, polars, 'polars'), duckdb: checkAgainst(sluice, duckdb, 'duckdb'),
        duckdbParquet: checkAgainst(sluice, duckdbParquet, 'duckdb'), sluice1: checkAgainst(sluice, sluice1, 'sluice'),
      },
    });
  }
  return out;
}
