// The server-metrics and early-stop flags -> their settings, refusing what cannot be read before anything is sent.

import type { EarlyStopSettings } from '../../loadgen/early-stop/early-stop-settings.js';
import type { GpuMetricsSettings } from '../../loadgen/gpu-metrics/gpu-metrics-settings.js';
import type { ServerMetricsSettings } from '../../loadgen/server-metrics/server-metrics-settings.js';
import { UsageError } from '../shared/usage-error.js';
import type { ParsedOptions } from './options.js';

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
export function serverMetricsSettingsFrom(o: ParsedOptions): ServerMetricsSettings | null {
  if (o['no-server-metrics'] === true) return null;
  const given = o['server-metrics-url'];
  const interval = typeof o['server-metrics-interval'] === 'number' ? o['server-metrics-interval'] : 1;
  return { ...(typeof given === 'string' ? { url: metricsUrl(given) } : {}), intervalMs: interval * 1000 };
}

/** null with --no-gpu-metrics. */
export function gpuMetricsSettingsFrom(o: ParsedOptions): GpuMetricsSettings | null {
  if (o['no-gpu-metrics'] === true) return null;
  const given = o['gpu-metrics-url'];
  const interval = typeof o['server-metrics-interval'] === 'number' ? o['server-metrics-interval'] : 1;
  const url = typeof given === 'string' ? metricsUrl(given, 'gpu-metrics-url') : undefined;
  return {
    ...(url === undefined ? {} : { url }),
    nvidiaSmi: o['nvidia-smi'] === true ? 'asked' : url === undefined ? 'auto' : 'off',
    intervalMs: interval * 1000,
  };
}

export function earlyStopSettingsFrom(o: ParsedOptions, checkEveryMs: number): EarlyStopSettings {
  const maxErrorRate = o['max-error-rate'];
  const window = typeof o['stop-window'] === 'number' ? o['stop-window'] : 10;
  return {
    onSaturation: o['stop-on-saturation'] === true,
    ...(typeof maxErrorRate === 'number' ? { maxErrorRate } : {}),
    windowMs: window * 1000,
    checkEveryMs,
  };
}
