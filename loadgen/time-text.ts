// Times as people write them on a command line or in a config file: `500ms`, `2s`, `10m`, `1h`, or a bare number
// in the unit the caller names (ms for a latency threshold, s for --duration). One reader for both, so `2s` means
// the same wherever it is typed.

const MS_PER_UNIT = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

export type TimeUnit = keyof typeof MS_PER_UNIT;

/** How the accepted forms read in an error message. */
export const TIME_FORMS = 'a number with ms, s, m or h (500ms, 2s, 10m)';

/** `text` in milliseconds, or undefined when it is not a non-negative number with an optional unit. */
export function parseTimeMs(text: string, bareUnit: TimeUnit): number | undefined {
  const match = /^\s*(\d+(?:\.\d*)?|\.\d+)\s*(ms|s|m|h)?\s*$/i.exec(text);
  if (match === null) return undefined;
  const unit = (match[2]?.toLowerCase() ?? bareUnit) as TimeUnit;
  return Number(match[1]) * MS_PER_UNIT[unit];
}
