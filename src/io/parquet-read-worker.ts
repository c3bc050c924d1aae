/**
 * Decodes Parquet files inside worker threads, each with its own parquet-wasm instance.
 *
 * Why threads: on some corrupt files parquet-wasm panics inside an async task; the panic is
 * a WASM trap ("RuntimeError: unreachable") thrown outside any promise, which would crash the
 * process and leave the read pending forever. In a worker it only ends that worker, and the
 * read fails with an InputError.
 *
 * Starting a worker compiles the WASM module (~0.3–1 s), so workers are reused: a read takes an
 * idle worker (or starts one), and gives it back when it ends cleanly; a worker that failed or
 * whose read was cut short by a crash is terminated. At most two idle workers are kept. A
 * worker holds the process open only while a reply is awaited: idle workers and reads that
 * their consumer dropped without closing never keep it alive. An idle worker keeps its WASM memory
 * (sized by the largest row group it decoded: WASM memory never shrinks).
 *
 * Protocol per read (request/response, one batch in flight, so memory stays bounded by a
 * batch): `{ op: 'open', path, batchRows, schemaOnly }` → `{ kind: 'schema', ipc, rows }`; each
 * `{ op: 'next' }` → `{ kind: 'batch', ipc }` (Arrow IPC stream bytes, transferred) or
 * `{ kind: 'done' }`; `{ op: 'close' }` → `{ kind: 'closed' }`. Failures are
 * `{ kind: 'error', message }` or the worker's 'error'/'exit' events.
 * The worker source is inline (eval) so that it runs the same from src/ and dist/.
 */
import { requireWebAssembly } from './wasm.js';
import { Worker } from 'node:worker_threads';

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { openAsBlob } = require('node:fs');
const pqp = import(workerData.moduleUrl);
let file = null, reader = null;
const msg = (e) => String((e && e.message) || e);
async function closeSession() {
  if (reader) { try { await reader.cancel(); } catch {} reader = null; }
  if (file) { try { file.free(); } catch {} file = null; }
}
parentPort.on('message', async (m) => {
  try {
    if (m.op === 'open') {
      const pq = await pqp;
      file = await pq.ParquetFile.fromFile(await openAsBlob(m.path));
      const ipc = file.schema().intoIPCStream();
      const meta = file.metadata();
      const fileMeta = meta.fileMetadata();
      const rows = Number(fileMeta.numRows());
      fileMeta.free();
      meta.free();
      if (!m.schemaOnly) reader = (await file.stream({ batchSize: m.batchRows })).getReader();
      parentPort.postMessage({ kind: 'schema', ipc, rows }, [ipc.buffer]);
    } else if (m.op === 'next') {
      const r = await reader.read();
      if (r.done) { parentPort.postMessage({ kind: 'done' }); return; }
      const ipc = r.value.intoIPCStream();
      parentPort.postMessage({ kind: 'batch', ipc }, [ipc.buffer]);
    } else if (m.op === 'close') {
      await closeSession();
      parentPort.postMessage({ kind: 'closed' });
    }
  } catch (err) {
    await closeSession();
    parentPort.postMessage({ kind: 'error', message: msg(err) });
  }
});
`;

export type WorkerReply =
  /** `rows`: the footer's row count (FileMetaData.num_rows) */
  | { kind: 'schema'; ipc: Uint8Array; rows: number }
  | { kind: 'batch'; ipc: Uint8Array }
  | { kind: 'done' }
  | { kind: 'closed' }
  /** `died`: the decoder thread itself ended (out of memory, terminated), not the file's bytes */
  | { kind: 'error'; message: string; died?: boolean };

const MAX_IDLE = 2;
const idle: Worker[] = [];
let active = 0;

/** Reads started and not yet closed (tests check that an abandoned read is closed). */
export function activeParquetReads(): number {
  return active;
}

function startWorker(): Worker {
  requireWebAssembly('Reading Parquet');
  const w = new Worker(WORKER_SOURCE, { eval: true, workerData: { moduleUrl: import.meta.resolve('parquet-wasm') } });
  w.unref();
  // keep an idle worker from crashing the process if it fails between reads
  w.on('error', () => {});
  w.on('exit', () => {
    const i = idle.indexOf(w);
    if (i >= 0) idle.splice(i, 1);
  });
  return w;
}

/** One read of one Parquet file on a (possibly reused) worker. */
export class ParquetReadWorker {
  private readonly worker: Worker;
  private readonly queue: WorkerReply[] = [];
  private waiting: ((r: WorkerReply) => void) | null = null;
  /** set when the worker thread itself failed (a WASM trap, an exit) */
  private crash: string | null = null;
  private opened = false;
  private readonly onMessage = (m: WorkerReply): void => this.deliver(m);
  // An uncaught error is a WASM trap on bytes it cannot decode, unless the thread ran out of memory.
  private readonly onError = (err: Error): void => this.fail(`${err.name}: ${err.message}`, (err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY');
  private readonly onExit = (code: number): void => this.fail(`the Parquet decoder thread stopped (exit code ${code})`, true);

  private closed = false;

  constructor(path: string, opts: { batchRows: number; schemaOnly: boolean }) {
    active++;
    this.worker = idle.pop() ?? startWorker();
    this.worker.on('message', this.onMessage);
    this.worker.on('error', this.onError);
    this.worker.on('exit', this.onExit);
    // a 'message' listener refs the worker's port: unref it, and ref it only while a reply
    // is awaited, so a read that its consumer abandoned never keeps the process alive
    this.worker.unref();
    this.worker.postMessage({ op: 'open', path, batchRows: opts.batchRows, schemaOnly: opts.schemaOnly });
  }

  private deliver(m: WorkerReply): void {
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      this.worker.unref();
      w(m);
    } else this.queue.push(m);
  }

  private died = false;

  private fail(message: string, died: boolean): void {
    if (this.crash !== null) return;
    this.crash = message;
    this.died = died;
    this.deliver({ kind: 'error', message, died });
  }

  private reply(): Promise<WorkerReply> {
    const q = this.queue.shift();
    if (q) return Promise.resolve(q);
    if (this.crash !== null) return Promise.resolve({ kind: 'error', message: this.crash, died: this.died });
    this.worker.ref();
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  /** The schema reply (first call), then one reply per batch request. */
  next(): Promise<WorkerReply> {
    if (this.opened && this.crash === null) this.worker.postMessage({ op: 'next' });
    this.opened = true;
    return this.reply();
  }

  /** End the read; the worker goes back to the idle list when it is healthy. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    active--;
    if (this.crash === null) {
      this.worker.postMessage({ op: 'close' });
      // skip replies still in flight until the close is acknowledged (or the worker dies)
      for (;;) {
        const r = await this.reply();
        if (r.kind === 'closed' || this.crash !== null) break;
      }
    }
    this.worker.off('message', this.onMessage);
    this.worker.off('error', this.onError);
    this.worker.off('exit', this.onExit);
    if (this.crash === null && idle.length < MAX_IDLE) idle.push(this.worker);
    else await this.worker.terminate();
  }
}
