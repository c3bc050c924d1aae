/**
 * The machine a result file was measured on, and how busy it was: what a reader needs to
 * judge the figures (a shared 2-core machine is not a quiet 16-core one).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { ROOT } from './paths.js';

export interface Machine {
  cpuModel: string;
  cores: number;
  memoryBytes: number;
  os: string;
  node: string;
  packages: Record<string, string>;
  sluice: { version: string; commit: string; dirty: boolean };
}

const PACKAGES = ['apache-arrow', 'piscina', 'parquet-wasm', 'papaparse', 'nodejs-polars', '@duckdb/node-api', 'vega', 'vega-lite', 'tsx'];

function packageVersion(name: string): string {
  try { return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version; } catch { return 'missing'; }
}

function git(args: string[]): string {
  try { return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(); } catch { return ''; }
}

export function describeMachine(): Machine {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: os.availableParallelism(),
    memoryBytes: os.totalmem(),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    packages: Object.fromEntries(PACKAGES.map((p) => [p, packageVersion(p)])),
    sluice: {
      version: (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
      commit: git(['rev-parse', '--short', 'HEAD']) || 'unknown',
      dirty: git(['status', '--porcelain', '--', 'src']) !== '',
    },
  };
}

/** busy and total CPU time of the whole machine so far (ms, from /proc/stat) */
export function machineCpu(): { busyMs: number; totalMs: number } {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const tick = 1000 / 100; // USER_HZ is 100 on Linux
    const idle = (f[3] ?? 0) + (f[4] ?? 0);
    const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busyMs: (total - idle) * tick, totalMs: total * tick };
  } catch { return { busyMs: NaN, totalMs: NaN }; }
}

export const loadAverage = (): number[] => os.loadavg().map((x) => Math.round(x * 100) / 100);
