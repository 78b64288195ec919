// Our extra figures, printed after vLLM's block in the same row format so the eye reads them the same way.

import type { ExtraMetrics } from '../metrics/extra-metrics.js';
import type { MetricStats } from '../metrics/numpy-stats.js';
import { centre, padRight, percentileWord } from './python-format.js';
import { floatRow, intRow } from './vllm-summary.js';

function statRows(name: string, unit: string, stats: MetricStats): string[] {
  if (stats.count === 0) return [`${padRight(`${name}:`, 40)} no data`];
  const suffix = unit === '' ? '' : ` (${unit})`;
  return [
    floatRow(`Mean ${name}${suffix}:`, stats.mean),
    floatRow(`Median ${name}${suffix}:`, stats.median),
    ...stats.percentiles.map(([p, value]) => floatRow(`P${percentileWord(p)} ${name}${suffix}:`, value)),
  ];
}

export function formatExtraSummary(extra: ExtraMetrics): string {
  const lines = [
    centre(' tokenmeter extras ', 50, '='),
    floatRow('Success rate (%):', extra.successRate * 100),
    ...statRows('TTFB', 'ms', extra.ttfb),
    // Only when the model reasoned: otherwise TTFO is TTFT and the rows would say nothing new.
    ...(extra.reasoning.requests === 0
      ? []
      : [
          ...statRows('TTFO', 'ms', extra.ttfo),
          ...statRows('reasoning time', 'ms', extra.reasoningTime),
          intRow('Requests that reasoned:', extra.reasoning.requests),
          intRow('Total reasoning tokens:', extra.reasoning.tokens),
        ]),
    ...statRows('tokens per chunk', '', extra.tokensPerChunk),
    // Only with a running usage on every chunk (--per-chunk-usage): otherwise each chunk's tokens are not known.
    ...(extra.chunkUsage.requests === 0
      ? []
      : [
          intRow('Requests with per-chunk usage:', extra.chunkUsage.requests),
          floatRow(
            'Multi-token chunks (%):',
            extra.chunkUsage.chunks === 0
              ? 0
              : (extra.chunkUsage.multiTokenChunks / extra.chunkUsage.chunks) * 100,
          ),
          ...statRows('per-token ITL', 'ms', extra.perTokenItl),
        ]),
    ...statRows('schedule lag', 'ms', extra.scheduleLag),
    ...statRows('client queue time', 'ms', extra.clientQueue),
    intRow('Requests with server usage counts:', extra.outputTokenSources.usage),
    intRow('Requests counted by our tokenizer:', extra.outputTokenSources.tokenizer),
    // vLLM's "Total input tokens" is the server's count where it gave one; ours beside it.
    intRow('Total input tokens (our tokenizer):', extra.inputTokens.byTokenizer),
    intRow('Requests with server input counts:', extra.inputTokens.requestsWithServerCount),
  ];
  return `${lines.join('\n')}\n`;
}
