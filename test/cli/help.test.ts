/**
 * Every flag of `sluice --help` also shows in `sluice <cmd> --help` (issue 10.11), except the
 * ones that command refuses (`demo -o` is a usage error, so `demo --help` does not offer it).
 */
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

  // the global flags a command refuses (a usage error when given) are not offered in its help
  const refused: Record<string, string[]> = {
    demo: ['--format', '--output'],
    explain: ['--format', '--output', '--max-rows', '--max-width', '--stats', '--stats-file'],
  };

  it.each(commands)('sluice %s --help shows every global flag it takes, and none it refuses', async (cmd) => {
    const r = await cli([cmd, '--help']);
    expect(r.code).toBe(0);
    const shown = longFlags(r.stdout);
    for (const f of flags) {
      if (refused[cmd]?.includes(f)) expect(shown, `${f} not in \`sluice ${cmd} --help\``).not.toContain(f);
      else expect(shown, `${f} in \`sluice ${cmd} --help\``).toContain(f);
    }
  });

  it.each(Object.entries(refused))('every flag left out of `sluice %s --help` is refused', async (cmd, left) => {
    for (const f of left) {
      const value = { '--stats': 'json', '--format': 'csv', '--max-rows': '5', '--max-width': '5' }[f] ?? 'x';
      const r = await cli(['--quiet', f, value, cmd, ...(cmd === 'explain' ? ['job.json'] : [])]);
      expect(r.code, f).toBe(2);
      expect(r.stderr, f).toMatch(new RegExp(`^sluice: error: ${f === '--output' ? '-o' : f} does not apply to ${cmd} `));
    }
  });
});
