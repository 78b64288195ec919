// An upstream whose answer is data: a list of steps (status line and headers, body writes) and how the answer
// ends (cleanly, by a TCP reset, by going silent, or by trickling forever). The fault matrix's upstream rows are
// each one such script. Every step is written on its own event-loop turn, so consecutive writes reach the
// gateway as separate reads (a split inside a line or a character stays split) rather than coalesced.
import type { ServerResponse } from 'node:http';
import { startUpstream, type TestUpstream } from '../gateway/helpers/upstream.js';

export type Step =
  | { readonly head: number; readonly headers?: Readonly<Record<string, string>> }
  | { readonly write: string | Buffer }
  /** An interim answer before the head, unasked for: 100 Continue, 102 Processing or 103 Early Hints. */
  | { readonly interim: 100 | 102 | 103 };

/**
 * How the answer ends after the last step: `end` closes it cleanly; `reset` sends a TCP RST; `stall` sends nothing
 * more and keeps the connection open; `trickle` keeps sending an SSE comment every TRICKLE_EVERY_MS, so neither
 * the headers nor the idle deadline is ever reached.
 */
export type Ending = 'end' | 'reset' | 'stall' | 'trickle';

export interface Script {
  readonly steps: readonly Step[];
  readonly ending: Ending;
}

export const TRICKLE_EVERY_MS = 50;
const TRICKLE = Buffer.from(': still here\n\n');

export interface ScriptedUpstream extends TestUpstream {
  /** Every body byte written to the gateway so far (trickled comments included). */
  written(): Buffer;
}

/** Starts an upstream that answers every request by playing `script`. */
export async function startScriptedUpstream(script: Script): Promise<ScriptedUpstream> {
  const written: Buffer[] = [];
  const upstream = await startUpstream((_req, res) => play(res, script, written));
  return { ...upstream, written: () => Buffer.concat(written) };
}

function play(res: ServerResponse, script: Script, written: Buffer[]): void {
  let i = 0;
  const next = (): void => {
    if (res.destroyed) return;
    const step = script.steps[i++];
    if (step === undefined) {
      finish(res, script.ending, written);
      return;
    }
    if ('interim' in step) {
      if (step.interim === 100) res.writeContinue();
      else if (step.interim === 102) res.writeProcessing();
      else res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
    } else if ('head' in step) {
      res.writeHead(step.head, step.headers);
      res.flushHeaders();
    } else {
      const bytes = Buffer.from(step.write);
      written.push(bytes);
      res.write(bytes);
    }
    setImmediate(next);
  };
  next();
}

function finish(res: ServerResponse, ending: Ending, written: Buffer[]): void {
  switch (ending) {
    case 'end':
      res.end();
      return;
    case 'reset':
      res.socket?.resetAndDestroy();
      return;
    case 'stall':
      return;
    case 'trickle': {
      const timer = setInterval(() => {
        if (res.destroyed) {
          clearInterval(timer);
          return;
        }
        written.push(TRICKLE);
        res.write(TRICKLE);
      }, TRICKLE_EVERY_MS);
      res.once('close', () => clearInterval(timer));
      return;
    }
  }
}
