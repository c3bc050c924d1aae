import { describe, expect, it } from 'vitest';
import { cli } from './helpers.js';

describe('sluice demo', () => {
  it('runs the three kernels and prints tables, counts and timings', async () => {
    const r = await cli(['--threads', '0', '--stats', 'json', 'demo', '--rows', '5000', '--verbose']);
    expect(r.code).toBe(0);
    const out = r.stdout;
    expect(out).toMatch(/\[1\/3\] window/);
    expect(out).toMatch(/\[2\/3\] asofJoin/);
    expect(out).toMatch(/\[3\/3\] explode/);
    expect(out).toMatch(/5,000 rows \(8 shown\), 9 columns/);
    expect(out).toMatch(/serving_log 5,000 rows in → 5,000 rows out in/);
    expect(out).toMatch(/trades 1,000 \+ quotes 2,000 rows in → 1,000 rows out/);
    expect(out).toMatch(/matched \d[\d,]* of 1,000 trades/);
    expect(out).toMatch(/orders 1,000 rows in → [\d,]+ rows out/);
    expect(out).toMatch(/Sluice plan/); // --verbose
    expect(out).toMatch(/tokens_7d/);
    expect(out).not.toMatch(/\x1b\[/); // not a TTY: no colour
    const stats = JSON.parse(r.stderr.trim().split('\n').pop()!);
    expect(Object.keys(stats)).toEqual(['window', 'asof', 'explode']);
    expect(stats.window.rowsOut).toBe(5000);
  });
});
