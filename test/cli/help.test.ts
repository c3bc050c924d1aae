/**
 * Every flag of `sluice --help` also shows in `sluice <cmd> --help` (issue 10.11), except the
 * ones that command refuses (`demo -o` is a usage error, so `demo --help` does not offer it).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
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

  it('run, explain and the top-level help point to the job file format where the package has it', async () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    for (const args of [['run', '--help'], ['explain', '--help'], ['--help']]) {
      const help = (await cli(args)).stdout;
      const path = /^\s+(\S*README-jobs\.md)$/m.exec(help)?.[1];
      expect(path, args.join(' ')).toBeDefined();
      expect(existsSync(path!)).toBe(true);
      expect(relative(root, path!)).toBe('src/cli/README-jobs.md');
    }
    // ... and the packed package holds it (package.json `files`)
    const pack = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' });
    expect(pack.status).toBe(0);
    const files = (JSON.parse(pack.stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path);
    expect(files).toContain('src/cli/README-jobs.md');
    expect(files).toContain('schema/job.schema.json');
  }, 60_000);
});
