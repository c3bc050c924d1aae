/**
 * Decodes a Parquet file inside a short-lived worker thread with its own parquet-wasm instance.
 *
 * Why a thread: on some corrupt files parquet-wasm panics inside an async task; the panic is
 * a WASM trap ("RuntimeError: unreachable") thrown outside any promise, which would crash the
 * process and leave the read pending forever. In a worker it only ends that worker, and we
 * report an InputError. A side benefit: WASM memory, which never shrinks, goes away with it.
 *
 * Protocol (request/response, one batch in flight, so memory stays bounded by a batch): the
 * worker posts `{ kind: 'schema', ipc }` first, then answers each `'next'` with
 * `{ kind: 'batch', ipc }` (Arrow IPC stream bytes, transferred) or `{ kind: 'done' }`;
 * failures are `{ kind: 'error', message }` or the worker's 'error' event.
 * The worker source is inline (eval) so that it runs the same from src/ and dist/.
 */
import { Worker } from 'node:worker_threads';

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { openAsBlob } = require('node:fs');
(async () => {
  const pq = await import(workerData.moduleUrl);
  let file;
  try {
    file = await pq.ParquetFile.fromFile(await openAsBlob(workerData.path));
    const schemaIpc = file.schema().intoIPCStream();
    parentPort.postMessage({ kind: 'schema', ipc: schemaIpc }, [schemaIpc.buffer]);
    if (workerData.schemaOnly) return;
    const reader = (await file.stream({ batchSize: workerData.batchRows })).getReader();
    parentPort.on('message', async () => {
      try {
        const r = await reader.read();
        if (r.done) { parentPort.postMessage({ kind: 'done' }); return; }
        const ipc = r.value.intoIPCStream();
        parentPort.postMessage({ kind: 'batch', ipc }, [ipc.buffer]);
      } catch (err) {
        parentPort.postMessage({ kind: 'error', message: String(err && err.message || err) });
      }
    });
  } catch (err) {
    parentPort.postMessage({ kind: 'error', message: String(err && err.message || err) });
  }
})();
`;

export type WorkerReply = { kind: 'schema'; ipc: Uint8Array } | { kind: 'batch'; ipc: Uint8Array } | { kind: 'done' } | { kind: 'error'; message: string };

/** A Parquet decoding worker: `next()` gives the next reply; `close()` ends the thread. */
export class ParquetReadWorker {
  private readonly worker: Worker;
  private readonly queue: WorkerReply[] = [];
  private waiting: { resolve: (r: WorkerReply) => void } | null = null;
  private failed: WorkerReply | null = null;
  private started = false;

  constructor(path: string, opts: { batchRows: number; schemaOnly: boolean }) {
    const moduleUrl = import.meta.resolve('parquet-wasm');
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { moduleUrl, path, batchRows: opts.batchRows, schemaOnly: opts.schemaOnly },
    });
    this.worker.unref();
    this.worker.on('message', (m: WorkerReply) => this.deliver(m));
    this.worker.on('error', (err: Error) => this.fail(`${err.name}: ${err.message}`));
    this.worker.on('exit', (code) => this.fail(`the Parquet decoder stopped (exit code ${code})`));
  }

  private deliver(m: WorkerReply): void {
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      w.resolve(m);
    } else this.queue.push(m);
  }

  private fail(message: string): void {
    if (this.failed) return;
    this.failed = { kind: 'error', message };
    this.deliver(this.failed);
  }

  /** The first reply is the schema; later ones answer a request for the next batch. */
  next(): Promise<WorkerReply> {
    if (this.started) {
      if (this.failed === null) this.worker.postMessage('next');
    }
    this.started = true;
    const q = this.queue.shift();
    if (q) return Promise.resolve(q);
    if (this.failed) return Promise.resolve(this.failed);
    return new Promise((resolve) => {
      this.waiting = { resolve };
    });
  }

  async close(): Promise<void> {
    this.failed ??= { kind: 'error', message: 'closed' };
    await this.worker.terminate();
  }
}
