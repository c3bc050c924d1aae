#!/usr/bin/env node
/**
 * The `sluice` command line: `demo`, `run job.json`, `explain job.json`, and quick looks at a
 * file without a job: `head FILE`, `schema FILE`, `describe FILE`.
 *
 * Data goes to stdout; progress bars (on a terminal only), logs and errors to stderr. Every
 * error is one line, `sluice: error: ` then the message (typed errors with their class and
 * code: `sluice: error: PlanError [UNKNOWN_COLUMN]: …`), commander's usage errors included.
 * Exit codes: 0 ok (also when the reader of stdout went away: `| head`); 1 runtime failure
 * (ExecutionError, WorkerError, an InputError while the run reads or writes, a write error on
 * stdout such as `> /dev/full`, anything unexpected); 2 usage or bad input (commander usage
 * errors, a missing or invalid job file, a PlanError, a format that disagrees with the output's
 * extension, an input that cannot be opened before the run starts); 130 after Ctrl-C (SIGINT
 * aborts the run through an AbortController; the engine removes its spill folder and any
 * output temp file); 143 after SIGTERM and 129 after SIGHUP, which abort the same way.
 *
 * `runCli(argv, io)` is the whole CLI as a function (tests call it in-process); this module only
 * runs it, wired to the process, when it is executed as a script. After runCli has finished,
 * the process exits even if some handle was left open (a safety net: no error path may leave
 * `sluice` hanging).
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Command, CommanderError, Help, InvalidArgumentError, Option } from 'commander';
import { AbortError, Engine, InputError, PlanError, SluiceError, type DataFrame, type EngineOptions, type RunStats } from '../index.js';
import { writeAtomic } from '../io/atomic.js';
import { stdinCopyMessage } from '../io/input-errors.js';
import { MAX_PARTITIONS, MAX_THREADS } from '../options/engine.js';
import { suggest } from '../options/kit.js';
import { runDemo } from './demo.js';
import { JobError, UsageError } from './errors.js';
import { describeTable, INPUT_FORMATS, openInput, schemaTable, type InputFormat } from './inspect.js';
import { buildJob, FORMATS, loadJob, namingJobFile, type OutputFormat } from './job.js';
import { emit, planOutput, StdoutClosed, streamSink, type OutputPlan } from './output.js';
import { createProgress, type ProgressReporter } from './progress.js';

export interface CliIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** for `-` inputs (default process.stdin; the engine reads an Arrow IPC stream on `-`, and a
   * job source `-`, from process.stdin itself) */
  stdin: NodeJS.ReadableStream;
  /** default: stdout.isTTY */
  stdoutIsTTY: boolean;
  /** default: stderr.isTTY */
  stderrIsTTY: boolean;
  /** terminal width of stdout when it is a terminal (default stdout.columns) */
  stdoutColumns: number | undefined;
  /** environment (default process.env): COLUMNS */
  env: Record<string, string | undefined>;
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
  maxWidth?: number;
  stats?: 'json';
  statsFile?: string;
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

function intArg(name: string, min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    const v = Number(value);
    if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(v) || v < min || v > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
      throw new InvalidArgumentError(`${name} expects ${range}, got ${JSON.stringify(value)}.`);
    }
    return v;
  };
}

