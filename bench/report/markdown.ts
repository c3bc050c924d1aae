/**
 * The Markdown report of one results file: machine and noise, then per section a table made
 * from the cases and the derived comparisons (ratios of medians from this one run), the curves
 * with links to their charts, the spill runs against issue 8's targets, and what was skipped.
 */
import type { BenchCase, Comparison, ResultsFile } from '../results.js';
import { NO_BUDGET } from '../suites.js';
import { workload } from '../workloads.js';
import type { Chart } from './charts.js';

const s = (ms?: number) => (ms === undefined || !Number.isFinite(ms) ? '–' : (ms / 1000).toFixed(ms < 10_000 ? 2 : 1));
const b = (x?: number) => (x === undefined || !Number.isFinite(x) ? '–' : x >= 2 ** 30 ? `${(x / 2 ** 30).toFixed(2)} GiB` : `${(x / 2 ** 20).toFixed(0)} MiB`);
const x2 = (r?: number) => (r === undefined || !Number.isFinite(r) ? '–' : r.toFixed(2));
const rows = (n: number) => (n >= 1e6 ? `${+(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${+(n / 1e3).toFixed(0)}k` : String(n));

function table(head: string[], body: string[][]): string {
  return [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...body.map((r) => `| ${r.join(' | ')} |`)].join('\n') + '\n';
}

