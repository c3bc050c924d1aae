/**
 * `npm run bench -- <suite...> [options]`: builds Sluice (npm script), then measures.
 *
 *   suites: window | asof | explode | relational | spill | all     (several allowed)
 *   npm run bench -- report bench/results/<name>.json              re-render Markdown + SVG
 *
 * Each case runs in a child process of its own (bench/child.ts); the results go to
 * `<out-dir>/<name>.json` after every case (a partial run keeps what it measured), then the
 * Markdown report `<name>.md` and the charts `<name>/*.svg` are made from that JSON.
 * See bench/README.md for the options and what is measured.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { join, relative, resolve } from 'node:path';
import { type CaseSpec, killChildren, median, runCase } from './case.js';
import { describe, ensureDataset, type DatasetFiles, type FileFormat, freeBytes, namesOf, NoSpaceError } from './gen/write.js';
import { datasetDir, type DatasetSpec } from './gen/datasets.js';
import { describeMachine, loadAverage, machineCpu } from './machine.js';
import { ROOT } from './paths.js';
import { deriveComparisons } from './report/derive.js';
import { renderCharts } from './report/charts.js';
import { renderMarkdown } from './report/markdown.js';
import { type BenchCase, RESULTS_SCHEMA, type ResultsFile } from './results.js';
import { parseOptions, USAGE, UsageError } from './options.js';
import { type CaseDef, type CurveDef, planSuite, SUITES } from './suites.js';
import { workload } from './workloads.js';

/** MemAvailable of /proc/meminfo (what can be allocated without swapping or OOM) */
function availableMemory(): number {
  const m = /^MemAvailable:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'));
  return m ? Number(m[1]) * 1024 : os.totalmem();
}

const fmtS = (ms?: number) => (ms === undefined || !Number.isFinite(ms) ? '-' : (ms / 1000).toFixed(ms < 10_000 ? 3 : 2));
const fmtB = (b?: number) => (b === undefined || !Number.isFinite(b) ? '-' : b >= 2 ** 30 ? `${(b / 2 ** 30).toFixed(2)} GiB` : `${(b / 2 ** 20).toFixed(0)} MiB`);

/** the files of ../shared/peers' data folder stand in for our own generated data of the same shape */
function referenceNames(spec: DatasetSpec): Array<{ name: string; rows: number; csv: boolean }> | undefined {
  const plain = !('hot' in spec && spec.hot) && spec.seed === undefined;
  if (spec.kind === 'window' && plain && spec.users === undefined) return namesOf(spec);
  if (spec.kind === 'market' && plain && spec.sym === 'int' && spec.rightRows === undefined) return namesOf(spec);
  if (spec.kind === 'orders' && plain) return namesOf(spec);
  return undefined;
}

