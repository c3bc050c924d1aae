/**
 * Process measurements (Linux /proc) and a full GC for the benchmark children.
 *
 * Peak RSS is VmHWM of the child's own /proc/self/status: a fresh process per system and
 * workload, so nothing another system loaded is counted. (resourceUsage().maxRSS is no good in
 * a spawned child: ru_maxrss survives fork + exec, so the child would inherit its parent's peak.)
 * Writing "5" to /proc/self/clear_refs resets VmHWM to the current RSS: done after the input is
 * loaded, it gives the peak of the query phase alone.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

function statusBytes(field: 'VmHWM' | 'VmRSS', pid: number | 'self' = 'self'): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch { return NaN; }
}
export const vmHwm = (pid: number | 'self' = 'self'): number => statusBytes('VmHWM', pid);
export const vmRss = (pid: number | 'self' = 'self'): number => statusBytes('VmRSS', pid);

/** resets VmHWM to the current RSS; false when the kernel does not allow it */
export function resetHwm(): boolean {
  try { writeFileSync('/proc/self/clear_refs', '5'); return true; } catch { return false; }
}

export const cpuMs = (): number => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };

let gcFn: (() => void) | undefined;
/**
 * Full GC, twice, yielding to the event loop after each: nodejs-polars and DuckDB free their
 * native memory in finalizers that Node runs from the event loop after the GC that found the
 * objects dead, so a synchronous gc() alone leaves every earlier result allocated.
 */
export async function fullGc(): Promise<void> {
  // children start with --expose-gc (bench/case.ts); the flag is set late only when run otherwise
  if (!gcFn) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (exposed) gcFn = exposed;
    else { setFlagsFromString('--expose-gc'); gcFn = runInNewContext('gc') as () => void; }
  }
  for (let i = 0; i < 2; i++) { gcFn(); await new Promise((r) => setImmediate(r)); }
}
