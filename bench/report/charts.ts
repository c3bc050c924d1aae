/**
 * SVG charts made from the results JSON with vega-lite (compiled to a vega spec) rendered by
 * vega in Node (`new vega.View(..., { renderer: 'none' }).toSVG()`, no browser): one per curve
 * and one per peer comparison (in memory, each file input format, peak RSS).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vega from 'vega';
import * as vl from 'vega-lite';
import type { BenchCase, ResultsFile } from '../results.js';

export interface Chart { id: string; title: string; path: string }

const COLORS: Record<string, string> = { sluice: '#d62728', 'sluice 1 thread': '#ff9896', polars: '#1f77b4', duckdb: '#2ca02c', 'duckdb (Parquet load)': '#98df8a' };
/** a color scale over the systems present, in a fixed order and fixed colors */
function colors(present: Iterable<string>) {
  const set = new Set(present);
  const domain = Object.keys(COLORS).filter((k) => set.has(k));
  return { scale: { domain, range: domain.map((k) => COLORS[k]!) }, legend: { labelLimit: 240 } };
}

const systemLabel = (c: BenchCase, mainThreads: number): string => {
  if (c.spec.system === 'sluice') return c.spec.threads === mainThreads || c.section !== 'memory' ? 'sluice' : 'sluice 1 thread';
  if (c.spec.system === 'duckdb' && c.spec.duckdbLoad === 'parquet') return 'duckdb (Parquet load)';
  return c.spec.system;
};

async function toSvg(spec: vl.TopLevelSpec): Promise<string> {
  const compiled = vl.compile(spec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

/** axis labels of a curve are its points' own labels ('10M', '30%', '10M x 1M') */
function labelExpr(values: Array<{ x: number; label: string }>): string {
  const pairs = [...new Map(values.map((v) => [v.x, v.label])).entries()];
  return pairs.reduceRight((acc, [x, label]) => `datum.value == ${x} ? ${JSON.stringify(label)} : ${acc}`, 'datum.label');
}

const ok = (c: BenchCase) => c.status === 'ok' && Number.isFinite(c.medianMs);

export async function renderCharts(r: ResultsFile, base: string): Promise<Chart[]> {
  const dir = base;
  mkdirSync(dir, { recursive: true });
  const charts: Chart[] = [];
  const emit = async (id: string, title: string, spec: vl.TopLevelSpec) => {
    const path = join(dir, `${id}.svg`);
    writeFileSync(path, await toSvg(spec));
    charts.push({ id, title, path });
  };
  const machine = `${r.machine.cpuModel}, ${r.machine.cores} cores, node ${r.machine.node}`;

  for (const curve of r.curves) {
    const pts = r.cases.filter((c) => c.curve?.id === curve.id && ok(c));
    if (!pts.length) continue;
    const perM = curve.y === 'per-million-rows';
    const values = pts.map((c) => ({
      x: c.curve!.x, label: c.curve!.label, system: c.spec.system,
      y: perM ? c.medianMs! / 1000 / (c.spec.params.rows / 1e6) : c.medianMs! / 1000,
    }));
    await emit(curve.id, curve.title, {
      $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
      title: { text: curve.title, subtitle: machine },
      width: 420, height: 260, data: { values },
      mark: { type: 'line', point: true },
      encoding: {
        x: {
          field: 'x', type: 'quantitative', title: curve.axis,
          scale: { type: curve.logX ? 'log' : 'linear', domain: [Math.min(...values.map((v) => v.x)), Math.max(...values.map((v) => v.x))], nice: false, ...(curve.logX ? {} : { zero: false }) },
          axis: { values: [...new Set(values.map((v) => v.x))], labelExpr: labelExpr(values) },
        },
        y: { field: 'y', type: 'quantitative', title: perM ? 'seconds per million rows (median)' : 'seconds (median)', scale: { zero: true } },
        color: { field: 'system', type: 'nominal', ...colors(values.map((v) => v.system)) },
      },
    });
  }

  const bars = async (id: string, title: string, cases: BenchCase[], value: (c: BenchCase) => number, axis: string) => {
    const values = cases.filter(ok).map((c) => ({ workload: c.spec.workload, system: systemLabel(c, r.settings.threads), v: value(c) }));
    if (!values.length) return;
    await emit(id, title, {
      $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
      title: { text: title, subtitle: machine },
      width: 420, data: { values },
      mark: 'bar',
      encoding: {
        y: { field: 'workload', type: 'nominal', title: null, sort: null },
        yOffset: { field: 'system', type: 'nominal', sort: Object.keys(COLORS) },
        x: { field: 'v', type: 'quantitative', title: axis },
        color: { field: 'system', type: 'nominal', ...colors(values.map((v) => v.system)) },
      },
    });
  };
  const mem = r.cases.filter((c) => c.section === 'memory');
  await bars('memory-time', `In memory, ${r.settings.threads} threads: median seconds`, mem, (c) => c.medianMs! / 1000, 'seconds (median)');
  await bars('memory-rss', 'In memory: peak RSS of the process (VmHWM)', mem.filter((c) => c.spec.system !== 'sluice' || c.spec.threads === r.settings.threads), (c) => (c.peakRss ?? 0) / 2 ** 30, 'GiB');
  for (const format of ['ipc', 'parquet', 'csv']) {
    await bars(`file-${format}`, `File to file: ${format.toUpperCase()} in, Parquet out, ${r.settings.threads} threads`, r.cases.filter((c) => c.section === 'file' && c.spec.format === format), (c) => c.medianMs! / 1000, 'seconds (median)');
  }
  return charts;
}
