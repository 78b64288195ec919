// The rates of an automatic sweep: first a saturation probe (every request at once, or as many as
// --max-concurrency allows) gives the throughput the server reaches when it never waits for work; the levels
// then step linearly up to 125% of it, so the last levels sit past saturation and the knee shows.

export const DEFAULT_STEPS = 5;
const TOP_FRACTION = 1.25;

/** "1,2,4,8" -> [1, 2, 4, 8] (sorted, duplicates removed). */
export function parseRates(text: string): number[] {
  const rates = text.split(',').map((part) => Number(part.trim()));
  if (rates.length === 0 || rates.some((r) => !Number.isFinite(r) || r <= 0)) {
    throw new Error(`--rates takes positive numbers separated by commas (got '${text}')`);
  }
  return [...new Set(rates)].sort((a, b) => a - b);
}

export function ratesFromSaturation(saturatedRps: number, steps: number): number[] {
  const rates: number[] = [];
  for (let k = 1; k <= steps; k++)
    rates.push(Number(((saturatedRps * TOP_FRACTION * k) / steps).toPrecision(3)));
  return [...new Set(rates.filter((r) => r > 0))];
}
