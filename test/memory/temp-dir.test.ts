/** Run folders: unique, hand out unique file names, removed recursively, idempotently, and on exit. */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tableFromArrays } from 'apache-arrow';
import { PlanError } from '../../src/errors.js';
import { Engine } from '../../src/index.js';
import { HOST } from '../../src/io/process-owner.js';
import { createRunDir } from '../../src/memory/temp-dir.js';
import { rejection } from '../support/rejection.js';

const root = mkdtempSync(join(tmpdir(), 'sluice-mem-tmp-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('createRunDir', () => {
  it('makes a unique sluice-run- folder with unique file names; remove() is recursive and idempotent', async () => {
    const a = await createRunDir(root);
    const b = await createRunDir(root);
    expect(a.path).not.toBe(b.path);
    expect(dirname(a.path)).toBe(root);
    expect(basename(a.path)).toMatch(/^sluice-run-/);
    const f1 = a.file('spill', '.arrows');
    const f2 = a.file('spill', '.arrows');
    expect(f1).not.toBe(f2);
    expect(dirname(f1)).toBe(a.path);
    writeFileSync(f1, 'x');
    writeFileSync(f2, 'y');
    await a.remove();
    expect(existsSync(a.path)).toBe(false);
    await a.remove();
    await b.remove();
    expect(existsSync(b.path)).toBe(false);
  });

  it('a spillDir that does not exist is PlanError BAD_SPILL_DIR', async () => {
    const err = await createRunDir(join(root, 'missing')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlanError);
    expect((err as PlanError).code).toBe('BAD_SPILL_DIR');
  });

  it('a run with a spillDir that is missing or a file is PlanError BAD_SPILL_DIR before any row is read, even if it would not spill', async () => {
    const file = join(root, 'a-file');
    writeFileSync(file, 'x');
    for (const spillDir of [join(root, 'missing'), file]) {
      const engine = new Engine({ threads: 0, spillDir });
      try {
        const err = await rejection(engine.fromArrow(tableFromArrays({ a: Int32Array.of(1, 2, 3) })).collect());
        expect(err).toBeInstanceOf(PlanError);
        expect((err as PlanError).code).toBe('BAD_SPILL_DIR');
        expect((err as Error).message).toContain(spillDir);
      } finally {
        await engine.close();
      }
    }
  });

  it('a run folder a killed process left behind is removed by the next one; live, foreign and unknown owners are kept', async () => {
    const spill = mkdtempSync(join(root, 'sweep-'));
    const host = HOST;
    // a pid that no longer exists: a child that has exited
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    // the last: a dead owner's folder written to lately (a live process in another PID namespace?)
    const names = [`sluice-run-${host}-${dead}-abcdef`, `sluice-run-${host}-${process.ppid}-abcdef`, `sluice-run-otherhost-${dead}-abcdef`, 'sluice-run-Ab12Cd', `sluice-run-${host}-${dead}-recent`];
    const old = new Date(Date.now() - 11 * 60_000);
    for (const n of names) {
      mkdirSync(join(spill, n));
      writeFileSync(join(spill, n, 'x.arrow'), 'spilled');
      if (!n.endsWith('recent')) {
        utimesSync(join(spill, n, 'x.arrow'), old, old);
        utimesSync(join(spill, n), old, old);
      }
    }
    const d = await createRunDir(spill);
    expect(basename(d.path)).toMatch(new RegExp(`^sluice-run-${host}-${process.pid}-[A-Za-z0-9]{6}$`));
    expect(readdirSync(spill).sort()).toEqual([basename(d.path), ...names.slice(1)].sort());
    await d.remove();
  });

  it('leftover folders are removed when the process exits', () => {
    const mod = new URL('../../src/memory/temp-dir.ts', import.meta.url).href;
    const out = execFileSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', `const { createRunDir } = await import(${JSON.stringify(mod)}); const d = await createRunDir(${JSON.stringify(root)}); (await import('node:fs')).writeFileSync(d.file('x'), 'data'); console.log(d.path);`],
      { encoding: 'utf8' },
    ).trim();
    expect(out.startsWith(join(root, 'sluice-run-'))).toBe(true);
    expect(existsSync(out)).toBe(false);
  });
});
