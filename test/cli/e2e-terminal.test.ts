/**
 * The CLI on a terminal, through the built CLI: under a pseudo-terminal (`script`) the
 * progress bars are drawn while the run goes and erased before the table, whose
 * "N rows (M shown)" footer survives; the table view fits 80 columns (on a terminal, or
 * $COLUMNS when piped); every flag is listed in `sluice <cmd> --help`.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, writeJob } from './helpers.js';
import { BUILT, MAIN, sluice } from './spawn.js';
import { screen } from './terminal.js';

let dir: string;
let cleanup: () => Promise<void>;
let wideJob: string;
let bigJob: string;
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  const columns: Record<string, string> = {};
  for (let c = 0; c < 14; c++) columns[`metric_number_${c}`] = `price * ${c + 1}.5`;
  wideJob = await writeJob(dir, 'wide.json', {
    sources: { t: { type: 'demo', dataset: 'trades', rows: 2000 } },
    steps: [{ op: 'withColumns', columns }],
  });
  bigJob = await writeJob(dir, 'big.json', {
    sources: { log: { type: 'demo', dataset: 'serving_log', rows: 300_000 } },
    steps: [{ op: 'window', partitionBy: 'user_id', orderBy: 'create_ts', columns: { t: { fn: 'sum', column: 'tokens', range: ['7d', 0] } } }],
  });
});
afterAll(async () => cleanup());

/** Run the built CLI on a pseudo-terminal of `cols` columns; returns everything it drew. */
function onTerminal(args: string[], cols = 80): Promise<{ code: number | null; text: string }> {
  const quoted = [process.execPath, MAIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  return new Promise((resolve, reject) => {
    const p = spawn('script', ['-qec', `stty cols ${cols} rows 50; ${quoted}`, '/dev/null'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    p.stdout.on('data', (d: Buffer) => (text += d.toString()));
    p.on('error', reject);
    const t = setTimeout(() => p.kill('SIGKILL'), 60_000);
    p.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, text });
    });
  });
}

const scriptWorks = await new Promise<boolean>((resolve) => {
  const p = spawn('script', ['-qec', 'true', '/dev/null'], { stdio: 'ignore' });
  p.on('error', () => resolve(false));
  p.on('close', (c) => resolve(c === 0));
});

describe.skipIf(!BUILT)('on a terminal', () => {
  it.skipIf(!scriptWorks)('progress bars are drawn during the run and erased before the table; the footer survives', async () => {
    const r = await onTerminal(['--threads', '2', 'run', bigJob]);
    expect(r.code).toBe(0);
    // bars were drawn (the run takes long enough for at least one frame)…
    expect(r.text).toMatch(/ (partition|kernel|read) +[█░]+ +\d+%/);
    // …and none is left on the final screen, which ends with the table and its footer
    const final = screen(r.text);
    expect(final.join('\n')).not.toMatch(/[█░]/);
    expect(final.at(-1)).toBe('300,000 rows (20 shown), 5 columns');
    expect(final[0]).toMatch(/^┌/);
    for (const l of final) expect(l.length).toBeLessThanOrEqual(80);
  });

  it.skipIf(!scriptWorks)('the table view fits an 80-column terminal, hiding middle columns', async () => {
    const r = await onTerminal(['--threads', '0', 'run', wideJob], 80);
    expect(r.code).toBe(0);
    const final = screen(r.text);
    for (const l of final) expect(l.length).toBeLessThanOrEqual(80);
    expect(final[1]).toMatch(/│ … │/);
    expect(final.at(-1)).toMatch(/^2,000 rows \(20 shown\), 19 columns \(\d+ shown\)$/);
  });

  it('piped with --format table: fits $COLUMNS (80 by default), --max-width 0 for all columns', async () => {
    const r = await sluice(['--threads', '0', '--format', 'table', '--max-rows', '4', 'run', wideJob], { env: { COLUMNS: '80' } });
    expect(r.code).toBe(0);
    const lines = r.stdout.toString().trimEnd().split('\n');
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
    expect(lines.at(-1)).toMatch(/^2,000 rows \(4 shown\), 19 columns \(\d+ shown\)$/);
    expect(r.stdout.toString()).not.toMatch(/\x1b\[/); // no colour when piped
    const all = await sluice(['--threads', '0', '--format', 'table', '--max-rows', '4', '--max-width', '0', 'run', wideJob]);
    expect(all.stdout.toString().trimEnd().split('\n').at(-1)).toBe('2,000 rows (4 shown), 19 columns');
  });
});

const GLOBAL_FLAGS = ['--threads', '--memory-limit', '--temp-dir', '--partitions', '--format', '--output', '--max-rows', '--max-width', '--stats', '--stats-file', '--quiet'];

describe.skipIf(!BUILT)('help', () => {
  // Global flags a command refuses (a usage error) are left out of its help (test/cli/help.test.ts checks the errors).
  const REFUSED: Record<string, string[]> = {
    demo: ['--format', '--output'],
    explain: ['--format', '--output', '--max-rows', '--max-width', '--stats', '--stats-file'],
  };
  it.each([
    ['demo', ['--rows', '--seed', '--verbose']],
    ['run', []],
    ['explain', []],
    ['head', ['--rows', '--input-format', '--delimiter', '--no-header']],
    ['schema', ['--input-format', '--delimiter', '--no-header']],
    ['describe', ['--input-format', '--delimiter', '--no-header']],
  ])('sluice %s --help lists every flag it takes', async (cmd, own) => {
    const r = await sluice([cmd, '--help']);
    expect(r.code).toBe(0);
    const help = r.stdout.toString();
    const takes = GLOBAL_FLAGS.filter((f) => !(REFUSED[cmd] ?? []).includes(f));
    for (const flag of [...takes, ...own]) expect(help, flag).toContain(flag);
    expect(help).toMatch(/Exit codes: 0 ok, 1 runtime failure, 2 usage or bad input, 130 interrupted/);
  });

  it('--max-rows says it is for the table view only', async () => {
    const r = await sluice(['--help']);
    expect(r.stdout.toString()).toMatch(/--max-rows <n> +table view only/);
  });
});
