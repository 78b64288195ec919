// `tokenmeter top --url URL [--url URL...]`: a live view of running gateways, read from their /metrics pages.

import { UsageError } from '../shared/user-facing-error.js';
import { runTop, type TopEnd } from '../top/run-top.js';
import { metricsUrlOf } from '../top/scrape.js';
import { SORT_KEYS } from '../top/top-rows.js';
import { defineCommand, EXIT_INTERRUPTED, EXIT_OK, EXIT_RUN_FAILED } from './command.js';

const EXIT_STATUS: Record<TopEnd, number> = {
  shown: EXIT_OK,
  quit: EXIT_OK,
  unreachable: EXIT_RUN_FAILED,
  interrupted: EXIT_INTERRUPTED,
};

export const topCommand = defineCommand({
  usage: ['top --url http://127.0.0.1:8080 [--url http://10.0.0.2:9464/metrics ...] [--once]'],
  options: [
    {
      name: 'url',
      type: 'list',
      valueName: 'URL',
      help: "A gateway's metrics URL (host:port alone means its /metrics); repeat for replicas, whose rows add up",
      env: 'TOKENMETER_TOP_URL',
    },
    {
      name: 'interval',
      type: 'number',
      valueName: 'SECONDS',
      help: 'Seconds between readings',
      default: 1,
      min: 0.2,
      max: 60,
    },
    {
      name: 'window',
      type: 'number',
      valueName: 'SECONDS',
      help: 'Rates, percentiles and errors cover this many seconds of readings',
      default: 10,
      min: 1,
      max: 3600,
    },
    {
      name: 'sort',
      type: 'string',
      valueName: 'COLUMN',
      help: 'Row order: busiest first (rps), slowest TTFT p99 first, most errors first, or by name',
      choices: SORT_KEYS,
      default: 'rps',
    },
    {
      name: 'metrics-token-env',
      type: 'string',
      valueName: 'VAR',
      help: "Environment variable holding the gateways' metrics token (when their metrics.tokenEnv is set)",
    },
    {
      name: 'once',
      type: 'boolean',
      help: 'Print one frame (two readings, one interval apart) as plain lines and exit',
    },
  ],
  details:
    'On a terminal the view is full-screen and redraws each interval (q quits, s changes the order); in a pipe ' +
    'it prints one frame after another. Exit status 1 with --once when no gateway could be read.',
  async run({ options }) {
    const urls = options['url'];
    if (urls.length === 0)
      throw new UsageError('give at least one --url (a gateway, e.g. http://127.0.0.1:8080)');
    const end = await runTop(
      {
        urls: urls.map(metricsUrlOrUsageError),
        intervalSeconds: options['interval'],
        windowSeconds: options['window'],
        sortKey: options['sort'],
        once: options['once'],
        metricsToken: metricsTokenFrom(options['metrics-token-env']),
      },
      process.stdout,
      process.stdin,
    );
    return EXIT_STATUS[end];
  },
});

function metricsUrlOrUsageError(given: string): string {
  try {
    const url = metricsUrlOf(given);
    if (!url.startsWith('http://') && !url.startsWith('https://')) throw new Error('not http');
    return url;
  } catch {
    throw new UsageError(`--url must be an http(s) URL such as http://127.0.0.1:8080 (got '${given}')`);
  }
}

function metricsTokenFrom(variable: string | undefined): string | null {
  if (variable === undefined) return null;
  const token = process.env[variable]?.trim();
  if (token === undefined || token === '') {
    throw new UsageError(`--metrics-token-env names ${variable}, which is not set or empty`);
  }
  return token;
}
