// Test helper: runs the real `tokenmeter` executable (bin/tokenmeter.js) as a child process.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { withDeadline } from './deadline.js';

export const CLI_PATH = fileURLToPath(new URL('../../../bin/tokenmeter.js', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `cwd`: where relative paths on the command line resolve (default: the test's own). `timeoutMs`: a command that
 * could hang (a FIFO opened for reading) is killed (SIGKILL) after it, and its code is then null.
 */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  cwd?: string,
  timeoutMs?: number,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], {
      env,
      ...(cwd === undefined ? {} : { cwd }),
      ...(timeoutMs === undefined ? {} : { timeout: timeoutMs, killSignal: 'SIGKILL' }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts a long-running command and resolves once a stdout line matches `ready`. */
export function startCli(
  args: string[],
  ready: RegExp,
  env: NodeJS.ProcessEnv = process.env,
  cwd?: string,
): Promise<{ child: ChildProcessWithoutNullStreams; match: RegExpMatchArray; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], {
      env,
      ...(cwd === undefined ? {} : { cwd }),
    });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no ${ready} within 10 s; output: ${out}`)), 10_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const match = out.match(ready);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match, output: () => out });
      }
    });
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ready: ${out}`));
    });
  });
}

export function stopCli(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
  return withDeadline(exited, () => `pid ${child.pid} to exit after SIGTERM`);
}
