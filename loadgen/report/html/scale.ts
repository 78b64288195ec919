// Axis arithmetic for the SVG charts: linear scales, "nice" round tick values (1, 2, 5 x 10^k) so axes read
// 0, 50, 100 rather than 0, 47.3, 94.6, and compact tick labels.

export interface Scale {
  (value: number): number;
  domain: readonly [number, number];
  ticks: number[];
}

function niceStep(span: number, count: number): number {
  const raw = span / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const fraction = raw / power;
  const nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
  return nice * power;
}

/** [min, max] widened to round tick values; a zero-width domain is widened so it still draws. */
export function niceDomain(min: number, max: number, count = 5): [number, number, number] {
  let low = min;
  let high = max;
  if (!(Number.isFinite(low) && Number.isFinite(high))) return [0, 1, 0.2];
  if (high === low) {
    const pad = low === 0 ? 1 : Math.abs(low) * 0.1;
    low -= low === 0 ? 0 : pad;
    high += pad;
  }
  const step = niceStep(high - low, count);
  return [Math.floor(low / step) * step, Math.ceil(high / step) * step, step];
}

/** Maps `domain` onto the pixel range [from, to] (to may be smaller: y grows downwards). */
export function linearScale(min: number, max: number, from: number, to: number, tickCount = 5): Scale {
  const [low, high, step] = niceDomain(min, max, tickCount);
  const ticks: number[] = [];
  for (let t = low; t <= high + step / 2; t += step) ticks.push(Number(t.toPrecision(12)));
  const map = ((value: number) => from + ((value - low) / (high - low)) * (to - from)) as Scale;
  return Object.assign(map, { domain: [low, high] as const, ticks });
}

/** Tick label: 1500 -> "1.5k", 0.25 -> "0.25", 12 -> "12". */
export function tickLabel(value: number): string {
  const magnitude = Math.abs(value);
  if (magnitude >= 1e6) return `${Number((value / 1e6).toPrecision(3))}M`;
  if (magnitude >= 1e4) return `${Number((value / 1e3).toPrecision(3))}k`;
  return String(Number(value.toPrecision(4)));
}

/** A pixel coordinate with one decimal: enough on screen, and keeps large charts small. */
export function px(value: number): string {
  return (Math.round(value * 10) / 10).toString();
}