function charArg(value: string): string {
  const v = value === '\\t' ? '\t' : value;
  if (v.length !== 1) throw new InvalidArgumentError(`--delimiter expects one character (or \\t), got ${JSON.stringify(value)}.`);
  return v;
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

/** A device node, FIFO or socket (following symlinks). */
function isSpecial(path: string): boolean {
  try {
    const st = statSync(path);
    return !st.isFile() && !st.isDirectory();
  } catch {
    return false;
  }
}

function positiveInt(s: string | undefined): number | undefined {
  const n = s === undefined ? NaN : Number(s);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** Everything one invocation needs, shared by the command actions. */
class Invocation {
  /** true once data is being read: an InputError from then on is a runtime failure */
  running = false;
  readonly controller = new AbortController();
  progress: ProgressReporter = createProgress(process.stderr, false);

  constructor(readonly io: CliIO) {
    if (io.signal.aborted) this.controller.abort(io.signal.reason);
    else io.signal.addEventListener('abort', () => this.controller.abort(io.signal.reason), { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** A log line on stderr (not with --quiet, nor when --stats json is to be alone there). */
  log(g: GlobalOptions, text: string): void {
    if (g.quiet || (g.stats === 'json' && g.statsFile === undefined)) return;
    this.progress.clear();
    this.io.stderr.write(`${text}\n`);
  }

  startProgress(g: GlobalOptions): ProgressReporter {
    this.progress = createProgress(this.io.stderr, this.io.stderrIsTTY && !g.quiet);
    return this.progress;
  }

  /** Before anything is written to stdout: bars on the same terminal make way. */
  readonly beforeStdout = (): void => {
    if (this.io.stdoutIsTTY) this.progress.clear();
  };

  engine(g: GlobalOptions): Engine {
    if (g.tempDir !== undefined) mustBeFolder(g.tempDir, '--temp-dir');
    const progress = this.progress;
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
        // the flag is what the user typed: the Engine option's name and call are not
        if (flag) throw new UsageError(`${flag}: ${err.message.replace(/^new Engine\(\): `\w+`: /, '')}`);
      }
      throw err;
    }
  }

  /** --stats json: the JSON alone, on stderr or in --stats-file. */
  async stats(g: GlobalOptions, stats: RunStats | Record<string, RunStats> | undefined): Promise<void> {
    if (stats === undefined || (g.stats !== 'json' && g.statsFile === undefined)) return;
    const json = `${JSON.stringify(stats)}\n`;
    if (g.statsFile !== undefined) {
      await writeAtomic(resolve(g.statsFile), 'text', (t) => t.write(json));
      return;
    }
    this.progress.clear();
    this.io.stderr.write(json);
  }

  /** Width a table on stdout fits in: --max-width, else the terminal's, else $COLUMNS, else 80. */
  tableWidth(g: GlobalOptions): number {
    if (g.maxWidth !== undefined) return g.maxWidth;
    const env = positiveInt(this.io.env.COLUMNS);
    return (this.io.stdoutIsTTY ? this.io.stdoutColumns : undefined) ?? env ?? 80;
  }

  /** Where the result goes: stdout or a file (checked before anything runs). */
  plan(g: GlobalOptions, job?: { path?: string; format?: OutputFormat }, jobDir?: string): OutputPlan {
    const plan = planOutput({ output: g.output, format: g.format, job, jobDir, stdoutIsTTY: this.io.stdoutIsTTY, isSpecial });
    if (plan.to === 'file') mustBeFolder(dirname(plan.path), 'output folder');
    // written after the run: checked now, so a bad path does not fail a run that already wrote its output
    if (g.statsFile !== undefined) {
      mustBeFolder(dirname(resolve(g.statsFile)), '--stats-file folder');
      // the stats would replace the result written a moment before
      if (plan.to === 'file' && resolve(g.statsFile) === resolve(plan.path)) throw new UsageError(`--stats-file is the output file ${plan.path}: give the statistics a file of their own.`);
    }
    return plan;
  }

  /**
   * Run `df` into `plan`, then log what was written and print --stats (`runStats` when the
   * result was computed by an earlier run, as describe's summary is).
   */
  async emit(g: GlobalOptions, df: DataFrame, plan: OutputPlan, runStats?: RunStats): Promise<void> {
    this.running = true;
    const t0 = performance.now();
    const toTerminal = plan.to === 'stdout' && this.io.stdoutIsTTY;
    const res = await emit(df, plan, {
      stdout: this.io.stdout,
      stdoutIsTTY: this.io.stdoutIsTTY,
      text: { maxRows: g.maxRows, maxWidth: plan.to === 'file' ? (g.maxWidth ?? 0) : this.tableWidth(g), color: toTerminal && plan.format === 'table' },
      signal: this.signal,
      tempDir: g.tempDir,
      beforeStdout: this.beforeStdout,
    });
    this.progress.stop();
    if (plan.to === 'file') {
      const secs = ((performance.now() - t0) / 1000).toFixed(2);
      const bytes = res.bytes !== undefined ? `, ${res.bytes.toLocaleString('en-US')} bytes` : res.files !== undefined ? `, ${res.files.toLocaleString('en-US')} file${res.files === 1 ? '' : 's'}` : '';
      this.log(g, `sluice: wrote ${res.rows.toLocaleString('en-US')} row${res.rows === 1 ? '' : 's'} (${plan.format}${bytes}) to ${res.path ?? plan.path} in ${secs} s`);
    }
    await this.stats(g, runStats ?? res.stats);
  }
}

/** Global flags a command has no use for, by command: usage errors, and left out of its --help. */
const REFUSED_FLAGS: Record<string, { what: string; flags: Array<[key: string, flag: string]> }> = {
  demo: { what: 'demo (it prints a report, not a result)', flags: [['format', '--format'], ['output', '-o']] },
  explain: {
    what: 'explain (it prints the plan, nothing runs)',
    flags: [['format', '--format'], ['output', '-o'], ['maxRows', '--max-rows'], ['maxWidth', '--max-width'], ['stats', '--stats'], ['statsFile', '--stats-file']],
  },
};

/** Global flags a command has no use for are usage errors, not silently ignored. */
function rejectFlags(cmd: Command): void {
  const refused = REFUSED_FLAGS[cmd.name()];
  for (const [key, flag] of refused?.flags ?? []) {
    if (cmd.parent!.getOptionValueSource(key) === 'cli') throw new UsageError(`${flag} does not apply to ${refused!.what}`);
  }
}

/** `sluice <cmd> --help` lists the global flags the command takes, not those it refuses. */
function visibleGlobalOptions(this: Help, cmd: Command): Option[] {
  const refused = new Set((REFUSED_FLAGS[cmd.name()]?.flags ?? []).map(([key]) => key));
  return Help.prototype.visibleGlobalOptions.call(this, cmd).filter((o) => !refused.has(o.attributeName()));
}

const HELP_FOOTER = `
Exit codes: 0 ok, 1 runtime failure, 2 usage or bad input, 130 interrupted (143 SIGTERM).`;

/** The job file format, as installed with the package (package.json `files`), for the help. */
const JOBS_DOC = fileURLToPath(new URL('../../src/cli/README-jobs.md', import.meta.url));

function inputOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--input-format <format>', 'input format (default: from the extension, else from the first bytes)').choices(INPUT_FORMATS))
    .addOption(new Option('--delimiter <char>', 'CSV field delimiter (default , or tab for .tsv; \\t for tab)').argParser(charArg))
    .option('--no-header', 'CSV input has no header line (columns are named column_1, column_2, …)');
}

interface InputFlags {
  inputFormat?: InputFormat;
  delimiter?: string;
  header: boolean;
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
      // commander's own error text is replaced by one `sluice: error:` line (runCli)
      writeErr: () => {},
      outputError: () => {},
    })
    .configureHelp({ showGlobalOptions: true, visibleGlobalOptions })
    .addOption(new Option('--threads <n>', 'worker threads (0 = inline on the main thread; default: all cores)').argParser(intArg('--threads', 0, MAX_THREADS)))
    .addOption(new Option('--memory-limit <size>', 'memory budget, e.g. 512MiB or 2GiB (default 1GiB); beyond it, data spills to disk'))
    .addOption(new Option('--temp-dir <dir>', 'folder for spill files (default: the OS temp folder)'))
    .addOption(new Option('--partitions <n>', 'hash partitions (default: 4 per thread)').argParser(intArg('--partitions', 1, MAX_PARTITIONS)))
    .addOption(
      new Option('--format <format>', 'output format (default: from the -o extension; else table on a terminal, csv otherwise); without -o it applies to stdout only').choices(
        FORMATS,
      ),
    )
    .addOption(
      new Option('-o, --output <path>', 'write the result to PATH (atomically for regular files; through for devices and FIFOs); - is stdout. .arrows = Arrow IPC stream, .arrow/.ipc/.feather = IPC file'),
    )
    .addOption(new Option('--max-rows <n>', 'table view only: rows shown (half head, half tail)').argParser(intArg('--max-rows', 0)).default(20))
    .addOption(new Option('--max-width <n>', 'table view only: width to fit, hiding middle columns (default: the terminal width, $COLUMNS, or 80; 0 = no limit)').argParser(intArg('--max-width', 0)))
    .addOption(new Option('--stats <kind>', 'print run statistics as JSON, alone on stderr (no other log line)').choices(['json']))
    .addOption(new Option('--stats-file <path>', 'write the run statistics JSON to PATH instead of stderr'))
    .addOption(new Option('-q, --quiet', 'no progress bars or log lines'))
    .addHelpText(
      'after',
      `
Examples:
  sluice demo --rows 200000 --threads 2
  sluice run job.json -o out.parquet --stats json
  sluice run job.json -o - --format ndjson | head
  cat in.arrows | sluice head - --format csv
  sluice describe data.parquet

Job files: JSON with "sources", "steps" and "output", described in
  ${JOBS_DOC}
${HELP_FOOTER}`,
    );

  program
    .command('demo')
    .description('run the window, ASOF join and explode kernels on built-in generated data (no files needed)')
    .addOption(new Option('--rows <n>', 'serving-log rows (trades, quotes and orders scale with it, at least 1,000 each)').argParser(intArg('--rows', 1)).default(1_000_000))
    .addOption(new Option('--seed <n>', 'seed of the generated data').argParser(intArg('--seed', 0)).default(1))
    .option('-v, --verbose', 'also print each plan (explain)')
    .addHelpText('after', HELP_FOOTER)
    .action(async (opts: { rows: number; seed: number; verbose?: boolean }, cmd: Command) => {
      rejectFlags(cmd);
      const g = cmd.optsWithGlobals<GlobalOptions>();
      inv.startProgress(g);
      const engine = inv.engine(g);
      try {
        inv.running = true;
        const stats = await runDemo(engine, {
          rows: opts.rows,
          seed: opts.seed,
          verbose: opts.verbose === true,
          showRows: Math.min(g.maxRows, 8),
          maxWidth: inv.tableWidth(g),
          color: io.stdoutIsTTY,
          out: streamSink(io.stdout, { signal: inv.signal, beforeWrite: inv.beforeStdout }),
          signal: inv.signal,
        });
        inv.progress.stop();
        await inv.stats(g, stats);
      } finally {
        inv.progress.stop();
        await engine.close();
      }
    });

  program
    .command('run')
    .description('run a job file (sources, steps, output)')
    .argument('<job>', 'job file (JSON); - reads it from stdin')
    .addHelpText('after', `\nJob files (sources, steps, output) are described in\n  ${JOBS_DOC}\n${HELP_FOOTER}`)
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const { job, dir } = await loadJob(file, io.stdin);
      // the job's output is checked here, not when the job is loaded: its errors name the file too
      const plan = namingJobFile(file, () => inv.plan(g, job.output, dir));
      if (file !== '-' && plan.to === 'file' && resolve(plan.path) === resolve(file)) {
        throw new UsageError(`the output ${JSON.stringify(plan.path)} is the job file itself; writing there would replace the job with its result: choose another output path`);
      }
      inv.startProgress(g);
      const engine = inv.engine(g);
      try {
        const df = await buildJob(engine, job, dir);
        await inv.emit(g, df, plan);
      } finally {
        inv.progress.stop();
        await engine.close();
      }
    });

  program
    .command('explain')
    .description('print the plan of a job file: partitioning, sort keys and chosen algorithms')
    .argument('<job>', 'job file (JSON)')
    .addHelpText('after', `\nJob files are described in\n  ${JOBS_DOC}\n${HELP_FOOTER}`)
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      rejectFlags(cmd);
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const { job, dir } = await loadJob(file, io.stdin);
      const engine = inv.engine(g);
      try {
        const df = await buildJob(engine, job, dir);
        await streamSink(io.stdout).write(`${await df.explain()}\n`);
      } finally {
        await engine.close();
      }
    });

  /** head / schema / describe: open FILE, make a result, print it like any result. */
  type Look = (df: DataFrame, engine: Engine, opts: InputFlags & { rows: number }) => Promise<{ result: DataFrame; stats?: RunStats }>;
  const inspect = (name: string, description: string, look: Look): void => {
    const cmd = program.command(name).description(description).argument('<file>', 'data file, folder or glob (Parquet, Arrow IPC, CSV, TSV, NDJSON, JSON); - is stdin');
    if (name === 'head') cmd.addOption(new Option('-n, --rows <n>', 'rows to show').argParser(intArg('--rows', 0)).default(10));
    inputOptions(cmd)
      .addHelpText('after', HELP_FOOTER)
      .action(async (file: string, opts: InputFlags & { rows: number }, c: Command) => {
        const g = c.optsWithGlobals<GlobalOptions>();
        // head -n 50 shows 50 rows in the table view too, unless --max-rows says otherwise
        if (name === 'head' && c.getOptionValueSourceWithGlobals('maxRows') === 'default') g.maxRows = Math.max(g.maxRows, opts.rows);
        const plan = inv.plan(g);
        inv.startProgress(g);
        const engine = inv.engine(g);
        const cleanups: Array<() => Promise<void>> = [];
        let stdinCopy: string | null = null;
        try {
          const df = await openInput(engine, file, {
            format: opts.inputFormat,
            delimiter: opts.delimiter,
            header: opts.header === false ? false : undefined,
            stdin: io.stdin,
            tempDir: g.tempDir,
            onCleanup: (fn) => cleanups.push(fn),
            onStdinCopy: (path) => (stdinCopy = path),
            // head reads the first records of stdin only (its header and rows): an endless stream still ends
            ...(name === 'head' ? { stdinRecords: opts.rows + 1 } : {}),
          });
          await df.schema();
          inv.running = true;
          const { result, stats } = await look(df, engine, opts);
          await inv.emit(g, result, plan, stats);
        } catch (err) {
          // the reader names the file it read: for stdin that is Sluice's own copy
          if (stdinCopy !== null && err instanceof Error) err.message = stdinCopyMessage(err.message, stdinCopy);
          throw err;
        } finally {
          inv.progress.stop();
          await engine.close();
          for (const fn of cleanups) await fn();
        }
      });
  };
  inspect('head', 'print the first rows of a file', async (df, _e, o) => ({ result: df.limit(o.rows) }));
  inspect('schema', 'print the columns of a file with their types', async (df, e) => ({ result: e.fromArrow(schemaTable(await df.schema())) }));
  inspect('describe', 'per column: type, rows, NULL count, min and max (reads the file once, batch by batch)', async (df, e) => {
    const { table, stats } = await describeTable(df, inv.signal);
    return { result: e.fromArrow(table), stats };
  });

  return program;
}

