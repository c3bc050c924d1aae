#!/usr/bin/env node
/**
 * The `sluice` command line: `sluice demo`, `sluice run job.json`, `sluice explain job.json`.
 *
 * Data goes to stdout; progress bars (on a TTY only), logs and errors to stderr.
 * Exit codes: 0 ok; 1 runtime failure (ExecutionError, WorkerError, an InputError while the
 * run reads its data, anything unexpected); 2 usage or bad input (commander usage errors, a
 * missing or invalid job file, a PlanError, an input that cannot be opened before the run
 * starts); 130 after Ctrl-C (SIGINT aborts the run through an AbortController; the engine
 * removes its spill folder and any output temp file).
 *
 * `runCli(argv, io)` is the whole CLI as a function (tests call it in-process); this module only
 * runs it, wired to the process, when it is executed as a script.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { AbortError, Engine, InputError, PlanError, SluiceError, type EngineOptions, type RunStats } from '../index.js';
import { runDemo } from './demo.js';
import { JobError, UsageError } from './errors.js';
import { buildJob, FORMATS, loadJob, type OutputFormat } from './job.js';
import { emit, formatFromPath, knownExtensions, streamSink } from './output.js';
import { createProgress, type ProgressReporter } from './progress.js';

export interface CliIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** default: stdout.isTTY */
  stdoutIsTTY: boolean;
  /** default: stderr.isTTY */
  stderrIsTTY: boolean;
  /** aborting it interrupts the run like Ctrl-C (exit code 130) */
  signal: AbortSignal;
}

interface GlobalOptions {
  threads?: number;
  memoryLimit?: string;
  tempDir?: string;
  partitions?: number;
  format?: OutputFormat;
  output?: string;
  maxRows: number;
  stats?: 'json';
  quiet?: boolean;
}

function version(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

function intArg(name: string, min: number): (value: string) => number {
  return (value) => {
    const v = Number(value);
    if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(v) || v < min) {
      throw new InvalidArgumentError(`${name} expects an integer >= ${min}, got ${JSON.stringify(value)}.`);
    }
    return v;
  };
}

function mustBeFolder(path: string, what: string): void {
  let ok = false;
  try {
    ok = statSync(path).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok) throw new UsageError(`${what}: ${JSON.stringify(path)} is not an existing folder`);
}

function isTTY(stream: NodeJS.WritableStream): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

