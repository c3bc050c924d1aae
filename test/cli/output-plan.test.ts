/** planOutput: where a result goes and in which format (issue 7 item 11, issue 10 item 3). */
import { describe, expect, it } from 'vitest';
import { JobError, UsageError } from '../../src/cli/errors.js';
import { planOutput } from '../../src/cli/output.js';

const plan = (req: Partial<Parameters<typeof planOutput>[0]>) => planOutput({ stdoutIsTTY: false, jobDir: '/jobs', ...req });

describe('planOutput', () => {
  it('-o - is stdout in --format, CSV by default (also on a terminal)', () => {
    expect(plan({ output: '-' })).toEqual({ to: 'stdout', format: 'csv', ipc: 'stream' });
    expect(plan({ output: '-', stdoutIsTTY: true })).toEqual({ to: 'stdout', format: 'csv', ipc: 'stream' });
    expect(plan({ output: '-', format: 'ndjson' })).toEqual({ to: 'stdout', format: 'ndjson', ipc: 'stream' });
    expect(plan({ output: '/dev/stdout', format: 'arrow' })).toEqual({ to: 'stdout', format: 'arrow', ipc: 'stream' });
  });

  it('-o PATH: the format from the extension; .arrows is the IPC stream format', () => {
    expect(plan({ output: '/x/a.arrows' })).toEqual({ to: 'file', path: '/x/a.arrows', format: 'arrow', ipc: 'stream' });
    for (const ext of ['arrow', 'feather', 'ipc']) expect(plan({ output: `/x/a.${ext}` })).toMatchObject({ format: 'arrow', ipc: 'file' });
    expect(plan({ output: '/x/a.PARQUET' })).toMatchObject({ format: 'parquet' });
    expect(plan({ output: '/x/a.jsonl' })).toMatchObject({ format: 'ndjson' });
    expect(plan({ output: '/x/a.dat', format: 'tsv' })).toMatchObject({ to: 'file', format: 'tsv' });
    expect(plan({ output: '/x/notes.txt', format: 'csv' })).toMatchObject({ format: 'csv' });
  });

  it('a --format that disagrees with the -o extension is a usage error', () => {
    expect(() => plan({ output: '/x/a.parquet', format: 'table' })).toThrow(UsageError);
    expect(() => plan({ output: '/x/a.csv', format: 'tsv' })).toThrow(/--format tsv disagrees with the extension of "\/x\/a\.csv"/);
    expect(() => plan({ output: '/x/a.xlsx' })).toThrow(/cannot tell the output format/);
    expect(() => plan({ output: '' })).toThrow(/-o needs a file path/);
  });

  it('a compressed output name (.csv.gz, .zst) is refused, with or without --format: text is written uncompressed', () => {
    expect(() => plan({ output: '/x/out.csv.gz' })).toThrow(/"\/x\/out\.csv\.gz" names a compressed file \(\.gz\).*write "out\.csv" and compress it/);
    expect(() => plan({ output: '/x/out.csv.gz', format: 'csv' })).toThrow(UsageError);
    expect(() => plan({ output: '/x/out.ndjson.ZST', format: 'ndjson' })).toThrow(UsageError);
    expect(() => plan({ job: { path: 'out.csv.gz' } })).toThrow(/names a compressed file/);
  });

  it('--format without -o is stdout only, whatever the job says', () => {
    expect(plan({ format: 'table', job: { path: 'out.parquet' } })).toEqual({ to: 'stdout', format: 'table', ipc: 'stream' });
  });

  it("the job's output: path relative to the job, format and extension must agree", () => {
    expect(plan({ job: { path: 'out/r.parquet' } })).toEqual({ to: 'file', path: '/jobs/out/r.parquet', format: 'parquet', ipc: 'file' });
    expect(plan({ job: { format: 'json' } })).toEqual({ to: 'stdout', format: 'json', ipc: 'stream' });
    expect(() => plan({ job: { path: 'r.parquet', format: 'csv' } })).toThrow(JobError);
    expect(plan({ output: '/x/a.csv', job: { path: 'r.parquet', format: 'parquet' } })).toMatchObject({ path: '/x/a.csv', format: 'csv' });
  });

  it('default: a table on a terminal, CSV elsewhere; a device without extension is CSV', () => {
    expect(plan({ stdoutIsTTY: true })).toMatchObject({ to: 'stdout', format: 'table' });
    expect(plan({})).toMatchObject({ to: 'stdout', format: 'csv' });
    expect(plan({ output: '/dev/null', isSpecial: () => true })).toMatchObject({ to: 'file', format: 'csv' });
  });
});
