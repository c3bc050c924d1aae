/**
 * The built CLI (dist/cli/main.js, built by `npm test`) as a child process, for end-to-end
 * tests: exit code, signal, stdout bytes, stderr text; every run under a timeout, so a hang
 * is a test failure (`timedOut`), never a stuck suite.
 */
import { spawn } from 'node:child_process';
import { existsSync, openSync, closeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
export const BUILT = existsSync(MAIN);

export interface SpawnResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: Buffer;
  stderr: string;
}

export interface SpawnOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** bytes fed to stdin (default: none, stdin closed) */
  stdin?: Buffer | string;
  /** after `stdin`, this text fed again and again until the child exits (an endless stream) */
  stdinForever?: string;
  /** send stdout to this file or device instead of a pipe (e.g. /dev/full) */
  stdoutPath?: string;
  /** kill after this long (default 60 s) */
  timeoutMs?: number;
}

export function sluice(args: string[], opts: SpawnOptions = {}): Promise<SpawnResult> {
  return new Promise((resolve, reject) => {
    const outFd = opts.stdoutPath !== undefined ? openSync(opts.stdoutPath, 'w') : undefined;
    const child = spawn(process.execPath, [MAIN, ...args], {
      cwd: opts.cwd,
      env: { ...process.env, SLUICE_DEBUG: '', ...opts.env },
      stdio: [opts.stdin !== undefined || opts.stdinForever !== undefined ? 'pipe' : 'ignore', outFd ?? 'pipe', 'pipe'],
    });
    if (outFd !== undefined) closeSync(outFd);
    const out: Buffer[] = [];
    let err = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs ?? 60_000);
    child.stdout?.on('data', (d: Buffer) => out.push(d));
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    if (opts.stdinForever !== undefined) {
      const stdin = child.stdin!;
      const chunk = Buffer.from(opts.stdinForever.repeat(Math.ceil(65536 / opts.stdinForever.length)));
      let open = true;
      stdin.on('error', () => (open = false));
      stdin.on('close', () => (open = false));
      const feed = (): void => {
        while (open && stdin.write(chunk));
        if (open) stdin.once('drain', feed);
      };
      if (opts.stdin !== undefined) stdin.write(opts.stdin);
      feed();
    } else if (opts.stdin !== undefined) {
      child.stdin!.on('error', () => {});
      child.stdin!.end(opts.stdin);
    }
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, stdout: Buffer.concat(out), stderr: err });
    });
  });
}

/** Every line of stderr of a failed run: exactly one, `sluice: error: …`. */
export function errorLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l !== '');
}