/** Everything one invocation needs, shared by the command actions. */
class Invocation {
  exitCode = 0;
  /** true once data is being read: an InputError from then on is a runtime failure */
  running = false;
  readonly controller = new AbortController();
  constructor(readonly io: CliIO) {
    if (io.signal.aborted) this.controller.abort(io.signal.reason);
    else io.signal.addEventListener('abort', () => this.controller.abort(io.signal.reason), { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  log(g: GlobalOptions, text: string): void {
    if (!g.quiet) this.io.stderr.write(`${text}\n`);
  }

  progress(g: GlobalOptions): ProgressReporter {
    return createProgress(this.io.stderr, this.io.stderrIsTTY && !g.quiet);
  }

  engine(g: GlobalOptions, progress: ProgressReporter): Engine {
    if (g.tempDir !== undefined) mustBeFolder(g.tempDir, '--temp-dir');
    const options: EngineOptions = { onProgress: (p) => progress.onProgress(p) };
    if (g.threads !== undefined) options.threads = g.threads;
    if (g.memoryLimit !== undefined) options.memoryBudget = g.memoryLimit;
    if (g.tempDir !== undefined) options.spillDir = resolve(g.tempDir);
    if (g.partitions !== undefined) options.partitions = g.partitions;
    try {
      return new Engine(options);
    } catch (err) {
      if (err instanceof PlanError) {
        const flag = { memoryBudget: '--memory-limit', threads: '--threads', partitions: '--partitions', spillDir: '--temp-dir' }[String(err.details.option)];
        if (flag) throw new UsageError(`${flag}: ${err.message}`);
      }
      throw err;
    }
  }

  stats(g: GlobalOptions, stats: RunStats | Record<string, RunStats>): void {
    if (g.stats === 'json') this.io.stderr.write(`${JSON.stringify(stats)}\n`);
  }
}

function buildProgram(inv: Invocation): Command {
  const { io } = inv;
  const program = new Command('sluice');
  program
    .description('Sluice: partition-parallel batch engine for Apache Arrow data (ASOF joins, sliding windows, zip explode)')
    .version(version(), '-V, --version')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => void io.stdout.write(s),
      writeErr: (s) => void io.stderr.write(s),
    })
    .showHelpAfterError('(run `sluice --help` for usage)')
    // `sluice <cmd> --help` lists the global flags too (they apply to every command)
    .configureHelp({ showGlobalOptions: true })
    .addOption(new Option('--threads <n>', 'worker threads (0 = inline on the main thread; default: all cores)').argParser(intArg('--threads', 0)))
    .addOption(new Option('--memory-limit <size>', "memory budget, e.g. 512MiB or 2GiB (default 1GiB); beyond it, data spills to disk"))
    .addOption(new Option('--temp-dir <dir>', 'folder for spill files (default: the OS temp folder)'))
    .addOption(new Option('--partitions <n>', 'hash partitions (default: 4 per thread)').argParser(intArg('--partitions', 1)))
    .addOption(new Option('--format <format>', 'output format (default: table on a terminal, csv otherwise, or from the -o extension)').choices(FORMATS))
    .addOption(new Option('-o, --output <path>', 'write the result to a file (atomically: temp name, then rename)'))
    .addOption(new Option('--max-rows <n>', 'table view: rows shown (half head, half tail)').argParser(intArg('--max-rows', 0)).default(20))
    .addOption(new Option('--stats <kind>', 'print run statistics to stderr').choices(['json']))
    .addOption(new Option('-q, --quiet', 'no progress bars or log lines'))
    .addHelpText(
      'after',
      `
Examples:
  sluice demo --rows 200000 --threads 2
  sluice run job.json -o out.parquet --stats json
  sluice --format ndjson run job.json | head
  sluice explain job.json

Job files: JSON with "sources", "steps" and "output" (see src/cli/README-jobs.md).
Exit codes: 0 ok, 1 runtime failure, 2 usage or bad input, 130 interrupted.`,
    );

  program
    .command('demo')
    .description('run the window, ASOF join and explode kernels on built-in generated data (no files needed)')
    .addOption(new Option('--rows <n>', 'serving-log rows (trades, quotes, orders scale with it)').argParser(intArg('--rows', 1)).default(1_000_000))
    .addOption(new Option('--seed <n>', 'seed of the generated data').argParser(intArg('--seed', 0)).default(1))
    .option('-v, --verbose', 'also print each plan (explain)')
    .action(async (opts: { rows: number; seed: number; verbose?: boolean }, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const progress = inv.progress(g);
      const engine = inv.engine(g, progress);
      try {
        inv.running = true;
        const stats = await runDemo(engine, {
          rows: opts.rows,
          seed: opts.seed,
          verbose: opts.verbose === true,
          showRows: Math.min(g.maxRows, 8),
          color: io.stdoutIsTTY,
          out: streamSink(io.stdout, inv.signal),
          signal: inv.signal,
          beforePrint: () => progress.stop(),
        });
        progress.stop();
        inv.stats(g, stats);
      } finally {
        progress.stop();
        await engine.close();
      }
    });

  program
    .command('run')
    .description('run a job file (sources, steps, output); see README-jobs.md')
    .argument('<job>', 'job file (JSON)')
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const { job, dir } = await loadJob(file);
      // output: -o / --format win over the job's "output"
      let path: string | undefined;
      let format: OutputFormat | undefined = g.format;
      if (g.output !== undefined) path = resolve(g.output);
      else if (job.output?.path !== undefined) path = resolve(dir, job.output.path);
      if (format === undefined && g.output === undefined) format = job.output?.format;
      if (format === undefined && path !== undefined) {
        format = formatFromPath(path);
        if (format === undefined) {
          throw new UsageError(`cannot tell the output format from ${JSON.stringify(path)} (known extensions: ${knownExtensions()}); pass --format`);
        }
      }
      format ??= io.stdoutIsTTY ? 'table' : 'csv';
      if (path !== undefined) mustBeFolder(dirname(path), 'output folder');
      const progress = inv.progress(g);
      const engine = inv.engine(g, progress);
      try {
        const df = await buildJob(engine, job, dir);
        inv.running = true;
        const t0 = performance.now();
        const res = await emit(df, {
          format,
          path,
          stdout: io.stdout,
          stdoutIsTTY: io.stdoutIsTTY,
          maxRows: g.maxRows,
          color: io.stdoutIsTTY && format === 'table' && path === undefined,
          signal: inv.signal,
          tempDir: g.tempDir,
        });
        progress.stop();
        const secs = ((performance.now() - t0) / 1000).toFixed(2);
        if (path !== undefined) {
          inv.log(g, `sluice: wrote ${res.rows.toLocaleString('en-US')} rows (${format}${res.bytes !== undefined ? `, ${res.bytes.toLocaleString('en-US')} bytes` : ''}) to ${path} in ${secs} s`);
        }
        inv.stats(g, res.stats);
      } finally {
        progress.stop();
        await engine.close();
      }
    });

  program
    .command('explain')
    .description('print the plan of a job file: partitioning, sort keys and chosen algorithms')
    .argument('<job>', 'job file (JSON)')
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const { job, dir } = await loadJob(file);
      const engine = inv.engine(g, createProgress(io.stderr, false));
      try {
        const df = await buildJob(engine, job, dir);
        await streamSink(io.stdout).write(`${await df.explain()}\n`);
      } finally {
        await engine.close();
      }
    });

  return program;
}

