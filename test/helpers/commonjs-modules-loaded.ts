// Which CommonJS modules a fresh Node process loads while it runs `script` (an ES module body, awaited): the paths
// in its CommonJS module cache when the script ends. A fresh process, because the test's own imports would be in
// the cache too. For packages that ship CommonJS, as OpenTelemetry's do (an ES module import of one lands there).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

export async function commonJsModulesLoaded(script: string): Promise<string[]> {
  const body = `${script}
    const { createRequire } = await import('node:module');
    console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', body], {
    timeout: 20_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout) as string[];
}
