#!/usr/bin/env node
// What this machine charges for memory, 1 and 2 threads of one process (issue 9: explode's
// output is ~740 MB of new memory per run, and its 2-thread speedup is ~1.06x):
//
//   node scripts/first-touch.mjs [MB per thread, default 512]
//
//  - fresh:   one new ArrayBuffer per thread, written once (every page faults in)
//  - churn:   8 MB ArrayBuffers allocated, written and dropped in turn (what a worker building
//             results does: glibc hands back the freed ones when the GC is quick)
//  - rewrite: one buffer, written once untimed, then written again (pages already mapped)
// Prints each thread's time and the process' user/sys CPU. Run it on a quiet machine: another
// process on the second core makes the 2-thread rows meaningless.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const MB = 1 << 20;
const CHUNK = 8 * MB;

if (!isMainThread) {
  const { mode, mb } = workerData;
  const bytes = mb * MB;
  const chunks = Math.max(1, Math.floor(bytes / CHUNK));
  const big = mode === 'churn' ? null : new ArrayBuffer(bytes);
  if (mode === 'rewrite') new Float64Array(big).fill(1);
  const t0 = performance.now();
  for (let i = 0; i < chunks; i++) {
    if (big) new Float64Array(big, i * CHUNK, CHUNK / 8).fill(i);
    else new Float64Array(new ArrayBuffer(CHUNK)).fill(i);
  }
  parentPort.postMessage(performance.now() - t0);
} else {
  const mb = Number(process.argv[2] ?? 512);
  const once = (mode) => new Promise((resolve, reject) => {
    const w = new Worker(new URL(import.meta.url), { workerData: { mode, mb } });
    w.once('message', (ms) => { resolve(ms); void w.terminate(); });
    w.once('error', reject);
  });
  for (const mode of ['fresh', 'churn', 'rewrite']) {
    for (const threads of [1, 2]) {
      const c0 = process.cpuUsage();
      const ms = await Promise.all(Array.from({ length: threads }, () => once(mode)));
      const c = process.cpuUsage(c0);
      const each = ms.map((m) => `${m.toFixed(0)} ms`).join(', ');
      console.log(`${mode.padEnd(7)} ${threads} thread(s) x ${mb} MB: ${each}; user ${(c.user / 1000).toFixed(0)} ms, sys ${(c.system / 1000).toFixed(0)} ms`);
    }
  }
}