function errorLine(err: unknown): string {
  if (err instanceof SluiceError) return `sluice: ${err.name} [${err.code}]: ${err.message}`;
  if (err instanceof UsageError) return `sluice: error: ${err.message}`;
  const e = err instanceof Error ? err : new Error(String(err));
  return `sluice: internal error: ${e.stack ?? e.message}`;
}

/** Exit code for an error that ended the invocation (see the header comment). */
function exitCodeFor(err: unknown, inv: Invocation): number {
  if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
  if (inv.signal.aborted || err instanceof AbortError) return 130;
  if (err instanceof UsageError || err instanceof JobError || err instanceof PlanError) return 2;
  if (err instanceof InputError) return inv.running ? 1 : 2;
  return 1;
}

/** Abort reason when the reader of stdout went away: not an interruption. */
export class StdoutClosed extends AbortError {
  constructor() {
    super('stdout was closed');
  }
}

/**
 * Run the CLI with `argv` (the arguments after the program name). Resolves to the exit code;
 * never rejects and never calls process.exit.
 */
export async function runCli(argv: string[], ioIn: Partial<CliIO> = {}): Promise<number> {
  const stdout = ioIn.stdout ?? process.stdout;
  const stderr = ioIn.stderr ?? process.stderr;
  const io: CliIO = {
    stdout,
    stderr,
    stdoutIsTTY: ioIn.stdoutIsTTY ?? isTTY(stdout),
    stderrIsTTY: ioIn.stderrIsTTY ?? isTTY(stderr),
    signal: ioIn.signal ?? new AbortController().signal,
  };
  const inv = new Invocation(io);
  const program = buildProgram(inv);
  try {
    await program.parseAsync(argv, { from: 'user' });
    if (inv.signal.reason instanceof StdoutClosed) return 0;
    return inv.signal.aborted ? 130 : 0;
  } catch (err) {
    if (inv.signal.reason instanceof StdoutClosed) return 0;
    const code = exitCodeFor(err, inv);
    if (code === 130) stderr.write('sluice: interrupted\n');
    else if (!(err instanceof CommanderError)) stderr.write(`${errorLine(err)}\n`);
    return code;
  }
}

/** Wire runCli to the process: SIGINT aborts the run (a second one exits at once). */
async function main(): Promise<void> {
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = (): void => {
    interrupts++;
    if (interrupts === 1) {
      process.stderr.write('\nsluice: interrupting (Ctrl-C again to quit at once)…\n');
      controller.abort(new AbortError('Interrupted (SIGINT)'));
    } else process.exit(130);
  };
  process.on('SIGINT', onSigint);
  // a closed pipe (`sluice run job.json | head`) ends the run quietly, exit code 0
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') controller.abort(new StdoutClosed());
  });
  const code = await runCli(process.argv.slice(2), { signal: controller.signal });
  process.off('SIGINT', onSigint);
  process.exitCode = code;
}

function isMain(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return pathToFileURL(realpathSync(entry)).href === import.meta.url || realpathSync(entry) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (isMain()) void main();
