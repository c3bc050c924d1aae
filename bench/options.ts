/**
 * Command line of `npm run bench`: suites, options, and their checks (an unknown option or value
 * is a usage error, exit code 2).
 */
import { join, resolve } from 'node:path';
import type { FileFormat } from './gen/write.js';
import { ROOT } from './paths.js';
import { type Section, SUITES, type SuiteName } from './suites.js';
import { SYSTEMS, type System, WORKLOADS } from './workloads.js';

export interface Options {
  suites: SuiteName[];
  quick: boolean;
  rows?: number;
  repeat: number;
  warmup: number;
  threads: number;
  systems: System[];
  workloads?: string[];
  curves?: string[];
  sections: Section[];
  formats: FileFormat[];
  spillSizes?: number[];
  referenceData?: string;
  dataRoot: string;
  outDir: string;
  name?: string;
  timeoutMs: number;
  keepData: boolean;
}

export const USAGE = `usage: npm run bench -- <window|asof|explode|relational|spill|all ...> [--quick] [--rows N] [--repeat K]
       [--warmup W] [--threads T] [--systems sluice,polars,duckdb] [--peers-only] [--sluice-only]
       [--workloads a,b] [--curves id,id] [--sections memory,file,curve,spill] [--formats ipc,parquet,csv] [--spill-sizes 10M,30M]
       [--data DIR] [--data-root DIR] [--out-dir DIR] [--name NAME] [--timeout SECONDS] [--keep-data]
       npm run bench -- report <results.json>`;

const VALUE_FLAGS = new Set(['rows', 'repeat', 'warmup', 'threads', 'systems', 'workloads', 'curves', 'sections', 'formats', 'spill-sizes', 'data', 'data-root', 'out-dir', 'name', 'timeout']);
const BOOL_FLAGS = new Set(['quick', 'peers-only', 'sluice-only', 'keep-data', 'help']);

function parseCount(flag: string, v: string): number {
  const n = Number(v.replace(/_/g, '').replace(/[mM]$/, 'e6').replace(/[kK]$/, 'e3'));
  if (!Number.isFinite(n) || n < 0 || !Number.isInteger(n)) throw new UsageError(`--${flag} expects a count like 10M or 500k, got ${JSON.stringify(v)}`);
  return n;
}

export class UsageError extends Error {}

function parseList<T extends string>(flag: string, v: string, known: readonly T[]): T[] {
  const xs = v.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = xs.filter((x) => !known.includes(x as T));
  if (bad.length) throw new UsageError(`--${flag}: unknown ${bad.join(', ')} (known: ${known.join(', ')})`);
  return xs as T[];
}

export function parseOptions(argv: string[]): Options | { report: string } | 'help' {
  const positional: string[] = []; const values = new Map<string, string>(); const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) { positional.push(a); continue; }
    const eq = a.indexOf('=');
    const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
    if (VALUE_FLAGS.has(name)) {
      const v = eq > 0 ? a.slice(eq + 1) : argv[++i];
      if (v === undefined) throw new UsageError(`--${name} needs a value`);
      values.set(name, v);
    } else if (BOOL_FLAGS.has(name) && eq < 0) flags.add(name);
    else throw new UsageError(`unknown option --${name}`);
  }
  if (flags.has('help')) return 'help';
  if (positional[0] === 'report') {
    if (positional.length !== 2) throw new UsageError('report takes one results JSON file');
    return { report: positional[1]! };
  }
  const names = positional.length ? positional : ['all'];
  const suites = names.includes('all') ? [...SUITES] : parseList('suite', names.join(','), SUITES);
  const quick = flags.has('quick');
  let systems = values.has('systems') ? parseList('systems', values.get('systems')!, SYSTEMS) : [...SYSTEMS];
  if (flags.has('peers-only')) systems = systems.filter((s) => s !== 'sluice');
  if (flags.has('sluice-only')) systems = ['sluice'];
  const num = (k: string) => (values.has(k) ? parseCount(k, values.get(k)!) : undefined);
  const threads = num('threads') ?? 2;
  if (threads < 1) throw new UsageError('--threads must be at least 1');
  return {
    suites, quick, systems, threads,
    rows: num('rows'), repeat: num('repeat') ?? (quick ? 1 : 3), warmup: num('warmup') ?? 0,
    workloads: values.has('workloads') ? parseList('workloads', values.get('workloads')!, WORKLOADS.map((w) => w.name)) : undefined,
    curves: values.has('curves') ? values.get('curves')!.split(',').map((s) => s.trim()).filter(Boolean) : undefined,
    sections: values.has('sections') ? parseList('sections', values.get('sections')!, ['memory', 'file', 'curve', 'spill'] as const) : ['memory', 'file', 'curve', 'spill'],
    formats: values.has('formats') ? parseList('formats', values.get('formats')!, ['ipc', 'parquet', 'csv'] as const) : ['ipc', 'parquet', 'csv'],
    spillSizes: values.has('spill-sizes') ? values.get('spill-sizes')!.split(',').map((s) => parseCount('spill-sizes', s.trim())) : undefined,
    referenceData: values.get('data') ? resolve(values.get('data')!) : undefined,
    dataRoot: resolve(values.get('data-root') ?? join(ROOT, '.bench-data', 'data')),
    outDir: resolve(values.get('out-dir') ?? join(ROOT, 'bench', 'results')),
    name: values.get('name'),
    timeoutMs: (num('timeout') ?? 1800) * 1000,
    keepData: flags.has('keep-data'),
  };
}