export function renderMarkdown(r: ResultsFile, charts: Array<Chart & { path: string }>): string {
  const byId = new Map(r.cases.map((c) => [c.id, c]));
  const cell = (id?: string) => {
    const c = id ? byId.get(id) : undefined;
    if (!c) return '–';
    if (c.status === 'ok') return s(c.medianMs);
    if (c.status === 'not-implemented') return 'not implemented yet';
    if (c.status === 'no-equivalent') return 'n/a';
    return `${c.status}${c.message ? ` (${c.message.slice(0, 80)})` : ''}`;
  };
  const cpu = (id?: string) => { const c = id ? byId.get(id) : undefined; return c?.status === 'ok' && c.medianCpuMs !== undefined ? (c.medianCpuMs / 1000).toFixed(1) : '–'; };
  const cpus = (c: Comparison) => [c.sluice, c.polars, c.duckdb].map(cpu).join(' / ');
  const rss = (id?: string) => { const c = id ? byId.get(id) : undefined; return c?.status === 'ok' ? b(c.peakRss) : '–'; };
  const chart = (id: string) => { const c = charts.find((x) => x.id === id); return c ? `![${c.title}](${c.path})\n\n` : ''; };
  const checks = (c: Comparison) => Object.entries(c.checks).filter(([, v]) => v).map(([k, v]) => (v === 'agree' ? `${k} ✓` : `${k}: ${v}`)).join('; ');
  const m = r.machine;
  const others = r.cases.map((c) => c.othersCores).filter((v): v is number => v !== undefined && Number.isFinite(v)).sort((a, b2) => a - b2);
  const loads = r.cases.flatMap((c) => [c.loadAverage.before[0]!, c.loadAverage.after[0]!]).filter(Number.isFinite);
  const pct = (q: number) => others.length ? others[Math.min(others.length - 1, Math.floor(q * others.length))]!.toFixed(2) : '?';
  let out = `# Sluice benchmark: ${r.name}\n\n`;
  out += `${m.cpuModel}, ${m.cores} cores, ${b(m.memoryBytes)}, ${m.os}, Node ${m.node}; Sluice ${m.sluice.version} (${m.sluice.commit}${m.sluice.dirty ? ', src/ modified' : ''}); `;
  out += `${Object.entries(m.packages).map(([k, v]) => `${k} ${v}`).join(', ')}.\n\n`;
  out += `Started ${r.startedAt}${r.finishedAt ? `, finished ${r.finishedAt}` : ' (unfinished)'}; \`${['npm run bench --', ...r.command].join(' ')}\`; `;
  out += `${r.settings.threads} threads, medians of ${r.settings.repeat} run(s) after ${r.settings.warmup} warmup(s), one child process per system and case.\n\n`;
  out += `**Noise**: other processes used ${pct(0.5)} cores (median over cases; 90th percentile ${pct(0.9)}) of the ${m.cores} while a case ran; load average ${loads.length ? `${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}` : '?'}. `;
  out += `Compare systems within this run (ratios below), not with other runs.\n\n`;
  if (r.settings.referenceData) out += `Main data: \`${r.settings.referenceData}\` (the reference data of ../shared/peers) where it has the data set.\n\n`;

  const comps = r.comparisons ?? [];
  const mem = comps.filter((c) => c.section === 'memory');
  if (mem.length) {
    out += `## In memory\n\nArrow IPC file loaded before the timing (Sluice: \`tableFromIPC\`, Polars: \`readIPC\` + \`rechunk\`, DuckDB: appender, or \`read_parquet\` into a table); timed: the query to a materialized result (Sluice Arrow table in input order, Polars DataFrame with its sorts, DuckDB \`CREATE TEMP TABLE AS\`). CPU: user + system time of the whole process per run (all threads), less sensitive than wall time to other processes but inflated by spinning thread pools. Peak RSS: VmHWM of the system's own process, input included.\n\n`;
    out += table(
      ['workload', 'rows', 'Sluice s', 'Sluice 1 thread s', 'speedup', 'Polars s', 'DuckDB s', 'DuckDB (Parquet load) s', 'Sluice / Polars', 'Sluice / DuckDB', 'CPU s Sluice / Polars / DuckDB', 'peak RSS Sluice', 'Polars', 'DuckDB', 'checks'],
      mem.map((c) => [c.workload, rows(c.rows), cell(c.sluice), cell(c.sluice1), x2(c.ratios.speedup), cell(c.polars), cell(c.duckdb), cell(c.duckdbParquet), x2(c.ratios.polars), x2(c.ratios.duckdb), cpus(c), rss(c.sluice), rss(c.polars), rss(c.duckdb), checks(c)]),
    );
    const t = mem.map((c) => [c.workload, targetsOf(c, byId)] as const).filter(([, v]) => v);
    if (t.length && !r.quick) out += `\nTargets (issues 9, 11, 12; ✓ met, ✗ missed in this run):\n\n${t.map(([w, v]) => `- ${w}: ${v}`).join('\n')}\n`;
    out += '\n' + chart('memory-time') + chart('memory-rss');
  }
  const file = comps.filter((c) => c.section === 'file');
  if (file.length) {
    out += `## File to file\n\nRead the input file, run, write Parquet (zstd), all timed (Sluice \`readX(...).<query>.writeParquet\`, Polars \`scanX(...)...sinkParquet\`, DuckDB \`COPY (query over read_parquet / read_csv) TO\`; DuckDB has no native Arrow IPC reader, so its IPC input goes through apache-arrow + the appender inside the timing). Output checked by DuckDB reading each system's file.\n\n`;
    out += table(
      ['workload', 'input', 'rows', 'Sluice s', 'Polars s', 'DuckDB s', 'Sluice / Polars', 'Sluice / DuckDB', 'Sluice / faster peer', 'CPU s Sluice / Polars / DuckDB', 'peak RSS Sluice', 'Polars', 'DuckDB', 'checks'],
      file.map((c) => [c.workload, c.format, rows(c.rows), cell(c.sluice), cell(c.polars), cell(c.duckdb), x2(c.ratios.polars), x2(c.ratios.duckdb), x2(c.ratios.fasterPeer), cpus(c), rss(c.sluice), rss(c.polars), rss(c.duckdb), checks(c)]),
    );
    const t = file.filter((c) => TARGETS[c.workload]?.file !== undefined && c.ratios.fasterPeer !== undefined)
      .map((c) => `- ${c.workload} from ${c.format}: Sluice / faster peer ${x2(c.ratios.fasterPeer)} ${c.ratios.fasterPeer! <= TARGETS[c.workload]!.file! ? '✓' : '✗'} (target <= ${TARGETS[c.workload]!.file})`);
    if (t.length && !r.quick) out += `\nTargets (issue 9: file to file at or under the faster peer):\n\n${t.join('\n')}\n`;
    out += '\n' + chart('file-ipc') + chart('file-parquet') + chart('file-csv');
  }
  if (r.curves.length) {
    out += `## Scaling curves\n\nIn memory, one parameter varied. Medians in seconds.\n\n`;
    for (const curve of r.curves) {
      const pts = r.cases.filter((c) => c.curve?.id === curve.id);
      if (!pts.length) continue;
      const labels = [...new Map(pts.map((c) => [c.curve!.x, c.curve!.label])).entries()].sort((a, b2) => a[0] - b2[0]);
      const systems = [...new Set(pts.map((c) => c.spec.system))];
      out += `### ${curve.title}\n\n`;
      out += table([curve.axis, ...systems.map((x) => `${x} s`), ...(curve.y === 'per-million-rows' ? systems.map((x) => `${x} s/M rows`) : [])], labels.map(([xv, label]) => {
        const at = (sys: string) => pts.find((c) => c.curve!.x === xv && c.spec.system === sys);
        return [label, ...systems.map((sys) => cell(at(sys)?.id)),
          ...(curve.y === 'per-million-rows' ? systems.map((sys) => { const c = at(sys); return c?.status === 'ok' ? (c.medianMs! / 1000 / (c.spec.params.rows / 1e6)).toFixed(3) : '–'; }) : [])];
      }));
      out += '\n' + chart(curve.id);
    }
  }
  const spill = r.cases.filter((c) => c.section === 'spill');
  if (spill.length) out += renderSpill(spill);
  const missing = r.cases.filter((c) => c.status === 'not-implemented' || c.status === 'failed');
  if (missing.length || r.skipped.length) {
    out += `## Not measured\n\n`;
    for (const c of missing) out += `- ${c.spec.workload} ${c.spec.system} (${c.section}${c.section === 'file' ? ` ${c.spec.format}` : ''}): ${c.status === 'not-implemented' ? c.message : `FAILED: ${c.message}`}\n`;
    for (const k of r.skipped) out += `- ${k.what}: skipped, ${k.reason}\n`;
    out += '\n';
  }
  const notes = [...new Set(r.cases.map((c) => c.spec.workload))].flatMap((name) => {
    const w = workload(name);
    return [...Object.entries(w.differs ?? {}), ...Object.entries(w.notes ?? {})].map(([sys, why]) => `- ${name}, ${sys}: ${why}`);
  });
  if (notes.length) out += `## Differences between the systems\n\n${[...new Set(notes)].join('\n')}\n`;
  return out;
}

