/**
 * `-` as an input path (issue 10 item 3, input side): an Arrow IPC stream, CSV and NDJSON on
 * standard input, read in a child process; the one-shot input is read once (schema and rows
 * from the same pass), a second run is a PlanError SOURCE_CONSUMED, and the IPC file format
 * on stdin is an InputError that says to pipe the stream format. The child must exit by itself.
 */
import * as A from 'apache-arrow';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const script = join(process.cwd(), 'test', 'support', 'stdin-reader.ts');

function run(format: string, input: Uint8Array | string): Promise<{ code: number | null; out: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, format], { stdio: ['pipe', 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the child reading ${format} from stdin did not exit`));
    }, 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8').trim();
      resolve({ code, out: JSON.parse(text) as Record<string, unknown> });
    });
    child.stdin.end(input);
  });
}

describe('standard input', () => {
  const t = A.tableFromArrays({ id: Int32Array.from([1, 2, 3]), s: ['a', null, 'c'] });
  it('an Arrow IPC stream', async () => {
    const { code, out } = await run('ipc', A.tableToIPC(t, 'stream'));
    expect(code).toBe(0);
    expect(out).toEqual({ schema: ['id:Int32', 's:Utf8'], rows: [{ id: 1, s: 'a' }, { id: 2, s: null }, { id: 3, s: 'c' }], again: 'SOURCE_CONSUMED', explained: true });
  }, 90_000);
  it('CSV and NDJSON', async () => {
    const csv = await run('csv', 'id,s\n1,a\n2,\n');
    expect(csv.out).toMatchObject({ schema: ['id:Int64', 's:Utf8'], rows: [{ id: 1, s: 'a' }, { id: 2, s: null }] });
    const nd = await run('ndjson', '{"id": 1, "s": "a"}\n{"id": 2}\n');
    expect(nd.out).toMatchObject({ schema: ['id:Int64', 's:Utf8'], rows: [{ id: 1, s: 'a' }, { id: 2, s: null }] });
  }, 90_000);
  it('the IPC file format on stdin is an InputError', async () => {
    const { out } = await run('ipc', A.tableToIPC(t, 'file'));
    expect(out.error).toMatchObject({ name: 'InputError', code: 'INPUT_MALFORMED' });
    expect((out.error as { message: string }).message).toMatch(/^Malformed Arrow IPC input on standard input: this is the IPC file format.*stream format/);
  }, 90_000);
  it('every reader names standard input the same way, in a sentence that reads', async () => {
    const message = async (format: string, input: Uint8Array | string): Promise<string> => ((await run(format, input)).out.error as { message: string }).message;
    expect(await message('ipc', '')).toMatch(/^Malformed Arrow IPC input on standard input: no schema message \(empty/);
    expect(await message('csv', Buffer.from([0x61, 0x0a, 0xff, 0x0a]))).toMatch(/^Malformed CSV input on standard input: bytes at offset 2 are not UTF-8/);
    expect(await message('csv', 'a,b\n1,"x\n')).toMatch(/^Malformed CSV input on standard input: line 2: /);
    expect(await message('ndjson', '{"a": 1}\n{oops\n')).toMatch(/^Malformed NDJSON input on standard input: line 2: not JSON/);
  }, 180_000);
});
