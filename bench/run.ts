/**
 * Benchmark entry point.
 *
 *   tsx bench/run.ts window|asof|explode|all [--quick] [--rows N] [--repeat K] [--warmup W]
 *                    [--threads T] [--peers-only | --sluice-only] [--only a,b] [--skip a,b]
 *                    [--shape-rows N] [--right-rows N] [--stream-rows N] [--duckdb-fetch table|js]
 *                    [--out FILE]
 *
 * `npm run bench -- window` builds Sluice first, then runs this. `all` runs each benchmark in
 * its own child process (so one benchmark's memory does not inflate the next one's RSS).
 * Tables go to stdout (markdown), progress to stderr; `--out FILE` also appends the tables.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runAsof } from './asof.bench.js';
import { runExplode } from './explode.bench.js';
import { parseArgs } from './harness.js';
import { runWindow } from './window.bench.js';

const BENCHES = { window: runWindow, asof: runAsof, explode: runExplode } as const;
type Name = keyof typeof BENCHES;

const USAGE = 'usage: tsx bench/run.ts window|asof|explode|all [--quick] [--rows N] [--repeat K] [--peers-only] (see bench/README.md)';

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) { process.stdout.write(USAGE + '\n'); return 0; }
  const { command, args } = parseArgs(argv);
  if (command === 'all') {
    const rest = argv.filter((a) => a !== 'all');
    let worst = 0;
    for (const name of Object.keys(BENCHES)) {
      const r = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), name, ...rest], { stdio: 'inherit' });
      worst = Math.max(worst, r.status ?? 1);
    }
    return worst;
  }
  if (!(command in BENCHES)) { process.stderr.write(`unknown benchmark ${JSON.stringify(command)}\n${USAGE}\n`); return 2; }
  const text = await BENCHES[command as Name](args);
  const out = args.values.get('out');
  if (out) appendFileSync(out, text + '\n');
  return 0;
}

main().then((code) => { process.exitCode = code; }, (e: Error) => {
  process.stderr.write(`${e.stack ?? e}\n`);
  process.exitCode = 1;
});
