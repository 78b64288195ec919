// The gateway's log lines for a person at a terminal: `12:00:01.234 INFO  request finished requestId=... status=200`.
// A destination that takes pino's JSON lines, after redaction, and writes them as text to the batched destination,
// so a key pino redacts is redacted in both formats. Parsing each line back costs a JSON.parse per line, paid only
// when someone asked for pretty lines (a terminal); the JSON format writes pino's lines untouched.
import type { DestinationStream } from 'pino';
import { pino } from 'pino';

/** What every pino line carries and the pretty line shows elsewhere (time, level, message) or not at all. */
const FRAME_KEYS = new Set(['level', 'time', 'pid', 'hostname', 'msg']);
const LABEL_WIDTH = 5;

function clock(epochMs: number): string {
  const t = new Date(epochMs);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(t.getHours())}:${two(t.getMinutes())}:${two(t.getSeconds())}.${String(t.getMilliseconds()).padStart(3, '0')}`;
}

/**
 * A bare word stays bare; text with spaces, quotes or control characters, and objects, are written as JSON so the
 * line stays one line. JSON escapes C0 controls but not DEL, C1 or U+2028/9, so those are escaped after it: a
 * client's model name reaches the operator's terminal as text, never as a terminal command.
 */
function fieldValue(value: unknown): string {
  if (typeof value === 'string' && /^[^\s"=]+$/.test(value) && !hasControlCharacters(value)) return value;
  return escapeControlCharacters(JSON.stringify(value) ?? String(value));
}

/** pino's serialized error: its message inline, its stack (when there is one) indented below the line. */
interface SerializedError {
  readonly type?: string;
  readonly message?: string;
  readonly stack?: string;
}

export function prettyLine(json: string): string {
  const entry = JSON.parse(json) as Record<string, unknown>;
  const label = (pino.levels.labels[entry['level'] as number] ?? String(entry['level'])).toUpperCase();
  const parts = [clock(entry['time'] as number), label.padEnd(LABEL_WIDTH)];
  if (typeof entry['msg'] === 'string') parts.push(escapeControlCharacters(entry['msg']));
  let stack = '';
  for (const [key, value] of Object.entries(entry)) {
    if (FRAME_KEYS.has(key)) continue;
    if (key === 'err' && typeof value === 'object' && value !== null) {
      const err = value as SerializedError;
      parts.push(`err=${fieldValue(err.message ?? err.type ?? 'error')}`);
      const frames = err.stack?.split('\n').slice(1) ?? [];
      stack = frames.map((frame) => `\n    ${escapeControlCharacters(frame.trim())}`).join('');
      continue;
    }
    parts.push(`${key}=${fieldValue(value)}`);
  }
  return `${parts.join(' ')}${stack}\n`;
}

type Flushable = DestinationStream & { flush?: (cb?: (err?: Error) => void) => void };

/** Writes each of pino's lines to `target` as a pretty line; flushing (pino's logger.flush) flushes the target. */
export function prettyDestination(target: Flushable): Flushable {
  return {
    write: (line: string) => target.write(prettyLine(line)),
    flush: (cb) => (target.flush === undefined ? cb?.() : target.flush(cb)),
  };
}

// ---- control characters ----
// Text that came from a client (a model name, a path) and goes to a terminal or a metrics page: its control
// characters are written as `\uXXXX` escapes, so an ESC or BEL cannot retitle or clear an operator's terminal and a
// CR or NUL cannot break a line of the exposition format. C0 (U+0000-U+001F), DEL and C1 (U+007F-U+009F, where
// U+009B is a one-byte CSI for some terminals) and the Unicode line and paragraph separators are escaped; every
// other character passes as it is.

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

export function hasControlCharacters(text: string): boolean {
  CONTROL.lastIndex = 0;
  return CONTROL.test(text);
}

export function escapeControlCharacters(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
