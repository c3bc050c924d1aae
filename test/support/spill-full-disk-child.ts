/**
 * Child process of test/engine/spill-full-disk.test.ts, run inside a private mount namespace
 * with a tiny tmpfs at `spillDir`: runs a spilling window twice on one engine (both must fail
 * with ENOSPC) and prints, as JSON, each run's error, the descriptors still open under
 * `spillDir`, what is left in it and its free bytes before and after.
 * Usage: node --import tsx spill-full-disk-child.ts <spillDir> <input.arrow> <threads>
 */
import { readdirSync, readlinkSync, statfsSync } from 'node:fs';
import { Engine, sum } from '../../src/index.js';

const [spillDir, input, threadsText] = process.argv.slice(2) as [string, string, string];

function fdsUnder(folder: string): string[] {
  const out: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(folder + '/')) out.push(target);
    } catch {
      // closed while listing
    }
  }
  return out;
}
const free = () => {
  const s = statfsSync(spillDir);
  return s.bavail * s.bsize;
};

const engine = new Engine({ threads: Number(threadsText), spillDir, memoryBudget: '768KiB', slabRows: 512, partitions: 8 });
const runs: unknown[] = [];
try {
  for (let i = 0; i < 2; i++) {
    const freeBefore = free();
    const error = await engine
      .readIpc(input)
      .window({ partitionBy: 'k', orderBy: 't', columns: { s: sum('v').rows(3) } })
      .collect()
      .then(
        () => null,
        (e: Error & { code?: string }) => ({ name: e.name, code: e.code, message: e.message }),
      );
    runs.push({ error, fds: fdsUnder(spillDir), left: readdirSync(spillDir), freeBefore, freeAfter: free() });
  }
} finally {
  await engine.close();
}
process.stdout.write(JSON.stringify({ runs, fdsAfterClose: fdsUnder(spillDir) }));
