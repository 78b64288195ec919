// The committed metrics contract (dashboards/metrics-contract.json) and its comparison with a live page.
import { readFileSync } from 'node:fs';
import type { MetricFamily } from './exposition.js';
import { repoPath } from './repo-paths.js';

export interface FamilyContract {
  readonly type: 'counter' | 'gauge' | 'histogram';
  /** Base unit: `seconds` for times; a plain noun (requests, tokens, records) for counts. */
  readonly unit: string;
  /** Label name -> allowed values (enumerated) or a description of an open but bounded set. */
  readonly labels: Readonly<Record<string, readonly string[] | string>>;
  readonly buckets?: readonly number[];
  /** Set for families named by a library (prom-client's default process metrics), not by tokenmeter. */
  readonly source?: string;
}

export type PageContract = Readonly<Record<string, FamilyContract>>;

export interface MetricsContract {
  readonly gateway: PageContract;
  readonly simulator: PageContract;
}

export const CONTRACT_PATH = 'dashboards/metrics-contract.json';

export function loadContract(): MetricsContract {
  return JSON.parse(readFileSync(repoPath(CONTRACT_PATH), 'utf8')) as MetricsContract;
}

/** Every way `page` differs from `contract`, one readable line each (empty: they agree). */
export function contractDifferences(contract: PageContract, page: Map<string, MetricFamily>): string[] {
  const problems: string[] = [];
  for (const name of page.keys()) {
    if (contract[name] === undefined) problems.push(`${name}: exported but not in ${CONTRACT_PATH}`);
  }
  for (const [name, expected] of Object.entries(contract)) {
    const family = page.get(name);
    if (family === undefined) {
      problems.push(`${name}: in ${CONTRACT_PATH} but not exported`);
      continue;
    }
    if (family.type !== expected.type)
      problems.push(`${name}: type ${family.type}, contract ${expected.type}`);
    const labelNames = Object.keys(expected.labels).sort();
    // A library's process metrics (no active requests, no GC yet) may have no samples; they are not our traffic.
    if (labelNames.length > 0 && family.samples === 0 && expected.source === undefined) {
      problems.push(
        `${name}: no samples, so its labels cannot be checked (the test's traffic must reach it)`,
      );
    } else if (family.samples > 0) {
      const seen = [...family.labels.keys()].sort();
      if (seen.join(',') !== labelNames.join(',')) {
        problems.push(`${name}: labels [${seen.join(', ')}], contract [${labelNames.join(', ')}]`);
      }
    }
    for (const [label, allowed] of Object.entries(expected.labels)) {
      if (typeof allowed === 'string') continue;
      for (const value of family.labels.get(label) ?? []) {
        if (!allowed.includes(value))
          problems.push(`${name}: ${label}="${value}" is not among the contract's values`);
      }
    }
    if (expected.type === 'histogram' && family.samples > 0) {
      const contractBuckets = (expected.buckets ?? []).join(',');
      if (family.buckets.join(',') !== contractBuckets) {
        problems.push(`${name}: buckets [${family.buckets.join(', ')}], contract [${contractBuckets}]`);
      }
    }
  }
  return problems;
}

/** Naming rules the contract itself must follow (Prometheus conventions: base units, `_total` on counters). */
export function namingProblems(contract: PageContract): string[] {
  const problems: string[] = [];
  for (const [name, family] of Object.entries(contract)) {
    const base = name.endsWith('_total') ? name.slice(0, -'_total'.length) : name;
    if (family.type === 'counter' && base === name) problems.push(`${name}: a counter must end in _total`);
    if (family.type !== 'counter' && base !== name) problems.push(`${name}: only counters end in _total`);
    if ((family.unit === 'seconds') !== base.endsWith('_seconds')) {
      problems.push(
        `${name}: unit ${family.unit} but the name ${base.endsWith('_seconds') ? 'says' : 'lacks'} _seconds`,
      );
    }
    if (/_(milliseconds|ms|minutes|hours)$/.test(base)) problems.push(`${name}: times are in seconds`);
    if (family.type === 'histogram' && (family.buckets === undefined || family.buckets.length === 0)) {
      problems.push(`${name}: a histogram lists its buckets`);
    }
  }
  return problems;
}
