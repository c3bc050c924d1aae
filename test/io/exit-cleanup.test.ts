/**
 * A process that exits mid-run (the CLI's second Ctrl-C exits at once) leaves no output temp
 * file, temp dataset folder or spill folder: each is registered for removal at exit while it
 * exists. Checked in a child process that starts the writes and calls process.exit mid-way.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../cli/helpers.js';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ dir, cleanup } = await tempDir()));
afterAll(async () => cleanup());

describe('paths removed when the process exits mid-run', () => {
  it('output temp files and spill folders are gone after process.exit', () => {
    const script = `
      import { readdirSync, writeFileSync } from 'node:fs';
      import { writeAtomic } from ${JSON.stringify(join(DIST, 'io/atomic.js'))};
      import { createRunDir } from ${JSON.stringify(join(DIST, 'memory/temp-dir.js'))};
      const dir = ${JSON.stringify(dir)};
      const run = await createRunDir(dir);
      writeFileSync(run.file('spill', '.arrow'), 'spilled bytes');
      // a write still going when the process exits
      void writeAtomic(dir + '/out.csv', 'CSV', async (t) => { await t.write('a,b\\n1,2\\n'); await new Promise(() => {}); });
      setTimeout(() => {
        process.stdout.write(readdirSync(dir).map((f) => f.replace(/[.-][0-9a-zA-Z-]+\\.sluice-tmp$/, '.TEMP').replace(/^sluice-run-.*$/, 'sluice-run-RUN')).sort().join(','));
        process.exit(130);
      }, 300);
    `;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(r.status, r.stderr).toBe(130);
    // both were there mid-run, neither is left
    expect(r.stdout).toBe('.out.csv.TEMP,sluice-run-RUN');
    expect(readdirSync(dir)).toEqual([]);
  });
});
