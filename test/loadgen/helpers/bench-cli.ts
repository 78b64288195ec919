// Runs `tokenmeter bench` as a child process in a fresh temporary folder (results and records land there).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CliResult, runCli } from '../../helpers/run-cli.js';

/** This test file's scratch folders: removed when its process ends well, kept to look at when a test failed. */
const scratchDirs: string[] = [];

export function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tokenmeter-bench-test-'));
  if (scratchDirs.length === 0) {
    process.on('exit', (code) => {
      if (code !== 0) return;
      for (const made of scratchDirs) rmSync(made, { recursive: true, force: true });
    });
  }
  scratchDirs.push(dir);
  return dir;
}

/** The environment of a child bench: no proxies or keys inherited from the developer's shell. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/proxy|api_key/i.test(name)) continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

export function writeConfig(dir: string, config: Record<string, unknown>): string {
  const path = join(dir, 'bench_config.json');
  writeFileSync(path, JSON.stringify(config, null, 2));
  return path;
}

export function bench(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return runCli(['bench', ...args], env);
}
