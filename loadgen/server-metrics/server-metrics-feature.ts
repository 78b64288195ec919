// The server's own /metrics through a run (--server-metrics-url and its interval) as a run feature
// (loadgen/feature.ts): the scraper reads a baseline before the first request and a last sample after the drain,
// publishing each sample for the early stop; the series and its summary are saved as `tokenmeter.server_metrics`
// (server-metrics-json.ts) and shown in the report's server section (server-section.ts); vLLM's speculative-
// decoding figures, when the counters show drafts, join vLLM's own block. Shards' series, read back from their
// files, are joined by time (server-series.ts, mergeSeries): every shard read the same server on a shared t = 0.

import type { RunFeature } from '../feature.js';
import {
  SERVER_METRICS_KEY,
  type ServerMetricsRun,
  serverMetricsFromResult,
  serverMetricsJson,
  serverMetricsRun,
} from './server-metrics-json.js';
import type { ServerMetricsSettings } from './server-metrics-settings.js';
import { ServerMetricsScraper, type ServerScrape } from './server-scraper.js';
import { clientTtftOf, formatServerSection } from './server-section.js';
import { mergeSeries, seriesOfScrape } from './server-series.js';
import { type SpecDecodeStats, specDecodeOfScrape } from './spec-decode.js';

/** A run's server metrics: the series (or why none), and vLLM's speculative decoding when there were drafts. */
export interface ServerPart {
  readonly run: ServerMetricsRun;
  readonly specDecode?: SpecDecodeStats;
}

/** Every shard's series merged; a shard's "none" when no shard had any. */
function merge(parts: readonly ServerPart[]): ServerPart | undefined {
  const merged = mergeSeries(parts.flatMap((p) => (p.run.available ? [p.run.series] : [])));
  if (merged !== null) return { run: serverMetricsRun(merged, merged.url, '') };
  return parts[0];
}

export const serverMetricsFeature: RunFeature<ServerMetricsSettings, ServerPart> = {
  name: 'server metrics',
  async start(settings, context) {
    const scraper = await ServerMetricsScraper.start(settings, context.origin);
    scraper.onSample((sample) => context.serverSamples.publish(sample));
    let scrape: ServerScrape | undefined;
    return {
      stop: async () => {
        scrape = await scraper.finish();
      },
      seen(runStartedAtMs) {
        if (scrape === undefined) return undefined;
        const specDecode = specDecodeOfScrape(scrape);
        return {
          run: serverMetricsRun(
            seriesOfScrape(scrape, runStartedAtMs),
            scrape.url,
            scrape.unavailable ?? 'no sample could be read',
          ),
          ...(specDecode === undefined ? {} : { specDecode }),
        };
      },
    };
  },
  aggregate: (_settings, _records, seen) => seen,
  merge,
  json: {
    write: (part) => ({ [SERVER_METRICS_KEY]: serverMetricsJson(part.run) }),
    read(result) {
      const run = serverMetricsFromResult(result);
      return run === undefined ? undefined : { run };
    },
  },
  report: {
    slot: 'section',
    lines: (part, { records }) => formatServerSection(part.run, clientTtftOf(records)),
  },
  vllm: (part) => (part.specDecode === undefined ? {} : { specDecode: part.specDecode }),
};