/**
 * What users of other tools type for Sluice's engine flags, too far from them in spelling for
 * commander's own suggestion (the library's option names, DuckDB's and Spark's words).
 */
const OPTION_SYNONYMS: Readonly<Record<string, string>> = {
  '--memory': '--memory-limit',
  '--mem': '--memory-limit',
  '--memory-budget': '--memory-limit',
  '--max-memory': '--memory-limit',
  '--spill-dir': '--temp-dir',
  '--temp-directory': '--temp-dir',
  '--tmp-dir': '--temp-dir',
  '--workers': '--threads',
  '--jobs': '--threads',
};

/** `sluice help nope`: commander answers with the program's help, as for no command at all. */
function helpTopicError(err: unknown, argv: readonly string[]): unknown {
  const topic = argv[0] === 'help' ? argv[1] : undefined;
  if (!(err instanceof CommanderError) || err.code !== 'commander.help' || topic === undefined || commandOf([topic]) !== undefined) return err;
  // the same hint commander gives for `sluice rnu`
  const near = suggest(topic, COMMANDS);
  return new CommanderError(1, 'commander.unknownCommand', `unknown command '${topic}'${near ? ` (Did you mean ${near}?)` : ''}`);
}

/** Message text on one line. */
function oneLine(s: string): string {
  return s.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

/**
 * A parse error's message without its snippet and caret lines: flattened onto one line the
 * caret points nowhere, so the expression is quoted after its "at position N" instead.
 */
function withoutCaret(err: SluiceError): string {
  const sql = (err.details as { sql?: unknown }).sql;
  if (err.code !== 'PARSE_ERROR' || typeof sql !== 'string') return err.message;
  const m = /^([\s\S]*? at position \d+)\n {2}[^\n]*\n {2} *\^$/.exec(err.message);
  return m ? `${m[1]} in ${JSON.stringify(sql)}` : err.message;
}

/** The one-line error report (without the trailing newline). */
export function errorLine(err: unknown, cmd?: string, argv: readonly string[] = []): string {
  if (err instanceof CommanderError) {
    const hint = `(see 'sluice${cmd ? ` ${cmd}` : ''} --help')`;
    if (err.code === 'commander.help') return `sluice: error: missing command: demo, run, explain, head, schema or describe ${hint}`;
    const message = oneLine(err.message.replace(/^error:\s*/, ''));
    const known = err.code === 'commander.unknownOption' && !/Did you mean/.test(message) ? /'(--[^'=]+)/.exec(message)?.[1] : undefined;
    const synonym = known !== undefined ? OPTION_SYNONYMS[known] : undefined;
    // `sluice -n 2 head f.csv`: an option given before the command, where commander knows only the global ones
    const option = err.code === 'commander.unknownOption' && !/Did you mean/.test(message) && synonym === undefined ? /'([^'=]+)/.exec(message)?.[1] : undefined;
    if (cmd !== undefined && option !== undefined) {
      const at = argv.findIndex((a) => a === option || a.startsWith(`${option}=`));
      if (at >= 0 && at < argv.indexOf(cmd)) return `sluice: error: ${message} before the command: options of ${cmd} go after it (sluice ${cmd} ... ${option}) ${hint}`;
    }
    return `sluice: error: ${message}${synonym ? ` (Did you mean ${synonym}?)` : ''} ${hint}`;
  }
  if (err instanceof SluiceError) return `sluice: error: ${err.name} [${err.code}]: ${oneLine(withoutCaret(err))}`;
  if (err instanceof UsageError) return `sluice: error: ${oneLine(err.message)} (see 'sluice${cmd ? ` ${cmd}` : ''} --help')`;
  const e = err instanceof Error ? err : new Error(String(err));
  return `sluice: error: internal error: ${e.name}: ${oneLine(e.message)}`;
}

