// The flags of bench and sweep that read the server's own metrics and stop a run whose answer is known
// (docs/loadgen.md, "Server metrics" and "Stopping early").

import { DEFAULT_STOP_WINDOW_S } from '../../loadgen/early-stop/early-stop-settings.js';
import { DEFAULT_SERVER_METRICS_INTERVAL_S } from '../../loadgen/server-metrics/server-metrics-settings.js';
import type { OptionSpec } from '../shared/option-schema.js';

export const SERVER_METRICS_OPTIONS = [
  {
    name: 'server-metrics-url',
    type: 'string',
    valueName: 'URL',
    help: "The server's Prometheus page (default: the target's /metrics; through a tokenmeter gateway, give the upstream's)",
  },
  {
    name: 'server-metrics-interval',
    type: 'number',
    min: 0.05,
    max: 60,
    default: DEFAULT_SERVER_METRICS_INTERVAL_S,
    valueName: 'S',
    help: 'Seconds between samples of the server and GPU metrics (a baseline before the run and a last one after it too)',
  },
  { name: 'no-server-metrics', type: 'boolean', help: "Do not read the server's /metrics" },
  {
    name: 'gpu-metrics-url',
    type: 'string',
    valueName: 'URL',
    help: "A DCGM exporter's Prometheus page: the GPUs' power, energy, utilisation and memory over the run",
  },
  {
    name: 'nvidia-smi',
    type: 'boolean',
    help: "Sample this machine's GPUs with nvidia-smi (done anyway where it is on the PATH and no --gpu-metrics-url is given); say so when it is not there",
  },
  {
    name: 'no-gpu-metrics',
    type: 'boolean',
    help: 'Read no GPU figures (neither --gpu-metrics-url nor nvidia-smi)',
  },
  {
    name: 'stop-on-saturation',
    type: 'boolean',
    help: "Stop when achieved falls behind offered over --stop-window, or the server's waiting queue grows through it; exits 4",
  },
  {
    name: 'max-error-rate',
    type: 'number',
    min: 0,
    max: 1,
    valueName: 'F',
    help: 'Stop when more than this share of the requests finished within --stop-window failed; exits 4',
  },
  {
    name: 'stop-window',
    type: 'number',
    min: 1,
    default: DEFAULT_STOP_WINDOW_S,
    valueName: 'S',
    help: 'Seconds of the sliding window --stop-on-saturation and --max-error-rate read',
  },
] as const satisfies readonly OptionSpec[];
