import { Engine } from './src/index.js';
const e = new Engine({ threads: 0 });
const mode = process.argv[2];
try {
  const df = e.readParquet('/tmp/p.parquet');
  if (mode === 'collect') await df.collect();
  if (mode === 'write') await df.writeParquet('/tmp/out.parquet');
  if (mode === 'writeipc') await e.readIpc('/tmp/p_uncompressed.arrow').writeParquet('/tmp/out.parquet');
} catch (err) { console.log('ERR', err.message); }
await e.close();
setTimeout(() => { console.log((process as any)._getActiveHandles().map((h: any) => h.constructor.name)); }, 1000).unref();
