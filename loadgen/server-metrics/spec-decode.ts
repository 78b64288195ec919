// vLLM's speculative-decoding figures of a run, as `vllm bench serve` (serve.py at the pinned commit) derives them
// from the server's counters read before the first request and after the drain: drafts, draft tokens and accepted
// tokens over the run, the acceptance rate (accepted over drafted, in percent), the mean acceptance length (1 +
// accepted per draft: the bonus token counts) and each draft position's acceptance (its accepted tokens per
// draft). Read from the run's server-metrics scrape: its baseline and its sample after the drain. Like vLLM's,
// none when either reading lacks the counters or the run drafted no token.

import type { ServerReading } from './server-reading.js';
import type { ServerScrape } from './server-scraper.js';

export interface SpecDecodeStats {
  readonly numDrafts: number;
  readonly draftTokens: number;
  readonly acceptedTokens: number;
  /** Accepted over drafted tokens, in percent. */
  readonly acceptanceRate: number;
  /** 1 + accepted tokens per draft; 0 without drafts. */
  readonly acceptanceLength: number;
  /** Per draft position (in the positions' order), its accepted tokens per draft, as a fraction. */
  readonly perPositionAcceptanceRates: readonly number[];
}

interface SpecCounts {
  readonly drafts: number;
  readonly draftTokens: number;
  readonly accepted: number;
  readonly perPosition: Readonly<Record<string, number>>;
}

/** The counters as vLLM's client reads them (each whole, a missing one 0), or null when the page has none. */
function countsOf(reading: ServerReading): SpecCounts | null {
  const { specDrafts, specDraftTokens, specAcceptedTokens } = reading.counters;
  const perPosition = reading.specAcceptedPerPosition;
  if (specDrafts === null && specDraftTokens === null && specAcceptedTokens === null && perPosition === null)
    return null;
  return {
    drafts: Math.trunc(specDrafts ?? 0),
    draftTokens: Math.trunc(specDraftTokens ?? 0),
    accepted: Math.trunc(specAcceptedTokens ?? 0),
    perPosition: perPosition ?? {},
  };
}

/** The figures between two readings of the same server; undefined when vLLM would print none. */
export function specDecodeBetween(before: ServerReading, after: ServerReading): SpecDecodeStats | undefined {
  const a = countsOf(before);
  const b = countsOf(after);
  if (a === null || b === null) return undefined;
  const numDrafts = b.drafts - a.drafts;
  const draftTokens = b.draftTokens - a.draftTokens;
  const acceptedTokens = b.accepted - a.accepted;
  if (draftTokens <= 0) return undefined;
  const perPositionAcceptanceRates: number[] = [];
  if (numDrafts > 0) {
    const positions = [...new Set([...Object.keys(a.perPosition), ...Object.keys(b.perPosition)])]
      .map(Number)
      .sort((x, y) => x - y);
    for (const position of positions) {
      const first = Math.trunc(a.perPosition[position] ?? 0);
      // A position missing after the run had not moved since the baseline.
      const last = Math.trunc(b.perPosition[position] ?? first);
      perPositionAcceptanceRates.push((last - first) / numDrafts);
    }
  }
  return {
    numDrafts,
    draftTokens,
    acceptedTokens,
    acceptanceRate: (acceptedTokens / draftTokens) * 100,
    acceptanceLength: numDrafts > 0 ? 1 + acceptedTokens / numDrafts : 0,
    perPositionAcceptanceRates,
  };
}

/** The run's figures from its scrape: the baseline and the sample after the drain (none when that one failed). */
export function specDecodeOfScrape(scrape: ServerScrape): SpecDecodeStats | undefined {
  const first = scrape.samples[0];
  const last = scrape.samples.at(-1);
  if (!scrape.lastAfterDrain || first === undefined || last === undefined || first === last) return undefined;
  return specDecodeBetween(first.reading, last.reading);
}
