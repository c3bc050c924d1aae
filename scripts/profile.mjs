#!/usr/bin/env node
// CPU profile of one benchmark job.
//
//   npm run profile -- window [--rows N] [--threads T] [--top K] [--0x]
//
// Bundles bench/profile-job.ts with esbuild (tsx's own dependency) into the run folder so the
// profiled process runs plain JS (no tsx transpiling or loader-hook thread in the profiles;
// falls back to `--import tsx` if esbuild cannot be loaded), then runs it under `node --cpu-prof --cpu-prof-dir=profiles/<run>`.
// Node writes one .cpuprofile per thread (main + each worker with threads: 2). The script then
// prints the top self-time frames of the main-thread profile and of the worker profiles
// (workers summed; --each: each one), parsed from the .cpuprofile JSON. Idle time ((idle) and
// piscina's atomicsWaitLoop) is reported separately. bench/profile-preload.mjs makes sure worker
// threads get --cpu-prof even when the pool sets its own execArgv.
// With --0x it instead runs the job with threads: 0 (inline, one isolate) under 0x and prints
// the flamegraph path (0x profiles one isolate only).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const job = argv.find((a) => !a.startsWith('--') && !/^\d/.test(a)) ?? 'window';
const opt = (name, dflt) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : dflt; };
const top = Number(opt('top', '15'));
const use0x = argv.includes('--0x');
const threads = use0x ? '0' : opt('threads', '2');
const passthrough = ['--threads', threads];
if (opt('rows')) passthrough.push('--rows', opt('rows'));
if (argv.includes('--nearest')) passthrough.push('--nearest');

const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const dir = join(root, 'profiles', `${job}-${stamp}`);
mkdirSync(dir, { recursive: true });
const jobSource = join(root, 'bench', 'profile-job.ts');
let jobArgs = ['--import', 'tsx', jobSource];
const env = { ...process.env };
try {
  const esbuild = await import('esbuild');
  const outfile = join(dir, 'profile-job.mjs');
  esbuild.buildSync({ entryPoints: [jobSource], bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', outfile, logLevel: 'warning' });
  jobArgs = [outfile];
  // the bundle lives in the run folder: point it at the built package explicitly
  env.SLUICE_MODULE ??= join(root, 'dist', 'index.js');
} catch (e) {
  console.error(`esbuild unavailable (${e.message}); profiling through tsx, its frames will show up`);
}

if (use0x) {
  const bin = join(root, 'node_modules', '.bin', '0x');
  const r = spawnSync(bin, ['--output-dir', join(dir, '0x'), '--', process.execPath, ...jobArgs, job, ...passthrough], { cwd: root, env, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
  console.log(`0x flamegraph: ${relative(root, join(dir, '0x', 'flamegraph.html'))}`);
  process.exit(0);
}

// A pool that starts its workers with an explicit `execArgv` (Sluice's compiled build passes [])
// drops the inherited --cpu-prof; bench/profile-preload.mjs adds it back to every new Worker.
env.SLUICE_CPU_PROF_DIR = dir;
const preload = ['--import', new URL('../bench/profile-preload.mjs', import.meta.url).href];
const r = spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...preload, ...jobArgs, job, ...passthrough], { cwd: root, env, stdio: 'inherit' });
if (r.status !== 0) { console.error(`profiled job exited with ${r.status}`); process.exit(r.status ?? 1); }

// CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile — thread id 0 is the main thread
const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort() : [];
if (files.length === 0) { console.error(`no .cpuprofile written to ${dir}`); process.exit(1); }
const threadOf = (f) => Number(basename(f).split('.')[4] ?? NaN);

/** self time (ms) per frame key, plus total sampled ms */
function selfTimes(file) {
  const p = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = (p.timeDeltas[i + 1] ?? 0) / 1000; // time until the next sample belongs to this one
    const n = byId.get(p.samples[i]);
    const cf = n.callFrame;
    const url = cf.url ? relative(root, cf.url.replace(/^file:\/\//, '')) || cf.url : '';
    const key = `${cf.functionName || '(anonymous)'}${url ? `  ${url}:${cf.lineNumber + 1}` : ''}`;
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  }
  return { self, total };
}

function print(title, { self, total }) {
  // piscina's idle workers block in Atomics.wait inside atomicsWaitLoop: count that as idle too
  const idleKeys = [...self.keys()].filter((k) => k === '(idle)' || k.startsWith('atomicsWaitLoop '));
  const idle = idleKeys.reduce((a, k) => a + self.get(k), 0);
  console.log(`\n== ${title}: ${(total / 1000).toFixed(2)} s sampled, ${(idle / 1000).toFixed(2)} s idle`);
  const rows = [...self].filter(([k]) => !idleKeys.includes(k)).sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [k, ms] of rows) {
    console.log(`${ms.toFixed(0).padStart(8)} ms ${(100 * ms / Math.max(1, total - idle)).toFixed(1).padStart(5)}%  ${k}`);
  }
}

const merge = (list) => {
  const self = new Map(); let total = 0;
  for (const s of list) { total += s.total; for (const [k, v] of s.self) self.set(k, (self.get(k) ?? 0) + v); }
  return { self, total };
};

const main = files.filter((f) => threadOf(f) === 0);
const workers = files.filter((f) => threadOf(f) !== 0);
console.log(`profiles in ${relative(root, dir)}: ${main.length} main, ${workers.length} worker(s)`);
for (const f of main) print(`main thread (${f})`, selfTimes(f));
if (workers.length) {
  const ws = workers.map((f) => ({ f, s: selfTimes(f) }));
  print(`all ${workers.length} workers`, merge(ws.map((w) => w.s)));
  if (argv.includes('--each')) for (const w of ws) print(`worker ${w.f}`, w.s);
}