/**
 * The issues' targets at the main size: Sluice / Polars (issue 9: 0.8 for its kernels; issue
 * 11: 1.0), Sluice / faster peer (issue 12: 1.5; file to file, issue 9: 1.0), the 2-thread
 * speedup and peak RSS against Polars (or the faster peer).
 */
const TARGETS: Record<string, { polars?: number; faster?: number; file?: number; speedup: number; rss: 'polars' | 'faster' }> = {
  window1: { polars: 0.8, file: 1.0, speedup: 1.8, rss: 'polars' },
  window6: { polars: 0.8, file: 1.0, speedup: 1.8, rss: 'polars' },
  asof: { polars: 0.8, file: 1.0, speedup: 1.8, rss: 'polars' },
  'asof-nearest': { polars: 0.8, file: 1.0, speedup: 1.8, rss: 'polars' },
  'asof-str': { polars: 0.8, file: 1.0, speedup: 1.8, rss: 'polars' },
  explode: { polars: 0.8, file: 1.0, speedup: 1.8, rss: 'polars' },
  'lag-lead-rank': { polars: 1.0, speedup: 1.8, rss: 'polars' },
  stddev: { polars: 1.0, speedup: 1.8, rss: 'polars' },
  ...Object.fromEntries(['groupby-100k', 'groupby-5m', 'join-int-inner', 'join-int-left', 'join-str-inner', 'join-str-left', 'sort', 'distinct']
    .map((w) => [w, { faster: 1.5, speedup: 1.7, rss: 'faster' as const }])),
};

function targetsOf(c: Comparison, byId: Map<string, BenchCase>): string | undefined {
  const t = TARGETS[c.workload];
  if (!t || c.sluice === undefined || byId.get(c.sluice)?.status !== 'ok') return undefined;
  const mark = (v: number | undefined, limit: number, ge = false) => (v === undefined ? '–' : `${x2(v)} ${(ge ? v >= limit : v <= limit) ? '✓' : '✗'}`);
  const parts: string[] = [];
  if (t.polars !== undefined) parts.push(`Sluice / Polars ${mark(c.ratios.polars, t.polars)} (<= ${t.polars})`);
  if (t.faster !== undefined) parts.push(`Sluice / faster peer ${mark(c.ratios.fasterPeer, t.faster)} (<= ${t.faster})`);
  parts.push(`speedup ${mark(c.ratios.speedup, t.speedup, true)} (>= ${t.speedup})`);
  const peers = [c.polars, c.duckdb].map((id) => (id ? byId.get(id) : undefined)).filter((x): x is BenchCase => x?.status === 'ok');
  const ref = t.rss === 'polars' ? peers.find((p) => p.spec.system === 'polars') : peers.sort((a, b2) => a.medianMs! - b2.medianMs!)[0];
  const sl = byId.get(c.sluice)!;
  if (ref?.peakRss && sl.peakRss) parts.push(`peak RSS / ${t.rss === 'polars' ? 'Polars' : 'faster peer'} ${mark(sl.peakRss / ref.peakRss, 1)} (<= 1)`);
  return parts.join(', ');
}

