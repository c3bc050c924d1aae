/**
 * Typed errors of the public contract (API.md "Errors").
 *
 * A class and its own properties do not survive a thread boundary (only name, message, stack
 * and cause do), so workers send `toEnvelope(err)` as plain data and the coordinator rebuilds
 * the typed error with `fromEnvelope`.
 */

export type ErrorClassName =
  | 'SluiceError'
  | 'PlanError'
  | 'ExecutionError'
  | 'InputError'
  | 'WorkerError'
  | 'AbortError';

export interface ErrorDetails {
  column?: string;
  row?: number;
  path?: string;
  [key: string]: unknown;
}

export class SluiceError extends Error {
  readonly code: string;
  readonly details: ErrorDetails;
  constructor(code: string, message: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

/** Invalid plan: raised by the method, or by the action before any row is read. */
export class PlanError extends SluiceError {}
/** Data-dependent failure during a run, e.g. EXPLODE_LENGTH_MISMATCH. */
export class ExecutionError extends SluiceError {}
/** Unreadable or malformed input; `details.path` names the file. */
export class InputError extends SluiceError {}
/** A worker died or could not be started; the run ends. */
export class WorkerError extends SluiceError {}
/** The run was aborted through its AbortSignal. */
export class AbortError extends SluiceError {
  constructor(message = 'The run was aborted', details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super('ABORTED', message, details, options);
  }
}

const classes = { SluiceError, PlanError, ExecutionError, InputError, WorkerError, AbortError } as const;

/** Plain, structured-clone-safe form of an error. */
export interface ErrorEnvelope {
  sluice: true;
  className: ErrorClassName;
  code: string;
  message: string;
  details: ErrorDetails;
  stack?: string;
}

export function toEnvelope(err: unknown): ErrorEnvelope {
  if (err instanceof SluiceError) {
    return {
      sluice: true,
      className: err.name as ErrorClassName,
      code: err.code,
      message: err.message,
      details: plainDetails(err.details),
      stack: err.stack,
    };
  }
  const e = err instanceof Error ? err : new Error(String(err));
  // An unexpected exception inside a kernel is a bug or a resource failure: report it as an
  // ExecutionError with the original text rather than as an untyped crash.
  return {
    sluice: true,
    className: 'ExecutionError',
    code: 'INTERNAL',
    message: `${e.name}: ${e.message}`,
    details: {},
    stack: e.stack,
  };
}

export function isEnvelope(x: unknown): x is ErrorEnvelope {
  return typeof x === 'object' && x !== null && (x as ErrorEnvelope).sluice === true && typeof (x as ErrorEnvelope).className === 'string';
}

export function fromEnvelope(env: ErrorEnvelope): SluiceError {
  const Cls = classes[env.className] ?? SluiceError;
  const err =
    Cls === AbortError ? new AbortError(env.message, env.details) : new (Cls as typeof SluiceError)(env.code, env.message, env.details);
  if (env.stack) err.stack = `${err.name}: ${env.message}\n    (rebuilt from a worker)\n${env.stack.split('\n').slice(1).join('\n')}`;
  return err;
}

function plainDetails(d: ErrorDetails): ErrorDetails {
  const out: ErrorDetails = {};
  for (const [k, v] of Object.entries(d)) {
    out[k] = typeof v === 'bigint' ? v.toString() : v;
  }
  return out;
}

/** Short, readable rendering of a value for error messages (bigint-safe). */
export function show(v: unknown): string {
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(show).join(', ')}]`;
  if (typeof v === 'number' && Object.is(v, -0)) return '-0';
  return String(v);
}
