/**
 * The repository root, found from this file whether it runs from bench/ (tsx) or compiled
 * into dist-bench/bench/ (`npm run bench`): the nearest folder up with Sluice's package.json.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'sluice') return dir;
    if (dirname(dir) === dir) throw new Error(`no Sluice package.json above ${from}`);
  }
}

export const ROOT = findRoot(fileURLToPath(import.meta.url));
