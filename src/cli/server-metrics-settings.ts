// The server-metrics and early-stop flags -> their settings, refusing what cannot be read before anything is sent.

import type { EarlyStopSettings } from '../../loadgen/early-stop/early-stop-settings.js';
import type { GpuMetricsSettings } from '../../loadgen/gpu-metrics/gpu-metrics-settings.js';
import type { ServerMetricsSettings } from '../../loadgen/server-metrics/server-metrics-settings.js';
import { UsageError } from '../shared/user-facing-error.js';
import type { BenchValues } from './bench-options.js';

function metricsUrl(given: string, flag = 'server-metrics-url'): string {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new UsageError(`--${flag} '${given}' is not a URL: write it as http://host:port/metrics`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--${flag} must be http:// or https:// (got ${url.protocol})`);
  return url.toString();
}

/** null with --no-server-metrics. */
export function serverMetricsSettingsFrom(o: BenchValues): ServerMetricsSettings | null {
  if (o['no-server-metrics']) return null;
  const given = o['server-metrics-url'];
  const intervalMs = o['server-metrics-interval'] * 1000;
  return { ...(given === undefined ? {} : { url: metricsUrl(given) }), intervalMs };
}

/** null with --no-gpu-metrics. */
export function gpuMetricsSettingsFrom(o: BenchValues): GpuMetricsSettings | null {
  if (o['no-gpu-metrics']) return null;
  const given = o['gpu-metrics-url'];
  const url = given === undefined ? undefined : metricsUrl(given, 'gpu-metrics-url');
  return {
    ...(url === undefined ? {} : { url }),
    nvidiaSmi: o['nvidia-smi'] ? 'asked' : url === undefined ? 'auto' : 'off',
    intervalMs: o['server-metrics-interval'] * 1000,
  };
}

export function earlyStopSettingsFrom(o: BenchValues, checkEveryMs: number): EarlyStopSettings {
  const maxErrorRate = o['max-error-rate'];
  return {
    onSaturation: o['stop-on-saturation'],
    ...(maxErrorRate === undefined ? {} : { maxErrorRate }),
    windowMs: o['stop-window'] * 1000,
    checkEveryMs,
  };
}
