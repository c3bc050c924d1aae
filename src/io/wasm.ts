/**
 * The WebAssembly modules Sluice uses (parquet-wasm for Parquet, zstd-wasm for ZSTD-compressed
 * IPC output) are loaded when first needed, not when Sluice is imported: a host that runs
 * without WebAssembly (`node --jitless`) can still use everything else, and asking for what
 * needs it is a PlanError saying so instead of a crash at import.
 */
import { PlanError } from '../errors.js';

/** Throws PlanError WASM_UNAVAILABLE when this process has no WebAssembly; `what` needs it. */
export function requireWebAssembly(what: string): void {
  // (the tsconfig has no DOM/WebAssembly typings: looked up on globalThis)
  if (!('WebAssembly' in globalThis)) {
    throw new PlanError('WASM_UNAVAILABLE', `${what} needs WebAssembly, which this Node process runs without (started with --jitless?)`, {});
  }
}

export type ParquetWasm = typeof import('parquet-wasm');
let parquetWasm: Promise<ParquetWasm> | null = null;

/** parquet-wasm, loaded once per thread. */
export function loadParquetWasm(what: string): Promise<ParquetWasm> {
  requireWebAssembly(what);
  parquetWasm ??= import('parquet-wasm');
  return parquetWasm;
}

type ZstdWasm = typeof import('@bokuweb/zstd-wasm');
let zstdWasm: Promise<ZstdWasm> | null = null;

/** zstd-wasm, loaded and initialised once per thread. */
export function loadZstdWasm(what: string): Promise<ZstdWasm> {
  requireWebAssembly(what);
  zstdWasm ??= import('@bokuweb/zstd-wasm').then(async (m) => {
    await m.init();
    return m;
  });
  return zstdWasm;
}
