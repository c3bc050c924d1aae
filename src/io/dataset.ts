/**
 * The files of a source: `path` may be a file, a glob (`'logs/*.parquet'`), a folder, or an
 * array of those (API.md "Engine").
 *
 *   - a file is itself (no Hive keys);
 *   - a folder is every file below it with the format's extensions (hidden entries and names
 *     starting with `_` or `.`, such as `_SUCCESS`, skipped), Hive keys taken from the folders
 *     between it and each file;
 *   - a glob (tinyglobby; `*`, `**`, `?`, `[…]`, `{a,b}`) is every file it matches (names
 *     starting with `.` or `_` skipped, as in folders), Hive keys from the folders between its
 *     fixed leading part and each file;
 *   - a folder's or a glob's files are in sorted (bytewise UTF-8) path order; an array keeps
 *     its own order; `-` (standard input) stands alone.
 * Every file of a dataset must have the same Hive keys, in the same order. Nothing matching is
 * InputError INPUT_NOT_FOUND. (The sources match each later file's columns to the first
 * file's by name: coordinator/sources.ts.)
 */
import { readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { glob, isDynamicPattern } from 'tinyglobby';
import { InputError, PlanError } from '../errors.js';
import { hiveSegments } from './hive.js';
import type { FormatName } from './input-errors.js';

export type FileFormat = 'ipc' | 'parquet' | 'csv' | 'ndjson';

export const FORMAT_NAMES: Record<FileFormat, FormatName> = { ipc: 'Arrow IPC', parquet: 'Parquet', csv: 'CSV', ndjson: 'NDJSON' };

const EXTENSIONS: Record<FileFormat, string[]> = {
  ipc: ['.arrow', '.arrows', '.feather', '.ipc'],
  parquet: ['.parquet', '.pq'],
  csv: ['.csv', '.tsv', '.csv.gz', '.tsv.gz', '.csv.zst', '.tsv.zst'],
  ndjson: ['.ndjson', '.jsonl', '.json', '.ndjson.gz', '.jsonl.gz', '.json.gz', '.ndjson.zst', '.jsonl.zst', '.json.zst'],
};

/** The format a path's extension names (a glob's too: `logs/*.parquet`); undefined for none. */
export function formatOfPath(path: string): FileFormat | undefined {
  const lower = path.toLowerCase();
  for (const format of Object.keys(EXTENSIONS) as FileFormat[]) if (EXTENSIONS[format].some((x) => lower.endsWith(x))) return format;
  return undefined;
}

export interface DatasetFile {
  path: string;
  /** Hive `key=value` segments between the dataset root and the file (values decoded; null = NULL) */
  hive: Array<[string, string | null]>;
}

export interface Dataset {
  files: DatasetFile[];
  hiveKeys: string[];
}

const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));
const toPosix = (p: string): string => p.split(sep).join('/');

/** Validate the `path` argument of a reader: a non-empty string or a non-empty array of them. */
export function checkPaths(path: unknown, method: string): string[] {
  const list = Array.isArray(path) ? path : [path];
  if (list.length === 0 || list.some((p) => typeof p !== 'string' || p === '')) {
    throw new PlanError('BAD_OPTION', `${method}: expected a path (file, glob or folder) or a non-empty array of paths, got ${JSON.stringify(path)}`);
  }
  if (list.length > 1 && list.includes('-')) throw new PlanError('BAD_OPTION', `${method}: '-' (standard input) cannot be combined with other paths`);
  return list as string[];
}

async function walk(root: string, format: FileFormat): Promise<string[]> {
  const out: string[] = [];
  const visit = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      if (e.name.startsWith('.') || e.name.startsWith('_')) continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) await visit(p);
      else if (EXTENSIONS[format].some((x) => e.name.toLowerCase().endsWith(x))) out.push(p);
    }
  };
  await visit(root);
  return out.sort((a, b) => byBytes(toPosix(relative(root, a)), toPosix(relative(root, b))));
}

/** The fixed leading folder of a glob pattern (the part before its first dynamic segment). */
function globBase(pattern: string): string {
  const parts = toPosix(pattern).split('/');
  const fixed: string[] = [];
  for (const p of parts.slice(0, -1)) {
    if (isDynamicPattern(p)) break;
    fixed.push(p);
  }
  return fixed.length === 0 ? '.' : fixed.join('/') || '/';
}

async function expandOne(p: string, format: FileFormat): Promise<DatasetFile[]> {
  const name = FORMAT_NAMES[format];
  const st = await stat(p).catch(() => null);
  if (st?.isFile()) return [{ path: p, hive: [] }];
  if (st?.isDirectory()) {
    const files = await walk(p, format);
    if (files.length === 0) {
      throw new InputError('INPUT_NOT_FOUND', `${name} input folder ${p} holds no ${EXTENSIONS[format].join(' / ')} files`, { path: p, format: name });
    }
    return files.map((f) => ({ path: f, hive: hiveSegments(toPosix(relative(p, f))) }));
  }
  if (!st && isDynamicPattern(toPosix(p))) {
    const base = globBase(p);
    const rest = toPosix(p).slice(base === '.' ? 0 : base === '/' ? 1 : base.length + 1);
    const found = (await glob(rest, { cwd: base, onlyFiles: true, dot: false, expandDirectories: false }))
      .filter((f) => !/(^|\/)_[^/]*$/.test(f)) // `_SUCCESS`, `_metadata`: as in folders
      .sort(byBytes);
    if (found.length === 0) throw new InputError('INPUT_NOT_FOUND', `No ${name} files match ${p}`, { path: p, format: name });
    return found.map((f) => ({ path: base === '.' ? f : join(base, f), hive: hiveSegments(f) }));
  }
  if (st) throw new InputError('INPUT_UNREADABLE', `Cannot read ${name} input ${p}: not a regular file or folder`, { path: p, format: name });
  throw new InputError('INPUT_NOT_FOUND', `${name} input not found: ${p}`, { path: p, format: name });
}

/** The files of `paths`, in source order, with their Hive keys (checked to agree). */
export async function expandDataset(paths: string[], format: FileFormat): Promise<Dataset> {
  if (paths.length === 1 && paths[0] === '-') return { files: [{ path: '-', hive: [] }], hiveKeys: [] };
  const files: DatasetFile[] = [];
  for (const p of paths) files.push(...(await expandOne(p, format)));
  const keys = (f: DatasetFile) => f.hive.map(([k]) => k);
  const first = keys(files[0]!);
  for (const f of files) {
    const k = keys(f);
    if (k.length !== first.length || k.some((x, i) => x !== first[i])) {
      throw new InputError(
        'INPUT_MALFORMED',
        `${FORMAT_NAMES[format]} dataset: ${f.path} has Hive keys (${k.join(', ') || 'none'}) but ${files[0]!.path} has (${first.join(', ') || 'none'})`,
        { path: f.path },
      );
    }
  }
  return { files, hiveKeys: first };
}
