#!/usr/bin/env node
// CPU profile of one benchmark workload, every thread (main and each worker):
//
//   npm run profile -- <workload> [--rows N] [--threads T] [--mode memory|file] [--format ipc|parquet|csv] [--out parquet|ipc]
//                      [--runs K] [--memory-budget B] [--top K] [--0x]
//
// `npm run profile` builds Sluice and the benchmark harness (dist-bench/), then this script
//  1. runs dist-bench/bench/profile-job.js --prepare (generates the data set into .bench-data/data
//     when missing, outside the profile),
//  2. runs the job under `node --cpu-prof --cpu-prof-dir=profiles/<workload>-<time>`: Node writes one
//     .cpuprofile per thread. Sluice's pool starts its workers with the process' execArgv, and
//     bench/profile-preload.mjs (loaded with --import) adds --cpu-prof to every `new Worker` in case a
//     pool passes its own execArgv,
//  3. prints the top self-time frames of the main thread, of each worker and of all workers summed,
//     parsed from the .cpuprofile JSON; idle time ((idle) and piscina's Atomics.wait loop)
//     is counted apart ((program), native time outside any JS frame, is listed like a frame).
// With --0x it runs the job inline (threads: 0, one isolate) under 0x and prints the flamegraph path.
// Workloads: the names in bench/workloads.ts (window1, window6, asof, asof-nearest, asof-str, explode, ...).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const OWN_VALUES = new Set(['--top']);
const OWN_FLAGS = new Set(['--0x']);
const job = argv.find((a, i) => !a.startsWith('--') && !(i > 0 && argv[i - 1].startsWith('--') && !OWN_FLAGS.has(argv[i - 1])));
if (!job) {
  console.error('usage: npm run profile -- <workload> [--rows N] [--threads T] [--mode memory|file] [--format ipc|parquet|csv] [--out parquet|ipc] [--runs K] [--memory-budget B] [--top K] [--0x]');
  process.exit(2);
}
const opt = (name, dflt) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : dflt; };
const top = Number(opt('top', '15'));
const use0x = argv.includes('--0x');
// arguments for the job: everything but this script's own options
const passthrough = [];
for (let i = 0; i < argv.length; i++) {
  if (OWN_VALUES.has(argv[i])) { i++; continue; }
  if (OWN_FLAGS.has(argv[i]) || argv[i] === job) continue;
  passthrough.push(argv[i]);
}
if (use0x) { const i = passthrough.indexOf('--threads'); if (i >= 0) passthrough.splice(i, 2); passthrough.push('--threads', '0'); }

const jobFile = join(root, 'dist-bench', 'bench', 'profile-job.js');
if (!existsSync(jobFile)) { console.error(`${relative(root, jobFile)} is missing: run \`npm run profile\` (it compiles the harness)`); process.exit(2); }
const prep = spawnSync(process.execPath, [jobFile, job, ...passthrough, '--prepare'], { cwd: root, stdio: 'inherit' });
if (prep.status !== 0) process.exit(prep.status ?? 1);

const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const dir = join(root, 'profiles', `${job}-${stamp}`);
mkdirSync(dir, { recursive: true });

if (use0x) {
  const bin = join(root, 'node_modules', '.bin', '0x');
  const r = spawnSync(bin, ['--output-dir', join(dir, '0x'), '--', process.execPath, jobFile, job, ...passthrough], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
  console.log(`0x flamegraph: ${relative(root, join(dir, '0x', 'flamegraph.html'))}`);
  process.exit(0);
}

const env = { ...process.env, SLUICE_CPU_PROF_DIR: dir };
const preload = ['--import', new URL('../bench/profile-preload.mjs', import.meta.url).href];
const r = spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...preload, jobFile, job, ...passthrough], { cwd: root, env, stdio: 'inherit' });
if (r.status !== 0) { console.error(`profiled job exited with ${r.status}`); process.exit(r.status ?? 1); }

// CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile; thread id 0 is the main thread
const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort((a, b) => threadOf(a) - threadOf(b));
if (files.length === 0) { console.error(`no .cpuprofile written to ${dir}`); process.exit(1); }
function threadOf(f) { return Number(basename(f).split('.')[4] ?? NaN); }

const IDLE = (k) => k === '(idle)' || k.startsWith('atomicsWaitLoop ');

/** self time (ms) per frame, plus the total sampled ms */
function selfTimes(file) {
  const p = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    // The time since the previous sample belongs to this one: V8 takes no sample inside a long
    // native call (a 1.7 s readFileSync was one late sample), and the old rule (time until the
    // next sample) gave that gap to whatever ran before it (it showed as parseBytes, 24%).
    const dt = (p.timeDeltas[i] ?? 0) / 1000;
    const cf = byId.get(p.samples[i]).callFrame;
    const url = cf.url ? relative(root, cf.url.replace(/^file:\/\//, '')) || cf.url : '';
    const key = `${cf.functionName || '(anonymous)'}${url ? `  ${url}:${cf.lineNumber + 1}` : ''}`;
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  }
  return { self, total };
}

function print(title, { self, total }) {
  const idleKeys = [...self.keys()].filter(IDLE);
  const idle = idleKeys.reduce((a, k) => a + self.get(k), 0);
  const busy = Math.max(1, total - idle);
  console.log(`\n== ${title}: ${(total / 1000).toFixed(2)} s sampled, ${(busy / 1000).toFixed(2)} s busy, ${(idle / 1000).toFixed(2)} s idle`);
  const rows = [...self].filter(([k]) => !idleKeys.includes(k)).sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [k, ms] of rows) console.log(`${ms.toFixed(0).padStart(8)} ms ${(100 * ms / busy).toFixed(1).padStart(5)}%  ${k}`);
}

function merge(list) {
  const self = new Map(); let total = 0;
  for (const s of list) { total += s.total; for (const [k, v] of s.self) self.set(k, (self.get(k) ?? 0) + v); }
  return { self, total };
}

console.log(`profiles in ${relative(root, dir)}: ${files.length} thread(s)`);
const workers = [];
for (const f of files) {
  const s = selfTimes(f);
  if (threadOf(f) === 0) print(`main thread (${f})`, s);
  else { workers.push(s); print(`worker thread ${threadOf(f)} (${f})`, s); }
}
if (workers.length > 1) print(`all ${workers.length} workers summed`, merge(workers));
