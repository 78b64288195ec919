// Benchmarks run the simulator as its own process (the real `tokenmeter sim` CLI), so its timers do not share an
// event loop with the client being measured. Resolves with its URL once it prints the address it listens on.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../../bin/tokenmeter.js', import.meta.url));

export interface SpawnedSimulator {
  readonly url: string;
  readonly process: ChildProcess;
}

export async function spawnSimulator(flags: readonly string[]): Promise<SpawnedSimulator> {
  const child = spawn(process.execPath, [CLI, 'sim', '--port', '0', ...flags]);
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.on('exit', () => reject(new Error(`simulator exited: ${out}`)));
  });
  return { url, process: child };
}
