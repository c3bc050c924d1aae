/**
 * Child process of one benchmark case: `node --import tsx bench/child.ts '<CaseSpec JSON>'`.
 * Runs the case (bench/systems/*) and prints one `RESULT {json}` line on stdout; progress goes
 * to stderr. Any error becomes a failed case, never a crash without a result.
 */
import type { CaseResult, CaseSpec } from './case.js';
import { cpuMs } from './proc.js';
import { runDuckdb } from './systems/duckdb.js';
import { runPolars } from './systems/polars.js';
import { runSluice } from './systems/sluice.js';
import { workload } from './workloads.js';

const RUNNERS = { sluice: runSluice, polars: runPolars, duckdb: runDuckdb } as const;

async function main(): Promise<CaseResult> {
  const spec = JSON.parse(process.argv[2] ?? '{}') as CaseSpec;
  try {
    return await RUNNERS[spec.system](spec, workload(spec.workload));
  } catch (e) {
    const err = e as Error;
    process.stderr.write(`${err.stack ?? err}\n`);
    return { status: 'failed', message: String(err.message ?? err).split('\n')[0], runsMs: [], cpuMs: [] };
  }
}

const result = await main();
result.processCpuMs = cpuMs();
process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
// native pools (Polars, DuckDB) may keep the event loop alive
process.exit(0);