async function main(): Promise<number> {
  let parsed;
  try { parsed = parseOptions(process.argv.slice(2)); } catch (e) {
    if (e instanceof UsageError) { process.stderr.write(`bench: ${e.message}\n${USAGE}\n`); return 2; }
    throw e;
  }
  if (parsed === 'help') { process.stdout.write(`${USAGE}\n`); return 0; }
  if ('report' in parsed) {
    const file = resolve(parsed.report);
    const results = JSON.parse(readFileSync(file, 'utf8')) as ResultsFile;
    await writeReport(results, file.replace(/\.json$/, ''));
    return 0;
  }
  const o = parsed;
  if (import.meta.url.endsWith('.ts')) process.stderr.write('bench: running from sources under tsx: Sluice\'s workers inherit `--import tsx` and start slowly; `npm run bench` runs the compiled harness\n');
  if (o.systems.includes('sluice') && !existsSync(join(ROOT, 'dist', 'index.js')) && !process.env.SLUICE_MODULE) {
    process.stderr.write('bench: dist/index.js is missing: run `npm run build` (npm run bench does), or pass --peers-only\n');
    return 2;
  }
  const plan = o.suites.map((s) => planSuite(s, { ...o }));
  const defs: CaseDef[] = plan.flatMap((p) => p.cases);
  const curves: CurveDef[] = plan.flatMap((p) => p.curves);
  const unknownCurves = (o.curves ?? []).filter((id) => !curves.some((c) => c.id === id));
  if (unknownCurves.length) {
    process.stderr.write(`bench: --curves: no curve ${unknownCurves.join(', ')} in ${o.suites.join(', ')}${o.sections.includes('curve') ? '' : ' (--sections has no curve)'}\n`);
    return 2;
  }
  const stamp = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  const name = o.name ?? `${stamp.getFullYear()}-${pad(stamp.getMonth() + 1)}-${pad(stamp.getDate())}-${pad(stamp.getHours())}${pad(stamp.getMinutes())}-${o.suites.length === SUITES.length ? 'all' : o.suites.join('+')}${o.quick ? '-quick' : ''}`;
  mkdirSync(o.outDir, { recursive: true });
  const base = join(o.outDir, name);
  const spillDir = join(o.dataRoot, '..', 'spill-tmp');
  const outTmp = join(o.dataRoot, '..', 'out');
  mkdirSync(spillDir, { recursive: true }); mkdirSync(outTmp, { recursive: true });

  const results: ResultsFile = {
    schema: RESULTS_SCHEMA, name, startedAt: stamp.toISOString(), command: process.argv.slice(2), suites: o.suites, quick: o.quick,
    machine: describeMachine(),
    settings: { threads: o.threads, repeat: o.repeat, warmup: o.warmup, dataRoot: relative(ROOT, o.dataRoot), ...(o.referenceData ? { referenceData: o.referenceData } : {}) },
    datasets: [], cases: [], curves, skipped: [],
  };
  const save = () => writeFileSync(`${base}.json`, JSON.stringify(results, null, 1));
  process.stderr.write(`bench: ${defs.length} cases (${o.suites.join(', ')}${o.quick ? ', quick' : ''}), results in ${relative(process.cwd(), base)}.json\n`);

  const datasets = new Map<string, DatasetFiles>();
  const unavailable = new Map<string, string>();
  const spillData = new Set<string>();
  const done = new Map<string, BenchCase>();
  let index = 0;
  for (const def of defs) {
    index++;
    const w = workload(def.workload);
    const dspec = w.data(def.params);
    const dkey = datasetDir(dspec);
    const formats: FileFormat[] = [def.format];
    if (def.duckdbLoad === 'parquet') formats.push('parquet');
    const what = `${def.section} ${def.workload} ${def.system}${def.mode === 'file' ? ` ${def.format}->${def.outFormat}` : ''} t${def.threads}${def.variant ? ` ${def.variant}` : ''}${def.curve ? ` [${def.curve.id} ${def.curve.label}]` : ''}`;
    let files: DatasetFiles;
    try {
      if (unavailable.has(dkey)) throw new NoSpaceError(unavailable.get(dkey)!);
      const ref = o.referenceData && def.section !== 'spill' ? referenceNames(dspec) : undefined;
      const cacheKey = `${ref ? 'ref:' : ''}${dkey}:${formats.join(',')}`;
      files = datasets.get(cacheKey) ?? (ref ? await describe(o.referenceData!, ref, formats) : await ensureDataset(o.dataRoot, dspec, formats));
      if (!datasets.has(cacheKey)) {
        datasets.set(cacheKey, files);
        if (!results.datasets.some((d) => d.dir === relative(ROOT, files.dir))) results.datasets.push({ dir: relative(ROOT, files.dir), spec: dspec, files: files.files });
      }
      if (def.section === 'spill') spillData.add(files.dir);
    } catch (e) {
      if (!(e instanceof NoSpaceError)) throw e;
      unavailable.set(dkey, e.message);
      results.skipped.push({ what, reason: e.message });
      process.stderr.write(`[${index}/${defs.length}] ${what}: SKIPPED (${e.message})\n`);
      continue;
    }
    const ext = def.outFormat === 'ipc' ? 'arrow' : 'parquet';
    const spec: CaseSpec = {
      system: def.system, workload: def.workload, params: def.params, mode: def.mode, format: def.format,
      ...(def.duckdbLoad ? { duckdbLoad: def.duckdbLoad } : {}),
      threads: def.threads,
      inputs: w.inputs.map((role) => files.files[role]![def.duckdbLoad === 'parquet' ? 'parquet' : def.format]!),
      ...(def.mode === 'file' ? { out: { path: join(outTmp, `out-${process.pid}.${ext}`), format: def.outFormat ?? 'parquet' } } : {}),
      repeat: def.repeat ?? o.repeat, warmup: o.warmup,
      ...(def.sluice || def.section === 'spill' ? { sluice: { ...def.sluice, spillDir } } : {}),
      ...(def.system === 'duckdb' ? { duckdb: { ...def.duckdb, tempDir: spillDir } } : {}),
      ...(def.digest ? { digest: true } : {}),
    };
    if (def.mode === 'file' && def.outFormat === 'ipc') {
      // output (window: 13 columns for 8) and spill files (about the input) of a big run must fit too
      const need = 3 * spec.inputs.reduce((a, p) => a + statSync(p).size, 0);
      if (need + 2 * 2 ** 30 > freeBytes(outTmp)) {
        const reason = `output and spill need about ${fmtB(need)}, ${fmtB(freeBytes(outTmp))} free`;
        results.skipped.push({ what, reason });
        process.stderr.write(`[${index}/${defs.length}] ${what}: SKIPPED (${reason})\n`);
        continue;
      }
    }
    const key = JSON.stringify(spec);
    const id = `c${String(index).padStart(3, '0')}-${def.workload}-${def.system}-${def.section}`;
    const prior = done.get(key);
    let record: BenchCase;
    if (prior) {
      record = { ...prior, id, suite: def.suite, section: def.section, variant: def.variant, curve: def.curve, spec };
      process.stderr.write(`[${index}/${defs.length}] ${what}: same case as ${prior.id}, reused\n`);
    } else {
      process.stderr.write(`[${index}/${defs.length}] ${what} ...\n`);
      // Each case starts with no other case's writes still going to disk: right after the
      // unbounded 100M-row window (10 GiB written), its 64 MiB run took 136 s against 107 s
      // started on a settled disk (its spill reads waited on the writeback).
      spawnSync('sync', { stdio: 'ignore' });
      const before = loadAverage(); const cpu0 = machineCpu();
      const avail = availableMemory();
      const r = await runCase(spec, o.timeoutMs, Math.min(avail - 2 * 2 ** 30, 0.8 * avail));
      const cpu1 = machineCpu(); const after = loadAverage();
      const othersMs = cpu1.busyMs - cpu0.busyMs - (r.processCpuMs ?? 0);
      record = {
        ...r, id, suite: def.suite, section: def.section, variant: def.variant, curve: def.curve, spec,
        ...(r.runsMs.length ? { medianMs: median(r.runsMs), minMs: Math.min(...r.runsMs), medianCpuMs: median(r.cpuMs) } : {}),
        othersCores: r.processCpuMs !== undefined && Number.isFinite(othersMs) ? Math.max(0, othersMs) / r.childMs : undefined,
        loadAverage: { before, after },
      };
      done.set(key, record);
      const tail = record.status === 'ok'
        ? `median ${fmtS(record.medianMs)} s (min ${fmtS(record.minMs)}), peak RSS ${fmtB(record.peakRss)}${record.stats?.spilledBytes ? `, spilled ${fmtB(record.stats.spilledBytes)}` : ''}, others ${record.othersCores?.toFixed(2) ?? '?'} cores`
        : `${record.status.toUpperCase()}: ${record.message ?? ''}`;
      process.stderr.write(`[${index}/${defs.length}] ${what}: ${tail}\n`);
    }
    results.cases.push(record);
    save();
  }
  results.finishedAt = new Date().toISOString();
  results.comparisons = deriveComparisons(results);
  save();
  if (spillData.size && !o.keepData) {
    for (const dir of spillData) {
      const spec = results.datasets.find((d) => resolve(ROOT, d.dir) === dir)?.spec;
      if (spec && spec.rows >= 30_000_000) { rmSync(dir, { recursive: true, force: true }); process.stderr.write(`bench: removed ${relative(ROOT, dir)} (--keep-data keeps it)\n`); }
    }
  }
  rmSync(outTmp, { recursive: true, force: true });
  rmSync(spillDir, { recursive: true, force: true });
  const md = await writeReport(results, base);
  process.stdout.write(md);
  process.stderr.write(`bench: wrote ${relative(process.cwd(), base)}.json, .md and ${relative(process.cwd(), base)}/*.svg\n`);
  return results.cases.some((c) => c.status === 'failed') ? 1 : 0;
}

async function writeReport(results: ResultsFile, base: string): Promise<string> {
  results.comparisons = deriveComparisons(results);
  const charts = await renderCharts(results, base);
  const md = renderMarkdown(results, charts.map((c) => ({ ...c, path: relative(join(base, '..'), c.path) })));
  writeFileSync(`${base}.md`, md);
  return md;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => { killChildren(); process.stderr.write(`bench: ${signal}, stopped (results so far are in the JSON)\n`); process.exit(130); });
}

main().then((code) => { process.exitCode = code; }, (e: Error) => {
  process.stderr.write(`${e.stack ?? e}\n`);
  process.exitCode = 1;
});
