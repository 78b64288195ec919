// Runs promtool with stdin and collects its output and exit status.
import { spawn } from 'node:child_process';

export interface ToolResult {
  readonly code: number | null;
  readonly output: string;
}

export function runTool(binary: string, args: readonly string[], stdin = ''): Promise<ToolResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      output += c.toString('utf8');
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
    child.stdin.end(stdin);
  });
}

/**
 * promtool's complaints about a page, minus one kind accepted on purpose: vLLM names its server metrics
 * `vllm:...`, which promtool flags ("metric names should not contain ':'", a colon marks recording rules).
 * The simulator copies vLLM's names exactly so the same dashboards serve both, so that finding is expected
 * for `vllm:` names and for nothing else.
 */
export function unexpectedLintFindings(output: string): string[] {
  return output
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .filter((line) => !/^vllm:[a-zA-Z0-9_]+ metric names should not contain ':'$/.test(line));
}