/** Exit code for an error that ended the invocation (see the header comment). */
function exitCodeFor(err: unknown, inv: Invocation): number {
  if (err instanceof StdoutClosed || inv.signal.reason instanceof StdoutClosed) return 0;
  if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
  if (inv.signal.aborted || err instanceof AbortError) return 130;
  if (err instanceof UsageError || err instanceof JobError || err instanceof PlanError) return 2;
  if (err instanceof InputError) return inv.running ? 1 : 2;
  return 1;
}

/** The subcommand named in argv (for the help hint of a usage error). */
const COMMANDS = ['demo', 'run', 'explain', 'head', 'schema', 'describe'];

function commandOf(argv: string[]): string | undefined {
  return argv.find((a) => COMMANDS.includes(a));
}

/**
 * Run the CLI with `argv` (the arguments after the program name). Resolves to the exit code;
 * never rejects and never calls process.exit.
 */
export async function runCli(argv: string[], ioIn: Partial<CliIO> = {}): Promise<number> {
  const stdout = ioIn.stdout ?? process.stdout;
  const stderr = ioIn.stderr ?? process.stderr;
  const stdoutIsTTY = ioIn.stdoutIsTTY ?? isTTY(stdout);
  const io: CliIO = {
    stdout,
    stderr,
    stdin: ioIn.stdin ?? process.stdin,
    stdoutIsTTY,
    stderrIsTTY: ioIn.stderrIsTTY ?? isTTY(stderr),
    stdoutColumns: ioIn.stdoutColumns ?? (stdoutIsTTY ? (stdout as { columns?: number }).columns : undefined),
    env: ioIn.env ?? process.env,
    signal: ioIn.signal ?? new AbortController().signal,
  };
  const inv = new Invocation(io);
  const program = buildProgram(inv);
  try {
    await program.parseAsync(argv, { from: 'user' });
    if (inv.signal.reason instanceof StdoutClosed) return 0;
    return inv.signal.aborted ? 130 : 0;
  } catch (err) {
    inv.progress.stop();
    const code = exitCodeFor(err, inv);
    if (code === 130) stderr.write('sluice: error: interrupted\n');
    else if (code !== 0) stderr.write(`${errorLine(helpTopicError(err, argv), commandOf(argv), argv)}\n`);
    if (process.env.SLUICE_DEBUG && err instanceof Error) stderr.write(`${err.stack ?? ''}\n`);
    return code;
  }
}

