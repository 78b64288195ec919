// Runs the real curl, for tests where what a real client sends matters (its own Expect: 100-continue, chunked
// uploads, the headers it lets a user set), and reads its `--include` output: interim responses, the final
// status and headers, and the body.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CURL = '/usr/bin/curl';

/** Why curl-driven tests skip here, or undefined when curl is installed. */
export function curlMissing(): string | undefined {
  return existsSync(CURL) ? undefined : `${CURL} not found: this test runs curl itself`;
}

export interface CurlResult {
  readonly exitCode: number | null;
  /** Interim (1xx) responses before the final one, each as its status line. */
  readonly interim: readonly string[];
  /** The final status; 0 when curl got none. */
  readonly status: number;
  /** The final response's headers, names lower-cased. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly stderr: string;
}

/** Runs `curl --silent --show-error --include <args>`, writing `stdin` (if any) to its standard input. */
export function curl(args: readonly string[], stdin?: Buffer): Promise<CurlResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(CURL, ['--silent', '--show-error', '--include', '--max-time', '10', ...args]);
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (exitCode) =>
      resolve({ exitCode, stderr, ...parseIncluded(Buffer.concat(out).toString('utf8')) }),
    );
    child.stdin.end(stdin);
  });
}

function parseIncluded(text: string): Pick<CurlResult, 'interim' | 'status' | 'headers' | 'body'> {
  const interim: string[] = [];
  let rest = text;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return { interim, status: 0, headers: {}, body: rest };
    const lines = rest.slice(0, end).split('\r\n');
    const statusLine = lines[0] ?? '';
    rest = rest.slice(end + 4);
    if (/^HTTP\/[\d.]+ 1\d\d/.test(statusLine)) {
      interim.push(statusLine);
      continue;
    }
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    return { interim, status: Number(statusLine.split(' ')[1]), headers, body: rest };
  }
}
