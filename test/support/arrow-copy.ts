/**
 * A second copy of apache-arrow, as a user's own install would be: the package's ESM files are
 * copied to a temp folder inside the repository (so its own imports — tslib, flatbuffers —
 * still resolve from node_modules) and imported from there. Its classes are different objects
 * from the ones Sluice imports, so `instanceof` across the two fails, as it does for users.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

type ArrowModule = typeof import('apache-arrow');

export interface ArrowCopy {
  arrow: ArrowModule;
  dispose(): void;
}

export async function importArrowCopy(): Promise<ArrowCopy> {
  const root = join(process.cwd(), 'node_modules', 'apache-arrow');
  const dir = mkdtempSync(join(process.cwd(), 'test', '.arrow-copy-'));
  const target = join(dir, 'apache-arrow');
  cpSync(root, target, {
    recursive: true,
    filter: (src) => !src.startsWith(join(root, 'node_modules')) && !src.startsWith(join(root, 'src')) && !src.endsWith('.d.ts'),
  });
  const arrow = (await import(pathToFileURL(join(target, 'Arrow.node.mjs')).href)) as ArrowModule;
  return { arrow, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
