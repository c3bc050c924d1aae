/** The benchmark's option parsing and planning: what `--workloads` and `--curves` select. */
import { describe, expect, it } from 'vitest';
import { parseOptions, type Options } from '../../bench/options.js';
import { planSuite } from '../../bench/suites.js';

const parse = (argv: string[]): Options => {
  const o = parseOptions(argv);
  if (o === 'help' || 'report' in o) throw new Error('expected options');
  return o;
};

describe('bench options', () => {
  it('--curves selects curves by id, also with --workloads', () => {
    const o = parse(['window', '--workloads', 'stddev', '--curves', 'stddev-widths', '--sections', 'memory,curve']);
    expect(o.curves).toEqual(['stddev-widths']);
    const plan = planSuite('window', o);
    expect(plan.curves.map((c) => c.id)).toEqual(['stddev-widths']);
    expect(new Set(plan.cases.filter((c) => c.section === 'curve').map((c) => c.curve?.id))).toEqual(new Set(['stddev-widths']));
    expect(new Set(plan.cases.filter((c) => c.section === 'memory').map((c) => c.workload))).toEqual(new Set(['stddev']));
  });

  it('--workloads alone skips the curves; no option plans every curve of the suite', () => {
    expect(planSuite('window', parse(['window', '--workloads', 'stddev'])).curves).toEqual([]);
    expect(planSuite('window', parse(['window'])).curves.length).toBeGreaterThan(1);
  });

  it('rejects an unknown option', () => {
    expect(() => parseOptions(['window', '--curve', 'x'])).toThrow(/unknown option --curve/);
  });
});
