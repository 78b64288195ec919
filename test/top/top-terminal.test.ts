// `top` on a real terminal: run under `script`, which gives it a pseudo-terminal, and driven by key presses
// written to that terminal. The bytes top wrote must leave the alternate screen and show the cursor again; the
// shell around it also compares the terminal's settings (stty) before and after, the outcome a user sees (Node
// itself resets raw mode at exit, so that half guards against anything else top might change).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { startGateway } from '../gateway/helpers/gateway.js';
import { sendShortChatStream, startUpstream } from '../gateway/helpers/upstream.js';
import { CLI_PATH } from '../helpers/run-cli.js';
import { sendSteadily } from './helpers/steady-traffic.js';

const SCRIPT = '/usr/bin/script';
const ENTER_SCREEN = '\u001b[?1049h\u001b[?25l';
const LEAVE_SCREEN = '\u001b[?25h\u001b[?1049l';

interface TerminalRun {
  output(): string;
  /** Resolves when the output holds `text`; rejects after 15 s with what arrived. */
  waitFor(text: string): Promise<void>;
  press(key: string): void;
  exited: Promise<number | null>;
}

function runInTerminal(topArgs: string[]): TerminalRun {
  const quoted = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
  const shell = [
    'stty rows 30 cols 140',
    'before=$(stty -g)',
    `${quoted(process.execPath)} ${quoted(CLI_PATH)} top ${topArgs.map(quoted).join(' ')}`,
    'echo "EXIT=$?"',
    'if [ "$(stty -g)" = "$before" ]; then echo TERMINAL-RESTORED; else echo TERMINAL-CHANGED; fi',
  ].join('; ');
  const child = spawn(SCRIPT, ['-qfec', shell, '/dev/null'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    output += chunk;
    for (const waiter of waiters.splice(0)) {
      if (output.includes(waiter.text)) waiter.resolve();
      else waiters.push(waiter);
    }
  });
  return {
    output: () => output,
    waitFor: (text) =>
      new Promise<void>((resolve, reject) => {
        if (output.includes(text)) return resolve();
        const timer = setTimeout(() => reject(new Error(`no '${text}' in:\n${output}`)), 15_000);
        waiters.push({
          text,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      }),
    press: (key) => child.stdin.write(key),
    exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))),
  };
}

test('full screen on a terminal: draws rows, re-sorts on s, and restores the terminal on Ctrl-C and on q', async (t) => {
  if (!existsSync(SCRIPT)) {
    t.skip(`${SCRIPT} (util-linux) is not installed: no pseudo-terminal to run top in`);
    return;
  }
  const upstream = await startUpstream((_req, res) => sendShortChatStream(res));
  const gateway = await startGateway({
    upstreams: [{ name: 'local', baseUrl: upstream.url, keyless: true }],
  });
  const traffic = sendSteadily(gateway.url, 'm1');
  // The traffic stops before the servers close, so no request of it is cut.
  t.after(async () => {
    await traffic.stop();
    await gateway.close();
    await upstream.close();
  });

  for (const [quitKey, exitCode] of [
    ['\u0003', 130],
    ['q', 0],
  ] as const) {
    const run = runInTerminal(['--url', gateway.url, '--interval', '0.25']);
    await run.waitFor('sorted by rps');
    await run.waitFor('m1');
    run.press('s');
    await run.waitFor('sorted by ttft');
    run.press(quitKey);
    assert.equal(await run.exited, 0, 'script itself ends normally');
    const output = run.output();
    assert.ok(
      output.startsWith(ENTER_SCREEN),
      'alternate screen entered, cursor hidden, before anything else',
    );
    const left = output.lastIndexOf(LEAVE_SCREEN);
    assert.ok(left > output.lastIndexOf('sorted by ttft'), 'screen left after the last frame');
    assert.match(output.slice(left), new RegExp(`EXIT=${exitCode}\\r?\\n`));
    assert.match(output, /TERMINAL-RESTORED/, 'stty settings after top equal those before it');
  }
});
