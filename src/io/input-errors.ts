/**
 * Turns anything a reader or writer throws (Node fs errors, apache-arrow's raw TypeErrors on
 * truncated IPC, parquet-wasm's "Parquet error: …" strings, papaparse failures) into typed
 * Sluice errors that name the file:
 *   - missing file                      → InputError INPUT_NOT_FOUND
 *   - other fs errors while reading     → InputError INPUT_UNREADABLE
 *   - anything else while decoding      → InputError INPUT_MALFORMED
 *   - fs errors while writing an output → InputError OUTPUT_UNWRITABLE
 *   - anything else while writing       → ExecutionError WRITE_FAILED
 * Sluice errors pass through unchanged (they already carry their meaning).
 */
import { AbortError, ExecutionError, InputError, SluiceError } from '../errors.js';

export type FormatName = 'Arrow IPC' | 'Parquet' | 'CSV' | 'NDJSON' | 'text';

/** How messages name standard input, the input whose path is `-` (every reader and the CLI). */
export const STDIN_NAME = 'standard input';

/** The name of an input in messages: its path, or "standard input" for `-`. */
export function inputName(path: string): string {
  return path === '-' ? STDIN_NAME : path;
}

/** "CSV input data.csv" / "CSV input on standard input": the subject of the messages below. */
function inputOf(format: FormatName, path: string): string {
  return `${format} input ${path === '-' ? `on ${STDIN_NAME}` : path}`;
}

/**
 * A message about `copy`, a file holding bytes read from standard input (the CLI sniffs them
 * first), reworded as if the reader had been given `-`: users never see the copy's name.
 */
export function stdinCopyMessage(message: string, copy: string): string {
  return message.split(` input ${copy}`).join(` input on ${STDIN_NAME}`).split(copy).join(STDIN_NAME);
}

function errnoCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : undefined;
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'string') return err;
  try {
    return JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}

/** Wrap an error thrown while reading `path` (`-`: standard input) as `format`. */
export function readError(err: unknown, path: string, format: FormatName): SluiceError {
  if (err instanceof SluiceError) return err;
  const errno = errnoCode(err);
  if (errno === 'ENOENT') {
    return new InputError('INPUT_NOT_FOUND', `${format} input not found: ${inputName(path)}`, { path, format }, { cause: err });
  }
  if (errno !== undefined) {
    return new InputError('INPUT_UNREADABLE', `Cannot read ${inputOf(format, path)}: ${describe(err)}`, { path, format, errno }, { cause: err });
  }
  return new InputError(
    'INPUT_MALFORMED',
    `Malformed ${inputOf(format, path)}: ${describe(err)}`,
    { path, format },
    { cause: err },
  );
}

/** A malformed-input error with our own explanation. */
export function malformed(path: string, format: FormatName, what: string, details: Record<string, unknown> = {}): InputError {
  return new InputError('INPUT_MALFORMED', `Malformed ${inputOf(format, path)}: ${what}`, { path, format, ...details });
}

/** Wrap an error thrown while writing `path`. */
export function writeError(err: unknown, path: string, format: FormatName): SluiceError {
  if (err instanceof SluiceError) return err;
  const errno = errnoCode(err);
  if (errno !== undefined) {
    return new InputError('OUTPUT_UNWRITABLE', `Cannot write ${format} output ${path}: ${describe(err)}`, { path, format, errno }, { cause: err });
  }
  // not the base class: every error Sluice throws is one of the typed kinds (API.md "Errors")
  return new ExecutionError('WRITE_FAILED', `Writing ${format} output ${path} failed: ${describe(err)}`, { path, format }, { cause: err });
}

/** Throw AbortError when `signal` is aborted. */
export function throwIfAborted(signal: AbortSignal | undefined, path: string): void {
  if (signal?.aborted) throw new AbortError(`The run was aborted (while processing ${inputName(path)})`, { path }, { cause: signal.reason });
}