function renderSpill(cases: BenchCase[]): string {
  let out = `## Spill (issue 8)\n\n\`readIpc -> window (5 ROWS sums) -> writeIpc\` and ASOF 10M x 10M at several memory budgets ("none" = ${NO_BUDGET}); DuckDB on the same job from Parquet to Parquet with \`memory_limit\` and a temp directory. One run each. VmHWM of the process; digest: SHA-1 of the output columns in row order (Sluice); check: rows and column sums (order-free, comparable with DuckDB).\n\n`;
  out += table(['job', 'rows', 'system', 'setting', 'time s', 'VmHWM', 'VmHWM - budget', 'spilled', 'peakTrackedBytes', 'digest', 'check sum'],
    cases.map((c) => {
      const budget = c.spec.sluice?.memoryBudget && c.spec.sluice.memoryBudget !== NO_BUDGET ? parseBudget(c.spec.sluice.memoryBudget) : undefined;
      const sum = c.check ? Object.values(c.check.columns).reduce((a, x) => a + (x.sum ?? 0), 0) : undefined;
      return [c.spec.workload === 'window1' ? 'window' : c.spec.workload, rows(c.spec.params.rows), c.spec.system, c.variant ?? '', c.status === 'ok' ? s(c.medianMs) : `${c.status}: ${c.message ?? ''}`,
        b(c.peakRss), budget && c.peakRss ? b(c.peakRss - budget) : '–', b(c.stats?.spilledBytes), b(c.stats?.peakTrackedBytes), c.digest ?? '–', sum === undefined ? '–' : Number.isInteger(sum) ? String(sum) : sum.toPrecision(12)];
    }));
  // issue 8's targets, per size
  const lines: string[] = [];
  for (const job of ['window1', 'asof']) {
    for (const n of [...new Set(cases.filter((c) => c.spec.workload === job).map((c) => c.spec.params.rows))]) {
      const sl = cases.filter((c) => c.spec.workload === job && c.spec.params.rows === n && c.spec.system === 'sluice' && c.status === 'ok');
      const none = sl.find((c) => c.spec.sluice?.memoryBudget === NO_BUDGET);
      const small = sl.find((c) => c.spec.sluice?.memoryBudget === '64MiB');
      if (!sl.length) { lines.push(`- ${job === 'window1' ? 'window' : 'asof'} ${rows(n)}: no Sluice run completed`); continue; }
      const digests = new Set(sl.map((c) => c.digest));
      const budgeted = sl.filter((c) => c.spec.sluice?.memoryBudget !== NO_BUDGET);
      const over = sl.filter((c) => c.spec.sluice?.memoryBudget !== NO_BUDGET && c.peakRss! > parseBudget(c.spec.sluice!.memoryBudget!) + 400 * 2 ** 20);
      lines.push(`- ${job === 'window1' ? 'window' : 'asof'} ${rows(n)}: digests ${digests.size === 1 ? 'equal' : `DIFFER (${[...digests].join(', ')})`}; 64 MiB / none time ${none && small ? x2(small.medianMs! / none.medianMs!) : '–'} (target <= 2); VmHWM <= budget + 400 MiB: ${!budgeted.length ? '–' : over.length ? `missed at ${over.map((c) => c.variant).join(', ')}` : 'met'}${digests.size === 1 && sl.length === 1 ? ' (one run: nothing to compare)' : ''}`);
    }
  }
  return out + '\n' + lines.join('\n') + '\n\n';
}

function parseBudget(v: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(B|KiB|MiB|GiB|KB|MB|GB)?$/.exec(v);
  if (!m) return NaN;
  const unit = { B: 1, KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30, KB: 1e3, MB: 1e6, GB: 1e9 }[(m[2] ?? 'B') as 'B'];
  return Number(m[1]) * unit;
}
