/** Every flag of `sluice --help` also shows in `sluice <cmd> --help` (issue 10.11). */
import { describe, expect, it } from 'vitest';
import { cli } from './helpers.js';

const longFlags = (help: string): string[] => [...new Set(help.match(/(?<=^\s+(?:-\w, )?)--[a-z][a-z-]*/gm) ?? [])];

describe('sluice <cmd> --help', async () => {
  const top = await cli(['--help']);
  const [head, rest = ''] = top.stdout.split(/^Commands:$/m);
  // the Commands section ends at the first blank line
  const section = rest.split(/\n\s*\n/)[0]!;
  const commands = [...section.matchAll(/^\s{2}([a-z]+)\b/gm)].map((m) => m[1]!).filter((c) => c !== 'help');
  const flags = longFlags(head!).filter((f) => f !== '--help');

  it('the top-level help lists commands and flags', () => {
    expect(commands).toEqual(expect.arrayContaining(['demo', 'run', 'explain']));
    expect(flags).toEqual(expect.arrayContaining(['--threads', '--memory-limit', '--temp-dir', '--partitions', '--format', '--output', '--max-rows', '--stats', '--quiet']));
  });

  it.each(commands)('sluice %s --help shows every global flag', async (cmd) => {
    const r = await cli([cmd, '--help']);
    expect(r.code).toBe(0);
    const shown = longFlags(r.stdout);
    for (const f of flags) expect(shown, `${f} in \`sluice ${cmd} --help\``).toContain(f);
  });
});
