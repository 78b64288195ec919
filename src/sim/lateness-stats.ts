// How late the simulator writes chunks relative to its own plan, summarised in fixed memory: 10 µs buckets up
// to 100 ms (10,000 counters) give exact-enough percentiles for docs and tests, whatever the number of samples.
const BUCKET_MS = 0.01;
const BUCKETS = 10_000;

export interface LatenessSummary {
  readonly count: number;
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxMs: number;
}

export class LatenessStats {
  private readonly counts = new Uint32Array(BUCKETS + 1);
  private count = 0;
  private sum = 0;
  private max = 0;

  record(lateMs: number): void {
    const index = Math.min(BUCKETS, Math.floor(lateMs / BUCKET_MS));
    this.counts[index] = (this.counts[index] ?? 0) + 1;
    this.count++;
    this.sum += lateMs;
    if (lateMs > this.max) this.max = lateMs;
  }

  reset(): void {
    this.counts.fill(0);
    this.count = 0;
    this.sum = 0;
    this.max = 0;
  }

  /** Upper edge of the bucket holding the q-quantile (the overflow bucket reports the maximum). */
  private quantile(q: number): number {
    if (this.count === 0) return 0;
    const rank = Math.ceil(q * this.count);
    let seen = 0;
    for (let i = 0; i <= BUCKETS; i++) {
      seen += this.counts[i] ?? 0;
      if (seen >= rank) return i === BUCKETS ? this.max : Math.min(this.max, (i + 1) * BUCKET_MS);
    }
    return this.max;
  }

  summary(): LatenessSummary {
    return {
      count: this.count,
      meanMs: this.count === 0 ? 0 : this.sum / this.count,
      p50Ms: this.quantile(0.5),
      p99Ms: this.quantile(0.99),
      p999Ms: this.quantile(0.999),
      maxMs: this.max,
    };
  }
}