/** Resolves once everything written to `stream` so far has been handed to the OS. */
function flushed(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolveFlush) => {
    try {
      stream.write('', () => resolveFlush());
    } catch {
      resolveFlush();
    }
  });
}

/** Exit codes of the signals that interrupt a run: 128 + the signal's number, as shells report them. */
const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
type InterruptSignal = keyof typeof SIGNAL_EXIT_CODES;

/**
 * Wire runCli to the process: SIGINT (Ctrl-C), SIGTERM (`kill`, `timeout`, a service manager)
 * and SIGHUP (the terminal closed) abort the run, so the spill folder and any output temp file
 * are removed; a second signal exits at once.
 */
async function main(): Promise<void> {
  const controller = new AbortController();
  let first: InterruptSignal | null = null;
  const onSignal = (signal: InterruptSignal): void => {
    if (first === null) {
      first = signal;
      // a hint for people at a terminal; scripts see only the one error line
      if (signal === 'SIGINT' && process.stderr.isTTY) process.stderr.write('\nsluice: interrupting (Ctrl-C again to quit at once)…\n');
      controller.abort(new AbortError(`Interrupted (${signal})`));
    } else process.exit(SIGNAL_EXIT_CODES[signal]);
  };
  const signals = Object.keys(SIGNAL_EXIT_CODES) as InterruptSignal[];
  for (const s of signals) process.on(s, onSignal);
  // stdout errors are reported by the write that failed (output.ts); a later 'error' event of
  // the destroyed stream must not crash the process
  process.stdout.on('error', () => {});
  const ran = await runCli(process.argv.slice(2), { signal: controller.signal });
  for (const s of signals) process.off(s, onSignal);
  // runCli reports any interruption as 130; the exit code names the signal that came
  const code = ran === 130 && first !== null ? SIGNAL_EXIT_CODES[first] : ran;
  process.exitCode = code;
  // Safety net: whatever an error path may have left open (a decoder thread, a timer), the
  // process ends once the output is flushed.
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  setTimeout(() => process.exit(code), 500).unref();
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
