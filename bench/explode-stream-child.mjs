// Child process for the streaming explode benchmark: readIpc -> explode -> writeIpc with the
// BUILT Sluice package, nothing else loaded, so its RSS is the pipeline's own.
// usage: node bench/explode-stream-child.mjs <sluice dist/index.js URL> <in.arrows> <out.arrows> <threads>
import { readFileSync } from 'node:fs';
const [url, inPath, outPath, threads] = process.argv.slice(2);
const { Engine } = await import(url);
const engine = new Engine({ threads: Number(threads) });
const c0 = process.cpuUsage();
const t0 = performance.now();
const stats = await engine.readIpc(inPath)
  .explode(['items', 'quantities'], { outputColumn: ['item', 'quantity'] })
  .writeIpc(outPath);
const ms = performance.now() - t0;
const c = process.cpuUsage(c0);
await engine.close();
// VmHWM, not resourceUsage().maxRSS: on Linux ru_maxrss survives fork+exec, so a child
// spawned by a big benchmark process would report the parent's peak as its own.
const hwm = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
process.stdout.write(JSON.stringify({ ms, cpuMs: (c.user + c.system) / 1000, rowsOut: stats?.rowsOut ?? -1, maxRssBytes: hwm ? Number(hwm[1]) * 1024 : process.resourceUsage().maxRSS * 1024 }) + '\n');
