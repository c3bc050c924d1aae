/**
 * The benchmark harness cannot rot: `bench all --quick` (compiled, as `npm run bench` runs it)
 * must run every suite end to end and leave a well-formed results JSON, its Markdown report
 * and one SVG chart per curve and comparison. No timing is asserted: only that it runs and
 * what it writes is complete and well-formed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultsFile } from '../../bench/results.js';
import { WORKLOADS } from '../../bench/workloads.js';

const ROOT = join(import.meta.dirname, '..', '..');
// everything inside the repository's git-ignored .bench-data (the compiled harness finds the
// repository root from its own location), apart from dist-bench so a `npm run bench` running
// meanwhile keeps its files
mkdirSync(join(ROOT, '.bench-data'), { recursive: true });
const dir = mkdtempSync(join(ROOT, '.bench-data', 'quick-test-'));
let run: ReturnType<typeof spawnSync>;
let results: ResultsFile;

beforeAll(() => {
  const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.bench.json'), '--outDir', join(dir, 'dist-bench')], { cwd: ROOT, encoding: 'utf8' });
  expect(tsc.status, tsc.stdout + tsc.stderr).toBe(0);
  run = spawnSync(process.execPath, [join(dir, 'dist-bench', 'bench', 'run.js'), 'all', '--quick', '--out-dir', join(dir, 'results'), '--data-root', join(dir, 'data'), '--name', 'quick'], {
    cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 2 ** 20,
  });
  results = JSON.parse(readFileSync(join(dir, 'results', 'quick.json'), 'utf8')) as ResultsFile;
}, 600_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bench all --quick', () => {
  it('exits 0 with no failed case', () => {
    const failed = results.cases.filter((c) => c.status === 'failed').map((c) => `${c.id}: ${c.message}`);
    expect(failed).toEqual([]);
    expect(run.status, String(run.stderr).slice(-3000)).toBe(0);
  });

  it('writes a complete results JSON', () => {
    expect(results.schema).toBe('sluice-bench/1');
    expect(results.suites).toEqual(['window', 'asof', 'explode', 'relational', 'spill']);
    expect(results.machine.cores).toBeGreaterThan(0);
    expect(results.machine.cpuModel).not.toBe('');
    expect(results.machine.packages['nodejs-polars']).toMatch(/^\d+\.\d+\.\d+/);
    expect(results.finishedAt).toBeTruthy();
    const known = new Set(WORKLOADS.map((w) => w.name));
    for (const c of results.cases) {
      expect(known.has(c.spec.workload), c.id).toBe(true);
      expect(['ok', 'not-implemented', 'no-equivalent', 'skipped']).toContain(c.status);
      if (c.status !== 'ok') continue;
      expect(c.runsMs.length, c.id).toBe(c.spec.repeat);
      expect(c.runsMs.every((ms) => Number.isFinite(ms) && ms > 0), c.id).toBe(true);
      expect(c.medianMs, c.id).toBeGreaterThan(0);
      expect(c.peakRss, c.id).toBeGreaterThan(0);
      expect(c.check?.rows, c.id).toBeGreaterThan(0);
    }
    // every system ran in memory, file to file and on a curve; Sluice and DuckDB (the reference) in the spill suite
    for (const system of ['sluice', 'polars', 'duckdb']) {
      for (const section of ['memory', 'file', 'curve', ...(system === 'polars' ? [] : ['spill'])]) {
        expect(results.cases.some((c) => c.spec.system === system && c.section === section && c.status === 'ok'), `${system} ${section}`).toBe(true);
      }
    }
    for (const curve of results.curves) expect(results.cases.filter((c) => c.curve?.id === curve.id && c.status === 'ok').length, curve.id).toBeGreaterThan(1);
    const spill = results.cases.filter((c) => c.section === 'spill' && c.spec.system === 'sluice' && c.status === 'ok');
    expect(spill.length).toBeGreaterThan(0);
    for (const c of spill) {
      expect(c.stats?.rowsOut, c.id).toBeGreaterThan(0);
      if (c.spec.digest) expect(c.digest, c.id).toMatch(/^[0-9a-f]{16}$/);
    }
    expect(results.comparisons?.length).toBeGreaterThan(0);
    for (const cmp of results.comparisons!) if (cmp.ratios.polars !== undefined) expect(cmp.ratios.polars).toBeGreaterThan(0);
  });

  it('writes the Markdown report and one SVG per curve and comparison', () => {
    const md = readFileSync(join(dir, 'results', 'quick.md'), 'utf8');
    expect(md).toMatch(/^# Sluice benchmark: quick\n/);
    for (const h of ['## In memory', '## File to file', '## Scaling curves', '## Spill (issue 8)']) expect(md).toContain(h);
    expect(md).toContain('| workload |');
    const svgs = [...md.matchAll(/!\[[^\]]*\]\(([^)]+\.svg)\)/g)].map((m) => join(dir, 'results', m[1]!));
    expect(svgs.length).toBeGreaterThanOrEqual(results.curves.length + 2);
    for (const curve of results.curves) expect(svgs.some((p) => p.endsWith(`/${curve.id}.svg`)), curve.id).toBe(true);
    for (const p of svgs) {
      expect(existsSync(p), p).toBe(true);
      const svg = readFileSync(p, 'utf8');
      expect(svg.startsWith('<svg'), p).toBe(true);
      expect(svg.trimEnd().endsWith('</svg>'), p).toBe(true);
      expect(svg).toMatch(/<path|<rect/);
    }
    expect(String(run.stdout)).toContain('# Sluice benchmark: quick');
  });
});
