// Bounded metric labels: model names come from clients, so only the configured names plus the first
// `maxModels` others get their own label value; the rest share `other`. Ids, keys and URLs are never labels.

export const OTHER_MODEL = 'other';

export class ModelLabels {
  readonly #allowed: Set<string>;
  readonly #max: number;
  #extra = 0;

  constructor(configured: readonly string[], maxModels: number) {
    this.#allowed = new Set(configured);
    this.#max = maxModels;
  }

  label(model: string | null): string {
    if (model === null) return 'none';
    if (this.#allowed.has(model)) return model;
    if (this.#extra >= this.#max || model.length > 200) return OTHER_MODEL;
    this.#extra++;
    this.#allowed.add(model);
    return model;
  }
}

export function statusClass(status: number): string {
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'none';
}

/** Seconds, from sub-millisecond inter-token gaps to multi-minute end-to-end latencies. */
export const LATENCY_BUCKETS_S = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50,
  100, 250, 500, 1000,
];

/** Seconds, for the gateway's own overhead: 10 microseconds to 1 second. */
export const OVERHEAD_BUCKETS_S = [
  0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1,
];
